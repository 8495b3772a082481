#!/usr/bin/env bash
# tests/cli/test_robust3.sh - hostile inputs, third pass: CSV line ends decided outside quotes,
# decimal exponents that saturate to strtod's answer, one delimiter per CSV output, and float sums
# of -0.0 as numpy's cumsum. Each case states the exact exit status and output bytes; the oracles
# (Python's csv module, float(), numpy) run where python3 (with numpy) is present, else skip.
# PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

PY=
if command -v python3 >/dev/null && python3 -c 'import numpy' 2>/dev/null; then PY=python3; fi

# check NAME WANT_OUT cmd...: exit 0, no error on stderr, stdout WANT_OUT (both without their last
# line end, as $(...) gives them).
check() {
    local name=$1 want=$2; shift 2
    local out rc
    out=$("$@" 2>"$T/.err")
    rc=$?
    if [ "$rc" != 0 ]; then fail "$name" "exit $rc: $(head -c 300 "$T/.err")"
    elif grep -q 'error' "$T/.err"; then fail "$name" "stderr: $(head -c 300 "$T/.err")"
    elif [ "$out" != "$want" ]; then fail "$name" "output [$(printf '%s' "$out" | od -c | head -3 | tr -s ' \n' ' ')], want [$(printf '%s' "$want" | od -c | head -3 | tr -s ' \n' ' ')]"
    else pass "$name"; fi
}
nl=$'\n'

