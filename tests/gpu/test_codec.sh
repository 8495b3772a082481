#!/usr/bin/env bash
# tests/gpu/test_codec.sh - the GPU zstd codec (nvCOMP), run by tests/run.sh where a GPU answers:
#   - round trips of every type x format x frame size: GPU encode -> zstd CLI -t and -d -> the CPU
#     codec's output, and back through the GPU decoder;
#   - zstd CLI files concatenated (a skippable frame, a frame without checksum) -> GPU decode;
#   - a corruption matrix (bit flips in frame headers, block headers, block bodies, checksums;
#     truncations at and inside frame boundaries; declared sizes that lie): exit 1, one line, no output;
#   - frames decoded by the GPU backend where its kernels read them, and its output encoded where the
#     kernels wrote it (every op, chunk edges, halos, frames that do not qualify, corrupt frames caught
#     on the device), each against the same verb with --codec cpu;
#   - --codec auto's rule (the GPU encodes inputs from 1 GiB), compute-sanitizer memcheck, and a
#     differential fuzz of mutated zstd inputs, GPU codec against CPU codec (CODEC_FUZZ_SECONDS, 60).
# Every gpustream call runs under `timeout` (60 s): a hang is a FAIL, not a stuck run. SKIP lines
# where this build has no GPU, nvCOMP does not load, or python3, the zstd CLI or compute-sanitizer
# is missing. Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
. tests/zstd_cli.sh
GS=$G
G="timeout -k 5 60 $GS"
KEEP=${OUT:-$PWD/tests/out}   # mutated inputs on which the codecs disagree are kept here
mkdir -p "$KEEP"
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1${2:+: $2}"; }

if ! "$GS" info 2>/dev/null | grep -qE '^devices +[1-9]'; then skip gpu_codec "no CUDA device for this build"; exit 0; fi
if ! "$GS" info | grep -q '^nvcomp  *nvCOMP [0-9]'; then skip gpu_codec "nvCOMP does not load: $("$GS" info | grep ^nvcomp)"; exit 0; fi
if ! command -v python3 >/dev/null; then skip gpu_codec "no python3 (tests/zstd_frames.py finds the frames to corrupt)"; exit 0; fi
"$GS" info | grep "^nvcomp"
[ $ZSTD_CLI = 1 ] || skip codec_zstd_cli "no zstd CLI: round trips and zstd CLI files not read by it"

# ---- round trips ------------------------------------------------------------------------------
for t in i32 i64 u32 u64 f32 f64; do
    for fmt in raw npy; do
        $G gen -n 3000001 -t $t --dist uniform:0:1000 --to $fmt -f "$T/in.$fmt"
        for fs in 1M 16M; do
            name="codec round trip $t $fmt frames $fs"
            $G convert --codec gpu --frame-size $fs -t $t "$T/in.$fmt" -f "$T/g.$fmt.zst" 2>"$T/err" ||
                { bad "$name" "gpu encode: $(cat "$T/err")"; continue; }
            $G convert --codec cpu --frame-size $fs -t $t "$T/in.$fmt" -f "$T/c.$fmt.zst"
            if [ $ZSTD_CLI = 1 ]; then
                zstd -q -t "$T/g.$fmt.zst" || { bad "$name" "zstd -t refuses"; continue; }
                zstd -q -d -c "$T/g.$fmt.zst" >"$T/g.out" && zstd -q -d -c "$T/c.$fmt.zst" >"$T/c.out" &&
                    cmp -s "$T/g.out" "$T/c.out" && cmp -s "$T/g.out" "$T/in.$fmt" || { bad "$name" "zstd -d differs"; continue; }
            fi
            $G convert --codec gpu -t $t --stats "$T/g.$fmt.zst" -f "$T/back.$fmt" 2>"$T/err" &&
                cmp -s "$T/back.$fmt" "$T/in.$fmt" || { bad "$name" "gpu decode differs: $(tail -1 "$T/err")"; continue; }
            grep -q "zstd dec gpu" "$T/err" && ! grep -q "zstd dec gpu.* 0 frames" "$T/err" ||
                { bad "$name" "no frame decoded on the GPU: $(grep zstd "$T/err")"; continue; }
            ok "$name"
        done
    done
