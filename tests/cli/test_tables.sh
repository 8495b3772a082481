#!/usr/bin/env bash
# tests/cli/test_tables.sh - real CSV tables: missing values and the positions of dropped rows
# against pandas (tests/tables.py: every NA spelling, empty fields in every column position,
# quoted delimiters and line breaks, CRLF, --na V|skip, --skip-bad, --indices over several --chunk
# and --threads values, stdin), input detected by content, output formats gpustream does not write,
# and compact --rows; --keep with one column and with several (tests/keep_columns.py). PASS/FAIL/SKIP
# lines for tests/run.sh; pandas missing: its checks skip.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

python3 tests/tables.py "$G" "$T/tables" ${TABLES_QUICK:+--quick}
python3 tests/keep_columns.py "$G" "$T/keepcols" ${TABLES_QUICK:+--quick}

# ---- input recognised by content, and names --------------------------------------------------
# same NAME WANT_FILE CMD...: the command's stdout equals the file
same() {
    local name=$1 want=$2; shift 2
    ran_ok "$name" "$@" || return 0
    if cmp -s "$want" "$T/got"; then pass "$name"
    else fail "$name" "got [$(head -c 200 "$T/got")] want [$(head -c 200 "$want")]"; fi
}
# refused NAME CODE PATTERN CMD...: exits CODE, one error line matching PATTERN
refused() {
    if refused_with "$1" "$2" -G "$3" "${@:4}"; then pass "$1"; fi
}
printf '1\n3\n6\n10\n15\n' >"$T/seq.want"
same stdin_seq_is_text "$T/seq.want" sh -c "seq 1 5 | $G scan -q"
same stdin_seq_devstdin "$T/seq.want" sh -c "seq 1 5 | $G scan -q /dev/stdin"
same procsub_seq "$T/seq.want" bash -c "$G scan -q <(seq 1 5)"
$G scan -q --col price data/prices.csv - >"$T/prices.want"
same stdin_csv_col "$T/prices.want" sh -c "cat data/prices.csv | $G scan -q --col price"
cp data/prices.csv "$T/prices.dat"; cp data/prices.csv "$T/prices"
same csv_under_dat "$T/prices.want" $G scan -q --col price "$T/prices.dat"
same csv_no_extension "$T/prices.want" $G scan -q --col price "$T/prices"
# a large CSV on a pipe loses nothing to the sniffing (several peeks' worth)
seq 1 200000 | awk '{print $1 "," $1 * 2}' >"$T/big.csv"
$G scan -q --col 2 "$T/big.csv" - >"$T/big.want"
same stdin_big_csv "$T/big.want" sh -c "cat '$T/big.csv' | $G scan -q --col 2 --chunk 4K"
same fifo_big_csv "$T/big.want" bash -c "rm -f '$T/ff'; mkfifo '$T/ff'; (cat '$T/big.csv' >'$T/ff' &); timeout 60 $G scan -q --col 2 '$T/ff'"
# whitespace-separated numbers: text
printf '1 2 3\n4 5\n' | $G scan -q >"$T/got" 2>&1 && [ "$(tr '\n' ' ' <"$T/got")" = "1 3 6 10 15 " ] && pass stdin_text_tokens || fail stdin_text_tokens "$(head -c 200 "$T/got")"
# .tsv and .tab: tab-delimited, on input and output
printf 'a\tb\n1\t2.5\n3\t\n5\t"x\ty"\n' >"$T/t.tsv"
printf 'b\n2.5\nnan\n' >"$T/tsv.want"
same tsv_input "$T/tsv.want" $G convert -q --col b --skip-bad "$T/t.tsv" --to csv
cp "$T/t.tsv" "$T/t.tab"
same tab_input "$T/tsv.want" $G convert -q --col b --skip-bad "$T/t.tab" --to csv
printf 'a\tb\n1\t2.5\n' >"$T/t2.tsv"
$G convert -q --col 2 "$T/t2.tsv" "$T/o.tsv" -f && printf 'b\n2.5\n' | cmp -s - "$T/o.tsv" && pass tsv_output || fail tsv_output "$(cat -A "$T/o.tsv" | head -3)"
# binary stays raw: values, and an error naming --from where raw was assumed
$G gen -q -n 1000 -t i32 "$T/g.raw"
$G scan -q -t i32 "$T/g.raw" "$T/g.want" -f
same stdin_raw_still_raw "$T/g.want" sh -c "cat '$T/g.raw' | $G scan -q -t i32 -f"
refused raw_assumed_names_from 1 "--from csv" sh -c "printf 'abcdef' | $G scan -q -f"
refused raw_assumed_col_names_from 2 "--from csv" sh -c "printf 'ab\0def' | $G scan -q --col 2 -f"
# output formats gpustream does not write: a usage error naming those it writes (--to overrides)
for ext in parquet npz json xlsx feather; do
    refused "out_ext_$ext" 2 "does not write .$ext.*raw, npy.*csv.*text" $G scan -q "$T/seq.want" "$T/out.$ext"
    [ -e "$T/out.$ext" ] && fail "out_ext_${ext}_left" "OUT exists" || pass "out_ext_${ext}_none_left"
