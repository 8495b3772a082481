#!/usr/bin/env bash
# tests/bench/csv_polars.sh - the CSV jobs beside Polars, on one generated CSV: `time,price,volume`,
# ROWS rows (tests/bench/prices_csv.py: price a 4-decimal walk; 10^8 rows are 2.6 GB), every output
# CSV to /dev/null. gpustream with --backend gpu where a GPU answers (else auto), with --backend cpu, and with
# --backend cpu --threads 1; Polars lazy (`scan_csv ... sink_csv`) on all cores and with
# POLARS_MAX_THREADS=1, where `import polars` works in $PYTHON (default python3; else SKIP in those
# cells). Offline: numpy and the binary only. The median of REPS runs after a warm-up, seconds of the
# whole process; one table.
#   bash tests/bench/csv_polars.sh [ROWS]                    (default 1e8; REPS=3)
#   REPS=5 OUT=results PYTHON=venv/bin/python bash tests/bench/csv_polars.sh 1e7
#   ONE_THREAD=0 bash tests/bench/csv_polars.sh             (no one-thread cells: "-")
#   SET=tables bash tests/bench/csv_polars.sh               (rows and columns kept beside the results,
#                                                            each after the same job without them)
REPS=${REPS:-3}
ONE_THREAD=${ONE_THREAD:-1}
. "$(dirname "$0")/lib.sh"
ROWS=${1:-1e8}
header "csv beside Polars: $ROWS rows of time,price,volume$("${PYTHON:-python3}" -c 'import polars; print(", Polars", polars.__version__)' 2>/dev/null)" \
    "median of $REPS runs after a warm-up; seconds of the whole process; outputs CSV to /dev/null"
F=$D/prices.csv
python3 tests/bench/prices_csv.py "$F" "$ROWS" || { echo "bench: the CSV could not be generated (numpy?)"; exit 1; }
echo "file $(stat -c %s "$F") bytes"

# the Polars equivalents, one job a run: minmax = rolling min and max over 500 rows from the 500th,
# rolling = rolling mean and std over 500 rows from the 500th, scan = cumulative sum, compact = the
# rows where price > 100; SET=tables: mean = the rolling mean alone, mean_keep = with the time column
# beside it, rows = the whole rows where price > 100
cat >"$D/polars_job.py" <<'PY'
import sys
import polars as pl
job, f = sys.argv[1], sys.argv[2]
q = pl.scan_csv(f)
if job == "minmax":
    q = q.select(pl.col("price").rolling_min(500).alias("min"), pl.col("price").rolling_max(500).alias("max")).slice(499)
elif job == "rolling":
    q = q.select(pl.col("price").rolling_mean(500).alias("mean"), pl.col("price").rolling_std(500).alias("std")).slice(499)
elif job == "mean":
    q = q.select(pl.col("price").rolling_mean(500).alias("mean")).slice(499)
elif job == "mean_keep":
    q = q.select(pl.col("time"), pl.col("price").rolling_mean(500).alias("mean")).slice(499)
elif job == "rows":
    q = q.filter(pl.col("price") > 100)
elif job == "scan":
    q = q.select(pl.col("volume").cum_sum())
else:
    q = q.filter(pl.col("price") > 100).select("price")
q.sink_csv("/dev/null")
PY
PY=${PYTHON:-python3}
HAVE_POLARS=0
if "$PY" -c 'import polars' 2>/dev/null; then HAVE_POLARS=1; fi

if [ "${SET:-verbs}" = tables ]; then
    JOBS=("compact --pred gt:100 --col price" "compact --pred gt:100 --col price --rows" "rolling -w 500 --col price"
        "rolling -w 500 --col price --keep time")
    PJOBS=(compact rows mean mean_keep)
else
    JOBS=("minmax -w 500 --col price" "rolling -w 500 --agg mean,std --col price" "scan --col volume -t i64"
        "compact --pred gt:100 --col price")
    PJOBS=(minmax rolling scan compact)
fi
# the first column: the GPU backend (auto takes the CPU for text input), or auto without a GPU
FIRST=$(has_gpu && echo "--backend gpu" || echo auto)
COLS=("gpustream $FIRST" "--backend cpu" "--backend cpu --threads 1" "Polars lazy" "Polars lazy, 1 thread")
declare -A CELL
for i in "${!JOBS[@]}"; do
    # shellcheck disable=SC2206
    args=(${JOBS[$i]})
    # shellcheck disable=SC2046
    in_turn "${JOBS[$i]} ($FIRST)" @BIN@ "${args[@]}" $([ "$FIRST" = auto ] || echo "$FIRST") -q "$F"
    CELL[$i,0]=$MED
    in_turn "${JOBS[$i]} --backend cpu" @BIN@ "${args[@]}" --backend cpu -q "$F"
    CELL[$i,1]=$MED
    CELL[$i,2]=-
    if [ "$ONE_THREAD" = 1 ]; then
        in_turn "${JOBS[$i]} --backend cpu --threads 1" @BIN@ "${args[@]}" --backend cpu --threads 1 -q "$F"
        CELL[$i,2]=$MED
    fi
    if [ "$HAVE_POLARS" = 1 ]; then
        in_turn "Polars lazy ${PJOBS[$i]}" "$PY" "$D/polars_job.py" "${PJOBS[$i]}" "$F"
        CELL[$i,3]=$MED
        CELL[$i,4]=-
        if [ "$ONE_THREAD" = 1 ]; then
            in_turn "Polars lazy ${PJOBS[$i]}, POLARS_MAX_THREADS=1" env POLARS_MAX_THREADS=1 "$PY" "$D/polars_job.py" \
                "${PJOBS[$i]}" "$F"
            CELL[$i,4]=$MED
        fi
    else
        echo "SKIP Polars lazy ${PJOBS[$i]}: $PY cannot import polars"
        CELL[$i,3]=SKIP
        CELL[$i,4]=SKIP
    fi
done

echo
printf '| job |'; printf ' %s |' "${COLS[@]}"; echo
printf '|---|'; printf -- '---|%.0s' "${COLS[@]}"; echo
for i in "${!JOBS[@]}"; do
    printf '| `%s` |' "${JOBS[$i]}"
    for c in "${!COLS[@]}"; do printf ' %s |' "${CELL[$i,$c]}"; done
    echo
done