done

# ---- zstd CLI files, concatenated -------------------------------------------------------------
if [ $ZSTD_CLI = 1 ]; then
$G gen -n 5000000 -t i32 --dist walk -f "$T/a.raw"
$G gen -n 700000 -t i32 --dist sparse:0.3 --seed 2 -f "$T/b.raw"
$G gen -n 1234567 -t i32 --seed 3 -f "$T/c.raw"
split -b 1M "$T/a.raw" "$T/part."
: >"$T/m.zst"
for p in "$T"/part.*; do zstd -q -c "$p" >>"$T/m.zst"; done   # many 1 MiB frames with checksums
printf '\x50\x2a\x4d\x18\x04\x00\x00\x00abcd' >>"$T/m.zst"   # a skippable frame
zstd -q -c --no-check "$T/b.raw" >>"$T/m.zst"                 # no checksum: the CPU decodes it
zstd -q -19 -c "$T/c.raw" >>"$T/m.zst"
cat "$T/a.raw" "$T/b.raw" "$T/c.raw" >"$T/m.raw"
$G convert --codec gpu -t i32 --stats "$T/m.zst" -f "$T/m.out" 2>"$T/err" && cmp -s "$T/m.out" "$T/m.raw" &&
    grep -q "zstd dec gpu" "$T/err" && ok "codec zstd CLI frames concatenated, skippable, no checksum" ||
    bad "codec zstd CLI frames concatenated" "$(grep -E 'error|zstd' "$T/err")"
fi

# ---- corruption matrix ------------------------------------------------------------------------
# Frame offsets of our own file (GPU-written, 256 KiB frames), from the frame headers.
$G gen -n 3000000 -t i32 --dist sparse:0.5 -f "$T/s.raw"
$G convert --codec gpu --frame-size 256K -t i32 "$T/s.raw" -f "$T/s.zst"
$G convert --codec gpu --frame-size 256K -t i32 "$T/s.raw" --to npy -f "$T/s.npy.zst"
python3 tests/zstd_frames.py "$T/s.zst" >"$T/frames"   # frame start, header length, frame length
nfr=$(wc -l <"$T/frames")
read -r f1 h1 l1 < <(sed -n "$((nfr / 2))p" "$T/frames")   # a frame in the middle
flip() { # file offset bitmask -> $T/bad.zst
    python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[int(sys.argv[2])]^=int(sys.argv[3]); open(sys.argv[4],'wb').write(d)" "$1" "$2" "$3" "$T/bad.zst"
}
refuse() { # name, then the file is $T/bad.zst (or $2)
    local f=${2:-$T/bad.zst} e
    rm -f "$T/o.raw"
    $G convert --codec gpu -t i32 "$f" -f "$T/o.raw" 2>"$T/err"
    e=$?
    if [ $e = 1 ] && [ ! -e "$T/o.raw" ] && [ "$(wc -l <"$T/err")" = 1 ]; then ok "codec refuses: $1"
    else bad "codec refuses: $1" "exit $e, output $([ -e "$T/o.raw" ] && echo present || echo absent): $(head -2 "$T/err")"; fi
}
[ "$nfr" -gt 4 ] && ok "codec corruption base: $nfr frames" || bad "codec corruption base" "$nfr frames"
flip "$T/s.zst" $((f1 + 4)) 8;                 refuse "reserved frame header bit"
flip "$T/s.zst" $((f1 + 1)) 1;                 refuse "frame magic"
flip "$T/s.zst" $((f1 + h1 - 4)) 1;            refuse "declared content size lies (by 1)"
flip "$T/s.zst" $((f1 + h1 - 1)) 2;            refuse "declared content size lies (by far)"
flip "$T/s.zst" $((f1 + h1)) 6;                refuse "block header: reserved type"
flip "$T/s.zst" $((f1 + h1 + 2)) 128;          refuse "block header: size"
flip "$T/s.zst" $((f1 + h1 + 3)) 1;            refuse "literals header"
for off in 40 1000 $((l1 / 2)) $((l1 - 12)); do
    flip "$T/s.zst" $((f1 + h1 + off)) 4;      refuse "block body bit flip at +$off"
