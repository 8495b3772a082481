#!/usr/bin/env bash
# make plots: turn `gpustream bench --csv` files into PNG charts with gnuplot.
#   CSV=...   bench CSV files (default: docs/bench/device_*.csv and stream_*.csv)   OUT=... (default docs/plots)
# Charts (each only when its rows are present):
#   scan_time_vs_n.png      device time vs n per scan variant (log-log)
#   block_sweep.png         Gelem/s vs threads per block per (op, variant), i32 (--block rows)
#   stream_modes.png        streamed GB/s per host-memory mode x buffers (--stream rows)
#   minmax_vs_window.png    Gelem/s vs window per minmax variant (log x)
#   compact_density.png     Gelem/s vs density per compact variant
# Columns are found by their names in each file's header line, so files written before the block
# column existed read as block 0. A file where some case (op, variant, type, n, param) ran at more
# than one block size is a block sweep: its rows go to block_sweep.png only (those with a block
# size), the other charts take the other files.
set -eu
cd "$(dirname "$0")/../.."
OUT=${OUT:-docs/plots}
CSV=${CSV:-$(ls docs/bench/device_*.csv docs/bench/stream_*.csv 2>/dev/null || true)}
command -v gnuplot >/dev/null || { echo "plots: gnuplot missing (apt-get install gnuplot-nox)"; exit 1; }
[ -n "$CSV" ] || { echo "plots: no CSV (run: gpustream bench --csv docs/bench/all.csv)"; exit 1; }
mkdir -p "$OUT"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
# Every row in one layout: COLS by name, then sweep (1 = a block-sweep row).
COLS=mode,op,variant,type,n,param,block,ms,gelem_s,gb_s,pct_ceiling,vs_cub,check
for f in $CSV; do
    awk -F, -v cols="$COLS" '
        function get(name) { return (name in at) ? $(at[name]) : (name == "block" ? 0 : "") }
        function key() { return get("op") SUBSEP get("variant") SUBSEP get("type") SUBSEP get("n") SUBSEP get("param") }
        FNR == 1 { pass++ }
        /^#/ { next }
        /^mode,/ { split("", at); for (i = 1; i <= NF; i++) at[$i] = i; next }
        pass == 1 { if (!((key(), get("block")) in seen)) { seen[key(), get("block")] = 1; if (++nb[key()] > 1) sweep = 1 } next }
        {
            nc = split(cols, c, ","); line = ""
            for (i = 1; i <= nc; i++) line = line get(c[i]) ","
            print line (sweep ? 1 : 0)
        }' "$f" "$f"
done >"$W/all"
gpu=$(grep -h "^# gpu=" $CSV | grep -v "gpu=none" | head -1 | sed 's/^# gpu=\([^ ]*\( [^ =]*\)*\) copy_gbs.*/\1/')
# cols PROGRAM: awk over the rows of $W/all, with f("column name") (and f("sweep")) for fields
cols() {
    awk -F, -v W="$W" -v cols="$COLS,sweep" "BEGIN { _n = split(cols, _c, \",\"); for (_i = 1; _i <= _n; _i++) _at[_c[_i]] = _i }
        function f(name) { return \$(_at[name]) }
        $1" "$W/all"
}
# series FILTER XCOL YCOL [KEY] -> one file per KEY (an awk expression; default the variant):
# $W/s_<key>, lines "x y" sorted by x
series() {
    local key=${4:-'f("variant")'}
    rm -f "$W"/s_*
    cols "$1 { print f(\"$2\"), f(\"$3\") > (W \"/s_\" $key) }"
    for f in "$W"/s_*; do if [ -e "$f" ]; then sort -g -o "$f" "$f"; fi; done
}
plot() { # file title xlabel ylabel logx logy [more gnuplot commands]
    local lines=""
    for f in "$W"/s_*; do [ -e "$f" ] || return 0; lines="$lines '$f' using 1:2 with linespoints title '${f##*/s_}',"; done
    gnuplot <<EOG
set terminal pngcairo size 720,440 font 'sans,10'
set output '$OUT/$1'
set title "$2 ($gpu)"
set xlabel '$3'; set ylabel '$4'
set key outside right; set grid
$( [ "$5" = 1 ] && echo "set logscale x" )
$( [ "$6" = 1 ] && echo "set logscale y" )
${7:-}
plot ${lines%,}
EOG
    echo "plots: $OUT/$1"
}
series 'f("mode")=="device" && f("op")=="scan" && f("type")=="i32" && f("sweep")==0' n ms
plot scan_time_vs_n.png "scan i32: time vs n" "elements" "ms (median)" 1 1
# block sweep: i32 at the largest n of the sweep rows; a line per (op, variant), and per param for
# an op swept at several (densities, windows)
SWEEP='f("mode")=="device" && f("type")=="i32" && f("sweep")==1 && f("block") > 0'
bn=$(cols "$SWEEP && f(\"n\") + 0 > m { m = f(\"n\") + 0 } END { print m + 0 }")
multi=$(cols "$SWEEP && f(\"n\") == $bn && !((f(\"op\"), f(\"param\")) in s) { s[f(\"op\"), f(\"param\")] = 1; c[f(\"op\")]++ }
    END { for (o in c) if (c[o] > 1) printf \" %s\", o }")
series "$SWEEP && f(\"n\") == $bn" block gelem_s \
    "f(\"op\") \" \" f(\"variant\") (index(\"$multi \", \" \" f(\"op\") \" \") ? \" \" f(\"param\") : \"\")"
plot block_sweep.png "i32, n = $bn: throughput vs threads per block" "threads per block" "Gelem/s" 0 0 \
    "set logscale x 2; set xtics (32, 64, 128, 256, 512, 1024); set xrange [24:1400]"
series 'f("mode")!="stream" && f("op")=="minmax" && f("type")=="i32" && f("sweep")==0' param gelem_s
sed -i 's/^W=//' "$W"/s_* 2>/dev/null || true
for f in "$W"/s_*; do if [ -e "$f" ]; then sort -g -o "$f" "$f"; fi; done
plot minmax_vs_window.png "minmax i32: throughput vs window" "window W" "Gelem/s" 1 1
series 'f("mode")!="stream" && f("op")=="compact" && f("type")=="i32" && f("sweep")==0' param gelem_s
sed -i 's/^density=//' "$W"/s_* 2>/dev/null || true
plot compact_density.png "compact i32: throughput vs density kept" "fraction kept" "Gelem/s" 0 0
# stream: bars of GB/s per (mode, buffers), one cluster per op
if cols 'f("mode")=="stream"' | grep -q .; then
    cols 'f("mode")=="stream" { print f("op") "\t" f("param") "\t" f("gb_s") }' | sed 's/ buffers=/ x/' >"$W/stream"
    gnuplot <<EOG
set terminal pngcairo size 820,440 font 'sans,10'
set output '$OUT/stream_modes.png'
set title "streamed through the GPU: GB/s each way by host memory x buffers ($gpu)"
set style data histograms; set style fill solid 0.8; set boxwidth 0.8
set ylabel 'GB/s (input bytes / wall time)'; set grid y; set yrange [0:]; set bmargin 7; set xtics rotate by -35
set datafile separator "\t"
plot '$W/stream' using 3:xtic(strcol(1)." ".strcol(2)) title ''
EOG
    echo "plots: $OUT/stream_modes.png"
fi
