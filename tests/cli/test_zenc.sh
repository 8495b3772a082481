#!/usr/bin/env bash
# tests/cli/test_zenc.sh - the engine's and the writer's path for output encoded as zstd frames by
# the backend (gs_engine_opts.zencode -> output chunks of frames -> gs_writer_write_frames), run
# without a GPU: with GS_TEST_CPU_ZENC=1 the CPU backend hands every output chunk back as frames
# compressed on the host without content size or checksum, as nvCOMP writes them on the GPU, and
# with GS_TEST_CPU_ZENC=2 every other chunk (frames after values, values after frames). Each case
# against the same command without it: the zstd CLI decodes the output to the same bytes and tests
# it, so does gpustream's own reader (raw outputs), every frame carries its content size and
# checksum, and --stats=json says how much went as frames (all of it, or some). tests/gpu/codec.sh runs the same path on a GPU with nvCOMP.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

if ! command -v zstd >/dev/null; then
    skip "zenc" "no zstd CLI"
    exit 0
fi
# enc_bytes FILE: the raw bytes the test encoder took (0 if it did not run)
enc_bytes() { grep -o '"name":"zstd encode (frames, test)","busy_s":[0-9.]*,"bytes":[0-9]*' "$1" | grep -o '[0-9]*$' || echo 0; }

# same NAME MODE WANT(all|some) IN OUTNAME ARGS...: the verb with and without the frames path
same() {
    local name="zenc: $1" mode=$2 want=$3 in=$4 out=$5 e
    shift 5
    rm -f "$T/$out" "$T/b.$out" "$T/a.dec" "$T/b.dec"
    GS_TEST_CPU_ZENC=$mode "$G" "$@" --backend cpu --stats=json "$in" -f "$T/$out" 2>"$T/err"; e=$?
    "$G" "$@" --backend cpu "$in" -f "$T/b.$out" 2>/dev/null
    zstd -qdc "$T/b.$out" >"$T/b.dec" 2>/dev/null
    local eb; eb=$(enc_bytes "$T/err")
    local raw; raw=$(stat -c %s "$T/b.dec")
    local ok=0
    case $want in
    all) [ "$eb" -gt 0 ] && [ "$eb" -ge $((raw - 128)) ] && ok=1 ;; # an npy header goes as values
    some) [ "$eb" -gt 0 ] && [ "$eb" -lt "$raw" ] && ok=1 ;;
    esac
    local sums; sums=$(python3 tests/zstd_frames.py --flags "$T/$out" 2>&1 | awk '$4 != 1 || $5 != 1' | head -1)
    local own=1 # gpustream's own reader (libzstd on the pool) takes the raw files back too
    case $out in *.npy.zst) ;; *) "$G" convert --codec cpu --from raw -t u32 "$T/$out" -f - 2>/dev/null | cmp -s - "$T/b.dec" || own=0 ;; esac
    if [ $e = 0 ] && zstd -qt "$T/$out" 2>/dev/null && zstd -qdc "$T/$out" 2>/dev/null | cmp -s - "$T/b.dec" &&
        [ $ok = 1 ] && [ -z "$sums" ] && [ $own = 1 ]; then pass "$name"
    else fail "$name" "exit $e, encoded $eb of $raw bytes (want $want), frames without size/checksum: ${sums:-none}, read back by gpustream: $own, $(head -c 300 "$T/err")"; fi
}

for t in i32 f64 u64; do
    "$G" gen -n 3000001 -t $t --dist sparse:0.5 --seed 7 -f "$T/v.raw"
    for m in 1 2; do
        w=all
        [ $m = 2 ] && w=some
        same "$t scan, 64K frames, 1M chunks, mode $m" $m $w "$T/v.raw" o.zst scan -t $t --chunk 1M --frame-size 64K
        same "$t compact nonzero, mode $m" $m $w "$T/v.raw" o.zst compact --pred nonzero -t $t --chunk 2M --frame-size 64K
        same "$t compact --indices, mode $m" $m $w "$T/v.raw" o.zst compact --pred nonzero --indices -t $t --chunk 1M --frame-size 64K
        same "$t minmax -w 500, mode $m" $m $w "$T/v.raw" o.zst minmax -w 500 -t $t --chunk 1M --frame-size 64K
        same "$t minmax -w 3 --partial, mode $m" $m $w "$T/v.raw" o.zst minmax -w 3 --partial -t $t --chunk 1M --frame-size 64K
    done
