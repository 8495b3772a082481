#!/usr/bin/env bash
# tests/cli/test_multicol.sh - several columns in one pass (--col a,b,c; a 2-D npy): every verb
# against pandas over several --chunk and --threads values (tests/multicol.py), headers, libcsv's
# rows across block edges, and what is refused. PASS/FAIL/SKIP lines for tests/run.sh; pandas
# missing: its checks skip.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

python3 tests/multicol.py "$G" "$T/py" ${TABLES_QUICK:+--quick}

# same NAME WANT_TEXT CMD...: the command's stdout equals the text
same() {
    local name=$1 want=$2; shift 2
    ran_ok "$name" "$@" || return 0
    if [ "$(cat "$T/got")" = "$want" ]; then pass "$name"
    else fail "$name" "got [$(head -c 200 "$T/got")] want [$want]"; fi
}
# refused NAME CODE PATTERN CMD...: exits CODE with one error line holding PATTERN, no OUT left
refused() {
    local name=$1 code=$2 pat=$3; shift 3
    rm -f "$T/out.csv"
    refused_with "$name" "$code" -F "$pat" "$@" || return 0
    if [ -e "$T/out.csv" ]; then fail "$name" "OUT left behind"; else pass "$name"; fi
}

printf 'a,b,"c d"\n1,10,100\n2,20,200\n3,,300\n4,40,400\n' >"$T/t.csv"
same scan_header "a,c d
1,100
3,300
6,600
10,1000" $G scan -q --col 'a, c d' "$T/t.csv"
same scan_missing "b,a
10,1
30,3
nan,6
nan,10" $G scan -q --col b,a "$T/t.csv"
same scan_na_skip "a,b
1,10
3,30
7,70" $G scan -q --col 1-2 --na skip "$T/t.csv"
same minmax_names "c d_min,c d_max,a_min,a_max
100,200,1,2
200,300,2,3
300,400,3,4" $G minmax -q -w 2 --col 3,1 "$T/t.csv"
same rolling_names "a_sum,a_count,b_sum,b_count
3,2,30,2
5,2,nan,1
7,2,nan,1" $G rolling -q -w 2 --agg sum,count --col a,b "$T/t.csv"
same compact_count "4,3" $G compact -q --count --col a,b --pred gt:0 "$T/t.csv"
$G compact -q --count --col a,b --pred gt:1 "$T/t.csv" "$T/n.txt" && [ "$(cat "$T/n.txt")" = "3,3" ] &&
    pass compact_count_out || fail compact_count_out "$(cat "$T/n.txt" 2>&1)"
# no header: no header line for scan; by index only
printf '1,2,3\n4,5,6\n' >"$T/nh.csv"
same no_header "3,1
9,5" $G scan -q --col 3,1 "$T/nh.csv"
same no_header_given "2,3
7,9" $G scan -q --no-header --col 2-3 "$T/nh.csv"
# rows whose quoted fields hold line breaks, across libcsv's block edges (tiny blocks: --chunk
# is the engine's; the parser's blocks follow the input, so the row spans many reads)
python3 - "$T/q.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('x,"t",y\n')
    for i in range(3000):
        f.write(f'{i},"a\n,b,{i}\n",{2 * i}\n' if i % 3 == 0 else f'{i},plain,{2 * i}\n')
PY
$G scan -q --col x,y "$T/q.csv" --chunk 64 --threads 2 >"$T/q.out" 2>"$T/err"
python3 - "$T/q.out" <<'PY' && pass quoted_rows || fail quoted_rows "$(head -c 300 "$T/err") $(sed -n 2,3p "$T/q.out")"
import sys
rows = open(sys.argv[1]).read().split("\n")
ok = rows[0] == "x,y" and len(rows) == 3002
sx = sy = 0
for i in range(3000):
    sx += i; sy += 2 * i
    ok = ok and rows[1 + i] == f"{sx},{sy}"
sys.exit(0 if ok else 1)
PY
# the same column twice in a chain of its own is fine; a list of one range
same one_range "c d
100
300
600
1000" $G scan -q --col 3-3 "$T/t.csv"

# a header cell holding ',' named whole is that one column, not a list
printf '"pri,ce",b\n1,2\n3,4\n' >"$T/pc.csv"
same comma_in_name '"pri,ce"
1
4' $G scan -q --col 'pri,ce' "$T/pc.csv"

# ---- refused --------------------------------------------------------------------------------------
refused unknown_name 1 "no column named 'zz' in the header" $G scan -q --col a,zz "$T/t.csv" "$T/out.csv"
refused repeated 2 "column 1 ('1') is in the list twice" $G scan -q --col a,1 "$T/t.csv" "$T/out.csv"
refused repeated_range 2 "column 2 ('1-3') is in the list twice" $G scan -q --col 2,1-3 "$T/t.csv" "$T/out.csv"
refused empty_item 2 "an empty column in the list" $G scan -q --col a,,b "$T/t.csv" "$T/out.csv"
refused bad_range 2 "invalid range '3-1'" $G scan -q --col 3-1 "$T/t.csv" "$T/out.csv"
refused too_many 2 "selects more than 16 columns" $G scan -q --col 1-17 "$T/t.csv" "$T/out.csv"
refused too_wide 2 "9 columns of 2 results each make 18 output columns: at most 16" \
    $G minmax -q -w 2 --col 1-9 "$T/t.csv" "$T/out.csv"
refused compact_values 2 "compact keeps a different number of values in each column" \
    $G compact -q --col a,b "$T/t.csv" "$T/out.csv"
refused compact_mid_chain 2 "compact keeps a different number of values in each column" \
    $G compact -q --col a,b "$T/t.csv" then scan
$G gen -q -n 100 -t i32 "$T/g.raw"
refused raw_input 2 "--col applies to CSV and 2-D npy input, and this input is raw" \
    $G scan -q -t i32 --col 1,2 "$T/g.raw" "$T/out.csv"
refused rows 2 "--rows takes one column (--col C)" $G compact -q --rows --col a,b "$T/t.csv" "$T/out.csv"
refused names_no_header 2 "names columns, which needs a header line" \
    $G scan -q --no-header --col a,b "$T/t.csv" "$T/out.csv"
refused twice 2 "give several columns as one list (--col a,b)" $G scan -q --col a --col b "$T/t.csv"
python3 -c "import numpy as np; np.save('$T/m.npy', np.zeros((4, 3))); np.save('$T/v.npy', np.zeros(4))" 2>/dev/null &&
    { refused npy_out_of_range 2 "--col 4, but the npy array has 3 columns" $G scan -q --col 2,4 "$T/m.npy" "$T/out.csv"
      refused npy_1d 2 "takes columns of a 2-D array in C order (n, k); this one is 1-D" \
          $G scan -q --col 1,2 "$T/v.npy" "$T/out.csv"; } ||
    skip npy_refusals "no numpy"
