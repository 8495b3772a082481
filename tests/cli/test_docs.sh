#!/usr/bin/env bash
# tests/cli/test_docs.sh - the documentation tells the truth about this repository:
#   - no file speaks of how it was made or points outside the repository;
#   - gpustream.1 and completions/gpustream.bash are what the binary generates from its tables;
#   - the man page renders, the completion loads and completes verbs, options and values, and
#     every value word it offers is one the parsers accept;
#   - --stats counts every byte written: bytes_out equals the output's size in each format.
# Prints PASS/FAIL lines for tests/run.sh (SKIP lines for checks this machine cannot run).
set -u
cd "$(dirname "$0")/../.."
G=${G:-./gpustream}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# ---- words about the making, and references outside the repository ---------------------------
# libzstd's own ZSTD_reset_session_only is allowed. Each word below has one letter in brackets, so
# the pattern matches the word and not itself; this file is not read either. (A run followed by a
# thread or element count is a product message; a bare run number names a measurement by the
# process that made it.)
WORDS='sess[i]on|\bru[n]s? [0-9]{1,2}\b(?! ?(threads|times|elements|blocks|bytes))|iss[u]e ?#?[0-9]+|developm[e]nt machine|dev[- ]m[a]chine|coordin[a]tor|shar[e]d/|anch[o]rs?/|basel[i]ne\.cu|pe[e]rs\.py|des[i]gn\.md|METH[O]D\.md|\.e[x]p/'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z | grep -zv '^tests/cli/test_docs\.sh$' | xargs -0 grep -I -n -i -P "$WORDS" 2>/dev/null |
        grep -v -E 'ZSTD_reset_session' >"$T/words"
    if [ -s "$T/words" ]; then
        fail docs_no_process_words "$(wc -l <"$T/words") lines, first: $(head -5 "$T/words" | cut -c1-160 | tr '\n' '|')"
    else
        pass docs_no_process_words
    fi
else
    skip docs_no_process_words "not a git checkout: no list of tracked files"
fi

# ---- generated files match the binary --------------------------------------------------------
for pair in "man gpustream.1" "complete-bash completions/gpustream.bash"; do
    set -- $pair
    if "$G" --generate "$1" >"$T/gen" && cmp -s "$T/gen" "$2"; then
        pass "docs_generated_$1"
    else
        fail "docs_generated_$1" "$2 differs from 'gpustream --generate $1' (run make man): $(diff "$2" "$T/gen" | head -3 | tr '\n' '|')"
    fi
done
"$G" --generate nonsense >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q 'generate takes man or complete-bash' "$T/err" && pass docs_generate_bad || fail docs_generate_bad "$(cat "$T/err")"

# ---- the man page renders ----------------------------------------------------------------------
if command -v man >/dev/null && command -v groff >/dev/null; then
    if MANWIDTH=80 man -l ./gpustream.1 >"$T/man.txt" 2>"$T/man.err" && [ ! -s "$T/man.err" ] &&
        grep -q '^NAME' "$T/man.txt" && grep -q -- '--window W' "$T/man.txt" && grep -q 'EXAMPLES' "$T/man.txt"; then
        pass docs_man_renders
    else
        fail docs_man_renders "$(head -3 "$T/man.err")"
    fi
    groff -man -Tutf8 -ww -z gpustream.1 2>"$T/groff.err"
    [ ! -s "$T/groff.err" ] && pass docs_man_no_warnings || fail docs_man_no_warnings "$(head -3 "$T/groff.err")"
else
    skip docs_man_renders "man or groff missing (apt-get install man-db groff-base)"
fi

# ---- the completion ----------------------------------------------------------------------------
# complete WORDS...: what the completion offers for the last word, one line, sorted.
complete_words() {
    bash -c '
        source completions/gpustream.bash
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _gpustream
        printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' complete-test "$@"
}
if bash -c 'source completions/gpustream.bash && complete -p gpustream' 2>&1 | grep -q -- '-F _gpustream gpustream'; then
    pass docs_complete_loads
else
    fail docs_complete_loads "complete -p gpustream after sourcing completions/gpustream.bash"