done
"$G" gen -n 3000001 -t i32 --dist sparse:0.5 --seed 8 -f "$T/v.raw"
same "chain compact then scan" 1 all "$T/v.raw" o.zst compact --pred nonzero -t i32 --chunk 1M --frame-size 64K then scan
same "chain, every other chunk" 2 some "$T/v.raw" o.zst compact --pred nonzero -t i32 --chunk 1M --frame-size 64K then scan
same "96K frames (chunks end in short frames)" 1 all "$T/v.raw" o.zst scan -t i32 --chunk 1M --frame-size 96K
same "one chunk for the whole input" 1 all "$T/v.raw" o.zst scan -t i32 --chunk 64M --frame-size 64K
same "16 MiB frames (the default)" 1 all "$T/v.raw" o.zst scan -t i32 --chunk 4M
same "npy.zst (the header goes as values first)" 1 all "$T/v.raw" o.npy.zst scan -t i32 --chunk 1M --frame-size 64K
same "npy.zst, every other chunk" 2 some "$T/v.raw" o.npy.zst minmax -w 9 -t i32 --chunk 1M --frame-size 64K
"$G" gen -n 3000001 -t i32 --dist uniform:0:2147483647 --seed 9 -f "$T/u.raw"
same "incompressible values" 1 all "$T/u.raw" o.zst scan -t i32 --op max --chunk 1M --frame-size 64K
"$G" gen -n 1 -t i32 --seed 3 -f "$T/one.raw"
same "one element" 1 all "$T/one.raw" o.zst scan -t i32
# nothing kept: no frames from the backend, the writer's one empty frame
: >"$T/none.raw"
rm -f "$T/n.zst"
GS_TEST_CPU_ZENC=1 "$G" compact --pred nonzero -t i32 --backend cpu "$T/none.raw" -f "$T/n.zst" 2>"$T/err"; e=$?
if [ $e = 0 ] && zstd -qt "$T/n.zst" && [ "$(zstd -qdc "$T/n.zst" | wc -c)" = 0 ]; then pass "zenc: no element: one empty frame"
else fail "zenc: no element: one empty frame" "exit $e $(head -c 200 "$T/err")"; fi
# compacted to nothing but the input is not empty: chunks of no output between chunks of frames
"$G" gen -n 2000000 -t i32 --dist sparse:0.999 --seed 4 -f "$T/s.raw"
same "chunks with no output between frames" 1 all "$T/s.raw" o.zst compact --pred nonzero -t i32 --chunk 256K --frame-size 64K
# to a pipe
rm -f "$T/p.zst"
GS_TEST_CPU_ZENC=1 "$G" scan -t i32 --chunk 1M --frame-size 64K --backend cpu -z "$T/v.raw" -f - 2>"$T/err" >"$T/p.zst"; e=$?
"$G" scan -t i32 --chunk 1M --backend cpu "$T/v.raw" -f "$T/p.want"
if [ $e = 0 ] && zstd -qdc "$T/p.zst" | cmp -s - "$T/p.want"; then pass "zenc: to stdout"
else fail "zenc: to stdout" "exit $e $(head -c 200 "$T/err")"; fi
# csv output takes no frames: values, encoded by the writer
rm -f "$T/c.csv.zst"
GS_TEST_CPU_ZENC=1 "$G" scan -t i32 --chunk 1M --backend cpu --stats=json "$T/v.raw" -f "$T/c.csv.zst" 2>"$T/err"; e=$?
if [ $e = 0 ] && [ "$(enc_bytes "$T/err")" = 0 ] && zstd -qt "$T/c.csv.zst"; then pass "zenc: csv output stays values"
else fail "zenc: csv output stays values" "exit $e, encoded $(enc_bytes "$T/err") $(head -c 200 "$T/err")"; fi