# ---- CSV line ends: the style is that of the first CR or LF outside quotes ----------------------
# name|bytes (printf format)|--col|expected values
while IFS='|' read -r name bytes col want; do
    [ -n "$name" ] || continue
    printf "$bytes" >"$T/$name.csv"
    check "csv_lineend_$name" "$(printf "$want")" $G convert -q --col "$col" "$T/$name.csv" --to text
    check "csv_lineend_${name}_small_chunks" "$(printf "$want")" $G convert -q --chunk 4K --threads 3 --col "$col" "$T/$name.csv" --to text
    if [ -n "$PY" ]; then
        py=$($PY -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8-sig')))
print('\n'.join('%g' % float(r[int(sys.argv[2]) - 1]) for r in rows[1:] if r))" "$T/$name.csv" "$col")
        [ "$py" = "$(printf "$want")" ] && pass "csv_lineend_${name}_python_agrees" ||
            fail "csv_lineend_${name}_python_agrees" "python reads [$py]"
    else
        skip "csv_lineend_${name}_python_agrees" "python3 with numpy missing"
    fi
done <<'EOF'
cr_quoted_crlf|"a\r\nb",v\r1,5\r2,6\r3,7\r|2|5\n6\n7\n
cr_quoted_lf|"a\nb",v\r1,5\r2,6\r3,7\r|2|5\n6\n7\n
cr_quoted_lf_last_field|v,"a\nb"\r1,5\r2,6\r|2|5\n6\n
cr_quoted_lf_first_col|v,"a\nb"\r1,5\r2,6\r|1|1\n2\n
cr_quoted_cr|"a\rb",v\r1,5\r2,6\r|2|5\n6\n
cr_quoted_crlf_no_last_end|"x\r\n\r\ny",v\r1,5\r2,6|2|5\n6\n
cr_quoted_escaped_quote|"a""\r\n""b",v\r1,5\r2,6\r|2|5\n6\n
cr_quoted_then_space|"a\n" ,v\r1,5\r2,6\r|2|5\n6\n
crlf_quoted_cr|"a\rb",v\r\n1,5\r\n2,6\r\n|2|5\n6\n
lf_quoted_cr|"a\rb",v\n1,5\n2,6\n|2|5\n6\n
lf_quoted_crlf|"a\r\nb",v\n1,5\n2,6\n|2|5\n6\n
cr_bom_quoted_crlf|\xef\xbb\xbf"a\r\nb",v\r1,5\r2,6\r|2|5\n6\n
cr_quoted_value|v,w\r"1",5\r"2\r",6\r|2|5\n6\n
EOF

# A CR-only file with a quoted line break in the first row and a bad value: the line is named.
printf '"a\nb",v\r1,5\r2,x\r' >"$T/crbad.csv"
err=$($G convert -q --col 2 "$T/crbad.csv" --to text 2>&1 >/dev/null)
[ "$err" = "gpustream: error: $T/crbad.csv: line 4 field 2: invalid number 'x'" ] &&
    pass csv_lineend_cr_quoted_lf_error_line || fail csv_lineend_cr_quoted_lf_error_line "[$err]"

# ---- decimal exponents: saturation gives strtod's answer ---------------------------------------
# text: "0." + Z zeros + "1e" + E, read as f64 and f32, against Python's float()
if command -v python3 >/dev/null; then
    for spec in "999999 +10000001" "1000004 +10000001" "1000000 +1000000" "1000000 +1000001" "999999 +1000308" \
                "999990 +1000000" "1000000 +999999" "1000000 +99999999999999999999" "2000000 +2000005" "5 -10000001"; do
        set -- $spec
        python3 -c "import sys; sys.stdout.write('0.' + '0' * $1 + '1e$2\n')" >"$T/e.txt"
        want=$(python3 -c "
import sys
x = float(open(sys.argv[1]).read())
s = 'inf' if x == float('inf') else repr(x)
print(s[:-2] if s.endswith('.0') else s)" "$T/e.txt")
        check "exponent_saturates_$1_zeros_e$2" "$want" $G convert -q --from text -t f64 "$T/e.txt" --to text
    done
    python3 -c "import sys; sys.stdout.write('0.' + '0' * 999999 + '1e10000001\n')" >"$T/e.txt"
    check exponent_saturates_f32 "inf" $G convert -q --from text -t f32 "$T/e.txt" --to text
else
    skip exponent_saturates "python3 missing"
fi

# ---- one delimiter per CSV output -------------------------------------------------------------
printf 'x;price\n1;5\n2;3\n3;9\n4;1\n' >"$T/d.csv"
check minmax_delim_header "price_min;price_max${nl}3;5${nl}3;9${nl}1;9" $G minmax -q -w 2 --delim ';' --col price "$T/d.csv" --to csv
printf 'x\tprice\n1\t5\n2\t3\n' >"$T/t.csv"
check minmax_delim_tab_header "price_min	price_max${nl}3	5" $G minmax -q -w 2 --delim tab --col price "$T/t.csv" --to csv
check scan_delim_header "price${nl}5${nl}8${nl}17${nl}18" $G scan -q --delim ';' --col price "$T/d.csv" --to csv

# ---- float sums of -0.0: numpy's cumsum --------------------------------------------------------
for be in cpu auto; do
    check "scan_negzero_f64_$be" "-0${nl}-0" sh -c "printf -- '-0.0\n-0.0\n' | $G scan -q --backend $be --from text -t f64 --to text"
    check "scan_negzero_f32_$be" "-0${nl}-0" sh -c "printf -- '-0.0\n-0.0\n' | $G scan -q --backend $be --from text -t f32 --to text"
    check "scan_negzero_f32_f64_$be" "-0${nl}-0" sh -c "printf -- '-0.0\n-0.0\n' | $G scan -q --backend $be --from text -t f32 --out-type f64 --to text"
    check "scan_negzero_mixed_$be" "-0${nl}1${nl}0${nl}0" sh -c "printf -- '-0\n1\n-1\n-0\n' | $G scan -q --backend $be --from text -t f64 --to text"
    check "scan_negzero_exclusive_$be" "0${nl}0" sh -c "printf -- '-0.0\n-0.0\n' | $G scan -q --backend $be --exclusive --from text -t f64 --to text"
    check "scan_negzero_min_$be" "-0${nl}-0" sh -c "printf -- '-0.0\n0.0\n' | $G scan -q --backend $be --op min --from text -t f64 --to text"
    check "convert_negzero_text_$be" "-0${nl}-0" sh -c "printf -- '-0.0\n-0\n' | $G convert -q --backend $be --from text -t f64 --to text"
done
# many -0.0 (the parallel blocks, several chunks, a chain): every sum is -0.0, bit for bit
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<d', -0.0) * 300000)" >"$T/nz.f64" 2>/dev/null ||
    printf '' >"$T/nz.f64"
for args in "" "--chunk 64K" "--threads 1" "--exclusive"; do
    $G scan -q -f -t f64 $args "$T/nz.f64" "$T/nzs.f64" 2>"$T/.err"
    if [ "$args" = --exclusive ]; then
        want=$(python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<d', 0.0) + struct.pack('<d', 0.0) * 299999)" | od -An -tx1 | md5sum)
    else
        want=$(od -An -tx1 "$T/nz.f64" | md5sum)
    fi
    [ "$(od -An -tx1 "$T/nzs.f64" | md5sum)" = "$want" ] && pass "scan_negzero_many_${args:-plain}" ||
        fail "scan_negzero_many_${args:-plain}" "not all -0.0: $(head -c 200 "$T/.err")"
done
$G scan -q -f -t f64 "$T/nz.f64" then scan "$T/nzs.f64" 2>"$T/.err"
[ "$(od -An -tx1 "$T/nzs.f64" | md5sum)" = "$(od -An -tx1 "$T/nz.f64" | md5sum)" ] && pass scan_negzero_chain ||
    fail scan_negzero_chain "not all -0.0: $(head -c 200 "$T/.err")"
if [ -n "$PY" ]; then
    $PY -c "
import numpy as np
rng = np.random.default_rng(7)
x = rng.choice(np.array([-0.0, 0.0, 1.0, -1.0, 0.5, -0.5]), 200000, p=[.6, .1, .075, .075, .075, .075])
x.tofile('$T/mz.f64'); np.cumsum(x).tofile('$T/mz.want')
x.astype(np.float32).tofile('$T/mz.f32'); np.cumsum(x.astype(np.float32)).tofile('$T/mz32.want')"
    $G scan -q -f -t f64 "$T/mz.f64" "$T/mz.got" 2>"$T/.err"
    cmp -s "$T/mz.got" "$T/mz.want" && pass scan_negzero_numpy_random || fail scan_negzero_numpy_random "differs from numpy.cumsum"
else
    skip scan_negzero_numpy_random "python3 with numpy missing"
fi
# Every GPU scan variant, where a GPU answers. These sums are exact, so any order of adding gives
# numpy's bits: -0.0 exactly where every element so far is -0.0.
if $G scan -q -f --backend gpu -t f64 "$T/nz.f64" "$T/g.f64" 2>/dev/null; then
    for a in $($G info | awk '$1 == "scan" { b = $3 == "*" ? $4 : $3; if (b == "gpu") print $2 }'); do
        for args in "" "--chunk 64K" "--exclusive"; do
            name="scan_negzero_gpu_${a}_${args:-plain}"
            $G scan -q -f --backend gpu --algo "$a" -t f64 $args "$T/nz.f64" "$T/g.f64" 2>"$T/.err"
            want=$T/nz.f64
            if [ "$args" = --exclusive ]; then
                python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<d', 0.0) * 300000)" >"$T/z.f64"
                want=$T/z.f64
            fi
            cmp -s "$T/g.f64" "$want" && pass "$name" || fail "$name" "not numpy's zeros: $(head -c 200 "$T/.err")"
        done
        if [ -n "$PY" ]; then
            $G scan -q -f --backend gpu --algo "$a" -t f64 "$T/mz.f64" "$T/g.f64" 2>"$T/.err"
            cmp -s "$T/g.f64" "$T/mz.want" && pass "scan_negzero_gpu_${a}_numpy" || fail "scan_negzero_gpu_${a}_numpy" "differs from numpy.cumsum"
            $G scan -q -f --backend gpu --algo "$a" -t f32 "$T/mz.f32" "$T/g.f32" 2>"$T/.err"
            cmp -s "$T/g.f32" "$T/mz32.want" && pass "scan_negzero_gpu_${a}_numpy_f32" || fail "scan_negzero_gpu_${a}_numpy_f32" "differs from numpy.cumsum"
        fi
    done
else
    skip scan_negzero_gpu "no usable GPU"
fi

# Raw values that begin like a skippable zstd frame: in a file, a frame running past the file's end
# is data (the bytes --from raw reads); from a pipe, where the end is not known, the error names
# --from raw.
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<2I', 0x184D2A53, 0x7fffffff) + bytes(range(256)) * 400)" >"$T/skr.raw" 2>/dev/null ||
    printf 'S*M\030\377\377\377\177' >"$T/skr.raw"
if [ "$(stat -c %s "$T/skr.raw")" -gt 65536 ]; then
    $G scan -q -f "$T/skr.raw" "$T/skr.out" 2>"$T/.err" && $G scan -q -f --from raw "$T/skr.raw" "$T/skr.want" &&
        cmp -s "$T/skr.out" "$T/skr.want" && pass skippable_magic_raw_file || fail skippable_magic_raw_file "$(head -c 200 "$T/.err")"
    cat "$T/skr.raw" | $G scan -q -f -t i32 - "$T/skr.out" 2>"$T/.err"
    rc=$?
    [ "$rc" = 1 ] && grep -q -- '--from raw' "$T/.err" && [ "$(wc -l <"$T/.err")" = 1 ] && pass skippable_magic_raw_pipe_message ||
        fail skippable_magic_raw_pipe_message "exit $rc: $(head -c 200 "$T/.err")"
else
    skip skippable_magic_raw "no python3 to write the input"
fi
