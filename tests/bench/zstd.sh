#!/usr/bin/env bash
# tests/bench/zstd.sh - zstd in and out, per --codec, the process's wall time:
#   1. the headline compaction `compact --pred nonzero s.zst c.zst`: 4 GB of i32 (sparse:0.5) as
#      BIN's `convert` writes it (32K frames where the GPU encodes, else libzstd's 16 MiB frames);
#      each codec's output decoded (zstd CLI, else BIN) and compared with the compaction of the raw
#      file, and its size;
#   2. the .zst scan: `scan big.zst -f /dev/null`, 16 GB of i32 (sparse:0.5) written by `gen -z`
#      (with --codec gpu where nvCOMP loads: 32K frames), GB/s of raw data;
#   then BIN's --stats of each.
#   bash tests/bench/zstd.sh                                   (CODECS "auto gpu cpu" with nvCOMP)
#   BASE=/path/to/old/gpustream bash tests/bench/zstd.sh       (both binaries, run for run in turn)
#   N=1e6 BIGN=4e6 REPS=1 bash tests/bench/zstd.sh             (no GPU: CODECS "cpu")
# N: elements of the compaction's input (default 1e9), BIGN: of the scan's (default 4e9);
# PARTS "compact scan" (default both); OPTS: options given to every timed run (e.g. --buffers 6).
. "$(dirname "$0")/lib.sh"
. tests/zstd_cli.sh
N=${N:-1e9}
BIGN=${BIGN:-4e9}
PARTS=${PARTS:-compact scan}
CODECS=${CODECS:-$(has_nvcomp && echo "auto gpu cpu" || echo cpu)}
GEN_CODEC=$(has_nvcomp && echo gpu || echo cpu)
# shellcheck disable=SC2206
OPTS=(${OPTS:-})
header "zstd: codecs $CODECS; $N i32 for the compaction, $BIGN for the scan (sparse:0.5), files in $D${OPTS[*]:+; options ${OPTS[*]}}"
"$BIN" info | grep -E '^(zstd|nvcomp|defaults)' | cut -c1-160

decodes_to() { # FILE.zst RAW: FILE decodes to RAW's bytes
    if [ "$ZSTD_CLI" = 1 ]; then zstd -q -d -c "$1" | cmp -s - "$2"
    else "$BIN" convert -q --codec cpu -t i32 "$1" --to raw -f "$D/dec.raw" && cmp -s "$D/dec.raw" "$2"; fi
}

case " $PARTS " in *" compact "*)
    "$BIN" gen -q -n "$N" -t i32 --dist sparse:0.5 -f "$D/s.raw" || exit 1
    "$BIN" convert -q -t i32 "$D/s.raw" -f "$D/s.zst"
    "$BIN" compact -q --pred nonzero -t i32 "$D/s.raw" -f "$D/c.raw"
    echo "s.raw $(stat -c %s "$D/s.raw") B, s.zst $(stat -c %s "$D/s.zst") B, compaction $(stat -c %s "$D/c.raw") B"
    rm -f "$D/s.raw"
    for c in $CODECS; do
        in_turn "compact --pred nonzero --codec $c s.zst c.zst" @BIN@ compact --pred nonzero --codec "$c" "${OPTS[@]}" "$D/s.zst" -f "$D/c.zst"
        rm -f "$D/c.zst"
        "$BIN" compact --pred nonzero --codec "$c" "${OPTS[@]}" "$D/s.zst" -f "$D/c.zst" --stats 2>"$D/stats.compact.$c"
        if decodes_to "$D/c.zst" "$D/c.raw"; then echo "  output $(stat -c %s "$D/c.zst") B, decodes to the compaction of the raw file"
        else echo "  OUTPUT DIFFERS: --codec $c's c.zst does not decode to the compaction of the raw file"; fi
    done
    rm -f "$D"/s.* "$D"/c.* "$D/dec.raw"
    ;;
esac
case " $PARTS " in *" scan "*)
    "$BIN" gen -q -n "$BIGN" -t i32 --dist sparse:0.5 --codec "$GEN_CODEC" -z -f "$D/big.zst" || exit 1
    raw=$(awk -v n="$BIGN" 'BEGIN { printf "%.0f", n * 4 }')
    echo "big.zst $(stat -c %s "$D/big.zst") B for $raw B of i32 (gen --codec $GEN_CODEC)"
    for c in $CODECS; do
        in_turn "scan --codec $c big.zst -f /dev/null" @BIN@ scan --codec "$c" "${OPTS[@]}" -t i32 "$D/big.zst" -f /dev/null
        echo "  $(gbps "$raw" "$MED") GB/s of raw data${BASE:+ (base $(gbps "$raw" "$MED_BASE"))}"
        "$BIN" scan --codec "$c" "${OPTS[@]}" -t i32 "$D/big.zst" -f /dev/null --stats 2>"$D/stats.scan.$c"
    done
    ;;
esac
for f in "$D"/stats.*; do
    [ -f "$f" ] || continue
    echo "-- BIN's --stats: ${f##*/stats.}"
    grep -vE '^ *$' "$f"
done
