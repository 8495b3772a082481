#!/usr/bin/env bash
# tests/cli/test_robust2.sh - hostile inputs, second pass: sizes that overflow, data that must never
# be dropped silently, outputs that must land exactly where asked (through symlinks, onto devices,
# keeping mode and owner, long names), and option rules (last wins, checked before the input is
# opened). Each case states the exact exit status, the one error line, the output bytes and that
# the output directory holds nothing else. PASS/FAIL lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
newdir() { D=$T/$1; rm -rf "$D"; mkdir -p "$D"; }
listing() { (cd "$1" && ls -A | sort | tr '\n' ' '); }

# run NAME WANT_RC WANT_ERR WANT_OUT_HEX -- cmd...: in $D, stdin from $IN (default /dev/null).
# WANT_ERR: "" = no error line, else the exact text after "gpustream: error: ". WANT_OUT_HEX: the
# exact stdout bytes as hex ("-" = not checked). The listing of $D must not change unless KEEP=1.
run() {
    local name=$1 want=$2 werr=$3 wout=$4; shift 5
    local before after rc err out
    before=$(listing "$D")
    (cd "$D" && "$@") >"$T/.stdout" 2>"$T/.stderr" <"${IN:-/dev/null}"
    rc=$?
    after=$(listing "$D")
    err=$(grep '^gpustream: error: ' "$T/.stderr" | sed 's/^gpustream: error: //')
    out=$(od -An -v -tx1 "$T/.stdout" | tr -d ' \n')
    local nerr; nerr=$(grep -c '^gpustream: error: ' "$T/.stderr")
    if [ "$rc" -ne "$want" ]; then fail "$name" "exit $rc, want $want; stderr: $(head -c 300 "$T/.stderr")"
    elif [ -n "$werr" ] && [ "$nerr" -ne 1 ]; then fail "$name" "$nerr error lines: $(head -c 300 "$T/.stderr")"
    elif [ "$err" != "$werr" ]; then fail "$name" "error [$err], want [$werr]"
    elif [ "$wout" != - ] && [ "$out" != "$wout" ]; then fail "$name" "stdout $out, want $wout"
    elif [ -z "${KEEP:-}" ] && [ "$before" != "$after" ]; then fail "$name" "left behind: before [$before] after [$after]"
    else pass "$name"; fi
}
hexof() { printf "$1" | od -An -v -tx1 | tr -d ' \n'; }
hexfile() { od -An -v -tx1 "$1" | tr -d ' \n'; }
i32s() { python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<%di' % len(sys.argv[1:]), *map(int, sys.argv[1:])))" "$@"; }

# ---- crashes: sizes that overflow ----------------------------------------------------------------
newdir sizes
$G gen -q -n 1100 -t i32 "$D/in.raw"
for w in 4611686018427388928 9223372036854777856 2^63 1e18; do
    run "minmax_huge_window_$w" 0 "" "" -- $G minmax -q -w "$w" -t i32 in.raw -
    KEEP=1 run "minmax_huge_window_file_$w" 0 "" "" -- sh -c "$G minmax -q -w $w -t i32 in.raw out.raw && test ! -s out.raw && rm out.raw"
done
# --partial: n outputs whatever W; for W >= n they equal those of W = n
$G gen -q -n 1100 -t f64 "$D/f.raw"
KEEP=1 run minmax_partial_huge_w_f64 0 "" "" -- sh -c "$G minmax -q -w 2^61 --partial -t f64 f.raw p1.raw && $G minmax -q -w 1100 --partial -t f64 f.raw p2.raw && cmp p1.raw p2.raw && test -s p1.raw && rm p1.raw p2.raw"
$G gen -q -n 3000 -t u32 "$D/u.raw"
KEEP=1 run minmax_partial_huge_w_u32 0 "" "" -- sh -c "$G minmax -q -w 9223372036854777856 --partial -t u32 u.raw p1.raw && $G minmax -q -w 3000 --partial -t u32 u.raw p2.raw && cmp p1.raw p2.raw && rm p1.raw p2.raw"
# windows longer than a chunk: the same result as with one chunk
$G gen -q -n 300000 -t i32 "$D/long.raw"
KEEP=1 run minmax_window_over_chunks 0 "" "" -- sh -c "$G minmax -q -w 100000 --chunk 4K long.raw a.raw && $G minmax -q -w 100000 long.raw b.raw && cmp a.raw b.raw && rm a.raw b.raw"
# W > n with a huge W: the documented warning and empty output
printf '\1\0\0\0\2\0\0\0\3\0\0\0' >"$D/three.raw"
for w in 1e10 1e18 2^63; do
    run "w_gt_n_huge_$w" 0 "" "" -- $G minmax -w "$w" -t i32 three.raw
    c=$(cd "$D" && $G minmax -w "$w" -t i32 three.raw 2>&1 >/dev/null | grep -c "^gpustream: warning: window .* is longer than the input (3 elements): no output")
    [ "$c" = 1 ] && pass "w_gt_n_huge_${w}_warns" || fail "w_gt_n_huge_${w}_warns" "no warning"
done
# bench: sizes that cannot be addressed are refused at once (no overflow, no hang)
run bench_n_2^62 1 "bench: out of host memory for n = 4611686018427387904" - -- timeout 30 $G bench --op scan -n 2^62
run bench_n_2^63 1 "bench: out of host memory for n = 9223372036854775808" - -- timeout 30 $G bench --op scan -n 2^63
run bench_minmax_n_2^63 1 "bench: out of host memory for n = 9223372036854775808" - -- timeout 30 $G bench --op minmax -n 2^63
run bench_i64_n_2^61 1 "bench: out of host memory for n = 2305843009213693952" - -- timeout 30 $G bench --op scan -t i64 -n 2^61

# ---- silent data loss ------------------------------------------------------------------------------
newdir zstd
i32s 407710288 4 7 9 >"$D/skip.raw"          # a skippable-frame magic, then data that is not zstd
i32s 407710288 0 >"$D/skiponly.raw"           # a whole skippable frame and nothing else
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<4I',0x184D2A5F,4,7,9))" >"$D/skipu.raw"
run skippable_magic_is_data 0 "" "$(hexfile "$D/skip.raw")" -- $G convert -q -t i32 skip.raw
run skippable_magic_from_raw 0 "" "$(hexfile "$D/skip.raw")" -- $G convert -q --from raw -t i32 skip.raw
run skippable_only_is_data 0 "" "$(hexfile "$D/skiponly.raw")" -- $G convert -q -t i32 skiponly.raw
run skippable_u32_is_data 0 "" "$(hexfile "$D/skipu.raw")" -- $G convert -q -t u32 skipu.raw
IN=$D/skip.raw run skippable_magic_stdin 0 "" "$(hexfile "$D/skip.raw")" -- $G convert -q -t i32
if command -v zstd >/dev/null; then
    # --from raw: not decompressed, even when it is zstd (stdin has no name to say otherwise)
    printf '\5\0\0\0' | zstd -q -c >"$D/z.bin"
    zs=$(stat -c %s "$D/z.bin")
    if [ $((zs % 4)) != 0 ]; then
        IN=$D/z.bin run from_raw_not_decompressed 1 "stdin: size $zs bytes is not a multiple of 4 (i32): $((zs % 4)) stray bytes at the end" "" -- $G convert -q --from raw -t i32
    else
        IN=$D/z.bin run from_raw_not_decompressed 0 "" "$(hexfile "$D/z.bin")" -- $G convert -q --from raw -t i32
    fi
    IN=$D/z.bin run zstd_detected_without_from 0 "" 05000000 -- $G convert -q -t i32
    # a skippable frame before a real zstd frame is still zstd
    { printf 'P*M\030\2\0\0\0ab'; cat "$D/z.bin"; } >"$D/skipz.bin"
    IN=$D/skipz.bin run skippable_then_zstd 0 "" 05000000 -- $G convert -q -t i32
    # --long=31 windows decode (up to the 2 GiB limit)
    head -c 4000000 /dev/urandom >"$D/rand.raw"
    cat "$D/rand.raw" "$D/rand.raw" >"$D/rand2.raw"
    # from a pipe: the size is unknown, so the frame keeps its 2 GiB window
    zstd -q --long=31 -c <"$D/rand2.raw" >"$D/long.zst"
    KEEP=1 run zstd_long31 0 "" "" -- sh -c "$G convert -q -t i32 long.zst long.raw && cmp long.raw rand2.raw && rm long.raw"
    # the same frame claiming a 4 GiB window (its window byte says 2^32): over the limit, by name
    python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); assert d[5]==0xa8; d[5]=0xb0; open(sys.argv[2],'wb').write(d)" "$D/long.zst" "$D/long32.zst"
    run zstd_window_over_limit 1 "long32.zst: zstd frame needs a window larger than the 2048 MiB limit (zstd --long=31)" "" -- $G convert -q -t i32 long32.zst out.raw
    rm -f "$D"/rand*.raw "$D/long.zst" "$D/long32.zst"
