#!/usr/bin/env bash
# tests/cli/test_stats.sh - --stats prints every row the run's statistics hold: a chain of the
# most stages a chain takes (GS_CHAIN_MAX, pipeline/pipeline.h) prints one row per stage beside
# the reader's, the backend's and the writer's, in text and in json, and exits 0. Under
# `make SANITIZE=1` an out-of-bounds row is an AddressSanitizer error, which fails here.
# Prints PASS/FAIL lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

max=$(sed -n 's/^#define GS_CHAIN_MAX \([0-9][0-9]*\).*/\1/p' pipeline/pipeline.h)
[ -n "$max" ] || { fail stats_chain_max "no GS_CHAIN_MAX in pipeline/pipeline.h"; exit 1; }
chain=(scan -t i32)
for ((k = 1; k < max; k++)); do chain+=(then scan); done

"$G" gen -q -n 1000 -t i32 --seed 5 >"$T/in.raw"

# The text rows: "K scan" for each stage, then the writer's row after the last.
"$G" "${chain[@]}" --stats -q "$T/in.raw" "$T/out.raw" 2>"$T/err"
rc=$?
rows=$(grep -c '^  [0-9]* scan  *busy ' "$T/err")
if [ $rc -ne 0 ]; then fail stats_chain_max_text "exit $rc: $(head -c 300 "$T/err")"
elif [ "$rows" -ne "$max" ]; then fail stats_chain_max_text "$rows stage rows, want $max: $(head -c 300 "$T/err")"
elif ! grep -q "^  $max scan  *busy " "$T/err" || ! grep -q '^  encode+write busy ' "$T/err"; then
    fail stats_chain_max_text "no row for stage $max or for the writer"
else pass stats_chain_max_text; fi

# The json rows, to /dev/null (whose write row has no rate).
"$G" "${chain[@]}" --stats=json -q "$T/in.raw" /dev/null 2>"$T/json"
rc=$?
names=$(grep -o '"name":"[0-9]* scan"' "$T/json" | wc -l)
if [ $rc -ne 0 ]; then fail stats_chain_max_json "exit $rc: $(head -c 300 "$T/json")"
elif [ "$names" -ne "$max" ]; then fail stats_chain_max_json "$names stage rows, want $max"
elif ! python3 -c 'import json, sys; json.loads(open(sys.argv[1]).read())' "$T/json" 2>/dev/null; then
    fail stats_chain_max_json "not one json object: $(head -c 300 "$T/json")"
else pass stats_chain_max_json; fi
