#!/usr/bin/env bash
# tests/cli/test_zframes.sh - the engine's path for zstd frames decoded where the kernels read them
# (gs_reader_frames -> a backend that takes chunks of frames), run without a GPU: with
# GS_TEST_CPU_ZFRAMES=1 the CPU backend takes the frames as the GPU backend does and decodes them
# on the host with the same checks (decoded size, XXH64). Each case against the same command
# without it: identical output; the share taken as frames from --stats=json (all of it where the
# frames fill the chunks, none where they cannot); corrupt frames end with one error line, exit 1
# and no output. tests/gpu/codec.sh runs the same path on a GPU with nvCOMP.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

# (--from raw: the format is not detected, so nothing is peeked; a detected format's peek is given
# back unread, tested below)
# frames_bytes FILE: the bytes the frames stage decoded (0 if it did not run)
frames_bytes() { grep -o '"name":"zstd decode (frames, test)","busy_s":[0-9.]*,"bytes":[0-9]*' "$1" | grep -o '[0-9]*$' || echo 0; }

# same NAME WANT(all|none|some) FILE ARGS...: the verb with and without the frames path
same() {
    local name="zframes: $1" want=$2 f=$3 e
    shift 3
    rm -f "$T/a" "$T/b"
    GS_TEST_CPU_ZFRAMES=1 "$G" "$@" --from "${FROM:-raw}" --backend cpu --stats=json "$f" -f "$T/a" 2>"$T/err"; e=$?
    "$G" "$@" --backend cpu "$f" -f "$T/b" 2>/dev/null
    local fb; fb=$(frames_bytes "$T/err")
    local ok=0
    case $want in
    all) [ "$fb" = "$RAW" ] && ok=1 ;;
    none) [ "$fb" = 0 ] && ok=1 ;;
    some) [ "$fb" -gt 0 ] && [ "$fb" -lt "$RAW" ] && ok=1 ;;
    esac
    if [ $e = 0 ] && cmp -s "$T/a" "$T/b" && [ $ok = 1 ]; then pass "$name"
    else fail "$name" "exit $e, frames decoded $fb of $RAW bytes (want $want), $(cmp "$T/a" "$T/b" 2>&1 | head -1) $(head -c 300 "$T/err")"; fi
}

for t in i32 f64; do
    "$G" gen -n 3000001 -t $t --dist sparse:0.5 --seed 5 -f "$T/v.raw"
    RAW=$(stat -c %s "$T/v.raw")
    "$G" convert --frame-size 64K -t $t "$T/v.raw" -f "$T/v64.zst"
    same "$t scan, 64K frames, 1M chunks" all "$T/v64.zst" scan -t $t --chunk 1M
    same "$t compact nonzero, 2M chunks" all "$T/v64.zst" compact --pred nonzero -t $t --chunk 2M
    same "$t compact --indices" all "$T/v64.zst" compact --pred nonzero --indices -t $t --chunk 1M
    same "$t minmax -w 500 (halo before each chunk)" all "$T/v64.zst" minmax -w 500 -t $t --chunk 1M
    same "$t minmax -w 3 --partial" all "$T/v64.zst" minmax -w 3 --partial -t $t --chunk 1M
    same "$t chain compact then scan" all "$T/v64.zst" compact --pred nonzero -t $t --chunk 1M then scan
    same "$t one chunk for the whole input" all "$T/v64.zst" scan -t $t --chunk 64M
done
"$G" gen -n 3000001 -t i32 --dist sparse:0.5 --seed 6 -f "$T/v.raw"
RAW=$(stat -c %s "$T/v.raw")
"$G" convert --frame-size 64K -t i32 "$T/v.raw" -f "$T/v64.zst"
"$G" convert --frame-size 96K -t i32 "$T/v.raw" -f "$T/v96.zst"
same "96K frames straddle 1M chunks: decoded as before" none "$T/v96.zst" scan -t i32 --chunk 1M
same "96K frames fill 3M chunks" all "$T/v96.zst" scan -t i32 --chunk 3M
"$G" convert --frame-size 2M -t i32 "$T/v.raw" -f "$T/v2m.zst"
same "2 MiB frames (over the limit): decoded as before" none "$T/v2m.zst" scan -t i32 --chunk 4M
"$G" convert --frame-size 64K -t i32 --to npy "$T/v.raw" -f "$T/v.npy.zst"
FROM=npy same "npy.zst (the header shifts every frame)" none "$T/v.npy.zst" scan --chunk 1M
# a 64K-frame file with one 4 MiB frame in the middle: frames before and after it still go
{ head -c 4194304 "$T/v.raw" | "$G" convert --frame-size 64K -t i32 -z - -f -
  head -c 8388608 "$T/v.raw" | tail -c 4194304 | "$G" convert --frame-size 4M -t i32 -z - -f -
  tail -c +8388609 "$T/v.raw" | "$G" convert --frame-size 64K -t i32 -z - -f -; } >"$T/mix.zst"
same "64K, one 4 MiB frame, 64K: frames around it" some "$T/mix.zst" scan -t i32 --chunk 1M
# frames past the end of the reader's window (17 MiB with --threads 1; 25 MB of frames here): a
# chunk's frames taken before the window's end go to the chunk and the window moves on; with a
# frame the path refuses (no checksum) after that point in a chunk, the chunk's frames, those
# already gathered too, are given back and decoded as before
"$G" gen -q -n 10000001 -t i32 --dist uniform:0:65535 --seed 8 -f "$T/w.raw"
RAW=$(stat -c %s "$T/w.raw")
"$G" convert -q --frame-size 32K -t i32 "$T/w.raw" -f "$T/w.zst"
same "frames past the window's end" all "$T/w.zst" scan -t i32 --threads 1 --chunk 1M
if command -v zstd >/dev/null; then
    { head -c $((875 * 32768)) "$T/w.raw" | "$G" convert -q --frame-size 32K -t i32 -z - -f -
      head -c $((876 * 32768)) "$T/w.raw" | tail -c 32768 | zstd -q --no-check -c
      tail -c +$((876 * 32768 + 1)) "$T/w.raw" | "$G" convert -q --frame-size 32K -t i32 -z - -f -; } >"$T/wmix.zst"
    same "a refused frame after the window's end: the chunk given back" some "$T/wmix.zst" scan -t i32 --threads 1 --chunk 1M
