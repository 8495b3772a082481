#!/usr/bin/env bash
# tests/gpu/test_devices.sh - several devices in one process (--device LIST), run by tests/run.sh
# where a GPU answers. Every output is compared byte for byte with one device's (--device 0):
#   - one device twice or three times (--device 0,0 / 0,0,0: a schedule each, carries passed
#     between them), on any GPU machine;
#   - two devices and all of them (0,1 / 1,0 / all), where the machine has two (SKIP otherwise);
# over scans (integer and float sums, max), compactions (values, positions), minmax and rolling
# (windows shorter and longer than a chunk), chains, n = 0, 1, a file read as a stream, csv and text
# out (formatted on each device) and csv in (parsed on the first); and what --stats says of the
# devices. Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_devices

ndev=$("$G" info | awk '/^devices/ {print $2}')
lists="0,0 0,0,0 all"
if [ "${ndev:-1}" -ge 2 ]; then lists="$lists 0,1 1,0 0,1,1"
else skip gpu_devices_two "this machine has ${ndev:-1} GPU"; fi

"$G" gen -q -n 3000001 -t i32 --seed 11 --dist sparse:0.4 -f "$T/a.i32"
"$G" gen -q -n 1500007 -t f64 --seed 12 -f "$T/a.f64"
"$G" gen -q -n 1 -t i32 --seed 13 -f "$T/one.i32"
: >"$T/none.i32"

# same NAME FILE ARGS: ARGS on FILE with --device 0 and with each list, equal
same() {
    local name=$1 file=$2; shift 2
    if ! "$G" "$@" --backend gpu --device 0 -q "$file" -f "$T/one.out" 2>"$T/err"; then
        fail "gpu_devices $name (one device)" "$(head -1 "$T/err")"
        return
    fi
    for l in $lists; do
        if ! "$G" "$@" --backend gpu --device "$l" -q "$file" -f "$T/many.out" 2>"$T/err"; then
            fail "gpu_devices $name --device $l" "$(head -1 "$T/err")"
        elif cmp -s "$T/one.out" "$T/many.out"; then pass "gpu_devices $name --device $l"
        else fail "gpu_devices $name --device $l" "$(cmp "$T/one.out" "$T/many.out" 2>&1 | head -1)"; fi
    done
}

for chunk in 256K 1M; do
    c="--chunk $chunk"
    same "scan i32 $c" "$T/a.i32" scan -t i32 $c
    same "scan i32 --op max --buffers 3 $c" "$T/a.i32" scan -t i32 --op max --buffers 3 $c
    same "scan f64 $c" "$T/a.f64" scan -t f64 $c
    same "scan f64 --exclusive $c" "$T/a.f64" scan -t f64 --exclusive $c
    same "compact i32 $c" "$T/a.i32" compact -t i32 --pred gt:0 $c
    same "compact --indices $c" "$T/a.i32" compact -t i32 --pred nonzero --indices $c
    same "minmax -w 500 $c" "$T/a.i32" minmax -t i32 -w 500 $c
    same "minmax -w 700001 --partial $c" "$T/a.i32" minmax -t i32 -w 700001 --partial $c
    same "rolling -w 100 mean,std $c" "$T/a.f64" rolling -t f64 -w 100 --agg mean,std $c
    same "rolling -w 300000 sum,argmin $c" "$T/a.f64" rolling -t f64 -w 300000 --agg sum,argmin $c
    same "chain compact scan minmax $c" "$T/a.i32" compact -t i32 --pred gt:0 then scan then minmax -w 50 --only max $c
    same "chain minmax scan $c" "$T/a.f64" minmax -t f64 -w 3 --only min then scan $c
done
same "scan n=1" "$T/one.i32" scan -t i32
same "minmax n=1" "$T/one.i32" minmax -t i32 -w 2 --partial
same "scan n=0" "$T/none.i32" scan -t i32

# zstd frames each device decodes (--codec gpu) and encodes (an OUT named .zst), where nvCOMP loads
if "$G" info | grep -q '^nvcomp  *nvCOMP [0-9]'; then
    "$G" convert -q -t i32 --frame-size 64K "$T/a.i32" -f "$T/a.zst"
    same "zstd frames decoded: compact" "$T/a.zst" compact --pred gt:0 --codec gpu --chunk 1M
    same "zstd frames decoded: minmax" "$T/a.zst" minmax -w 1000 --codec gpu --chunk 1M
    "$G" scan -t i32 --codec gpu --backend gpu --device 0 --chunk 1M -q "$T/a.i32" -f "$T/one.zst"
    # the frames as the writer wrote them decode (libzstd) to the raw scan
    "$G" scan -t i32 --backend cpu -q "$T/a.i32" -f "$T/ref.out"
    "$G" convert --codec cpu -q "$T/one.zst" -f "$T/one.dec" 2>"$T/err"
    if cmp -s "$T/ref.out" "$T/one.dec"; then pass "gpu_devices zstd frames decode to the scan"
    else fail "gpu_devices zstd frames decode to the scan" "$(head -1 "$T/err") $(cmp "$T/ref.out" "$T/one.dec" 2>&1 | head -1)"; fi
    for l in $lists; do
        if "$G" scan -t i32 --codec gpu --backend gpu --device "$l" --chunk 1M -q "$T/a.i32" -f "$T/many.zst" 2>"$T/err" &&
            cmp -s "$T/one.zst" "$T/many.zst"; then pass "gpu_devices zstd frames encoded --device $l"
        else fail "gpu_devices zstd frames encoded --device $l" "$(head -1 "$T/err") $(cmp "$T/one.zst" "$T/many.zst" 2>&1 | head -1)"; fi
    done
    "$G" compact --pred gt:0 --codec gpu --backend gpu --device 0,0 --chunk 1M --stats -q "$T/a.zst" -f "$T/many.zst" 2>"$T/st"
    if grep -q "zstd decode (gpu)" "$T/st" && grep -q "zstd encode (gpu)" "$T/st"; then pass "gpu_devices zstd on the devices"
    else fail "gpu_devices zstd on the devices" "$(grep -i zstd "$T/st" | head -3 | tr '\n' ' ')"; fi