done
flip "$T/s.zst" $((f1 + l1 - 2)) 1;            refuse "checksum"
# the case that once kept nvCOMP's decoder busy for ever: with -v, at most one note besides the error
flip "$T/s.zst" $((f1 + h1 + l1 / 2)) 4
rm -f "$T/o.raw"; $G convert --codec gpu -v -t i32 "$T/bad.zst" -f "$T/o.raw" 2>"$T/err"; e=$?
notes=$(grep -c "did not finish" "$T/err")
[ $e = 1 ] && [ ! -e "$T/o.raw" ] && [ "$notes" -le 1 ] && ok "codec refuses with -v: block body mid-frame ($notes watchdog notes)" ||
    bad "codec refuses with -v: block body mid-frame" "exit $e: $(head -3 "$T/err")"
head -c $((f1 + l1 / 2)) "$T/s.zst" >"$T/bad.zst"; refuse "truncated inside a frame"
head -c $((f1 + h1 + 1)) "$T/s.zst" >"$T/bad.zst"; refuse "truncated inside a block header"
head -c $((f1 + 3)) "$T/s.zst" >"$T/bad.zst";   refuse "truncated inside a frame header"
fsz=$(stat -c %s "$T/s.npy.zst")
head -c $((fsz - 1)) "$T/s.npy.zst" >"$T/bad.zst"; refuse "truncated in the last checksum (npy)"
# drop the last frame: a frame boundary; the npy header's count says it is short
head -c "$(python3 tests/zstd_frames.py "$T/s.npy.zst" | tail -1 | cut -d' ' -f1)" "$T/s.npy.zst" >"$T/bad.zst"
rm -f "$T/o.raw"; $G convert --codec gpu "$T/bad.zst" -f "$T/o.npy" 2>"$T/err"; e=$?
[ $e = 1 ] && [ ! -e "$T/o.npy" ] && ok "codec refuses: truncated at a frame boundary (npy count)" ||
    bad "codec refuses: truncated at a frame boundary (npy)" "exit $e $(cat "$T/err")"

# ---- frames decoded where the kernels read them (a verb on the GPU backend with --codec gpu) ------
# Each case against the CPU backend with libzstd: identical output; "zstd decode (gpu)" in --stats
# where the frames qualify (up to 1 MiB, checksums), none where they do not (16 MiB frames, npy).
# (--codec gpu on the GPU backend: the reader waits for the backend, every chunk goes there.
# Floats: the GPU backend with --codec cpu is the reference, the same chunks in the same order.)
dv() { # name, want (gpu: frames decoded on the device; host: none; any), file, verb args...
    local name="frames on the device: $1" want=$2 f=$3 e
    shift 3
    rm -f "$T/dg" "$T/dc"
    $G "$@" --codec gpu --backend gpu --stats "$f" -f "$T/dg" 2>"$T/err"; e=$?
    $G "$@" --codec cpu --backend gpu "$f" -f "$T/dc" 2>"$T/err.c"
    local dec; dec=$(grep -c "zstd decode (gpu)" "$T/err")
    if [ $e = 0 ] && cmp -s "$T/dg" "$T/dc" &&
        { [ $want = any ] || { [ $want = gpu ] && [ "$dec" = 1 ]; } || { [ $want = host ] && [ "$dec" = 0 ]; }; }; then
        ok "$name"
    else bad "$name" "exit $e, decode lines $dec, $(cmp "$T/dg" "$T/dc" 2>&1 | head -1): $(grep -E 'error|zstd|h2d' "$T/err" | head -4)"; fi
}
for t in i32 i64 f32 f64; do
    $G gen -n 3000001 -t $t --dist sparse:0.5 --seed 7 -f "$T/v.raw"
    $G convert --codec gpu --frame-size 64K -t $t "$T/v.raw" -f "$T/v64.zst"
    dv "$t scan, 64K frames, 1M chunks" gpu "$T/v64.zst" scan -t $t --chunk 1M
    dv "$t compact nonzero, 64K frames, 2M chunks" gpu "$T/v64.zst" compact --pred nonzero -t $t --chunk 2M
    dv "$t compact --indices, 1M chunks" gpu "$T/v64.zst" compact --pred nonzero --indices -t $t --chunk 1M
    dv "$t minmax -w 500 (odd halo: decoded aside, copied in place), 1M chunks" gpu "$T/v64.zst" minmax -w 500 -t $t --chunk 1M
    dv "$t minmax -w 2 --partial" gpu "$T/v64.zst" minmax -w 2 --partial -t $t --chunk 1M
