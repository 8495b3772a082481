#!/usr/bin/env bash
# tests/cli/test_legacy_zstd.sh - legacy zstd frames (formats v0.5, v0.6, v0.7, which the zstd CLI
# still decodes) are decoded, from a file named .zst and from stdin, alone and mixed with current
# frames; a cut legacy frame, a bad legacy header and the older v0.4 format are refused with one
# line naming the input. The frames are written here byte by byte from the format: a frame header
# (v0.5: magic and a window byte; v0.6: magic and a descriptor byte; v0.7: magic, a descriptor
# byte and a window byte), one uncompressed block (3-byte header: type 1 in the top two bits,
# the 16-byte size below) and the end block (type 3, size 0). PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
D=$T
hexfile() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# The content: i32 values 1, 2, 3, -1 (16 bytes); their inclusive prefix sum is 1, 3, 6, 5.
VALS='\001\000\000\000\002\000\000\000\003\000\000\000\377\377\377\377'
printf "$VALS" >"$D/want.raw"
printf '\001\000\000\000\003\000\000\000\006\000\000\000\005\000\000\000' >"$D/want_scan.raw"
BLOCKS="\\100\\000\\020$VALS\\300\\000\\000" # raw block of 16 bytes, end block
printf "\\045\\265\\057\\375\\000$BLOCKS" >"$D/v05.zst"
printf "\\046\\265\\057\\375\\000$BLOCKS" >"$D/v06.zst"
printf "\\047\\265\\057\\375\\000\\000$BLOCKS" >"$D/v07.zst"

# check NAME WANT_RC WANT_ERR WANT_FILE -- cmd...: stdout must equal WANT_FILE ("" = empty), the
# error line (after "gpustream: error: ") WANT_ERR ("" = none), and nothing else on stderr.
check() {
    local name=$1 want=$2 werr=$3 wfile=$4; shift 5
    "$@" >"$D/.out" 2>"$D/.err"
    local rc=$? err
    err=$(sed -n 's/^gpustream: error: //p' "$D/.err")
    if [ "$rc" -ne "$want" ]; then fail "$name" "exit $rc, want $want; stderr: $(head -c 300 "$D/.err")"
    elif [ "$err" != "$werr" ]; then fail "$name" "error [$err], want [$werr]"
    elif [ "$(wc -l <"$D/.err")" -ne "$([ -n "$werr" ] && echo 1 || echo 0)" ]; then fail "$name" "stderr: $(head -c 300 "$D/.err")"
    elif [ "$(hexfile "$D/.out")" != "$([ -n "$wfile" ] && hexfile "$wfile")" ]; then
        fail "$name" "stdout $(hexfile "$D/.out" | head -c 80), want $([ -n "$wfile" ] && hexfile "$wfile")"
    else pass "$name"; fi
}

cd "$D" || exit 1
for v in v05 v06 v07; do
    # The frames are what the zstd CLI reads as legacy frames (the reference for the bytes).
    if command -v zstd >/dev/null; then
        check "legacy_${v}_zstd_cli" 0 "" want.raw -- zstd -q -d -c "$v.zst"
    else
        echo "SKIP legacy_${v}_zstd_cli: no zstd CLI"
    fi
    check "legacy_${v}_file" 0 "" want.raw -- $G convert -q -t i32 --to raw "$v.zst" -
    check "legacy_${v}_stdin" 0 "" want.raw -- sh -c "$G convert -q -t i32 --to raw <$v.zst"
    check "legacy_${v}_scan" 0 "" want_scan.raw -- $G scan -q -t i32 "$v.zst" -
    # A frame cut short (no end block) is an error, never a short output that looks complete.
    head -c $(($(wc -c <"$v.zst") - 3)) "$v.zst" >"cut_$v.zst"
    check "legacy_${v}_cut" 1 "cut_$v.zst: truncated zstd frame" "" -- $G convert -q -t i32 "cut_$v.zst" -
    check "legacy_${v}_cut_stdin" 1 "stdin: truncated zstd frame" "" -- sh -c "$G convert -q -t i32 <cut_$v.zst"
done

# Legacy and current frames in one stream: all of them, in order.
cat v05.zst v06.zst v07.zst >mixed.zst
if command -v zstd >/dev/null; then zstd -q -c want.raw >>mixed.zst; else cat v05.zst >>mixed.zst; fi
cat want.raw want.raw want.raw want.raw >want4.raw
check legacy_mixed_with_current 0 "" want4.raw -- $G convert -q -t i32 --to raw mixed.zst -
check legacy_mixed_with_current_stdin 0 "" want4.raw -- sh -c "$G convert -q -t i32 --to raw <mixed.zst"

# --from raw on stdin says "not compressed": the legacy frame's 27 bytes are raw values.
check legacy_from_raw_stdin 1 "stdin: size 27 bytes is not a multiple of 4 (i32): 3 stray bytes at the end" "" -- \
    sh -c "$G convert -q --from raw -t i32 <v05.zst"
# A v0.5 header with its reserved bits set: libzstd's message, naming the input.
printf "\\045\\265\\057\\375\\020$BLOCKS" >bad05.zst
check legacy_v05_reserved_bits 1 "bad05.zst: corrupt zstd data: Unsupported frame parameter" "" -- $G convert -q -t i32 bad05.zst -
# Formats older than v0.5 are not decoded (nor by the zstd CLI): refused by name.
printf "\\044\\265\\057\\375\\000$BLOCKS" >v04.zst
check legacy_v04_refused 1 "v04.zst: not in zstd format (a zstd format older than v0.5)" "" -- $G convert -q -t i32 v04.zst -
