#!/usr/bin/env bash
# tests/fuzz/long.sh - run one fuzz target to a total number of executions, split over parallel
# jobs, from a binary already built by tests/fuzz/run.sh (no compiler needed: the binaries link
# only libc, libm, libstdc++ and libgcc_s; libzstd and libcsv are linked in).
#   bash tests/fuzz/long.sh csv                  (10^7 executions over nproc jobs)
#   FUZZ_RUNS=20000000 FUZZ_JOBS=16 FUZZ_MAX_SECONDS=300 bash tests/fuzz/long.sh zstd
# Job j runs build/fuzz/fuzz_<name> -runs=RUNS/JOBS -seed=j+FUZZ_SEED_BASE (default 0: campaigns with
# another base try other mutations) on its own copy of the committed
# corpus (tests/fuzz/corpus_<name>/), with the flags of tests/fuzz/options.sh; FUZZ_MAX_SECONDS
# (default 0: none) bounds each job's time. The executions are summed from the jobs' final
# stats. One line at the end:
#   PASS fuzz_<name>: N executions in S s, J jobs
#   FAIL fuzz_<name>: <crash file | only N of RUNS executions | a job's exit status> ...
# Logs and any crash input under FUZZ_LONG_DIR (default build/fuzz/long/<name>/); the corpora
# in a temporary directory, removed at the end.
set -u
cd "$(dirname "$0")/../.."
name=${1:?usage: tests/fuzz/long.sh TARGET (csv detect zstd npy options)}
RUNS=${FUZZ_RUNS:-10000000}
JOBS=${FUZZ_JOBS:-$(nproc)}
MAX_SECONDS=${FUZZ_MAX_SECONDS:-0}
bin=${FUZZ_BIN_DIR:-build/fuzz}/fuzz_$name
dir=${FUZZ_LONG_DIR:-build/fuzz/long/$name}
. tests/fuzz/options.sh

if [ ! -x "$bin" ]; then echo "FAIL fuzz_$name: no $bin (build it with: FUZZ_SECONDS=1 bash tests/fuzz/run.sh)"; exit 1; fi
if missing=$(ldd "$bin" 2>&1 | grep 'not found'); then echo "FAIL fuzz_$name: $bin: $missing"; exit 1; fi
rm -rf "$dir"
mkdir -p "$dir"
# The corpora grow: they live in a temporary directory, not with the logs.
work=$(mktemp -d "${TMPDIR:-/tmp}/gs-fuzz-long-$name.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
per=$(((RUNS + JOBS - 1) / JOBS))
limit=""
[ "$MAX_SECONDS" -gt 0 ] && limit="-max_total_time=$MAX_SECONDS"
t0=$SECONDS
pids=()
for j in $(seq 1 "$JOBS"); do
    mkdir -p "$work/corpus$j"
    cp tests/fuzz/corpus_$name/* "$work/corpus$j/" 2>/dev/null
    # timeout(1) is the backstop should a job wedge (libFuzzer's own -timeout is per input).
    timeout -k 5 "$([ "$MAX_SECONDS" -gt 0 ] && echo $((MAX_SECONDS + 120)) || echo 0)" \
        "$bin" -runs="$per" $limit -seed="$((j + ${FUZZ_SEED_BASE:-0}))" $FUZZ_RUN_FLAGS -print_final_stats=1 \
        -artifact_prefix="$dir/job$j-" "$work/corpus$j" >"$dir/job$j.log" 2>&1 &
    pids+=($!)
done
bad=""
for j in $(seq 1 "$JOBS"); do
    wait "${pids[$((j - 1))]}" || bad="${bad:-job $j exited $?}"
done
secs=$((SECONDS - t0))
total=0
for j in $(seq 1 "$JOBS"); do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/job$j.log" | tail -1)
    total=$((total + ${n:-0}))
done
crash=$(ls "$dir"/job*-crash-* "$dir"/job*-leak-* "$dir"/job*-timeout-* "$dir"/job*-oom-* 2>/dev/null | head -1)
what="$total executions in $secs s, $JOBS jobs"
if [ -n "$crash" ]; then
    echo "FAIL fuzz_$name: crash file $crash ($what; replay: $bin $crash)"
    grep -h -m3 -E 'ERROR: |runtime error|SUMMARY' "$dir"/job*.log | head -3 | sed 's/^/    /'
    exit 1
fi
if [ -n "$bad" ]; then echo "FAIL fuzz_$name: $bad ($what; logs $dir/job*.log)"; exit 1; fi
if [ "$total" -lt "$RUNS" ]; then echo "FAIL fuzz_$name: only $total of $RUNS executions (time limit ${MAX_SECONDS} s a job; $what)"; exit 1; fi
echo "PASS fuzz_$name: $what, no finding"