done
$G gen -n 3000001 -t i32 --dist sparse:0.5 --seed 8 -f "$T/v.raw"
$G convert --codec gpu --frame-size 64K -t i32 "$T/v.raw" -f "$T/v64.zst"
dv "i32 chain compact then scan" gpu "$T/v64.zst" compact --pred nonzero -t i32 --chunk 1M then scan
dv "i32 compact --buffers 4 --device-alloc async" gpu "$T/v64.zst" compact --pred nonzero -t i32 --chunk 1M --buffers 4 --device-alloc async
dv "i32 --host-mem mapped (frames decode on the host)" host "$T/v64.zst" scan -t i32 --host-mem mapped
$G convert --codec cpu --frame-size 16M -t i32 "$T/v.raw" -f "$T/v16.zst"
dv "i32 16 MiB frames decode on the host" host "$T/v16.zst" scan -t i32
$G convert --codec cpu --frame-size 256K -t i32 "$T/v.raw" -f "$T/v256.zst"
dv "i32 libzstd's 256K frames" gpu "$T/v256.zst" compact --pred gt:0 -t i32 --chunk 4M
$G convert --codec gpu --frame-size 64K -t i32 "$T/v.raw" --to npy -f "$T/v.npy.zst"
dv "npy.zst (every frame holds the header's offset: the host)" host "$T/v.npy.zst" scan
$G convert --codec cpu --frame-size 96K -t i32 "$T/v.raw" -f "$T/v96.zst"
dv "96K frames in 1M chunks (frames straddle chunks: the host)" host "$T/v96.zst" scan -t i32 --chunk 1M
dv "96K frames in 3M chunks" gpu "$T/v96.zst" scan -t i32 --chunk 3M
head -c 4 "$T/v.raw" >"$T/one.raw"; $G convert --codec gpu -t i32 "$T/one.raw" -f "$T/one.zst"
dv "one element (the host or the device)" any "$T/one.zst" scan -t i32
: >"$T/none.raw"; $G convert --codec gpu -t i32 "$T/none.raw" -f "$T/none.zst"
dv "no element" host "$T/none.zst" scan -t i32
if [ $ZSTD_CLI = 1 ]; then
    split -b 1M "$T/v.raw" "$T/vp."
    : >"$T/vm.zst"
    for p in "$T"/vp.*; do zstd -q -c "$p" >>"$T/vm.zst"; done
    dv "zstd CLI files of 1 MiB concatenated" gpu "$T/vm.zst" compact --pred nonzero -t i32 --chunk 2M
    rm -f "$T"/vp.*