else
    echo "SKIP zstd_cli_cases: no zstd CLI"
fi
# .zst names that do not hold zstd
printf 'hello' | gzip -c >"$D/g.zst"
run gzip_named_zst 1 "g.zst: not in zstd format (it is gzip)" "" -- $G convert -q -t i32 g.zst
: >"$D/e.zst"
run empty_zst 1 "e.zst: empty file, not in zstd format" "" -- $G convert -q -t i32 e.zst
# a frame that declares 2.25 MiB and holds nothing (the zstd CLI 1.5.4 passes it as 0 bytes)
printf '\050\265\057\375\265\000\000\000\044\000\001\000\000\231\351\330\121' >"$D/lies.zst"
run zstd_content_size_lies 1 "lies.zst: corrupt zstd data: Data corruption detected" "" -- $G convert -q -t i32 lies.zst
IN=$D/lies.zst run zstd_content_size_lies_stdin 1 "stdin: corrupt zstd data: Data corruption detected" "" -- $G convert -q -t i32 --to raw
printf '\1\0\0\0\2\0\0\0' >"$D/r.zst"
run raw_named_zst 1 "r.zst: not in zstd format" "" -- $G convert -q -t i32 r.zst

newdir csv
printf '1\r2\r3\r' >"$D/cr.csv"
run csv_cr_count 0 "" "$(hexof '3\n')" -- $G compact -q --count cr.csv
run csv_cr_scan 0 "" "$(hexof 'a\n1\n3\n6\n')" -- sh -c "printf 'a\r1\r2\r3\r' | $G scan -q --from csv --to csv"
run csv_cr_noterm 0 "" "$(hexof '1\n2\n')" -- sh -c "printf '1\r2\r0' | $G compact -q --from csv --to text"
run csv_crlf_still 0 "" "$(hexof 'a\n1\n3\n')" -- sh -c "printf 'a\r\n1\r\n2\r\n' | $G scan -q --from csv --to csv"

