#!/usr/bin/env bash
# tests/run.sh - run every test this machine can run and end with "N passed, N failed, N skipped".
#   unit programs   build/test_*          (C, one CHECK per PASS/FAIL line)
#   CLI tests       tests/cli/*.sh        (shell, same PASS/FAIL lines)
#   GPU tests       build/test_*_gpu*     (C/CUDA: every GPU variant and the streaming engine
#                   tests/gpu/test_*.sh    against the CPU; shell: the GPU codec, chains, sanitizers),
#                                         only where a GPU answers, else one SKIP line each
#   fuzzing         tests/fuzz/run.sh     (bounded, where clang's libFuzzer runtime is present)
# A program that dies without reporting counts as one failure; `SKIP name: why` lines count as
# skipped (checks this machine cannot run, e.g. MPI where it is absent).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
LOG=tests/out
mkdir -p "$LOG"
pass=0; fail=0; skip=0

have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then have_gpu=1; fi

run_one() { # name command...
    local name=$1; shift
    # ONLY="name ...": run just those (make tsan)
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]]; then return; fi
    local log="$LOG/$name.log"
    local t0=$SECONDS
    "$@" >"$log" 2>&1
    local rc=$?
    local p f k
    p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); k=$(grep -c '^SKIP ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1; echo "FAIL $name: exited $rc without a FAIL line (see $log)"; tail -5 "$log" | sed 's/^/    /'
    fi
    grep '^FAIL ' "$log" | head -20
    grep '^SKIP ' "$log" | head -5
    printf '%-28s %5d passed %4d failed %3d skipped  %3ds\n' "$name" "$p" "$f" "$k" $((SECONDS - t0))
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
}

for t in "$BUILD"/test_*; do
    [ -x "$t" ] || continue
    case "$t" in *_gpu*) continue ;; esac
    run_one "$(basename "$t")" "$t"
done
for t in tests/cli/*.sh; do
    [ -f "$t" ] || continue
    run_one "cli_$(basename "$t" .sh)" bash "$t"
done
if [ "$have_gpu" = 1 ]; then
    for t in "$BUILD"/test_*_gpu*; do
        [ -x "$t" ] || continue
        run_one "$(basename "$t")" "$t"
    done
    for t in tests/gpu/test_*.sh; do
        [ -f "$t" ] || continue
        run_one "gpu_$(basename "$t" .sh)" bash "$t"
    done
else
    for t in tests/gpu/test_*.c tests/gpu/test_*.cu tests/gpu/test_*.sh; do
        [ -f "$t" ] || continue
        echo "SKIP $t: no GPU answers here (the CPU backend ran every verb)"
        skip=$((skip + 1))
    done
fi
if [ -x tests/fuzz/run.sh ] || [ -f tests/fuzz/run.sh ]; then
    run_one fuzz env FUZZ_SECONDS="${FUZZ_SECONDS:-20}" bash tests/fuzz/run.sh
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