fi
# corrupt frames on this path: every case exit 1, no output, one line; a checksum that lies is
# caught by the device's check (its message), a body flip by the decoder or the check
frefuse() { # name, expected text in the error (or "")
    rm -f "$T/o.raw"
    $G compact --pred nonzero --codec gpu --backend gpu --chunk 1M -t i32 "$T/bad.zst" -f "$T/o.raw" 2>"$T/err"; local e=$?
    if [ $e = 1 ] && [ ! -e "$T/o.raw" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "$2" "$T/err"; then ok "frames on the device refuse: $1"
    else bad "frames on the device refuse: $1" "exit $e, output $([ -e "$T/o.raw" ] && echo present || echo absent): $(head -2 "$T/err")"; fi
}
python3 tests/zstd_frames.py "$T/v64.zst" >"$T/vframes"
read -r g1 gh gl < <(sed -n "$(( $(wc -l <"$T/vframes") - 3 ))p" "$T/vframes")   # late: past the chunks read while CUDA starts
flip "$T/v64.zst" $((g1 + gl - 3)) 1;        frefuse "checksum (found by the device's XXH64)" "failed its check"
flip "$T/v64.zst" $((g1 + gl - 1)) 128;      frefuse "checksum, top bit" "failed its check"
for off in 40 $((gl / 2)) $((gl - 12)); do
    flip "$T/v64.zst" $((g1 + gh + off)) 4;  frefuse "block body bit flip at +$off" "corrupt"
done
flip "$T/v64.zst" $((g1 + gh - 2)) 1;        frefuse "declared content size lies" ""
head -c $((g1 + gl / 2)) "$T/v64.zst" >"$T/bad.zst"; frefuse "truncated inside a frame" ""
if command -v compute-sanitizer >/dev/null; then
    for c in good body sum; do
        case $c in
        good) cp "$T/v64.zst" "$T/bad.zst" ;;
        body) flip "$T/v64.zst" $((g1 + gh + 40)) 4 ;;
        sum) flip "$T/v64.zst" $((g1 + gl - 3)) 1 ;;
        esac
        timeout -k 5 120 compute-sanitizer --tool memcheck --error-exitcode 9 $GS minmax -w 77 --codec gpu --backend gpu \
            -t i32 --chunk 1M "$T/bad.zst" -f "$T/o.raw" >"$T/san" 2>&1
        e=$?
        { [ $c = good ] && [ $e = 0 ]; } || { [ $c != good ] && [ $e = 1 ]; } && grep -q "ERROR SUMMARY: 0 errors" "$T/san" &&
            ok "frames on the device memcheck $c" || bad "frames on the device memcheck $c" "exit $e: $(grep -E 'ERROR|error' "$T/san" | head -3)"
    done
fi
rm -f "$T"/v*.zst "$T"/v.raw "$T"/one.* "$T"/none.* "$T/dg" "$T/dc"

# ---- the output encoded where the kernels wrote it (a verb on the GPU backend, --codec gpu, .zst out) --
# Each case against the GPU backend with --codec cpu writing the same format uncompressed: the zstd
# CLI tests the file and decodes it to those bytes, every frame has its content size and checksum,
# and "zstd encode (gpu)" is in --stats where the backend encoded (none where it cannot: mapped
# host memory, --device-alloc async).
ev() { # name, want (gpu|host), input, output suffix (raw.zst|npy.zst), verb args...
    local name="output encoded on the device: $1" want=$2 in=$3 sfx=$4 e
    shift 4
    rm -f "$T/eg.$sfx" "$T/ec.${sfx%.zst}"
    $G "$@" --codec gpu --backend gpu --stats "$in" -f "$T/eg.$sfx" 2>"$T/err"; e=$?
    $G "$@" --codec cpu --backend gpu "$in" -f "$T/ec.${sfx%.zst}" 2>"$T/err.c"
    local enc; enc=$(grep -c "zstd encode (gpu)" "$T/err")
    local nosum; nosum=$(python3 tests/zstd_frames.py --flags "$T/eg.$sfx" 2>&1 | awk '$4 != 1 || $5 != 1' | head -1)
    if [ $e = 0 ] && { [ $ZSTD_CLI = 0 ] || { zstd -qt "$T/eg.$sfx" && zstd -qdc "$T/eg.$sfx" | cmp -s - "$T/ec.${sfx%.zst}"; }; } &&
        [ -z "$nosum" ] && { { [ $want = gpu ] && [ "$enc" = 1 ]; } || { [ $want = host ] && [ "$enc" = 0 ]; }; }; then
        ok "$name"
    else bad "$name" "exit $e, encode lines $enc, frame without size/checksum: ${nosum:-none}: $(grep -E 'error|zstd|d2h' "$T/err" | head -4)"; fi
}
for t in i32 i64 f32 f64; do
    $G gen -n 3000001 -t $t --dist sparse:0.5 --seed 7 -f "$T/v.raw"
    ev "$t scan, 64K frames, 1M chunks" gpu "$T/v.raw" raw.zst scan -t $t --chunk 1M
    ev "$t compact nonzero, 2M chunks" gpu "$T/v.raw" raw.zst compact --pred nonzero -t $t --chunk 2M
    ev "$t compact --indices" gpu "$T/v.raw" raw.zst compact --pred nonzero --indices -t $t --chunk 1M
    ev "$t minmax -w 500" gpu "$T/v.raw" raw.zst minmax -w 500 -t $t --chunk 1M
