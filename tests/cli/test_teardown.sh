#!/usr/bin/env bash
# tests/cli/test_teardown.sh - the end of a process that started CUDA (gpustream.c, end_process):
# the driver's teardown of the context is left to a helper that outlives the process, so the exit
# status reaches the shell at once. What must hold, whatever the helper does: the output and the
# exit status are those of a plain exit, a reader of stdout or stderr sees the end of its input
# while the helper still lives (the helper holds no descriptor but the driver's), the helper ends
# by itself, and GS_GPU_TEARDOWN=wait leaves no helper. GS_GPU_TEARDOWN=detach detaches on any
# machine (no GPU needed) and GS_TEST_TEARDOWN_LINGER_MS keeps the helper alive that long after
# the process, a stand-in for the driver's time. Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

LINGER=${TEARDOWN_LINGER_MS:-5000}
HAS_GPU=0
"$G" info 2>/dev/null | grep -q "^devices    [1-9]" && HAS_GPU=1

# pids of the processes whose command line names the file $1 (the helper's is its process's)
pids_naming() {
    local p
    for p in /proc/[0-9]*; do
        { tr "\0" " " <"$p/cmdline"; } 2>/dev/null | grep -qF -- "$1" && echo "${p#/proc/}"
    done
}
# wait up to $2 seconds for no process to name $1; 0 if none is left
gone_within() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        [ -z "$(pids_naming "$1")" ] && return 0
        sleep 0.1
    done
    return 1
}

"$G" gen -q -n 100003 -t i32 --dist uniform:-1000:1000 --seed 7 -f "$T/want.in"
"$G" scan -t i32 --backend cpu "$T/want.in" "$T/want" -f -q

# detach NAME IN: the scan with a detached helper that lingers, read through a pipe
detach() {
    local name=$1 in=$2
    cp "$T/want.in" "$in"
    GS_GPU_TEARDOWN=detach GS_TEST_TEARDOWN_LINGER_MS=$LINGER "$G" scan -t i32 --backend cpu --stats "$in" \
        2>"$T/err.$name" | cat >"$T/got.$name"
    local rc=${PIPESTATUS[0]} helper
    helper=$(pids_naming "$in")
    if [ "$rc" -ne 0 ]; then fail "teardown_$name" "exit $rc: $(head -c 200 "$T/err.$name")"
    elif ! cmp -s "$T/got.$name" "$T/want"; then fail "teardown_$name" "output differs from a plain run"
    elif ! grep -q "^  wall" "$T/err.$name"; then fail "teardown_$name" "--stats incomplete on stderr: $(head -c 200 "$T/err.$name")"
    elif [ -z "$helper" ]; then fail "teardown_$name" "no helper alive after the pipe's end (linger $LINGER ms)"
    elif [ "$(echo "$helper" | wc -w)" -ne 1 ]; then fail "teardown_$name" "several processes left: $helper"
    elif [ -n "$(ls /proc/"$helper"/fd 2>/dev/null)" ]; then
        fail "teardown_$name" "the helper holds descriptors: $(ls -l /proc/"$helper"/fd | tail -n +2 | head -5)"
    elif ! gone_within "$in" $((LINGER / 1000 + 20)); then fail "teardown_$name" "the helper did not end"
    else pass "teardown_$name"; fi
}
detach detach "$T/in-detach.raw"

# an error after the start: the exit status and the message survive the helper
GS_GPU_TEARDOWN=detach "$G" scan -t i32 --backend cpu "$T/missing.raw" 2>"$T/err.missing" >/dev/null
rc=$?
if [ $rc -ne 1 ]; then fail teardown_error_status "exit $rc, want 1"
elif ! grep -q "^gpustream: error:.*missing.raw" "$T/err.missing"; then fail teardown_error_status "no error line: $(head -c 200 "$T/err.missing")"
elif ! gone_within "$T/missing.raw" 20; then fail teardown_error_status "the helper did not end"
else pass teardown_error_status; fi

# wait NAME BACKEND: the plain end, nothing left behind
wait_end() {
    local name=$1 b=$2
    cp "$T/want.in" "$T/in-$name.raw"
    GS_GPU_TEARDOWN=wait GS_TEST_TEARDOWN_LINGER_MS=$LINGER "$G" scan -t i32 --backend "$b" "$T/in-$name.raw" \
        "$T/got.$name" -f -q
    local rc=$? left
    left=$(pids_naming "$T/in-$name.raw")
    if [ $rc -ne 0 ]; then fail "teardown_$name" "exit $rc"
    elif [ -n "$left" ]; then fail "teardown_$name" "processes left: $left"
    elif ! cmp -s "$T/got.$name" "$T/want"; then fail "teardown_$name" "output differs"
    else pass "teardown_$name"; fi
}
wait_end wait cpu

# MPI ranks: GS_GPU_TEARDOWN=detach also detaches under mpirun (not done there by default); the
# one output from 2 ranks, exit 0, a helper a rank alive after mpirun's end, and each ends by itself
MPIRUN=$(command -v mpirun)
if [ -z "$MPIRUN" ]; then skip teardown_mpi_detach "no mpirun on the PATH"
elif "$G" info | grep -q '^mpi  *not built'; then skip teardown_mpi_detach "gpustream built without MPI"
else
    cp "$T/want.in" "$T/in-mpi.raw"
    "$MPIRUN" --oversubscribe --allow-run-as-root -n 2 -x GS_GPU_TEARDOWN=detach -x GS_TEST_TEARDOWN_LINGER_MS=$LINGER \
        "$G" scan -t i32 --backend cpu --threads 1 "$T/in-mpi.raw" "$T/got.mpi" -f -q 2>"$T/err.mpi"
    rc=$?
    helpers=$(pids_naming "$T/in-mpi.raw" | wc -w)
    if [ $rc -ne 0 ]; then fail teardown_mpi_detach "exit $rc: $(head -c 200 "$T/err.mpi")"
    elif ! cmp -s "$T/got.mpi" "$T/want"; then fail teardown_mpi_detach "output differs from one process"
    elif [ "$helpers" -ne 2 ]; then fail teardown_mpi_detach "$helpers helpers alive after mpirun's end, want one a rank"
    elif ! gone_within "$T/in-mpi.raw" $((LINGER / 1000 + 20)); then fail teardown_mpi_detach "a helper did not end"
    else pass teardown_mpi_detach; fi
fi

# a GPU run with the default end: right output and status, and nothing left once the driver is done
if [ $HAS_GPU = 1 ]; then
    cp "$T/want.in" "$T/in-gpu.raw"
    "$G" scan -t i32 --backend gpu "$T/in-gpu.raw" 2>"$T/err.gpu" | cat >"$T/got.gpu"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ]; then fail teardown_gpu "exit $rc: $(head -c 200 "$T/err.gpu")"
    elif ! cmp -s "$T/got.gpu" "$T/want"; then fail teardown_gpu "output differs from --backend cpu"
    elif ! gone_within "$T/in-gpu.raw" 20; then fail teardown_gpu "a process is left 20 s after the run"
    else pass teardown_gpu; fi
    wait_end gpu_wait gpu
else
    skip teardown_gpu "no GPU"
    skip teardown_gpu_wait "no GPU"
fi