fi
PATH="$PWD:$PATH" # the completion asks the binary for its --algo names
ck() { # name expected-substring words...
    local name=$1 want=$2; shift 2
    local got
    got=$(complete_words "$@")
    case " $got" in *" $want "*) pass "$name" ;; *) fail "$name" "'$*' offers '$got', not '$want'" ;; esac
}
ck docs_complete_verb compact gpustream comp
ck docs_complete_option --window gpustream minmax --wi
ck docs_complete_option_short -w gpustream minmax -
ck docs_complete_type f64 gpustream scan -t ""
ck docs_complete_pred range: gpustream compact --pred ra
ck docs_complete_op max gpustream scan --op ""
ck docs_complete_bench_op compact gpustream bench --op ""
ck docs_complete_algo cpu-vhgw gpustream minmax --algo ""
ck docs_complete_algo_all all gpustream bench --algo ""
ck docs_complete_hostmem registered gpustream scan --host-mem ""
ck docs_complete_generate complete-bash gpustream --generate ""
got=$(complete_words gpustream scan --algo "")
case " $got " in *" cpu-vhgw "*) fail docs_complete_algo_per_verb "scan offers minmax's cpu-vhgw: $got" ;; *) pass docs_complete_algo_per_verb ;; esac
if complete_words gpustream scan --pred "" | grep -q "[^ ]"; then
    fail docs_complete_verb_options "scan completes --pred, which it does not take"
else
    pass docs_complete_verb_options
fi