done
$G gen -n 3000001 -t i32 --dist sparse:0.5 --seed 8 -f "$T/v.raw"
$G convert --codec gpu --frame-size 64K -t i32 "$T/v.raw" -f "$T/v64.zst"
ev "zstd in and out: compact, frames decoded and encoded on the device" gpu "$T/v64.zst" raw.zst compact --pred nonzero -t i32 --chunk 1M
ev "chain compact then scan" gpu "$T/v.raw" raw.zst compact --pred nonzero -t i32 --chunk 1M then scan
ev "256K frames" gpu "$T/v.raw" raw.zst scan -t i32 --chunk 4M --frame-size 256K
ev "1 MiB frames" gpu "$T/v.raw" raw.zst scan -t i32 --chunk 4M --frame-size 1M
ev "96K frames (each chunk ends in a short frame)" gpu "$T/v.raw" raw.zst scan -t i32 --chunk 1M --frame-size 96K
ev "npy.zst (the header as a frame of its own first)" gpu "$T/v.raw" npy.zst minmax -w 9 -t i32 --chunk 1M
ev "--buffers 4" gpu "$T/v.raw" raw.zst compact --pred nonzero -t i32 --chunk 1M --buffers 4
ev "--host-mem mapped (encoded on the host)" host "$T/v.raw" raw.zst scan -t i32 --host-mem mapped
ev "--device-alloc async (encoded on the host)" host "$T/v.raw" raw.zst scan -t i32 --device-alloc async
$G gen -n 3000001 -t i32 --dist uniform:0:2147483647 --seed 9 -f "$T/u.raw"
ev "incompressible output" gpu "$T/u.raw" raw.zst compact --pred nonzero -t i32 --chunk 1M
$G gen -n 2000000 -t i32 --dist sparse:0.999 --seed 4 -f "$T/s9.raw"
ev "chunks that keep nothing between chunks that keep some" gpu "$T/s9.raw" raw.zst compact --pred nonzero -t i32 --chunk 256K
head -c 4 "$T/v.raw" >"$T/one.raw"
ev "one element" gpu "$T/one.raw" raw.zst scan -t i32
$G gen -n 100000 -t i32 --dist sparse:0 -f "$T/z.raw"
ev "nothing kept (the writer's one empty frame)" host "$T/z.raw" raw.zst compact --pred nonzero -t i32
rm -f "$T/p.zst"
$G scan -t i32 --chunk 1M --codec gpu --backend gpu -z "$T/v.raw" -f - >"$T/p.zst" 2>"$T/err"; e=$?
$G scan -t i32 --chunk 1M --codec cpu --backend gpu "$T/v.raw" -f "$T/p.want"
if [ $e = 0 ] && { [ $ZSTD_CLI = 0 ] || zstd -qdc "$T/p.zst" | cmp -s - "$T/p.want"; }; then ok "output encoded on the device: to stdout"
else bad "output encoded on the device: to stdout" "exit $e $(head -c 200 "$T/err")"; fi
if command -v compute-sanitizer >/dev/null; then
    timeout -k 5 120 compute-sanitizer --tool memcheck --error-exitcode 9 $GS compact --pred nonzero --codec gpu --backend gpu \
        -t i32 --chunk 1M "$T/v64.zst" -f "$T/o.zst" >"$T/san" 2>&1
    e=$?
    [ $e = 0 ] && grep -q "ERROR SUMMARY: 0 errors" "$T/san" && ok "output encoded on the device: memcheck" ||
        bad "output encoded on the device: memcheck" "exit $e: $(grep -E 'ERROR|error' "$T/san" | head -3)"
