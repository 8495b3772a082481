#!/usr/bin/env bash
# tests/cli/test_readme.sh - every example in README.md runs as written on the sample data in
# data/: each line of the ```sh blocks and each `gpustream ...` example in the verb table, from a
# scratch directory holding data/, with this build's gpustream first on the PATH. Each must exit 0
# (every command of a pipe) and leave no empty file behind.
set -u
cd "$(dirname "$0")/../.."
G=${G:-./gpustream}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/work"
ln -s "$(cd "$(dirname "$G")" && pwd)/$(basename "$G")" "$T/bin/gpustream"
cp -r data "$T/work/data"

# Fenced ```sh blocks, then the table cells of the form `gpustream ...` (\| is a table's escaped |).
awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on && NF { print }' README.md >"$T/examples"
grep '^|' README.md | grep -o '`gpustream [^`]*`' | tr -d '`' | sed 's/\\|/|/g' >>"$T/examples"
n=$(wc -l <"$T/examples")
if [ "$n" -lt 10 ]; then
    echo "FAIL readme_examples_found: only $n examples in README.md"
    exit 0
fi
i=0
while IFS= read -r cmd; do
    i=$((i + 1))
    # an example that needs a tool this machine lacks (zstd, zstdcat) is skipped, not failed
    missing=""
    for tool in $(printf '%s\n' "$cmd" | tr '|;&' '\n\n\n' | awk '{ print $1 }' | sort -u); do
        [ "$tool" = gpustream ] || command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
    done
    if [ -n "$missing" ]; then
        echo "SKIP readme_example_$i: no$missing on this machine"
        continue
    fi
    if (cd "$T/work" && PATH="$T/bin:$PATH" bash -o pipefail -c "$cmd") >"$T/out" 2>"$T/err" </dev/null; then
        empty=$(find "$T/work" -maxdepth 1 -type f -empty | sed "s|$T/work/||" | tr '\n' ' ')
        if [ -n "$empty" ]; then echo "FAIL readme_example_$i: '$cmd' left empty files: $empty"
        else echo "PASS readme_example_$i: $cmd"; fi
    else
        echo "FAIL readme_example_$i: '$cmd' exited non-zero: $(tail -2 "$T/err" | tr '\n' '|')"
    fi
done <"$T/examples"
