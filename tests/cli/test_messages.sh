#!/usr/bin/env bash
# tests/cli/test_messages.sh - errors that must say what is true, on one line: each case states the
# exit status, the exact error line and that the directory holds nothing new. PASS/FAIL lines for
# tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
D=$T/d
mkdir -p "$D"
listing() { (cd "$D" && ls -A | sort | tr '\n' ' '); }

# err NAME WANT_RC WANT_ERR -- cmd...: run in $D; exactly one error line, equal to WANT_ERR
err() {
    local name=$1 want=$2 werr=$3; shift 4
    local before after rc
    before=$(listing)
    (cd "$D" && "$@") >"$T/.out" 2>"$T/.err" </dev/null
    rc=$?
    after=$(listing)
    local lines; lines=$(wc -l <"$T/.err")
    local got; got=$(grep '^gpustream: error: ' "$T/.err" | sed 's/^gpustream: error: //')
    if [ $rc -ne "$want" ]; then fail "$name" "exit $rc, want $want: $(head -c 300 "$T/.err")"
    elif [ "$got" != "$werr" ]; then fail "$name" "error [$got], want [$werr]"
    elif [ "$lines" -ne 1 ]; then fail "$name" "$lines lines on stderr: $(head -c 300 "$T/.err")"
    elif [ "$before" != "$after" ]; then fail "$name" "left behind: [$before] -> [$after]"
    else pass "$name"; fi
}

printf '\1\0\0\0\2\0\0\0' >"$D/in.raw"
# OUT a dangling symlink: not written through unasked, and the message says why
ln -s "$T/missing-dir/out.raw" "$D/dangling"
err dangling_symlink 1 "dangling: a symlink to '$T/missing-dir/out.raw', which does not exist (use -f to write through it)" -- $G scan -q -t i32 in.raw dangling
err dangling_symlink_force 1 "dangling -> $T/missing-dir/out.raw: No such file or directory" -- $G scan -q -f -t i32 in.raw dangling
ln -s "$T/elsewhere.raw" "$D/dangling2"
err dangling_symlink_dir_exists 1 "dangling2: a symlink to '$T/elsewhere.raw', which does not exist (use -f to write through it)" -- $G scan -q -t i32 in.raw dangling2
(cd "$D" && $G scan -q -f -t i32 in.raw dangling2) && cmp -s "$T/elsewhere.raw" <(printf '\1\0\0\0\3\0\0\0') \
    && pass dangling_symlink_force_writes || fail dangling_symlink_force_writes "-f did not write the symlink's target"
rm -f "$T/elsewhere.raw"
err missing_dir 1 "nodir/out.raw: No such file or directory" -- $G scan -q -t i32 in.raw nodir/out.raw
# npy cut right after its magic: truncated, not "not an npy file"
printf '\223NUMPY' >"$D/cut6.npy"
err npy_cut_after_magic 1 "cut6.npy: truncated npy header" -- $G scan -q cut6.npy -
printf '\223NUMPY\1\0\166' >"$D/cut9.npy"
err npy_cut_in_length 1 "cut9.npy: truncated npy header" -- $G scan -q cut9.npy -
printf '\223NUM' >"$D/cut4.npy"
err npy_cut_in_magic 1 "cut4.npy: not an npy file (no \\x93NUMPY magic)" -- $G scan -q --from npy cut4.npy -
# control characters in a message are escaped: one error line whatever the name holds
err newline_in_out 1 "nodir/a\\nb: No such file or directory" -- $G scan -q -t i32 in.raw "nodir/a
b"
printf 'a,b\n1,2\n' >"$D/t.csv"
err newline_in_col 1 "t.csv: no column named 'c\\nd' in the header; its columns: 'a', 'b'" -- $G scan -q --col "c
d" t.csv -
# compact --count with OUT: the count goes to OUT (a line of text), nothing to stdout
(cd "$D" && $G compact -q --count --pred gt:1 -t i32 in.raw count.txt >"$T/stdout") && [ "$(cat "$D/count.txt")" = 1 ] &&
    [ ! -s "$T/stdout" ] && pass count_to_out || fail count_to_out "count.txt: $(cat "$D/count.txt" 2>&1), stdout: $(head -c 100 "$T/stdout")"
err count_out_exists 1 "count.txt: file exists (use -f to overwrite)" -- $G compact -q --count --pred gt:0 -t i32 in.raw count.txt
(cd "$D" && $G compact -q -f --count --pred gt:0 -t i32 in.raw count.txt) && [ "$(cat "$D/count.txt")" = 2 ] &&
    pass count_to_out_force || fail count_to_out_force "count.txt: $(cat "$D/count.txt" 2>&1)"
