#!/usr/bin/env bash
# tests/cli/test_robust.sh - bad input, faults and edge values through the command line
# (docs/USAGE.md: exit status and the bad-input table). Every bad input must give exit 1 and one error line that
# names the input (and the line/field where there is one), and leave nothing in the output
# directory: no output file, no ".NAME.gs-XXXXXX" temp file. Signals remove the partial output;
# a closed pipe ends a run quietly; nonsense options exit 2 with the usage hint; edge values
# (integer wrap, NaN, +-inf, -0.0, n = 0, W > n) behave as the design says; results do not
# depend on the run or the thread count. Prints PASS/FAIL lines for tests/run.sh; under 60 s.
# Inputs are exact: raw bytes written by printf or numpy.
set -u
cd "$(dirname "$0")/../.."
G=${G:-./gpustream}
case $G in /*) ;; *) G=$PWD/${G#./} ;; esac # the tests cd into their directories
T=$(mktemp -d -p "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)")
MNT=()
cleanup() {
    for m in "${MNT[@]+"${MNT[@]}"}"; do umount "$m" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
[ -n "$PY" ] || echo "SKIP npy and exact-value checks: python3 with numpy missing"
ZSTD=$(command -v zstd)
[ -n "$ZSTD" ] || echo "SKIP the cases whose input the zstd CLI makes: no zstd CLI"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
note() { echo "note: $*"; }

# A fresh directory for one case; its listing before the command is what must remain after it.
newdir() { D=$T/$1; rm -rf "$D"; mkdir -p "$D"; }
listing() { (cd "$1" && ls -A | sort | tr '\n' ' '); }

# bad NAME WANT PATTERN -- command...: run in $D; exit status WANT, exactly one
# "gpustream: error:" line, matching PATTERN (ERE), besides which stderr holds only notes and
# warnings; exit 2 also needs the usage hint (not with NOHINT=1: a usage error found in the data);
# and $D lists the same files afterwards (no output, no temp file).
bad() {
    local name=$1 want=$2 pat=$3; shift 4
    local before after rc
    before=$(listing "$D")
    (cd "$D" && "$@") >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    after=$(listing "$D")
    local nerr other
    nerr=$(grep -c '^gpustream: error: ' "$T/err")
    other=$(grep -v -e '^gpustream: note: ' -e '^gpustream: warning: ' -e '^gpustream: error: ' -e "^Try 'gpustream " "$T/err" | head -c 200)
    if [ "$rc" -ne "$want" ]; then fail "$name" "exit $rc, want $want; stderr: $(head -c 300 "$T/err")"
    elif [ "$nerr" -ne 1 ]; then fail "$name" "$nerr error lines: $(head -c 300 "$T/err")"
    elif [ -n "$other" ]; then fail "$name" "stray stderr: $other"
    elif ! grep '^gpustream: error: ' "$T/err" | grep -qE -- "$pat"; then fail "$name" "error lacks /$pat/: $(grep '^gpustream: error: ' "$T/err")"
    elif [ "$want" = 2 ] && [ -z "${NOHINT:-}" ] && ! grep -q "^Try 'gpustream [a-z]* *--help' for more information" "$T/err"; then fail "$name" "no usage hint: $(head -c 300 "$T/err")"
    elif [ "$before" != "$after" ]; then fail "$name" "left behind: before [$before] after [$after]"
    else pass "$name"; fi
}

# ok NAME -- command...: exit 0, no error line (in $D).
ok() {
    local name=$1; shift 2
    (cd "$D" && "$@") >"$T/out" 2>"$T/err" </dev/null
    local rc=$?
    if [ "$rc" -ne 0 ] || grep -q '^gpustream: error: ' "$T/err"; then fail "$name" "exit $rc: $(head -c 300 "$T/err")"; return 1; fi
    pass "$name"
}

# same NAME FILE HEX: FILE's bytes are HEX (lowercase, no spaces).
same() {
    local got
    got=$(od -An -v -tx1 "$2" | tr -d ' \n')
    if [ "$got" = "$3" ]; then pass "$1"; else fail "$1" "bytes $got, want $3"; fi
}
# values NAME FILE DTYPE PYLIST: FILE holds these values: NaN where NaN (any payload: a GPU
# may make its own), and zeros with their sign.
values() {
    local r
    r=$($PY -c "
import numpy as np, sys
g = np.fromfile(sys.argv[1], sys.argv[2]); w = np.array($4, sys.argv[2])
ok = g.shape == w.shape and np.array_equal(g, w, equal_nan=True) and (np.signbit(g) == np.signbit(w))[g == 0].all()
print('ok' if ok else 'got %s want %s' % (g.tolist(), w.tolist()))" "$2" "$3")
    if [ "$r" = ok ]; then pass "$1"; else fail "$1" "$r"; fi
}
# stdout NAME WANT: the last command's stdout is WANT.
stdout_is() { if [ "$(cat "$T/out")" = "$2" ]; then pass "$1"; else fail "$1" "printed '$(head -c 100 "$T/out")', want '$2'"; fi; }

# Little-endian raw values: f64 and f32 from Python literals (nan, inf, -0.0 exact), ints too.
rawpy() { # FILE DTYPE VALUES (python list)
    $PY -c "import numpy as np, sys; np.array($3, dtype='$2').tofile(sys.argv[1])" "$1"
}
hexpy() { # DTYPE VALUES -> hex of the raw bytes
    $PY -c "import numpy as np; print(np.array($2, dtype='$1').tobytes().hex())"
}

# ---- a multi-frame zstd file, truncated and corrupt ----------------------------------------------
newdir zstd
$G gen -q -n 300000 -t i32 --dist walk --frame-size 64K -z "$D/good.zst" || fail gen_frames "gen failed"
if [ -n "$ZSTD" ]; then
    frames=$(zstd -lv "$D/good.zst" 2>/dev/null | awk '/Frames:/ {print $NF}')
    [ "${frames:-0}" -ge 10 ] && pass "zstd_input_has_${frames}_frames" || fail zstd_input_frames "frames: ${frames:-?}"
fi
size=$(stat -c %s "$D/good.zst")
head -c $((size * 2 / 3)) "$D/good.zst" >"$D/cut.zst"
head -c $((size - 1)) "$D/good.zst" >"$D/cut1.zst"
cp "$D/good.zst" "$D/corrupt.zst"
printf '\xde\xad\xbe\xef\x00\x11\x22\x33' | dd of="$D/corrupt.zst" bs=1 seek=$((size / 2)) conv=notrunc status=none
{ cat "$D/good.zst"; printf 'NOTZSTD!'; } >"$D/trailing.zst"
bad zstd_truncated 1 "cut.zst: .*truncated" -- $G scan -t i32 cut.zst out.raw
bad zstd_truncated_last_byte 1 "cut1.zst: .*(truncated|corrupt)" -- $G scan -t i32 cut1.zst out.raw
bad zstd_truncated_zst_out 1 "cut.zst: .*truncated" -- $G compact --pred gt:0 -t i32 cut.zst out.zst
bad zstd_corrupt 1 "corrupt.zst: .*corrupt" -- $G minmax -w 100 -t i32 corrupt.zst out.raw
bad zstd_trailing_garbage 1 "trailing.zst: .*(corrupt|truncated|unknown)" -- $G scan -t i32 trailing.zst out.raw
bad zstd_truncated_stdin 1 "stdin: .*truncated" -- sh -c "$G scan -t i32 < cut.zst > /dev/null"
bad zstd_truncated_convert 1 "cut.zst: .*truncated" -- $G convert -t i32 cut.zst out.npy
ok zstd_good_reads -- $G scan -t i32 good.zst out.raw && rm -f "$D/out.raw"

# ---- raw, csv, npy ------------------------------------------------------------------------------
newdir raw
printf 'abcdefghij' >"$D/odd.raw"
bad raw_not_multiple_i64 1 "odd.raw: size 10 bytes is not a multiple of 8.*2 stray bytes" -- $G scan -t i64 odd.raw out.raw
bad raw_not_multiple_pipe 1 "stdin: .*not a multiple of 4.*2 stray bytes" -- sh -c "cat odd.raw | $G compact -t f32 - out.raw"
if [ -n "$ZSTD" ]; then
    zstd -q -c "$D/odd.raw" >"$D/odd.raw.zst"
    bad raw_not_multiple_zstd 1 "odd.raw.zst: .*not a multiple of 4" -- $G minmax -w 1 -t u32 odd.raw.zst out.raw
fi

newdir csv
printf 'time,price\n1,10.5\n2,11\n3,abc\n4,12\n' >"$D/bad.csv"
printf 'time,price\n1,10.5\n2\n3,12\n' >"$D/short.csv"
bad csv_non_numeric 1 "bad.csv: line 4 field 2: invalid number 'abc'" -- $G scan --col price bad.csv out.csv
bad csv_non_numeric_zstd_out 1 "bad.csv: line 4 field 2" -- $G scan --col 2 bad.csv out.raw.zst
bad csv_missing_field 1 "short.csv: line 3.*(missing|field)" -- $G compact --pred gt:0 --col price short.csv out.csv
bad csv_missing_column_name 1 "short.csv: .*no column named 'volume'" -- $G scan --col volume short.csv out.csv
bad csv_column_past_end 1 "short.csv: .*(column 3|field)" -- $G scan --col 3 short.csv out.csv
if [ -n "$ZSTD" ]; then
    zstd -q -c "$D/bad.csv" >"$D/bad.csv.zst"
    bad csv_non_numeric_in_zstd 1 "bad.csv.zst: line 4 field 2: invalid number 'abc'" -- $G minmax -w 2 --col 2 bad.csv.zst out.csv
fi

if [ -n "$PY" ]; then
    newdir npy
    $PY - "$D" <<'EOF'
import sys, struct, numpy as np
d = sys.argv[1]
def hdr(desc, shape, data):
    s = ("{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (desc, shape)).encode()
    s += b' ' * ((64 - (10 + len(s) + 1) % 64) % 64) + b'\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(s)) + s + data
open(d + '/be.npy', 'wb').write(hdr('>f8', '(2,)', b'\0' * 16))
open(d + '/c16.npy', 'wb').write(hdr('<c16', '(1,)', b'\0' * 16))
open(d + '/more.npy', 'wb').write(hdr('<i4', '(10,)', struct.pack('<5i', 1, 2, 3, 4, 5)))
open(d + '/less.npy', 'wb').write(hdr('<f8', '(2,)', struct.pack('<3d', 1, 2, 3)))
open(d + '/ragged.npy', 'wb').write(hdr('<i8', '(2,)', b'\1' * 13))
open(d + '/nl.npy', 'wb').write(hdr('<f8\n\x1b[31m', '(1,)', b'\0' * 8))
open(d + '/v9.npy', 'wb').write(hdr('<f8', '(1,)', b'\0' * 8).replace(b'NUMPY\x01', b'NUMPY\x09'))
open(d + '/cut.npy', 'wb').write(hdr('<f8', '(1,)', b'\0' * 8)[:30])
open(d + '/empty.npy', 'wb').write(b'')
np.save(d + '/good.npy', np.arange(6, dtype='<f8'))
EOF
    bad npy_big_endian 1 "be.npy: unsupported dtype '>f8'" -- $G scan be.npy out.npy
    bad npy_complex 1 "c16.npy: unsupported dtype '<c16'" -- $G compact --pred nan c16.npy out.npy
    bad npy_header_claims_more 1 "more.npy: header says 10 elements but the file holds 5" -- $G scan more.npy out.npy
    bad npy_header_claims_less 1 "less.npy: header says 2 elements but the file holds 3" -- $G minmax -w 1 less.npy out.npy
    bad npy_data_ragged 1 "ragged.npy: header says 2 elements" -- $G convert ragged.npy out.raw
    bad npy_lying_pipe 1 "stdin: header says 10 elements but the file holds 5" -- sh -c "cat more.npy | $G scan - out.npy"
    if [ -n "$ZSTD" ]; then
        zstd -q -c "$D/less.npy" >"$D/less.npy.zst"
        bad npy_lying_in_zstd 1 "less.npy.zst: header says 2 elements but the file holds 3" -- $G scan less.npy.zst out.npy
    fi
    bad npy_bad_version 1 "v9.npy: unsupported npy version 9" -- $G scan v9.npy out.npy
    bad npy_truncated_header 1 "cut.npy: .*(truncated|header)" -- $G scan --from npy cut.npy out.npy
    bad npy_empty_file 1 "empty.npy: .*(not an npy|truncated)" -- $G scan --from npy empty.npy out.npy
    NOHINT=1 bad npy_type_mismatch 2 "good.npy: -t i32 given but the file holds f64" -- $G scan -t i32 good.npy out.npy
    # A hostile header must not put a newline or an escape sequence on the terminal (design §1:
    # one line; csv.c shows such bytes as '?').
    bad npy_dtype_message_one_line 1 "nl.npy: unsupported dtype" -- $G scan nl.npy out.npy
fi

# ---- unreadable input, unwritable output, full disk ---------------------------------------------
newdir io
printf '\1\0\0\0\2\0\0\0' >"$D/x.raw"
mkdir "$D/adir"
bad input_missing 1 "nothere.raw: No such file or directory" -- $G scan nothere.raw out.raw
bad input_is_directory 1 "adir: Is a directory" -- $G scan -t i32 adir out.raw
bad input_unreadable_device 1 "/proc/self/mem: read failed: Input/output error" -- $G scan -t i32 /proc/self/mem out.raw
if [ "$(id -u)" != 0 ]; then
    cp "$D/x.raw" "$D/locked.raw"; chmod 000 "$D/locked.raw"
    bad input_permission_denied 1 "locked.raw: Permission denied" -- $G scan -t i32 locked.raw out.raw
    chmod 600 "$D/locked.raw"; rm -f "$D/locked.raw"
    mkdir "$D/rodir"; chmod 555 "$D/rodir"
    bad output_dir_not_writable 1 "rodir/out.raw: Permission denied" -- $G scan -t i32 x.raw rodir/out.raw
    chmod 755 "$D/rodir"
else
    note "running as root: chmod 000 cannot make a file unreadable; directory, /proc/self/mem and missing paths instead"
fi
bad output_dir_missing 1 "nodir/out.raw: No such file or directory" -- $G scan -t i32 x.raw nodir/out.raw
bad output_parent_is_file 1 "x.raw/out.raw: Not a directory" -- $G scan -t i32 x.raw x.raw/out.raw
bad output_is_directory 1 "adir: Is a directory" -- $G scan -t i32 x.raw adir
bad output_dev_full_zstd 1 "/dev/full: write failed: No space left on device" -- $G gen -n 100000 -z -f /dev/full
bad output_stdout_dev_full 1 "stdout: write failed: No space left on device" -- sh -c "$G scan -t i32 x.raw > /dev/full"
bad output_stdout_dev_full_csv 1 "stdout: write failed: No space left on device" -- sh -c "$G scan -t i32 --to csv x.raw > /dev/full"
bad output_dev_full_count 1 "stdout: write failed: No space left on device" -- sh -c "$G compact --count -t i32 x.raw > /dev/full"

# A small tmpfs filled by a 10 MB output: ENOSPC, and no partial file or temp file.
newdir full
mkdir "$D/mnt" "$D/ro"
if mount -t tmpfs -o size=1m tmpfs "$D/mnt" 2>/dev/null; then
    MNT+=("$D/mnt")
    D=$T/full/mnt
    bad tmpfs_full_raw 1 "out.raw: write failed: No space left on device" -- $G gen -n 2500000 -t i32 out.raw
    # 16 threads: through a mapping of the file (io/file_values.c), whose pages cannot be had
    bad tmpfs_full_raw_mapped 1 "out.raw: write failed: No space left on device" -- $G gen -n 2500000 -t i32 --threads 16 out.raw
    bad tmpfs_full_zstd 1 "out.zst: write failed: No space left on device" -- $G gen -n 2500000 -t u32 --dist uniform:0:4294967295 out.zst
    bad tmpfs_full_npy 1 "out.npy: write failed: No space left on device" -- $G gen -n 1250000 -t f64 out.npy
    bad tmpfs_full_csv_scan 1 "out.csv: write failed: No space left on device" -- sh -c "$G gen -n 1000000 -t i32 | $G scan -t i32 --to csv - out.csv"
    D=$T/full
    if mount -t tmpfs -o ro,size=1m tmpfs "$D/ro" 2>/dev/null; then
        MNT+=("$D/ro")
        bad output_read_only_fs 1 "ro/out.raw: Read-only file system" -- $G gen -n 10 ro/out.raw
    fi
else
    note "cannot mount a tmpfs here (not root or no CAP_SYS_ADMIN): the full-disk-through-a-file cases are skipped"
fi

# ---- signals: see test_signals.sh (every terminating signal, file outputs of each kind) ----------------

# ---- a closed pipe downstream ends the run quietly ---------------------------------------------------
# 1e11 i64 values are 800 GB: a run that ignored EPIPE would go on for many minutes. Each process
# gets a generous 30 s timeout that only catches such a hang (exit 124); nothing depends on how fast
# the run ends.
for verb in "gen -n 1e11 -t i64" "scan -t i64" "compact -t i64 --pred ne:3" "minmax -t i64 -w 1000" "convert -t i64 --to csv"; do
    tag=$(echo "$verb" | cut -d' ' -f1)
    if [ "$tag" = gen ]; then
        timeout 30 $G $verb 2>"$T/err" | head -c 100 >/dev/null
        rc=${PIPESTATUS[0]}
    else
        timeout 30 $G gen -q -n 1e11 -t i64 2>/dev/null | timeout 30 $G $verb 2>"$T/err" | head -c 100 >/dev/null
        rc=${PIPESTATUS[1]}
    fi
    errs=$(grep -v '^gpustream: note: ' "$T/err" | head -c 200)
    if [ "$rc" = 0 ] && [ -z "$errs" ]; then pass "epipe_quiet_$tag"
    elif [ "$rc" = 124 ]; then fail "epipe_quiet_$tag" "still running 30 s after head closed the pipe"
    else fail "epipe_quiet_$tag" "exit $rc; stderr: $errs"; fi
done

# ---- nonsense options: exit 2 and the usage hint ----------------------------------------------------
newdir opts
printf '\1\0\0\0\2\0\0\0' >"$D/x.raw"
for s in 12Q -5 1e400 0.5 2^64 "" 1.5.5 4e9x nan inf; do
    bad "bad_size_n=$s" 2 "invalid -n" -- $G gen -n "$s" out.raw
done
for s in 12Q -5 1e400 abc; do
    bad "bad_size_window=$s" 2 "invalid --window" -- $G minmax -w "$s" x.raw out.raw
    bad "bad_size_device_mem_limit=$s" 2 "invalid --device-mem-limit" -- $G scan --device-mem-limit "$s" x.raw out.raw
    bad "bad_size_frame_size=$s" 2 "invalid --frame-size" -- $G scan --frame-size "$s" -z x.raw out.zst
done
bad chunk_too_small 2 "--chunk must be" -- $G scan --chunk 8 x.raw out.raw
bad frame_size_too_small 2 "--frame-size must be" -- $G scan --frame-size 10 -z x.raw out.zst
bad window_zero_long 2 "at least 1" -- $G minmax --window=0 x.raw out.raw
bad window_zero_attached 2 "at least 1" -- $G minmax -w0 x.raw out.raw
for p in "gt:abc" "range:1" "range:5:x" "nan:3" "nonzero:1" "gt:" ":" "" "lt:1e999" "gt:2147483648" "eq:0x10" "GT:1" "gt:1:2"; do
    bad "bad_pred=$p" 2 "predicate" -- $G compact -t i32 --pred "$p" x.raw out.raw
done
bad pred_negative_unsigned 2 "out of range" -- $G compact -t u32 --pred lt:-1 x.raw out.raw
bad pred_negative_unsigned_tab 2 "out of range" -- $G compact -t u64 --pred "$(printf 'lt:\t-1')" x.raw out.raw
bad bad_delim_two_chars 2 "--delim takes one character" -- $G scan --delim ';;' x.raw out.raw
bad bad_delim_empty 2 "--delim takes one character" -- $G scan --delim '' x.raw out.raw
for n in 0 -1 x 99999; do bad "bad_threads=$n" 2 "invalid --threads" -- $G scan --threads "$n" x.raw out.raw; done
for n in 0 -2 65; do bad "bad_buffers=$n" 2 "invalid --buffers" -- $G scan --buffers "$n" x.raw out.raw; done
bad bad_host_mem 2 "unknown --host-mem 'swap'" -- $G scan --host-mem swap x.raw out.raw
bad bad_device_alloc 2 "unknown --device-alloc" -- $G scan --device-alloc never x.raw out.raw
bad bad_from 2 "unknown format 'parquet'" -- $G scan --from parquet x.raw out.raw
bad bad_to 2 "unknown format 'xls'" -- $G scan --to xls x.raw out.raw
bad bad_level 2 "invalid --level" -- $G scan --level 99 x.raw out.zst
bad bad_dist 2 "invalid --dist" -- $G gen -n 10 --dist poisson:3 d1.raw
bad bad_dist_nan 2 "invalid --dist" -- $G gen -n 10 --dist uniform:0:nan d2.raw
bad bad_dist_nan_normal 2 "invalid --dist" -- $G gen -n 10 --dist normal:nan:1 d3.raw
# Extreme but numeric parameters: refused (2) or generated (0), never a crash or UB (a sanitizer
# build exits 86 on UB).
sane() {
    local name=$1; shift 2
    (cd "$D" && "$@") >"$T/out" 2>"$T/err" </dev/null
    local rc=$? other
    other=$(grep -v -e '^gpustream: ' -e "^Try 'gpustream " "$T/err" | head -c 200)
    if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then fail "$name" "exit $rc; stderr: $(head -c 300 "$T/err")"
    elif [ -n "$other" ]; then fail "$name" "stray stderr: $other"
    else pass "$name"; fi
}
sane dist_huge_sine_period -- $G gen -n 10 --dist sine:1e30 d4.raw
sane dist_sine_period_inf -- $G gen -n 10 --dist sine:inf d5.raw
sane dist_uniform_beyond_i64 -- $G gen -n 10 -t i64 --dist uniform:-1e19:1e19 d6.raw
sane dist_uniform_wide_i64 -- $G gen -n 10 -t i64 --dist uniform:-9e18:9e18 d10.raw
sane dist_uniform_beyond_i32 -- $G gen -n 10 -t i32 --dist uniform:-1e300:1e300 d7.raw
sane dist_uniform_full_i64 -- $G gen -n 10 -t i64 --dist uniform:-9223372036854775808:9223372036854775807 d8.raw
sane dist_normal_huge -- $G gen -n 10 -t i32 --dist normal:1e300:1e300 d9.raw
bad bad_seed 2 "invalid --seed" -- $G gen -n 10 --seed -1x out.raw
bad bad_only 2 "--only takes min or max" -- $G minmax -w 2 --only both x.raw out.raw
bad bad_stats 2 "--stats takes" -- $G scan --stats=yaml x.raw out.raw
bad option_needs_value 2 "needs a value" -- $G scan x.raw out.raw --chunk
bad option_takes_no_value 2 "takes no value" -- $G scan --exclusive=1 x.raw out.raw
bad option_wrong_verb 2 "unknown option '--window' for scan" -- $G scan --window 3 x.raw out.raw
bad gen_two_outputs 2 "gen takes one argument" -- $G gen -n 10 a.raw b.raw
bad gen_needs_n 2 "gen needs -n" -- $G gen out.raw

# ---- edge values (design §2) -----------------------------------------------------------------------
if [ -n "$PY" ]; then
    newdir edge
    E=$D
    # integer sums wrap (two's complement); widening does not
    rawpy "$E/i32.raw" '<i4' '[2147483647, 1, -2, 0]'
    ok scan_i32_wrap_run -- $G scan -t i32 i32.raw s.raw && same scan_i32_wrap "$E/s.raw" "$(hexpy '<i4' '[2147483647, -2147483648, 2147483646, 2147483646]')"
    ok scan_i32_widen_run -- $G scan -t i32 --out-type i64 i32.raw w.raw && same scan_i32_widen_no_wrap "$E/w.raw" "$(hexpy '<i8' '[2147483647, 2147483648, 2147483646, 2147483646]')"
    rawpy "$E/u32.raw" '<u4' '[4294967295, 1, 5]'
    ok scan_u32_wrap_run -- $G scan -t u32 u32.raw su.raw && same scan_u32_wrap "$E/su.raw" "$(hexpy '<u4' '[4294967295, 0, 5]')"
    rawpy "$E/i64.raw" '<i8' '[9223372036854775807, 1]'
    ok scan_i64_wrap_run -- $G scan -t i64 i64.raw s64.raw && same scan_i64_wrap "$E/s64.raw" "$(hexpy '<i8' '[9223372036854775807, -9223372036854775808]')"
    ok scan_i32_exclusive_wrap_run -- $G scan -t i32 --exclusive i32.raw sx.raw && same scan_i32_exclusive_wrap "$E/sx.raw" "$(hexpy '<i4' '[0, 2147483647, -2147483648, 2147483646]')"

    # NaN, +-inf, -0.0 through scan min/max/sum (NaN propagates and keeps the first NaN's bits;
    # -0.0 orders below +0.0)
    for t in f64 f32; do
        dt=$([ $t = f64 ] && echo '<f8' || echo '<f4')
        X="[1.0, -0.0, 0.0, float('inf'), float('nan'), -5.0, float('-inf')]"
        nan="float('nan')" inf="float('inf')" ninf="float('-inf')"
        rawpy "$E/$t.raw" "$dt" "$X"
        ok "scan_min_${t}_run" -- $G scan -t $t --op min $t.raw mn_$t.raw && values "scan_min_nan_${t}" "$E/mn_$t.raw" "$dt" "[1.0, -0.0, -0.0, -0.0, $nan, $nan, $nan]"
        ok "scan_max_${t}_run" -- $G scan -t $t --op max $t.raw mx_$t.raw && values "scan_max_nan_${t}" "$E/mx_$t.raw" "$dt" "[1.0, 1.0, 1.0, $inf, $nan, $nan, $nan]"
        ok "scan_sum_${t}_run" -- $G scan -t $t $t.raw sm_$t.raw && values "scan_sum_inf_nan_${t}" "$E/sm_$t.raw" "$dt" "[1.0, 1.0, 1.0, $inf, $nan, $nan, $nan]"
        ok "scan_excl_max_${t}_run" -- $G scan -t $t --op max --exclusive $t.raw xm_$t.raw && values "scan_exclusive_max_${t}" "$E/xm_$t.raw" "$dt" "[$ninf, 1.0, 1.0, 1.0, $inf, $nan, $nan]"
        rawpy "$E/z$t.raw" "$dt" "[-0.0, 0.0, -0.0]"
        ok "scan_max_zero_${t}_run" -- $G scan -t $t --op max z$t.raw zm_$t.raw && values "scan_max_signed_zero_${t}" "$E/zm_$t.raw" "$dt" "[-0.0, 0.0, 0.0]"
        ok "scan_min_zero_${t}_run" -- $G scan -t $t --op min z$t.raw zn_$t.raw && values "scan_min_signed_zero_${t}" "$E/zn_$t.raw" "$dt" "[-0.0, -0.0, -0.0]"
        rawpy "$E/ninf$t.raw" "$dt" "[$ninf, $inf, 3.0]"
        ok "scan_sum_ninf_${t}_run" -- $G scan -t $t ninf$t.raw ni_$t.raw && values "scan_sum_minus_inf_plus_inf_${t}" "$E/ni_$t.raw" "$dt" "[$ninf, $nan, $nan]"
        # compact nan / finite / their inverses; -0.0 kept as it is; NaN fails every comparison
        ok "compact_nan_${t}_run" -- $G compact -t $t --pred nan $t.raw cn_$t.raw && values "compact_nan_${t}" "$E/cn_$t.raw" "$dt" "[$nan]"
        ok "compact_finite_${t}_run" -- $G compact -t $t --pred finite $t.raw cf_$t.raw && values "compact_finite_${t}" "$E/cf_$t.raw" "$dt" "[1.0, -0.0, 0.0, -5.0]"
        ok "compact_not_finite_${t}_run" -- $G compact -t $t --pred finite --invert $t.raw ci_$t.raw && values "compact_not_finite_${t}" "$E/ci_$t.raw" "$dt" "[$inf, $nan, $ninf]"
        ok "compact_eq_zero_${t}_run" -- $G compact -t $t --pred eq:0 $t.raw c0_$t.raw && values "compact_eq_zero_keeps_minus_zero_${t}" "$E/c0_$t.raw" "$dt" "[-0.0, 0.0]"
        ok "compact_ne_${t}_run" -- $G compact -t $t --pred ne:-5 --indices $t.raw cx_$t.raw && values "compact_ne_holds_for_nan_${t}" "$E/cx_$t.raw" '<u8' "[0, 1, 2, 3, 4, 6]"
        ok "compact_gt_${t}_run" -- $G compact -t $t --pred gt:-1e30 --count $t.raw && stdout_is "compact_gt_fails_for_nan_${t}" 5
        # a window holding NaN gives NaN; +-inf and -0.0 ordered
        ok "minmax_nan_${t}_run" -- $G minmax -t $t -w 2 $t.raw mm_$t.raw && values "minmax_window_nan_${t}" "$E/mm_$t.raw" "$dt" "[-0.0,1.0, -0.0,0.0, 0.0,$inf, $nan,$nan, $nan,$nan, $ninf,-5.0]"
        ok "minmax_partial_nan_${t}_run" -- $G minmax -t $t -w 3 --partial $t.raw mp_$t.raw && values "minmax_partial_window_nan_${t}" "$E/mp_$t.raw" "$dt" "[1.0,1.0, -0.0,1.0, -0.0,1.0, -0.0,$inf, $nan,$nan, $nan,$nan, $nan,$nan]"
        ok "minmax_only_max_${t}_run" -- $G minmax -t $t -w 3 --only max $t.raw mo_$t.raw && values "minmax_only_max_nan_${t}" "$E/mo_$t.raw" "$dt" "[1.0, $inf, $nan, $nan, $nan]"
    done
    rawpy "$E/nanlong.raw" '<f8' "[float(i) for i in range(1000)]"
    $PY -c "import numpy as np; x=np.fromfile('$E/nanlong.raw'); x[500]=np.nan; x.tofile('$E/nanlong.raw')"
    ok minmax_nan_chunks_run -- $G minmax -t f64 -w 100 --chunk 96 nanlong.raw ml.raw &&
        r=$($PY -c "
import numpy as np
m = np.fromfile('$E/ml.raw').reshape(-1, 2)
bad = np.isnan(m).any(axis=1)
want = np.zeros(901, bool); want[401:501] = True
print('ok' if m.shape == (901, 2) and (bad == want).all() and np.isnan(m[bad]).all() else (m.shape, np.flatnonzero(bad)[:3]))") &&
        { [ "$r" = ok ] && pass minmax_nan_window_across_chunks || fail minmax_nan_window_across_chunks "$r"; }
    # integer types: finite always holds, nan never does
    ok compact_nan_int_run -- $G compact -t i32 --pred nan --count i32.raw && stdout_is compact_nan_never_int 0
    ok compact_finite_int_run -- $G compact -t i32 --pred finite --count i32.raw && stdout_is compact_finite_always_int 4
fi

# n = 0: every verb, every format in and out: an empty (valid) output, exit 0
newdir empty
E=$D
: >"$E/e.raw"
$G convert -q -t i32 "$E/e.raw" "$E/e.raw.zst" # one empty frame
: >"$E/e.csv"
printf 'price\n' >"$E/h.csv"
[ -n "$PY" ] && $PY -c "import numpy as np; np.save('$E/e.npy', np.zeros(0, '<f4'))"
for v in "scan" "scan --op max --exclusive" "compact --pred gt:0" "compact --indices" "minmax -w 3" "minmax -w 3 --partial" "convert"; do
    tag=$(echo "$v" | sed 's/--*//g; s/[ :]/_/g')
    for in in e.raw e.raw.zst e.csv h.csv e.npy; do
        [ -f "$E/$in" ] || continue
        ok "n0_${tag}_$in" -- $G $v -q "$in" out.raw && { [ -f "$E/out.raw" ] && [ ! -s "$E/out.raw" ] || fail "n0_${tag}_${in}_empty" "output: $(ls -la "$E/out.raw" 2>&1)"; }
        rm -f "$E/out.raw"
    done
