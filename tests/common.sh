# tests/common.sh - sourced by CLI tests from the repository root: G (the binary, as an absolute
# path), T (a scratch directory in /dev/shm where possible, removed at exit) and the PASS/FAIL/SKIP
# lines tests/run.sh counts.
G=${G:-./gpustream}
case $G in /*) ;; *) G=$PWD/${G#./} ;; esac
T=$(mktemp -d -p "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)")
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# ran_ok NAME CMD...: runs CMD, stdout to $T/got and stderr to $T/err; where it exits non-zero,
# a FAIL line and status 1.
ran_ok() {
    local name=$1; shift
    "$@" >"$T/got" 2>"$T/err"
    local rc=$?
    [ $rc -eq 0 ] && return 0
    fail "$name" "exit $rc: $(head -c 300 "$T/err")"
    return 1
}
# refused_with NAME CODE GREP_FLAG PATTERN CMD...: runs CMD as ran_ok does; status 0 where it exits
# CODE with one "gpustream: error" line and stderr matching PATTERN (grep GREP_FLAG: -F a fixed
# text, -G a pattern), else a FAIL line and status 1. No PASS line: the caller may check more.
refused_with() {
    local name=$1 code=$2 how=$3 pat=$4; shift 4
    "$@" >"$T/got" 2>"$T/err"
    local rc=$?
    if [ $rc -ne "$code" ]; then fail "$name" "exit $rc, want $code: $(head -c 300 "$T/err")"
    elif ! grep -q "$how" -- "$pat" "$T/err"; then fail "$name" "stderr lacks [$pat]: $(head -c 300 "$T/err")"
    elif [ "$(grep -c '^gpustream: error' "$T/err")" != 1 ]; then fail "$name" "not one error line: $(cat "$T/err")"
    else return 0; fi
    return 1
}
# need_gpu NAME: a SKIP line and exit 0 where this build sees no CUDA device.
need_gpu() {
    "$G" info 2>/dev/null | grep -qE '^devices +[1-9]' && return 0
    skip "$1" "no CUDA device for this build"
    exit 0
}
# have_numpy: status 0 where python3 imports numpy (a check that needs it is skipped otherwise)
have_numpy() { python3 -c 'import numpy' 2>/dev/null; }
# within SECONDS NAME CMD...: runs CMD under timeout(1); a FAIL line where it runs past SECONDS.
within() {
    local secs=$1 name=$2; shift 2
    timeout -k 5 "$secs" "$@" && return 0
    local rc=$?
    [ $rc = 124 ] && fail "$name" "$* ran past $secs s"
    return $rc
}