# ---- outputs: symlinks, devices, mode, owner, long names --------------------------------------------
newdir out
$G gen -q -n 4 -t i32 "$D/target.raw"
ln -s target.raw "$D/link.raw"
KEEP=1 run force_onto_symlink 0 "" "" -- $G gen -q -n 2 -t i32 -f link.raw
[ -L "$D/link.raw" ] && [ "$(stat -c %s "$D/target.raw")" = 8 ] && pass symlink_written_through || fail symlink_written_through "link replaced or target not written"
mkdir "$D/sub"; ln -s sub/new.raw "$D/dangling.raw"
KEEP=1 run force_onto_dangling_symlink 0 "" "" -- $G gen -q -n 2 -t i32 -f dangling.raw
[ -L "$D/dangling.raw" ] && [ "$(stat -c %s "$D/sub/new.raw")" = 8 ] && pass dangling_symlink_written_through || fail dangling_symlink_written_through "link replaced"
run no_force_symlink 1 "link.raw: file exists (use -f to overwrite)" "" -- $G gen -q -n 2 -t i32 link.raw
# /dev/stdout is stdout: a regular file behind it is written, the link stays a link. (Through a link
# of our own: a faulty build must not replace the system's /dev/stdout.)
ln -s /dev/stdout "$D/mystdout"
run dev_stdout_file 0 "" "" -- sh -c "$G gen -q -n 2 -t i32 -f mystdout > so.raw; test -L mystdout && test \$(stat -c %s so.raw) = 8 && rm so.raw"
ln -s /proc/self/fd/1 "$D/fd1"
run proc_fd1_file 0 "" "" -- sh -c "$G gen -q -n 3 -t i32 -f fd1 > so.raw; test -L fd1 && test \$(stat -c %s so.raw) = 12 && rm so.raw"
run char_device_direct 0 "" "" -- $G gen -q -n 1000 -t i32 -f /dev/null
mkfifo "$D/fifo"
KEEP=1 run fifo_direct 0 "" "" -- sh -c "cat fifo > got.raw & $G gen -q -n 5 -t i32 -f fifo; wait; test \$(stat -c %s got.raw) = 20 && rm got.raw"
# an overwritten file keeps its mode (and owner, where permitted)
chmod 600 "$D/target.raw"
KEEP=1 run force_keeps_mode 0 "" "" -- $G gen -q -n 3 -t i32 -f target.raw
[ "$(stat -c '%a %s' "$D/target.raw")" = "600 12" ] && pass overwrite_keeps_mode_600 || fail overwrite_keeps_mode_600 "$(stat -c '%a %s' "$D/target.raw")"
chmod 640 "$D/target.raw"
KEEP=1 run force_keeps_mode_zst 0 "" "" -- $G gen -q -n 3 -t i32 -f -z target.raw
[ "$(stat -c '%a' "$D/target.raw")" = "640" ] && pass overwrite_keeps_mode_640_zst || fail overwrite_keeps_mode_640_zst "$(stat -c '%a' "$D/target.raw")"
if [ "$(id -u)" = 0 ]; then
    chown 12345:23456 "$D/target.raw"
    KEEP=1 run force_keeps_owner 0 "" "" -- $G gen -q -n 3 -t i32 -f target.raw
    [ "$(stat -c '%u:%g %a' "$D/target.raw")" = "12345:23456 640" ] && pass overwrite_keeps_owner || fail overwrite_keeps_owner "$(stat -c '%u:%g %a' "$D/target.raw")"
