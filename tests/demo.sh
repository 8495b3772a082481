#!/usr/bin/env bash
# make demo: the main jobs on the sample data in data/, printing a little of each result.
set -eu
cd "$(dirname "$0")/.."
G=./gpustream
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== gpustream info (first lines)"; $G info | head -6
echo
echo "== compact: keep the nonzero readings of a zstd-compressed sensor log"
$G compact --pred nonzero --stats data/sensor.i32.zst "$out/nonzero.zst"
echo "kept $($G compact --pred nonzero --count data/sensor.i32.zst) of $($G convert data/sensor.i32.zst --to text | wc -l) readings"
echo
echo "== minmax: 20-tick envelope of a price series (CSV column by name)"
$G minmax -w 20 data/prices.csv --col price --to csv "$out/env.csv"
head -4 "$out/env.csv"
echo
echo "== scan: running maximum of the price (CSV in, CSV out)"
$G scan --op max data/prices.csv --col price --to csv | head -4
echo
echo "== a pipeline: generate 1M random-walk floats, window min/max, count the rows"
echo "rows: $($G gen -n 1M -t f32 --dist walk --seed 7 | $G minmax -w 500 -t f32 --to text --stats | wc -l)"
