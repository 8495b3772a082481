#!/usr/bin/env bash
# make plots: turn `gpustream bench --csv` files into PNG charts with gnuplot.
#   CSV=...   bench CSV files (default: docs/bench/device_*.csv and stream_*.csv)   OUT=... (default docs/plots)
# Charts (each only when its rows are present):
#   scan_time_vs_n.png      device time vs n per scan variant (log-log)
#   stream_modes.png        streamed GB/s per host-memory mode x buffers (--stream rows)
#   minmax_vs_window.png    Gelem/s vs window per minmax variant (log x)
#   compact_density.png     Gelem/s vs density per compact variant
set -eu
cd "$(dirname "$0")/../.."
OUT=${OUT:-docs/plots}
CSV=${CSV:-$(ls docs/bench/device_*.csv docs/bench/stream_*.csv 2>/dev/null || true)}
command -v gnuplot >/dev/null || { echo "plots: gnuplot missing (apt-get install gnuplot-nox)"; exit 1; }
[ -n "$CSV" ] || { echo "plots: no CSV (run: gpustream bench --csv docs/bench/all.csv)"; exit 1; }
mkdir -p "$OUT"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
cat $CSV | grep -v '^#' | grep -v '^mode,' >"$W/all"
gpu=$(grep -h "^# gpu=" $CSV | grep -v "gpu=none" | head -1 | sed 's/^# gpu=\([^ ]*\( [^ =]*\)*\) copy_gbs.*/\1/')
# series FILTER-AWK XCOL YCOL -> one file per variant: $W/s_<variant>
series() {
    rm -f "$W"/s_*
    awk -F, -v W="$W" "$1 { print \$$2, \$$3 > (W \"/s_\" \$3) }" "$W/all"
    for f in "$W"/s_*; do if [ -e "$f" ]; then sort -g -o "$f" "$f"; fi; done
}
plot() { # file title xlabel ylabel logx logy
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
plot ${lines%,}
EOG
    echo "plots: $OUT/$1"
}
series '$1=="device" && $2=="scan" && $4=="i32"' 5 7
plot scan_time_vs_n.png "scan i32: time vs n" "elements" "ms (median)" 1 1
series '$1!="stream" && $2=="minmax" && $4=="i32"' 6 8
sed -i 's/^W=//' "$W"/s_* 2>/dev/null || true
for f in "$W"/s_*; do if [ -e "$f" ]; then sort -g -o "$f" "$f"; fi; done
plot minmax_vs_window.png "minmax i32: throughput vs window" "window W" "Gelem/s" 1 1
series '$1!="stream" && $2=="compact" && $4=="i32"' 6 8
sed -i 's/^density=//' "$W"/s_* 2>/dev/null || true
plot compact_density.png "compact i32: throughput vs density kept" "fraction kept" "Gelem/s" 0 0
# stream: bars of GB/s per (mode, buffers), one cluster per op
if awk -F, '$1=="stream"' "$W/all" | grep -q .; then
    awk -F, '$1=="stream" { print $2 "\t" $6 "\t" $9 }' "$W/all" | sed 's/ buffers=/ x/' >"$W/stream"
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