else
    echo "SKIP overwrite_keeps_owner: not root"
fi
# output names of 245 to 255 bytes (NAME_MAX): the temporary name must not be longer
for len in 245 250 255; do
    name=$(printf 'x%.0s' $(seq $((len - 4)))).raw
    KEEP=1 run "name_len_$len" 0 "" "" -- $G gen -q -n 2 -t i32 "$name"
    [ "$(stat -c %s "$D/$name" 2>/dev/null)" = 8 ] && pass "name_len_${len}_written" || fail "name_len_${len}_written" "missing"
    rm -f "$D/$name"
    zname=$(printf 'x%.0s' $(seq $((len - 4)))).zst
    KEEP=1 run "name_len_${len}_zst" 0 "" "" -- sh -c "$G gen -q -n 2 -t i32 $zname && test -s $zname && rm $zname"
done

# ---- options ------------------------------------------------------------------------------------
newdir opts
printf '\1\0\0\0\5\0\0\0\3\0\0\0\4\0\0\0' >"$D/x.raw"
printf 'a,b\n1,2\n3,4\n' >"$D/t.csv"
run bench_algo_unknown 2 "unknown --algo 'nosuch' (gpustream info lists them)" - -- $G bench --algo nosuch
run bench_algo_list_unknown 2 "unknown --algo 'nosuch' (gpustream info lists them)" - -- $G bench --algo cpu,nosuch
run repeated_last_wins_window 0 "" 010000000500000003000000050000000300000004000000 -- $G minmax -q -w 0 -w 2 -t i32 x.raw
run repeated_last_wins_type 0 "" "$(hexof '1\n5\n3\n4\n')" -- $G convert -q -t f64 -t i32 x.raw --to text
run repeated_last_wins_pred 0 "" "$(hexof '2\n')" -- $G compact -q --pred eq:9 --pred gt:3 --count -t i32 x.raw
run repeated_last_wins_bench_list 2 "unknown --algo 'nosuch' (gpustream info lists them)" - -- $G bench --algo cpu --algo nosuch
run repeated_first_bad_ignored 0 "" 0000000000000000 -- $G gen -q -n 0 -n 2 -t i32 --dist uniform:0:0
run frame_size_2G_message 2 "--frame-size must be from 1K to 1G" "" -- $G gen -q -n 2 --frame-size 2G -z
if command -v zstd >/dev/null; then
    run frame_size_1G_ok 0 "" "$(hexof 'ok\n')" -- sh -c "$G gen -q -n 2 --frame-size 1G -z | zstd -dc | wc -c | grep -qx 8 && echo ok"