fi
rm -f "$T"/v*.zst "$T"/v.raw "$T"/u.raw "$T"/s9.raw "$T"/one.raw "$T"/z.raw "$T"/eg.* "$T"/ec.* "$T"/p.* "$T/o.zst"

# ---- --codec auto: the GPU encodes inputs from 1 GiB (GS_CODEC_AUTO_GPU_ENC_MIN_BYTES), libzstd below ----
$G gen -n 268435456 -t i32 --dist sparse:0.5 -f "$T/big.raw"     # exactly 1 GiB
head -c 1073741820 "$T/big.raw" >"$T/small.raw"                   # one element less
for f in big small; do
    $G convert -t i32 --stats "$T/$f.raw" -f "$T/$f.zst" 2>"$T/err.$f"; e=$?
    gpu=$(grep -c "zstd enc gpu busy .* [1-9][0-9]* frames" "$T/err.$f")
    want=$([ $f = big ] && echo 1 || echo 0)
    if [ $e = 0 ] && [ "$gpu" = "$want" ] && { [ $ZSTD_CLI = 0 ] || zstd -q -d -c "$T/$f.zst" | cmp -s - "$T/$f.raw"; }; then
        ok "codec auto: $f input, GPU encoder $([ $want = 1 ] && echo used || echo not used), output decodes to the input"
    else bad "codec auto: $f input" "exit $e, gpu lines $gpu: $(grep zstd "$T/err.$f")"; fi
done
# a .zst input counts its decompressed bytes (its first frames' ratio): 1.25 GiB of i32 in about 300 MB
$G gen -n 335544320 -t i32 --dist sparse:0.5 --seed 2 -f "$T/bigq.raw"
$G convert --codec gpu -t i32 "$T/bigq.raw" -f "$T/bigq.zst"
$G compact --pred nonzero --stats "$T/bigq.zst" -f "$T/bigc.zst" 2>"$T/err"; e=$?
$G compact --pred nonzero --codec cpu "$T/bigq.raw" -f "$T/bigc.raw"
if [ $e = 0 ] && grep -q "zstd encode (gpu)" "$T/err" &&
    { [ $ZSTD_CLI = 0 ] || zstd -q -d -c "$T/bigc.zst" | cmp -s - "$T/bigc.raw"; }; then
    ok "codec auto: compact of a 1.25 GiB .zst ($(stat -c %s "$T/bigq.zst") B) encodes on the GPU backend, output as libzstd's"
else bad "codec auto: compact of a 1.25 GiB .zst" "exit $e: $(grep -E "zstd|error" "$T/err")"; fi
$G convert -t i32 --level 5 --stats "$T/big.raw" -f "$T/big5.zst" 2>"$T/err"; e=$?
[ $e = 0 ] && ! grep -q "zstd enc gpu" "$T/err" && ok "codec auto: --level keeps libzstd" || bad "codec auto: --level" "exit $e $(grep zstd "$T/err")"
$G convert -t i32 --backend cpu --stats "$T/big.raw" -f "$T/bigc.zst" 2>"$T/err"; e=$?
[ $e = 0 ] && ! grep -q "zstd enc gpu" "$T/err" && ok "codec auto: --backend cpu keeps libzstd" || bad "codec auto: --backend cpu" "exit $e $(grep zstd "$T/err")"
rm -f "$T"/big* "$T"/small*

