#!/usr/bin/env bash
# tests/cli/test_startup.sh - start-up and the backend choice: --backend auto keeps an input known
# to be small on the CPU without starting CUDA (--stats=json says so: the plan's reason, no CUDA
# start-up; build/test_plan and build/test_engine prove that the plan never begins it there),
# --stats says which backend ran and why, -v and --stats print the plan's reasons and the fallback
# note (once, before the run's output; never without them), `info` and --backend gpu give the true
# reason when there is no GPU, and the CPU default variant follows --threads.
# Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
G=${G:-./gpustream}
T=$(mktemp -d -p "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)")
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

"$G" gen -n 1024 -t i32 -f "$T/small.raw" 2>/dev/null || { fail startup_setup "gen failed"; exit 0; }
"$G" scan --backend cpu "$T/small.raw" -f "$T/ref.raw" 2>/dev/null
# the crossover as pipeline/plan.h defines it, and as --stats prints it
CROSS=$(($(sed -n 's/^#define GS_AUTO_GPU_MIN_BYTES (\(.*\))$/\1/p' pipeline/plan.h | sed 's/ull//g')))
if [ $((CROSS % (1 << 30))) = 0 ]; then CROSS_TXT="$((CROSS >> 30)) GiB"
elif [ $((CROSS % (1 << 20))) = 0 ]; then CROSS_TXT="$((CROSS >> 20)) MiB"
else CROSS_TXT="$CROSS B"; fi
NO_GPU=0
"$G" info 2>/dev/null | grep -q "^devices    none" && NO_GPU=1
CUDA_BUILD=0
"$G" info 2>/dev/null | grep -q "CUDA compiled in" && CUDA_BUILD=1

# ---- auto on small inputs never starts CUDA -------------------------------------------------
# run NAME WANT -- command...: --stats=json of the command (-q: no notes) says backend_why WANT,
# and no CUDA start-up was waited for (cuda_init_s null), and the output equals --backend cpu's
run() {
    local name=$1 want=$2; shift 3
    sh -c '"$@"; exit $?' sh "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" -eq 0 ] && grep -qF "\"backend_why\":\"$want\",\"cuda_init_s\":null" "$T/err"; then pass "$name"
    else fail "$name" "exit $rc: $(head -c 300 "$T/err")"; fi
}
NOCUDA="; CUDA not initialised"
run auto_small_file_no_cuda "auto: input 4096 B < crossover $CROSS_TXT$NOCUDA" -- "$G" scan -q --stats=json "$T/small.raw"
cmp -s "$T/out" "$T/ref.raw" && pass auto_small_file_result || fail auto_small_file_result "differs from --backend cpu"
run auto_small_stream_no_cuda "auto: the stream ended before the first chunk (16 MiB) filled$NOCUDA" -- \
    sh -c "cat '$T/small.raw' | '$G' scan -q --stats=json"
cmp -s "$T/out" "$T/ref.raw" && pass auto_small_stream_result || fail auto_small_stream_result "differs from --backend cpu"
run auto_small_compact_no_cuda "auto: input 4096 B < crossover $CROSS_TXT$NOCUDA" -- "$G" compact -q --stats=json --pred gt:50 "$T/small.raw"
run auto_small_minmax_no_cuda "auto: input 4096 B < crossover $CROSS_TXT$NOCUDA" -- "$G" minmax -q --stats=json -w 500 "$T/small.raw"
run convert_no_cuda "nothing to compute$NOCUDA" -- "$G" convert -q --stats=json "$T/small.raw" --to csv
run backend_cpu_no_cuda "--backend cpu$NOCUDA" -- "$G" scan -q --stats=json --backend cpu "$T/small.raw"
run cpu_algo_no_cuda "--algo cpu runs on the CPU$NOCUDA" -- sh -c "cat '$T/small.raw' | '$G' scan -q --stats=json --algo cpu --chunk 1K"
"$G" scan --backend gpu --algo cpu "$T/small.raw" >/dev/null 2>"$T/err"
[ $? = 2 ] && pass backend_gpu_cpu_algo_refused || fail backend_gpu_cpu_algo_refused "$(head -c 200 "$T/err")"
grep -q "error: --algo cpu runs on the CPU; it needs --backend cpu" "$T/err" && pass backend_gpu_cpu_algo_message ||
    fail backend_gpu_cpu_algo_message "$(head -c 200 "$T/err")"
# CSV: parsed on the host whichever backend computes, so auto stays on the CPU for a stream that
# fills its first chunk, and for a file under the crossover of floats printed as text
TEXT_WHY="auto: values parsed from text on the host, which sets the pace on either backend$NOCUDA"
SZ=$(stat -c %s data/prices.csv)
run auto_csv_file_no_cuda "auto: text input of $SZ B < crossover 2 GiB for floats printed as text (the GPU formats them)$NOCUDA" \
    -- "$G" minmax -q --stats=json -w 3 --col price data/prices.csv