fi
# narrowing saturates, integers and floats alike
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<4q',2**40,-2**40,5,-5))" >"$D/i64.raw"
run narrow_i64_i32_saturates 0 "" "$(hexof '2147483647\n-2147483648\n5\n-5\n')" -- $G convert -q -t i64 --out-type i32 i64.raw --to text
run narrow_i64_u32_saturates 0 "" "$(hexof '4294967295\n0\n5\n0\n')" -- $G convert -q -t i64 --out-type u32 i64.raw --to text
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<4d',1e10,-1e10,5,-5))" >"$D/f64.raw"
run narrow_f64_i32_saturates 0 "" "$(hexof '2147483647\n-2147483648\n5\n-5\n')" -- $G convert -q -t f64 --out-type i32 f64.raw --to text
$G convert --help | grep -q "narrowing saturates" && pass help_states_narrowing || fail help_states_narrowing "not in --help"
# --col: CSV only; a number with a sign or blanks is a number
run col_on_raw 2 "x.raw: --col applies to CSV and 2-D npy input, and this input is raw" "" -- $G scan -q --col 2 -t i32 x.raw
IN=$D/t.csv run col_on_text 2 "stdin: --col applies to CSV and 2-D npy input, and this input is text" "" -- $G scan -q --col 1 --from text
run col_plus 0 "" "$(hexof 'b\n2\n6\n')" -- $G scan -q --col +2 t.csv --to csv
run col_space 0 "" "$(hexof 'b\n2\n6\n')" -- $G scan -q --col ' 2' t.csv --to csv
run col_zero 2 "invalid column '0' (columns are counted from 1)" "" -- $G scan -q --col 0 t.csv
run col_minus 2 "invalid column '-1' (columns are counted from 1)" "" -- $G scan -q --col -1 t.csv
# checked before the input is opened: a usage error (2), not the missing input (1)
run pred_checked_first 2 "invalid value in predicate 'eq:abc' (not a number)" "" -- $G compact --pred eq:abc missing.raw
run pred_unknown_first 2 "unknown predicate 'foo' (expected nonzero, eq:V, ne:V, gt:V, ge:V, lt:V, le:V, range:A:B, finite or nan)" "" -- $G compact --pred foo missing.raw
run pred_checked_first_typed 2 "invalid value in predicate 'eq:1.5' for type i32 (integers only)" "" -- $G compact -t i32 --pred eq:1.5 missing.raw
run col_checked_first 2 "invalid column '0' (columns are counted from 1)" "" -- $G scan --col 0 missing.csv
run empty_out_path 2 "invalid file name '' (use '-' for stdin or stdout)" "" -- $G scan x.raw ''
run empty_in_path 2 "invalid file name '' (use '-' for stdin or stdout)" "" -- $G scan ''

# ---- a first CSV line of >= 64 MiB without a line end: the true reason, found in one pass ------------
newdir longline
head -c $((65 << 20)) /dev/zero | tr '\0' '1' >"$D/long.csv"
run csv_long_first_line 1 "long.csv: line 1: a row longer than 64 MiB (no line end)" "" -- $G scan -q long.csv
IN=$D/long.csv run csv_long_first_line_stdin 1 "stdin: line 1: a row longer than 64 MiB (no line end)" "" -- $G scan -q --from csv
rm -f "$D/long.csv"