else skip "zframes: a refused frame after the window's end: the chunk given back" "no zstd CLI"; fi
RAW=$(stat -c %s "$T/v.raw")

# the format detected (no --from): its peek decodes the first frame on the host and is given back
# unread, so the first chunk goes as frames too
rm -f "$T/a" "$T/b"
GS_TEST_CPU_ZFRAMES=1 "$G" scan -t i32 --backend cpu --chunk 1M --stats=json "$T/v64.zst" -f "$T/a" 2>"$T/err"
"$G" scan -t i32 --backend cpu --chunk 1M "$T/v64.zst" -f "$T/b"
fb=$(frames_bytes "$T/err")
if cmp -s "$T/a" "$T/b" && [ "$fb" = "$RAW" ]; then pass "zframes: a detected format's peek given back (all as frames)"
else fail "zframes: a detected format's peek given back (all as frames)" "frames decoded $fb of $RAW: $(cmp "$T/a" "$T/b" 2>&1 | head -1) $(head -c 300 "$T/err")"; fi

# from a pipe (a window that starts small and grows for a chunk's frames)
rm -f "$T/a" "$T/b"
GS_TEST_CPU_ZFRAMES=1 "$G" scan -t i32 --backend cpu --chunk 1M --stats=json - -f "$T/a" <"$T/v64.zst" 2>"$T/err"
"$G" scan -t i32 --backend cpu --chunk 1M "$T/v64.zst" -f "$T/b"
fb=$(frames_bytes "$T/err")
if cmp -s "$T/a" "$T/b" && [ "$fb" -gt 0 ]; then pass "zframes: from a pipe"
else fail "zframes: from a pipe" "frames decoded $fb: $(cmp "$T/a" "$T/b" 2>&1 | head -1) $(head -c 300 "$T/err")"; fi

# frames of 2 and 4 bytes first: the format's peek (6 bytes) takes exactly them, and they must
# still come first (the 64K frames after them would fill the first chunk from byte 6, which lost
# those 6 bytes before the frames hook waited for the peek; every later chunk splits a frame, so
# no frame is taken at all)
if command -v zstd >/dev/null; then
python3 - "$T/v.raw" "$T/peek.zst" "$T/piece" <<'PY'
import sys, subprocess   # each piece from a file, so that its frame carries its content size
raw = open(sys.argv[1], 'rb').read()
out = []
for p in [raw[:2], raw[2:6]] + [raw[i:i + 65536] for i in range(6, len(raw), 65536)]:
    open(sys.argv[3], 'wb').write(p)
    out.append(subprocess.run(['zstd', '-q', '-c', sys.argv[3]], capture_output=True, check=True).stdout)
open(sys.argv[2], 'wb').write(b''.join(out))
PY
rm -f "$T/a" "$T/b"
GS_TEST_CPU_ZFRAMES=1 "$G" scan -t i32 --backend cpu --chunk 1M --stats=json "$T/peek.zst" -f "$T/a" 2>"$T/err"
"$G" scan -t i32 --backend cpu --chunk 1M "$T/peek.zst" -f "$T/b" 2>/dev/null
fb=$(frames_bytes "$T/err")
if cmp -s "$T/a" "$T/b" && [ "$fb" = 0 ]; then pass "zframes: the bytes a peek took come first"
else fail "zframes: the bytes a peek took come first" "frames decoded $fb: $(cmp "$T/a" "$T/b" 2>&1 | head -1) $(head -c 200 "$T/err")"; fi
else skip "zframes: the bytes a peek took come first" "no zstd CLI"; fi

# corrupt frames on this path: the checksum of a late frame (past what is read before the backend
# exists), a block body, stray bytes after the last frame
read -r f h l < <(python3 tests/zstd_frames.py "$T/v64.zst" | tail -4 | head -1)
flipped() { # offset bitmask output: $T/v64.zst with that byte's bits flipped
    python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[int(sys.argv[2])]^=int(sys.argv[3]); open(sys.argv[4],'wb').write(d)" "$T/v64.zst" "$@"
}
flipped $((f + l - 2)) 1 "$T/sum.zst"
flipped $((f + h + l / 2)) 4 "$T/body.zst"
{ cat "$T/v64.zst"; printf '\000\001'; } >"$T/stray.zst"
refuse() { # name file want-text
    rm -f "$T/o"
    GS_TEST_CPU_ZFRAMES=1 "$G" compact --pred nonzero -t i32 --backend cpu --chunk 1M "$2" -f "$T/o" 2>"$T/err"; local e=$?
    if [ $e = 1 ] && [ ! -e "$T/o" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "$3" "$T/err"; then pass "zframes refuses: $1"
    else fail "zframes refuses: $1" "exit $e, output $([ -e "$T/o" ] && echo present || echo absent): $(head -2 "$T/err")"; fi
}
refuse "a checksum that lies (the check after decoding)" "$T/sum.zst" "failed its check after decoding"
refuse "a bit flip in a block body" "$T/body.zst" "corrupt zstd data"
refuse "stray bytes after the last frame" "$T/stray.zst" "zstd"