done
ok n0_count -- $G compact --count e.raw && stdout_is n0_count_is_0 0
ok n0_gen -- $G gen -n 0 g.raw && { [ -f "$E/g.raw" ] && [ ! -s "$E/g.raw" ] && pass n0_gen_empty || fail n0_gen_empty "$(ls -la "$E/g.raw" 2>&1)"; }
if ok n0_zstd_out -- $G scan e.raw o.zst && [ -n "$ZSTD" ]; then
    zstd -q -d -c "$E/o.zst" | cmp -s - /dev/null && pass n0_zstd_out_valid_and_empty || fail n0_zstd_out_valid_and_empty "zstd -d fails or is not empty"
fi
if [ -n "$PY" ]; then
    ok n0_npy_out -- $G scan e.raw o.npy && r=$($PY -c "import numpy as np; a=np.load('$E/o.npy'); print('ok' if a.shape==(0,) and a.dtype=='<i4' else (a.shape, a.dtype))") && { [ "$r" = ok ] && pass n0_npy_out_loads || fail n0_npy_out_loads "$r"; }
    ok n0_minmax_npy_out -- $G minmax -w 2 e.raw m.npy && r=$($PY -c "import numpy as np; a=np.load('$E/m.npy'); print('ok' if a.shape==(0,2) else a.shape)") && { [ "$r" = ok ] && pass n0_minmax_npy_shape_0_2 || fail n0_minmax_npy_shape_0_2 "$r"; }
    ok n0_csv_out -- $G scan --to csv e.raw o.csv && { [ ! -s "$E/o.csv" ] && pass n0_csv_out_empty || fail n0_csv_out_empty "$(head -c 100 "$E/o.csv")"; }
