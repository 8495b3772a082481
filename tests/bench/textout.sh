#!/usr/bin/env bash
# tests/bench/textout.sh - csv output formatted on the GPU against the CPU backend (and BASE, an older
# build, in turn): raw f64 input (`gen --dist walk`) to csv, and csv input (tests/bench/prices_csv.py)
# to csv, every output to /dev/null, for the sizes given; the crossovers of auto's rule for floats
# printed as text (pipeline/plan.h). The median of REPS runs after a warm-up, seconds of the whole
# process.
#   bash tests/bench/textout.sh                         (raw 2^25 2^26 2^27 2^28; csv 4e7 1e8 rows)
#   RAW="2^26" CSV_ROWS="1e8" BASE=old/gpustream REPS=2 bash tests/bench/textout.sh
REPS=${REPS:-3}
. "$(dirname "$0")/lib.sh"
RAW=${RAW:-2^25 2^26 2^27 2^28}
CSV_ROWS=${CSV_ROWS:-4e7 1e8}
header "csv output: the GPU formatting it against the CPU backend"
has_gpu || echo "SKIP the GPU rows: no GPU answers here"
backends() { # LABEL ARGS...: the job on each backend
    local label=$1 b
    shift
    for b in $(has_gpu && echo gpu) cpu; do in_turn "$label --backend $b" @BIN@ "$@" --backend $b -q; done
}
for n in $RAW; do
    "$BIN" gen -n "$n" -t f64 --dist walk -q -f "$D/w.raw" || exit 1
    for j in "rolling -w 500 --agg mean,std" "minmax -w 500" "scan --op max" "compact --pred gt:0"; do
        # shellcheck disable=SC2086
        backends "raw f64 $n -> csv: $j" $j -t f64 --from raw --to csv "$D/w.raw"
    done
done
rm -f "$D/w.raw"
for rows in $CSV_ROWS; do
    python3 tests/bench/prices_csv.py "$D/p.csv" "$rows" || { echo "bench: the CSV could not be generated (numpy?)"; exit 1; }
    for j in "rolling -w 500 --agg mean,std --col price" "minmax -w 500 --col price" "scan --col volume -t i64" \
        "compact --pred gt:100 --col price"; do
        # shellcheck disable=SC2086
        backends "csv $rows rows -> csv: $j" $j "$D/p.csv"
    done
done