done
refused gen_out_npz 2 "does not write .npz" $G gen -q -n 3 "$T/o.npz"
$G convert -q "$T/seq.want" "$T/out.parquet" --to csv && cmp -s "$T/out.parquet" "$T/seq.want" && pass out_ext_with_to || fail out_ext_with_to "$(head -c 100 "$T/out.parquet")"
# --col given twice: a usage error, never last-wins
refused col_twice 2 "--col given twice ('a' and 'b')" $G scan -q --col a --col b "$T/t2.tsv"

# ---- MPI ranks: positions under --na skip and --skip-bad start at each shard's input row ----------
MPIRUN=$(command -v mpirun)
if [ -z "$MPIRUN" ] || $G info | grep -q '^mpi  *not built'; then
    skip tables_mpi "no mpirun, or gpustream built without MPI"
else
    awk 'BEGIN { srand(9); print "id,price,bad"; for (i = 0; i < 60000; i++) { r = rand();
        p = r < 0.1 ? (r < 0.05 ? "" : "NA") : sprintf("%.2f", rand() * 8000);
        b = (r > 0.97) ? "x" : int(rand() * 100); printf "%d,%s,%s\n", i, p, b } }' >"$T/m.csv"
    for args in "--col bad -t i32 --skip-bad --pred lt:10" "--col price --na skip --skip-bad --pred le:100" \
        "--col price --na skip --pred gt:4000"; do
        # shellcheck disable=SC2086
        $G compact -q --indices $args --threads 1 "$T/m.csv" "$T/m1.txt" --to text -f
        for k in 2 3; do
            # shellcheck disable=SC2086
            timeout 120 "$MPIRUN" --oversubscribe --allow-run-as-root -n $k $G compact -q --indices $args --threads 1 \
                "$T/m.csv" "$T/mk.txt" --to text -f >"$T/mpi.err" 2>&1
            rc=$?
            if [ $rc = 0 ] && [ -s "$T/m1.txt" ] && cmp -s "$T/m1.txt" "$T/mk.txt"; then pass "tables_mpi_$k ($args)"
            else fail "tables_mpi_$k ($args)" "exit $rc: $(head -c 300 "$T/mpi.err") $(cmp "$T/m1.txt" "$T/mk.txt" 2>&1)"; fi
        done
    done
    # a .tsv and a ';' file found by content: every rank reads with the file's delimiter
    tr ',' '\t' <"$T/m.csv" >"$T/m.tsv"
    tr ',' ';' <"$T/m.csv" >"$T/m_semi"
    for f in m.tsv m_semi; do
        $G scan -q --col price --threads 1 "$T/$f" "$T/d1.csv" -f
        timeout 120 "$MPIRUN" --oversubscribe --allow-run-as-root -n 3 $G scan -q --col price --threads 1 "$T/$f" \
            "$T/d3.csv" -f >"$T/mpi.err" 2>&1
        if [ -s "$T/d1.csv" ] && cmp -s "$T/d1.csv" "$T/d3.csv"; then pass "tables_mpi_delim_$f"
        else fail "tables_mpi_delim_$f" "$(head -c 300 "$T/mpi.err") $(cmp "$T/d1.csv" "$T/d3.csv" 2>&1)"; fi
    done
    # the warning: one line, the count of every rank's dropped rows
    $G compact --indices --col price --na skip --pred gt:4000 --threads 1 "$T/m.csv" "$T/m1.txt" --to text -f \
        2>"$T/w1.err"
    timeout 120 "$MPIRUN" --oversubscribe --allow-run-as-root -n 3 $G compact --indices --col price --na skip \
        --pred gt:4000 --threads 1 "$T/m.csv" "$T/mk.txt" --to text -f 2>"$T/wk.err" >/dev/null
    if [ -s "$T/w1.err" ] && cmp -s "$T/w1.err" "$T/wk.err" && [ "$(wc -l <"$T/wk.err")" = 1 ]; then pass tables_mpi_warning
    else fail tables_mpi_warning "[$(cat "$T/w1.err")] vs [$(head -c 300 "$T/wk.err")]"; fi
    # --rows and --keep: each rank writes the rows of its shard (quoted fields with delimiters and
    # quotes, CRLF; a line break inside quotes must not straddle shards: SCALING.md), rank 0 the header
    awk 'BEGIN { srand(11); print "id,price,\"sym\""; for (i = 0; i < 60000; i++) { r = rand();
        p = r < 0.1 ? (r < 0.05 ? "" : "NA") : sprintf("%.2f", rand() * 8000);
        s = r > 0.9 ? "\"a,b\"" : (r > 0.8 ? "\"x\"\"y\"" : "s" i); printf "%d,%s,%s\r\n", i, p, s } }' >"$T/q.csv"
    mpi_same() { # WHAT ARGS: 2 and 3 ranks write what one process writes
        local what=$1 args=$2 k rc
        # shellcheck disable=SC2086
        $G $args -q --threads 1 "$T/q.csv" "$T/q1.csv" -f
        for k in 2 3; do
            # shellcheck disable=SC2086
            timeout 120 "$MPIRUN" --oversubscribe --allow-run-as-root -n $k $G $args -q --threads 1 "$T/q.csv" \
                "$T/qk.csv" -f >"$T/mpi.err" 2>&1
            rc=$?
            if [ $rc = 0 ] && [ -s "$T/q1.csv" ] && cmp -s "$T/q1.csv" "$T/qk.csv"; then pass "tables_mpi_${what}_$k ($args)"
            else fail "tables_mpi_${what}_$k ($args)" "exit $rc: $(head -c 300 "$T/mpi.err") $(cmp "$T/q1.csv" "$T/qk.csv" 2>&1)"; fi
        done
    }
    for args in "compact --rows --pred gt:4000 --col price --na skip" "compact --keep sym,id --pred lt:100 --col price" \
        "scan --op max --keep 3,1 --col price --na skip" "rolling -w 50 --agg max,argmin,count --keep sym --col price" \
        "minmax -w 3000 --keep id --col price --na skip" "rolling -w 7 --partial --agg min --keep all --col price"; do
        mpi_same rows "$args"
    done
    # the warning counts each dropped row once (a window shard's reader parses on past its lines)
    $G minmax -w 3000 --col price --na skip --threads 1 "$T/q.csv" "$T/q1.csv" -f 2>"$T/w1.err"
    timeout 120 "$MPIRUN" --oversubscribe --allow-run-as-root -n 3 $G minmax -w 3000 --col price --na skip --threads 1 \
        "$T/q.csv" "$T/qk.csv" -f 2>"$T/wk.err" >/dev/null
    if [ -s "$T/w1.err" ] && cmp -s "$T/w1.err" "$T/wk.err"; then pass tables_mpi_window_warning
    else fail tables_mpi_window_warning "[$(cat "$T/w1.err")] vs [$(head -c 300 "$T/wk.err")]"; fi
    # argmin/argmax as input rows: each shard starts at its input row (the rows dropped before counted)
    for args in "rolling -w 30 --agg argmin,argmax,max --na skip --col price" \
        "rolling -w 5 --partial --agg argmax --skip-bad --na skip --keep id --col price"; do
        mpi_same args "$args"
    done
    python3 - "$T/m.csv" "$T/m1.txt" <<'PY' && pass tables_mpi_reference || fail tables_mpi_reference "single process differs from pandas"