fi
# W > n: a warning, no output rows, exit 0
printf '\1\0\0\0\2\0\0\0\3\0\0\0' >"$E/three.raw"
ok w_gt_n_run -- $G minmax -t i32 -w 4 three.raw w.raw && grep -q "warning: window 4 is longer than the input (3 elements)" "$T/err" && [ ! -s "$E/w.raw" ] && pass w_gt_n_warns_empty || fail w_gt_n_warns_empty "$(cat "$T/err")"
ok w_gt_n_quiet -- $G minmax -q -t i32 -w 4 three.raw wq.raw && { [ ! -s "$T/err" ] && pass w_gt_n_quiet_no_warning || fail w_gt_n_quiet_no_warning "$(cat "$T/err")"; }
ok w_gt_n_partial -- $G minmax -t i32 -w 4 --partial three.raw wp.raw && same w_gt_n_partial_running "$E/wp.raw" 010000000100000001000000020000000100000003000000
ok w_eq_n -- $G minmax -t i32 -w 3 three.raw we.raw && same w_eq_n_one_row "$E/we.raw" "0100000003000000"

# ---- the same result run to run and on 1, 2 or 7 threads (floats with NaN, csv in, zstd out) ----
newdir det
$G gen -q -n 400000 -t f32 --dist normal:0:1000 --seed 5 "$D/x.f32"
[ -n "$PY" ] && $PY -c "import numpy as np; x=np.fromfile('$D/x.f32','<f4'); x[::9973]=np.nan; x[5::7919]=-0.0; x.tofile('$D/x.f32')"
$G convert -q -t f32 --to csv "$D/x.f32" "$D/x.csv"
for v in "scan" "scan --op min" "compact --pred gt:0" "minmax -w 1000" "minmax -w 77 --partial"; do
    tag=$(echo "$v" | sed 's/--*//g; s/[ :]/_/g')
    for src in "x.f32 -t f32" "x.csv"; do
        stag=${src%% *}
        rm -f "$D"/r_*
        okk=1
        for run in 1:a 2:b 7:c 7:d; do
            (cd "$D" && $G $v -q --chunk 100K --threads ${run%:*} $src r_${run#*:}.zst) || okk=0
        done
        for r in b c d; do cmp -s "$D/r_a.zst" "$D/r_$r.zst" || okk=0; done
        [ $okk = 1 ] && pass "deterministic_${tag}_${stag}_threads_1_2_7" || fail "deterministic_${tag}_${stag}_threads_1_2_7" "outputs differ (or a run failed)"
    done
done

exit 0