# ---- compute-sanitizer memcheck -----------------------------------------------------------------
if command -v compute-sanitizer >/dev/null; then
    for c in good body header; do
        case $c in
        good) cp "$T/s.zst" "$T/bad.zst" ;;
        body) flip "$T/s.zst" $((f1 + h1 + 1000)) 4 ;;
        header) flip "$T/s.zst" $((f1 + h1 + 2)) 128 ;;
        esac
        timeout -k 5 120 compute-sanitizer --tool memcheck --error-exitcode 9 $GS convert --codec gpu -t i32 "$T/bad.zst" \
            -f "$T/o.raw" >"$T/san" 2>&1
        e=$?
        { [ $c = good ] && [ $e = 0 ]; } || { [ $c != good ] && [ $e = 1 ]; } && grep -q "ERROR SUMMARY: 0 errors" "$T/san" &&
            ok "codec memcheck $c" || bad "codec memcheck $c" "exit $e: $(grep -E 'ERROR|error' "$T/san" | head -3)"
    done
    timeout -k 5 120 compute-sanitizer --tool memcheck --error-exitcode 9 $GS convert --codec gpu -t i32 "$T/s.raw" \
        -f "$T/o.zst" >"$T/san" 2>&1
    e=$?
    [ $e = 0 ] && ok "codec memcheck encode" || bad "codec memcheck encode" "exit $e: $(grep -E 'ERROR|rror' "$T/san" | head -3)"
else
    skip codec_memcheck "no compute-sanitizer"
fi
rm -f "$T"/*.raw "$T"/*.out "$T"/part.* "$T"/*.npy

# ---- differential fuzz: mutated zstd inputs, GPU codec against the CPU codec (CODEC_FUZZ_SECONDS) ----
# Each case: the same exit status, and the same output where both succeed.
secs=${CODEC_FUZZ_SECONDS:-60}
cp "$T/s.zst" "$T/seed.s.zst"
seeds=("$T/seed.s.zst" tests/fuzz/corpus_zstd/*)
n=0 diff=0 end=$((SECONDS + secs))
while [ $SECONDS -lt $end ]; do
    src=${seeds[$((RANDOM % ${#seeds[@]}))]}
    python3 -c "
import random, sys
d = bytearray(open(sys.argv[1], 'rb').read()); r = random.Random(int(sys.argv[3]))
for _ in range(r.choice([1, 1, 2, 4, 16])):
    if not d: break
    k = r.random()
    if k < 0.6: d[r.randrange(len(d))] ^= 1 << r.randrange(8)
    elif k < 0.8: d = d[:r.randrange(len(d) + 1)]
    else: i = r.randrange(len(d)); d[i:i] = bytes(r.randrange(256) for _ in range(r.randrange(1, 9)))
open(sys.argv[2], 'wb').write(d)" "$src" "$T/f.zst" "$n$RANDOM"
    rm -f "$T/fg" "$T/fc"
    if [ $((n % 2)) = 0 ]; then # the GPU codec through the host
        $G convert --codec gpu -t i32 "$T/f.zst" -f "$T/fg" 2>/dev/null; eg=$?
        $G convert --codec cpu -t i32 "$T/f.zst" -f "$T/fc" 2>/dev/null; ec=$?
    else # frames decoded into the GPU backend's input
        $G scan --chunk 256K --codec gpu --backend gpu -t i32 "$T/f.zst" -f "$T/fg" 2>/dev/null; eg=$?
        $G scan --chunk 256K --codec cpu --backend cpu -t i32 "$T/f.zst" -f "$T/fc" 2>/dev/null; ec=$?
    fi
    if [ $eg != $ec ] || { [ $eg = 0 ] && ! cmp -s "$T/fg" "$T/fc"; } || { [ $eg != 0 ] && [ -e "$T/fg" ]; }; then
        diff=$((diff + 1)); cp "$T/f.zst" "$KEEP/codec_fuzz_diff_$diff.zst"
    fi
    n=$((n + 1))
done
[ $diff = 0 ] && ok "codec fuzz: $n mutated inputs, GPU and CPU codecs agree" ||
    bad "codec fuzz" "$diff of $n differ (inputs in $KEEP/codec_fuzz_diff_*.zst)"