run auto_csv_raw_out_no_cuda "$TEXT_WHY" -- "$G" minmax -q --stats=json -w 3 --col price --to raw data/prices.csv /dev/null
run auto_csv_stream_no_cuda "$TEXT_WHY" -- sh -c "cat data/prices.csv | '$G' scan -q --stats=json --chunk 1K --col 2"
# positive control: a stream that fills its first chunk asks for the GPU
cat "$T/small.raw" | "$G" scan -q --chunk 1K --stats=json >/dev/null 2>"$T/err"
grep -q '"backend_why":"auto: the stream filled the first chunk (1024 B)' "$T/err" && pass control_filled_stream_asks_gpu ||
    fail control_filled_stream_asks_gpu "$(head -c 300 "$T/err")"
# scan has the same crossover
"$G" scan --stats "$T/small.raw" -f /dev/null 2>"$T/err"
grep -qF "auto: input 4096 B < crossover $CROSS_TXT; CUDA not initialised" "$T/err" &&
    pass auto_scan_rule || fail auto_scan_rule "$(head -c 300 "$T/err")"

# ---- --stats says which backend ran and why ---------------------------------------------------
"$G" compact "$T/small.raw" --stats >/dev/null 2>"$T/err"
grep -qF "backend cpu (auto: input 4096 B < crossover $CROSS_TXT; CUDA not initialised)" "$T/err" &&
    pass stats_why_small_file || fail stats_why_small_file "$(head -1 "$T/err")"
cat "$T/small.raw" | "$G" scan --stats >/dev/null 2>"$T/err"
grep -q "backend cpu (auto: the stream ended before the first chunk (16 MiB) filled; CUDA not initialised)" "$T/err" &&
    pass stats_why_small_stream || fail stats_why_small_stream "$(head -1 "$T/err")"
"$G" scan --backend cpu "$T/small.raw" --stats=json >/dev/null 2>"$T/err"
grep -q '"backend_why":"--backend cpu; CUDA not initialised","cuda_init_s":null' "$T/err" &&
    pass stats_json_why || fail stats_json_why "$(head -c 200 "$T/err")"