# Every value word the completion offers is accepted by the option's parser: the option comes
# before --help, which prints the help only after the option was applied (exit 0). Predicates
# are parsed once the input's type is known, so --pred runs on an empty input. A word ending in
# ':' takes parameters: 1 or 0:1.
: >"$T/empty"
accepts() { # verb option word
    local v=$1 o=$2 w=$3 p
    for p in "" 1 0:1; do
        case $w in *:) [ -z "$p" ] && continue ;; *) [ -n "$p" ] && continue ;; esac
        if [ "$o" = --pred ]; then
            "$G" compact --pred "$w$p" --count -t i32 "$T/empty" >/dev/null 2>&1 && return 0
        else
            "$G" "$v" "$o" "$w$p" --help >/dev/null 2>&1 && return 0
        fi
    done
    return 1
}
bad=""
n=0
while read -r opt verbs words; do
    for v in ${verbs//|/ }; do
        for w in $words; do
            n=$((n + 1))
            accepts "$v" "$opt" "$w" || bad="$bad $v:$opt:$w"
        done
    done
done < <(awk '/^    (-.\|)?--[a-z-]+\)$/ { sub(/^ +/, ""); sub(/\)$/, ""); n = split($0, a, "|"); opt = a[n]; next }
              /^        [a-z|]+\) words=.*;;$/ && opt != "" { line = $0; sub(/^ +/, "", line); split(line, b, ")");
                  w = line; sub(/^[^'\'']*'\''/, "", w); sub(/'\''.*$/, "", w); print opt, b[1], w }
              /return ;;$/ { opt = "" }' completions/gpustream.bash)
if [ "$n" -lt 20 ]; then
    fail docs_complete_values_accepted "only $n value words found in the completion"
elif [ -n "$bad" ]; then
    fail docs_complete_values_accepted "refused:$bad"
else
    pass docs_complete_values_accepted
fi

# ---- --stats bytes_out is the output's size ------------------------------------------------------
"$G" gen -n 100000 -t i32 --dist sparse:0.5 -f "$T/in.raw"
for case in "raw out.raw" "npy out.npy" "csv out.csv" "text out.txt" "zstd out.raw.zst" "csvzst out.csv.zst"; do
    set -- $case
    "$G" compact --pred nonzero -t i32 --stats=json -q "$T/in.raw" "$T/$2" 2>"$T/stats.json"
    want=$(stat -c %s "$T/$2" 2>/dev/null || echo missing)
    got=$(grep -o '"bytes_out":[0-9]*' "$T/stats.json" | cut -d: -f2)
    [ "$got" = "$want" ] && pass "docs_stats_bytes_out_$1" || fail "docs_stats_bytes_out_$1" "--stats says $got, the file has $want bytes"
done
# a small output through stdout (one final flush), and gen
"$G" gen -n 10 -t f64 --to csv --stats=json 2>"$T/stats.json" >"$T/small.csv"
got=$(grep -o '"bytes_out":[0-9]*' "$T/stats.json" | cut -d: -f2)
[ "$got" = "$(stat -c %s "$T/small.csv")" ] && pass docs_stats_bytes_out_stdout || fail docs_stats_bytes_out_stdout "says $got, stdout got $(stat -c %s "$T/small.csv")"
# rates: '-' (json null) where meaningless
"$G" scan -t i32 --stats "$T/in.raw" -f /dev/null 2>"$T/stats.txt"
if grep -E '^  encode\+write .* - GB/s$' "$T/stats.txt" >/dev/null && grep -q '(/dev/null)' "$T/stats.txt"; then
    pass docs_stats_devnull_rate
else
    fail docs_stats_devnull_rate "$(tr '\n' '|' <"$T/stats.txt")"
fi
"$G" scan -t i32 --stats=json "$T/in.raw" -f /dev/null 2>"$T/stats.json"
grep -q '"name":"encode+write","busy_s":[0-9.]*,"bytes":[0-9]*,"gb_per_s":null' "$T/stats.json" &&
    pass docs_stats_devnull_json || fail docs_stats_devnull_json "$(cat "$T/stats.json")"

# ---- bench and help -----------------------------------------------------------------------------
if ! "$G" info | grep -q '^devices    none'; then
    skip docs_bench_gpu_no_header "a GPU is present"
else
    "$G" bench --backend gpu --op scan -n 1000 >"$T/bench.out" 2>"$T/bench.err"
    rc=$?
    [ "$rc" -eq 1 ] && [ ! -s "$T/bench.out" ] && grep -q 'no usable GPU' "$T/bench.err" &&
        pass docs_bench_gpu_no_header || fail docs_bench_gpu_no_header "exit $rc, stdout: $(head -2 "$T/bench.out" | tr '\n' '|')"
fi
"$G" bench --backend cpu --op scan -n 1000 --reps 1 >"$T/bench.out" 2>&1
awk '$1 == "cpu" && $11 != "-" { bad = 1 } END { exit bad }' "$T/bench.out" && grep -q '^cpu ' "$T/bench.out" &&
    pass docs_bench_cpu_ceiling_dash || fail docs_bench_cpu_ceiling_dash "$(head -4 "$T/bench.out" | tr '\n' '|')"
"$G" bench --help | awk '/^  / && /--/ { if (l) print l; l = $0; next } { l = l " " $0 } END { print l }' | tr -s ' ' >"$T/help.txt" # an option a line
if grep -q 'required' "$T/help.txt"; then fail docs_bench_help "bench --help says 'required'"
elif ! grep -E -- '--elements N .*default 2\^28' "$T/help.txt" >/dev/null; then fail docs_bench_help "bench --help lacks the default -n"
else pass docs_bench_help; fi

# ---- progress names its verb ------------------------------------------------------------------
if command -v script >/dev/null; then
    # the second chunk arrives after the first progress interval
    script -qec "{ $G gen -n 1M -t i32; sleep 0.6; $G gen -n 1M -t i32; } | $G scan -t i32 --chunk 1M --progress - /dev/null" \
        /dev/null >"$T/prog.txt" 2>&1
    grep -q 'scan: ' "$T/prog.txt" && pass docs_progress_names_verb || fail docs_progress_names_verb "$(tr '\r' '\n' <"$T/prog.txt" | head -3 | tr '\n' '|')"
    script -qec "{ $G gen -n 1M -t i32; sleep 0.6; $G gen -n 1M -t i32; } | $G compact --pred nonzero then scan -t i32 --chunk 1M --progress - /dev/null" \
        /dev/null >"$T/prog.txt" 2>&1
    grep -q 'compact then scan: ' "$T/prog.txt" && pass docs_progress_names_chain ||
        fail docs_progress_names_chain "$(tr '\r' '\n' <"$T/prog.txt" | head -3 | tr '\n' '|')"
else
    skip docs_progress_names_verb "script(1) missing"
fi
