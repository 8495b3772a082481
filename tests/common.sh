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