else
    skip gpu_devices_zstd "no nvCOMP"
fi

# the memory strategies, a device budget and several columns, each with several devices
same "scan --host-mem pageable" "$T/a.i32" scan -t i32 --chunk 1M --host-mem pageable
same "minmax --host-mem mapped" "$T/a.i32" minmax -t i32 -w 300 --chunk 1M --host-mem mapped
same "compact --device-alloc async" "$T/a.i32" compact -t i32 --pred gt:0 --chunk 1M --device-alloc async
same "rolling --device-mem-limit 64M" "$T/a.f64" rolling -t f64 -w 70000 --agg std --chunk 16M --device-mem-limit 64M
{
    echo a,b,c
    paste -d, <("$G" gen -q -n 400003 -t f64 --seed 14 --to text -) <("$G" gen -q -n 400003 -t i32 --seed 15 --to text -) \
        <("$G" gen -q -n 400003 -t f64 --seed 16 --dist walk --to text -)
} >"$T/c3.csv"
same "scan of three CSV columns" "$T/c3.csv" scan --col 1,2,3 --chunk 256K

# csv and text formatted on each device, and csv input parsed on the first (--host-mem registered:
# the reader waits for the backend, so that every block is offered to the device); --stats says so
same "minmax to csv" "$T/a.f64" minmax -t f64 -w 500 --chunk 1M --to csv
same "scan to text" "$T/a.i32" scan -t i32 --chunk 1M --to text
if python3 tests/bench/prices_csv.py "$T/p.csv" 3e6 5; then
    same "csv input: rolling mean,std" "$T/p.csv" rolling -w 100 --agg mean,std --col price --chunk 1M --host-mem registered
    same "csv input: scan i64 to raw" "$T/p.csv" scan --col volume -t i64 --chunk 1M --host-mem registered --to raw
    "$G" minmax -w 50 --col price --chunk 1M --backend gpu --device 0,0 --host-mem registered --stats=json \
        "$T/p.csv" -f "$T/many.out" 2>"$T/st"
    if grep -Eq '"name":"text format \(gpu\)","busy_s":[0-9.e+-]+,"bytes":[1-9]' "$T/st" &&
        grep -Eq '"name":"csv parse \(gpu\)","busy_s":[0-9.e+-]+,"bytes":[1-9]' "$T/st"; then
        pass "gpu_devices text formatted and csv parsed on the devices"
    else fail "gpu_devices text formatted and csv parsed on the devices" "$(grep -oE '"name":"[^"]*(text|csv)[^}]*' "$T/st" | tr '\n' ' ')"; fi
else
    skip gpu_devices_csv_input "python3 with numpy could not write the csv"
fi

# a stream (size unknown) dealt to the devices as it comes
"$G" scan -t i32 --chunk 256K --backend gpu -q "$T/a.i32" -f "$T/one.out"
for l in $lists; do
    if cat "$T/a.i32" | "$G" scan -t i32 --chunk 256K --backend gpu --device "$l" -q - >"$T/many.out" 2>"$T/err" &&
        cmp -s "$T/one.out" "$T/many.out"; then pass "gpu_devices stream --device $l"
    else fail "gpu_devices stream --device $l" "$(head -1 "$T/err")"; fi
done

# --stats names every device and adds their copies up
"$G" scan -t i32 --chunk 1M --backend gpu --device 0,0 --stats "$T/a.i32" -f "$T/many.out" 2>"$T/st"
if grep -q "gpu: 2 devices (0 .*, 0 " "$T/st" && grep -Eq "h2d +busy" "$T/st"; then pass "gpu_devices stats"
else fail "gpu_devices stats" "$(grep -m1 backend "$T/st")"; fi

# a device the machine does not have: a usage error naming it
"$G" scan -t i32 --backend gpu --device 0,1023 -q "$T/a.i32" -f "$T/many.out" 2>"$T/err"
rc=$?
if [ $rc = 2 ] && grep -q -- "--device 1023: this machine has" "$T/err"; then pass "gpu_devices missing device"
else fail "gpu_devices missing device" "exit $rc: $(head -1 "$T/err")"; fi
