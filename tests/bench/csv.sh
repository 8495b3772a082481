#!/usr/bin/env bash
# tests/bench/csv.sh - CSV in and out on the host's cores, files in /dev/shm, the process's wall time:
#   ingest  `convert F.csv --to raw --threads T` for three files of N values (default 40M): f64 at
#           full precision (normal:0:1000), i64 (uniform:-1e6:1e6) and short decimals like prices
#           (f32 walk), MB/s of CSV; beside it tests/bench/csv_baseline.c (one thread of libcsv +
#           strtod over the same file, built here where libcsv is installed);
#   output  `convert -t f64 x.raw --to csv --threads T` (shortest round-trip digits).
#   bash tests/bench/csv.sh                                        (THREADS "1 2 4 8 16")
#   N=1M THREADS="1 2" REPS=1 bash tests/bench/csv.sh
. "$(dirname "$0")/lib.sh"
N=${N:-40M}
THREADS=${THREADS:-1 2 4 8 16}
header "csv: $N values a file, threads $THREADS"
"$BIN" gen -q -n "$N" -t f64 --dist normal:0:1000 --to csv -f "$D/f64.csv" || exit 1
"$BIN" gen -q -n "$N" -t i64 --dist uniform:-1000000:1000000 --to csv -f "$D/i64.csv"
"$BIN" gen -q -n "$N" -t f32 --dist walk --to csv -f "$D/short.csv"
if cc -O2 tests/bench/csv_baseline.c -lcsv -o "$D/csv_baseline" 2>"$D/cc.err"; then
    for f in f64 short; do "$D/csv_baseline" "$D/$f.csv"; done
else
    echo "SKIP csv baseline: libcsv does not build here ($(head -c 160 "$D/cc.err"))"
fi
for f in f64 i64 short; do
    size=$(stat -c %s "$D/$f.csv")
    for t in $THREADS; do
        in_turn "csv ingest $f.csv ($size B), --threads $t" @BIN@ convert "$D/$f.csv" --threads "$t" --to raw -f "$D/x.raw" -q
        echo "  $(awk -v b="$size" -v s="$MED" 'BEGIN { printf "%.0f", b / s / 1e6 }') MB/s"
    done
done
"$BIN" convert -q "$D/f64.csv" --to raw -f "$D/x.raw"
for t in $THREADS; do
    in_turn "csv output, $N f64, --threads $t" @BIN@ convert -t f64 "$D/x.raw" --to csv --threads "$t" -f "$D/o.csv" -q
done
