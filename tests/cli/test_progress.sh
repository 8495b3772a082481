#!/usr/bin/env bash
# tests/cli/test_progress.sh - the progress line as a terminal sees it (stderr a pseudo-terminal,
# through script(1)): on a regular file, raw or zstd (compressed bytes read), it shows the
# percentage and the ETA; from a pipe (size unknown) the bytes and rate alone; -q and
# --no-progress show none. The run is made slow enough for a line or more (0.25 s apart) by the
# O(nW) reference minmax on one thread; nothing here asserts a time.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
if ! command -v script >/dev/null; then skip "progress" "no script(1)"; exit 0; fi
cd "$T"
"$G" gen -q -n 4M -t i32 --seed 3 in.raw
"$G" convert -q -t i32 in.raw in.raw.zst
SLOW="minmax --algo cpu-naive -w 600 --threads 1 --chunk 1M -t i32"

# lines NAME CMD: the progress lines CMD draws on a terminal, one a line
lines() { script -qc "$1" /dev/null </dev/null | tr '\r' '\n' | grep -a '^minmax: ' >"$2"; }
full='^minmax: [0-9.]+ [kMGT]?B +([0-9]+\.[0-9])% +[0-9.]+ [kMGT]?B/s +ETA [0-9]+ s *$'

for f in in.raw in.raw.zst; do
    lines "$G $SLOW -f $f /dev/null" p.txt
    n=$(grep -cE "$full" p.txt)
    bad=$(grep -vE "$full" p.txt | head -1)
    # every percentage within (0, 100]
    over=$(grep -oE '[0-9]+\.[0-9]%' p.txt | tr -d % | awk '$1 <= 0 || $1 > 100' | head -1)
    if [ "$n" -ge 1 ] && [ -z "$bad" ] && [ -z "$over" ]; then pass "progress on $f: percentage and ETA ($n lines)"
    else fail "progress on $f" "$n full lines; odd line [$bad]; percentage [$over]"; fi
done

# From a pipe the size is unknown: bytes and rate, no percentage, no ETA.
lines "cat in.raw | $G $SLOW -f - /dev/null" p.txt
if [ -s p.txt ] && ! grep -qE '%|ETA' p.txt && grep -qE '^minmax: [0-9.]+ [kMGT]?B +[0-9.]+ [kMGT]?B/s *$' p.txt; then
    pass "progress from a pipe: bytes and rate only"
else fail "progress from a pipe" "$(head -c 200 p.txt)"; fi

for opt in -q --no-progress; do
    lines "$G $SLOW $opt -f in.raw /dev/null" p.txt
    if [ ! -s p.txt ]; then pass "no progress with $opt"; else fail "no progress with $opt" "$(head -c 200 p.txt)"; fi
done
