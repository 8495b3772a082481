#!/usr/bin/env bash
# tests/gpu/test_textin.sh - csv input parsed on the GPU (the plan's parse_gpu), run by tests/run.sh
# where a GPU answers: every job's output from --backend gpu must equal the CPU backend's byte for
# byte, and a failure the same exit status and message, over csv the device parses whole (4-decimal
# prices, integers as i64, i32, u32; f32; two columns, in the list's order; CRLF line ends and spaces
# around fields; a tab delimiter; the last line without its line end) and csv it leaves to the host from some block on (17-digit
# values, an empty field, a blank line, a quoted field, nan, 1e400, an integer past i32); --stats=json
# must show blocks parsed on the device where the device takes them, and none where the first
# block already holds what it leaves. PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_textin

# 10^7 rows (260 MB, eight of the reader's blocks) and variants of it
python3 tests/bench/prices_csv.py "$T/p.csv" 1e7 3 || { fail gpu_textin_inputs "python3 with numpy could not write the csv"; exit 0; }
python3 - "$T" <<'PY' || { fail gpu_textin_inputs "python3 could not write the variants"; exit 0; }
import sys
import numpy as np
t = sys.argv[1]
lines = open(f"{t}/p.csv", "rb").read().split(b"\n")
head, rows = lines[0], lines[1:-1]
n = len(rows)
def put(name, rs, end=b"\n", sep=b"\n", header=head):
    with open(f"{t}/{name}", "wb") as f:
        f.write(header + sep + sep.join(rs) + end)
put("noend.csv", rows, end=b"")
put("crlf.csv", [b" " + r.replace(b",", b" , ") + b" " for r in rows[: n // 2]], sep=b"\r\n", end=b"\r\n")
put("p.tsv", [r.replace(b",", b"\t") for r in rows], header=head.replace(b",", b"\t"))
# a row the device leaves to the host, at 90%: the blocks before it are parsed on the device
for name, odd in [("empty", b"5,,7"), ("blank", b""), ("quoted", b'5,"6.5",7'), ("nan", b"5,nan,7"),
                  ("big", b"5,1e400,7"), ("wide", b"5,6.5,3000000000")]:
    rs = list(rows)
    rs.insert(9 * n // 10, odd)
    put(f"{name}.csv", rs)
rng = np.random.default_rng(5)
x = np.cumsum(rng.normal(0, 1, 2_000_000))
with open(f"{t}/r17.csv", "w") as f:
    f.write("x\n" + "\n".join(repr(float(v)) for v in x) + "\n")
PY

# check NAME INPUT EXT ARGS...: the GPU's output (or failure) against the CPU's. The GPU's run with
# --host-mem registered: the reader waits for the backend, so every block is offered to the device
# (with pinned staging the reader may read all of a file this size while CUDA starts).
check() {
    local name=$1 in=$2 out=$3
    shift 3
    "$G" "$@" --backend cpu -q "$T/$in" -f "$T/want.$out" 2>"$T/c.err"
    local rc=$?
    "$G" "$@" --backend gpu --host-mem registered --stats=json "$T/$in" -f "$T/got.$out" 2>"$T/g.err"
    local rg=$?
    if [ $rc = 0 ] && [ $rg = 0 ] && cmp -s "$T/want.$out" "$T/got.$out"; then pass "gpu textin: $name"
    elif [ $rc != 0 ] && [ $rc = $rg ] && [ "$(grep -v '^{' "$T/c.err" | head -1)" = "$(grep -v '^{' "$T/g.err" | grep -v 'note:' | head -1)" ]; then
        pass "gpu textin: $name (the same failure)"
    else fail "gpu textin: $name" "exit cpu $rc gpu $rg: $(head -c 300 "$T/g.err") $(cmp "$T/want.$out" "$T/got.$out" 2>&1 | head -1)"; fi
}
parsed_bytes() { # the bytes of text the device parsed, from --stats=json
    grep -oE '"name":"csv parse \(gpu[^"]*\)","busy_s":[0-9.e+-]+,"bytes":[0-9]+' "$T/g.err" | grep -oE '[0-9]+$' | head -1
}
on_device() { # NAME: some blocks parsed on the device
    local b
    b=$(parsed_bytes)
    if [ "${b:-0}" -gt 0 ]; then pass "gpu textin: parsed on the device ($1)"
    else fail "gpu textin: parsed on the device ($1)" "$(grep -iE "csv|parse" "$T/g.err" | head -3)"; fi
}

check "minmax -w 500 price" p.csv csv minmax -w 500 --col price
on_device "minmax"
check "rolling mean,std price" p.csv csv rolling -w 500 --agg mean,std --col price
on_device "rolling"
check "scan volume i64" p.csv csv scan --col volume -t i64
on_device "scan i64"
check "scan max time u32" p.csv csv scan --op max --col time -t u32
on_device "scan u32"
check "scan max volume i32" p.csv csv scan --op max --col volume -t i32
check "rolling mean of price,volume" p.csv csv rolling -w 50 --agg mean --col price,volume
on_device "two columns"
check "scan of columns 3,1 as i64" p.csv csv scan --col 3,1 -t i64
on_device "columns 3,1"
check "compact gt:500 price" p.csv csv compact --pred gt:500 --col price
check "compact price f32 to raw" p.csv raw compact --pred gt:500 --col price -t f32
on_device "f32"
check "last line without its line end" noend.csv csv minmax -w 100 --col price
check "CRLF, spaces around fields" crlf.csv csv rolling -w 50 --agg sum --col price
on_device "CRLF"
check "tab-delimited" p.tsv csv scan --col volume -t i64
on_device "tsv"
check "17-digit values" r17.csv csv rolling -w 10 --agg mean
b=$(parsed_bytes)
if [ "${b:-0}" = 0 ]; then pass "gpu textin: 17-digit values left to the host"
else fail "gpu textin: 17-digit values left to the host" "$b bytes parsed on the device"; fi
for v in empty blank quoted nan big; do
    check "a $v row at 90%" $v.csv csv minmax -w 100 --col price
    check "a $v row at 90%, two columns" $v.csv csv minmax -w 100 --col price,volume
done
on_device "before a big value"
check "an empty field with --na 0" empty.csv csv minmax -w 100 --col price --na 0
check "an integer past i32 at 90%" wide.csv csv scan --col volume -t i32
check "an integer past i32, i64" wide.csv csv scan --col volume -t i64
check "a chain: compact then rolling" p.csv csv compact --pred gt:500 --col price then rolling -w 20 --agg std
on_device "chain"