rm -f "$D/count.txt"
# help to a full device: an error, exit 1
err help_to_full 1 "stdout: write failed: No space left on device" -- sh -c "$G scan --help >/dev/full"
# MPI rank variables set by hand, without a launcher: the process runs alone (a stdin run works)
printf '\1\0\0\0\2\0\0\0' | $G scan -q -t i32 - - >"$T/alone" 2>/dev/null
for v in "PMI_SIZE=4 PMI_RANK=0" "OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_RANK=1"; do
    printf '\1\0\0\0\2\0\0\0' | env $v $G scan -q -t i32 - - >"$T/got" 2>"$T/err"
    rc=$?
    if [ $rc = 0 ] && cmp -s "$T/alone" "$T/got"; then pass "rank_vars_without_launcher_${v%%=*}"
    else fail "rank_vars_without_launcher_${v%%=*}" "exit $rc: $(head -c 200 "$T/err")"; fi
done
# --skip-bad says what it skipped (one warning line; -q silences it); --indices count input data
# rows (a blank line is none), as pandas does; --indices before another stage is refused
printf 'a\n1\n\n5\nx\n7\n' >"$D/sb.csv"
(cd "$D" && $G scan --skip-bad sb.csv -) >"$T/out" 2>"$T/err"
[ "$(cat "$T/err")" = "gpustream: warning: skipped 1 row (bad fields, --skip-bad)" ] && pass skip_bad_warns || fail skip_bad_warns "stderr: $(head -c 200 "$T/err")"
(cd "$D" && $G scan -q --skip-bad sb.csv -) >"$T/out" 2>"$T/err"
[ ! -s "$T/err" ] && pass skip_bad_quiet || fail skip_bad_quiet "stderr: $(head -c 200 "$T/err")"
(cd "$D" && $G compact -q --pred gt:2 --indices --skip-bad sb.csv --to text -) >"$T/out" 2>"$T/err"
[ "$(tr '\n' ' ' <"$T/out")" = "1 3 " ] && pass skip_bad_indices_rows || fail skip_bad_indices_rows "got [$(cat "$T/out")] $(head -c 200 "$T/err")"
err skip_bad_indices_mid_chain 2 "stage 1 (compact): --indices before another stage, with --skip-bad: positions are input rows only where they are written; make compact --indices the last stage" -- $G compact -q --pred gt:2 --indices --skip-bad then scan sb.csv -
rm -f "$D/sb.csv"
# a predicate's value that is no number: no type named (none was given)
err pred_not_a_number 2 "invalid value in predicate 'gt:' (not a number)" -- sh -c "$G compact -q --pred gt: in.raw - 2>&1 >/dev/null | grep -v '^Try ' >&2; exit 2"
# an empty raw file holds 0 elements, known ahead: npy output of it goes to a pipe too
: >"$D/empty.raw"
(cd "$D" && $G scan -q -t i32 empty.raw --to npy - | head -c 6 | od -An -c | tr -d ' \n') >"$T/magic" 2>"$T/err"
[ "$(cat "$T/magic")" = '223NUMPY' ] && pass empty_raw_npy_pipe || fail empty_raw_npy_pipe "got $(cat "$T/magic") $(head -c 200 "$T/err")"
rm -f "$D/empty.raw"
# --device: a number, a list (chunks dealt to each GPU in turn) or all; the list's errors name the
# part that is wrong; bench takes one GPU; a small input under --backend auto runs on the CPU
dev_err() { err "$1" 2 "$2" -- sh -c "$G $3 2>&1 >/dev/null | grep -v '^Try ' >&2; exit 2"; }
dev_err device_list_word "invalid --device 'x' (expected an integer from 0 to 1023)" "scan -q -t i32 --device 0,x in.raw -"
dev_err device_list_empty_part "invalid --device '' (expected an integer from 0 to 1023)" "scan -q -t i32 --device 0, in.raw -"
dev_err device_list_long "--device names at most 16 GPUs" "scan -q -t i32 --device $(seq -s, 0 16) in.raw -"
dev_err device_list_bench "--device takes one GPU (a number) in bench" "bench --device 0,1 --op scan -n 1000"
for d in 0,1 all 0,0; do
    (cd "$D" && $G scan -q -t i32 --device $d in.raw -) >"$T/got" 2>"$T/err"
    if [ $? = 0 ] && cmp -s "$T/got" <(printf '\1\0\0\0\3\0\0\0'); then pass "device_list_small_auto_$d"
    else fail "device_list_small_auto_$d" "$(head -c 200 "$T/err")"; fi
done