import sys
try:
    import numpy as np, pandas as pd
except ImportError:
    sys.exit(0)
df = pd.read_csv(sys.argv[1])
got = np.loadtxt(sys.argv[2], dtype=np.int64, ndmin=1)
want = np.flatnonzero(df.price > 4000)
sys.exit(0 if len(got) == len(want) and (got == want).all() else 1)
PY
fi

# ---- --keep and --rows: what they refuse ----------------------------------------------------------
refused keep_chain_compact 2 "--keep in a chain takes scan, minmax and rolling stages" $G scan -q --keep 1 --col 2 data/prices.csv then compact --pred gt:0
refused keep_compact_then_rolling 2 "run compact --keep alone" $G compact -q --pred gt:0 --col 2 data/prices.csv then rolling -w 3 --keep 1
refused arg_mid_chain_dropped 2 "argmin/argmax before another stage, with --na skip" $G rolling -q -w 3 --agg argmin --na skip --col 2 data/prices.csv then scan
refused keep_minmax_to_npy 2 "--keep writes CSV rows: --to csv" $G minmax -q -w 3 --keep 1 --col 2 data/prices.csv --to npy
# --keep on windows: the row at each window's right end (minmax and rolling; a chain of scan and rolling)
printf 't,v,s\n1,5,"a,b"\n2,,c\r\n3,1,"d\ne"\n4,7,f\n5,0,g\n' >"$T/w.csv"
printf 't,s,v_min,v_max\n2,c,nan,nan\n3,"d\ne",nan,nan\n4,f,1,7\n5,g,0,7\n' >"$T/w.want"
same keep_minmax_right_end "$T/w.want" $G minmax -q -w 2 --keep t,s --col v "$T/w.csv"
printf 't,v_argmin,v_argmax,v_count\n1,0,0,1\n3,2,0,2\n4,2,3,2\n5,4,3,2\n' >"$T/w.want"
same keep_rolling_partial_na_skip "$T/w.want" $G rolling -q -w 2 --partial --agg argmin,argmax,count --na skip --keep 1 --col v "$T/w.csv"
printf 't\tv_argmax\n4\t3\n5\t3\n' >"$T/w.want"
tr ',' '\t' <"$T/w.csv" >"$T/w.tsv"
same keep_chain_tsv "$T/w.want" $G scan -q --col v --na skip "$T/w.tsv" then rolling -w 3 --agg argmax --keep t
refused keep_indices 2 "not with --indices, --count or --rows" $G compact -q --keep 1 --indices --col 2 data/prices.csv
refused keep_to_npy 2 "--keep writes CSV rows: --to csv" $G scan -q --keep 1 --col 2 data/prices.csv --to npy
refused keep_unknown_name 1 "no column named 'nosuch' in the header (--keep)" $G scan -q --keep nosuch --col 2 data/prices.csv
refused keep_raw 2 "needs CSV input (this input is raw)" $G scan -q --keep 1 -t i32 "$T/g.raw"
refused rows_indices 2 "--rows writes rows, --indices positions" $G compact -q --rows --indices --col 2 data/prices.csv
refused rows_mid_chain 2 "make it the last stage" $G compact -q --rows --col 2 data/prices.csv then scan
refused rows_after_compact 2 "its positions are no input rows" $G compact -q --col 2 data/prices.csv then compact --rows
refused rows_to_raw 2 "--to csv or --to text" $G compact -q --rows --col 2 data/prices.csv --to raw
refused rows_raw_input 2 "needs CSV or text input (this input is raw)" $G compact -q --rows -t i32 "$T/g.raw"
# every row dropped (no value in any block): the header alone, exit 0
printf 't,v\n1,\n2,NA\n3,\n' >"$T/nov.csv"
printf 't,v\n' >"$T/nov.want"
same rows_all_dropped "$T/nov.want" $G compact -q --pred gt:0 --rows --na skip --col v "$T/nov.csv"
printf 't,v,v\n' >"$T/nov.want"
same keep_all_dropped "$T/nov.want" $G scan -q --keep all --na skip --col v "$T/nov.csv"
printf 't,v\n' >"$T/nov.want"
same keep_one_all_dropped "$T/nov.want" $G scan -q --keep t --skip-bad --na skip --col v "$T/nov.csv"
# --keep without a header: columns by index, no header line
printf '1,"a,b",5\n2,c,7\n' >"$T/nh.csv"
printf '"a,b",1,5\nc,2,12\n' >"$T/nh.want"
same keep_no_header "$T/nh.want" $G scan -q --keep 2,1 --col 3 "$T/nh.csv"
# --keep with several columns: the kept columns, then each column's results (a .tsv: tabs throughout);
# what stays refused (compact's values and --rows, each column keeping other rows; npy input; MPI)
printf 't\tv\tw\ts\n1\t5\t2\t"a\tb"\n2\t\t4\tc\n3\t1\t\t"d\ne"\n4\t7\t8\tf\n5\t0\t1\tg\n' >"$T/k.tsv"
printf 's\tt\tv_max\tv_count\tw_max\tw_count\n"a\tb"\t1\t5\t1\t2\t1\nf\t4\t7\t2\t8\t2\ng\t5\t7\t2\t8\t2\n' >"$T/k.want"
same keep_cols_tsv_na_skip "$T/k.want" $G rolling -q -w 2 --partial --agg max,count --col v,w --na skip --keep s,t "$T/k.tsv"
refused keep_cols_compact 2 "compact keeps a different number of values in each column" $G compact -q --keep 1 --col 2,3 data/prices.csv
refused keep_cols_count 2 "not with --indices, --count or --rows" $G compact -q --count --keep 1 --col 2,3 data/prices.csv
refused keep_cols_rows 2 "--rows takes one column (--col C)" $G compact -q --rows --col 2,3 data/prices.csv
if python3 -c "import numpy as np; np.save('$T/k.npy', np.zeros((4, 3)))" 2>/dev/null; then
    refused keep_cols_npy 2 "--keep writes input columns, which needs CSV input (this input is npy)" $G scan -q --keep 1 --col 1,2 "$T/k.npy"
else skip keep_cols_npy "no numpy"; fi
if [ -n "$MPIRUN" ] && ! $G info | grep -q '^mpi  *not built'; then
    timeout 60 "$MPIRUN" --oversubscribe --allow-run-as-root -n 2 $G scan -q --keep 1 --col 2,3 data/prices.csv "$T/o.csv" \
        -f >"$T/got" 2>"$T/err"
    rc=$?
    if [ $rc = 2 ] && grep -q "several columns (--col a,b) do not run over MPI ranks" "$T/err"; then pass keep_cols_mpi
    else fail keep_cols_mpi "exit $rc: $(head -c 300 "$T/err")"; fi
else skip keep_cols_mpi "no mpirun, or gpustream built without MPI"; fi