# ---- the fallback note: only with -v or --stats, once, at the start ---------------------------
if [ "$NO_GPU" = 1 ]; then
    # a stream that fills its first chunk asks for the GPU; there is none here
    cat "$T/small.raw" | "$G" scan --chunk 1K >"$T/out" 2>"$T/err"
    [ ! -s "$T/err" ] && cmp -s "$T/out" "$T/ref.raw" && pass note_silent_by_default ||
        fail note_silent_by_default "stderr: $(head -c 200 "$T/err")"
    # -v: the plan's reasons, then the fallback note, once
    cat "$T/small.raw" | "$G" scan --chunk 1K -v >/dev/null 2>"$T/err"
    [ "$(grep -c "no usable GPU" "$T/err")" -eq 1 ] && grep -q "^gpustream: note: no usable GPU (.*): using the CPU backend$" "$T/err" &&
        [ "$(grep -vc "^gpustream: note: " "$T/err")" -eq 0 ] &&
        grep -q "^gpustream: note: backend: auto: the GPU if the stream fills its first chunk (1024 B)$" "$T/err" &&
        pass note_verbose_once || fail note_verbose_once "$(head -c 600 "$T/err")"
    # --stats: the notes before the stats, the fallback once
    cat "$T/small.raw" | "$G" scan --chunk 1K --stats >/dev/null 2>"$T/err"
    fb=$(grep -n "^gpustream: note: no usable GPU" "$T/err" | cut -d: -f1)
    st=$(grep -n "^gpustream scan: backend" "$T/err" | cut -d: -f1)
    [ -n "$fb" ] && [ -n "$st" ] && [ "$fb" -lt "$st" ] && [ "$(grep -c "no usable GPU (" "$T/err")" -eq 1 ] &&
        pass note_stats_before_stats || fail note_stats_before_stats "$(head -c 600 "$T/err")"
    cat "$T/small.raw" | "$G" scan --chunk 1K -v -q >/dev/null 2>"$T/err"
    [ ! -s "$T/err" ] && pass note_quiet_wins || fail note_quiet_wins "$(head -c 200 "$T/err")"
    # the true reason, in `info`, a failing --backend gpu and the note
    if [ "$CUDA_BUILD" = 1 ]; then
        if ldconfig -p 2>/dev/null | grep -q "libcuda.so.1 "; then want="no CUDA device found|the NVIDIA driver supports CUDA"
        else want="no NVIDIA driver \(libcuda.so.1 cannot be loaded\)"; fi
    else
        want="built without CUDA"
    fi
    "$G" info >"$T/out" 2>&1
    grep -qE "^devices    none \(($want)\)" "$T/out" && pass info_true_reason || fail info_true_reason "$(grep devices "$T/out")"
    "$G" scan --backend gpu "$T/small.raw" >/dev/null 2>"$T/err"
    rc=$?
    [ "$rc" = 1 ] && grep -qE "^gpustream: error: no usable GPU: ($want)$" "$T/err" && pass backend_gpu_true_reason ||
        fail backend_gpu_true_reason "exit $rc: $(head -c 300 "$T/err")"
    grep -q "insufficient" "$T/err" "$T/out" && fail reason_not_insufficient "the runtime's misleading text" ||
        pass reason_not_insufficient
else
    for n in note_silent_by_default note_verbose_once note_stats_before_stats note_quiet_wins info_true_reason \
        backend_gpu_true_reason reason_not_insufficient; do
        skip "$n" "a GPU is usable here: no fallback to observe"
    done
fi

# ---- the CPU default per thread count ----------------------------------------------------------
# one rule (kernels/registry.c gs_variant_default_for, gs_cpu_par_from): the sequential scan at
# one thread, the threaded one from two; the sequential compaction up to two threads, the threaded
# one from three; cpu-vhgw for minmax
cpu_default() { # name threads verb-args... expected-algo
    local name=$1 th=$2 want=$3; shift 3
    "$G" "$@" --backend cpu --threads "$th" "$T/small.raw" --stats >/dev/null 2>"$T/err"
    grep -q ", algo $want\$" "$T/err" && pass "$name" || fail "$name" "$(head -1 "$T/err")"
}
cpu_default cpu_default_scan_1t 1 cpu scan
cpu_default cpu_default_scan_2t 2 cpu-par scan
cpu_default cpu_default_scan_3t 3 cpu-par scan
cpu_default cpu_default_compact_1t 1 cpu compact --pred nonzero
cpu_default cpu_default_compact_2t 2 cpu compact --pred nonzero
cpu_default cpu_default_compact_3t 3 cpu-par compact --pred nonzero
cpu_default cpu_default_minmax_1t 1 cpu-vhgw minmax -w 10
cpu_default cpu_default_minmax_3t 3 cpu-vhgw minmax -w 10

# ---- the GPU engine path (where a GPU is usable): engine-owned buffers read before CUDA was up,
# replaced by pinned ones; every --host-mem mode; a stream; chunks larger than a GPU short of memory
# takes (submitted in views); auto on a file at the crossover. Each against --backend cpu.
if [ "$NO_GPU" = 0 ] && [ "$CUDA_BUILD" = 1 ]; then
    "$G" gen -n 3000001 -t i32 --dist sparse:0.5 -f "$T/g.raw" 2>/dev/null
    gpu_same() { # name args...: --backend gpu output equals --backend cpu output
        local name=$1; shift
        "$G" "$@" --backend cpu "$T/g.raw" -f "$T/c.out" 2>/dev/null
        if "$G" "$@" --backend gpu "$T/g.raw" -f "$T/g.out" 2>"$T/err" && cmp -s "$T/c.out" "$T/g.out"; then
            pass "$name"
        else fail "$name" "$* differs or failed: $(head -c 200 "$T/err")"; fi
    }
    for op in "scan" "compact --pred nonzero" "compact --pred gt:50 --indices" "minmax -w 500" "minmax -w 70000 --partial"; do
        tag=$(echo "$op" | tr ' :' '__')
        for hm in pinned pageable registered mapped; do
            gpu_same "gpu_engine_${tag}_$hm" $op -t i32 --chunk 1M --host-mem $hm
        done
        gpu_same "gpu_engine_${tag}_views" $op -t i32 --chunk 4M --device-mem-limit 8M
        cat "$T/g.raw" | "$G" $op -t i32 --backend gpu --chunk 1M >"$T/g.out" 2>"$T/err"
        "$G" $op -t i32 --backend cpu "$T/g.raw" -f "$T/c.out" 2>/dev/null
        cmp -s "$T/c.out" "$T/g.out" && pass "gpu_engine_${tag}_stream" || fail "gpu_engine_${tag}_stream" "$(head -c 200 "$T/err")"
    done
    "$G" gen -n $((CROSS / 4)) -t i32 --dist sparse:0.5 -f "$T/big.raw" 2>/dev/null
    "$G" compact --backend cpu "$T/big.raw" -f "$T/c.out" 2>/dev/null
    "$G" compact "$T/big.raw" -f "$T/g.out" --stats 2>"$T/err"
    cmp -s "$T/c.out" "$T/g.out" && grep -q "backend gpu: .*(auto: input $CROSS B >= crossover $CROSS_TXT[;)]" "$T/err" &&
        pass gpu_auto_big_file || fail gpu_auto_big_file "$(head -2 "$T/err")"
    rm -f "$T/big.raw" "$T/c.out" "$T/g.out"
else
    skip gpu_engine "no usable GPU here"
fi
