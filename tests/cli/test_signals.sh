#!/usr/bin/env bash
# tests/cli/test_signals.sh - a terminating signal sent mid-run leaves the output directory as it
# was: the input, and the previous OUT (untouched) if there was one. Every signal a user or a
# system sends (INT TERM HUP QUIT USR1 USR2 ALRM PIPE, the crash signals SEGV BUS FPE ILL ABRT TRAP
# SYS sent by another process, and KILL, which no handler sees), for raw, npy and zstd outputs, with
# and without an OUT to overwrite; and again where the filesystem has no unnamed files (O_TMPFILE
# refused by tests/cli/no_tmpfile.c, preloaded), so the output is a named temp that only the
# handler can remove (KILL cannot be handled there: left out). No timing: the input is a FIFO this
# script holds open, so the run is surely mid-stream (its output open, waiting for more input)
# when the signal comes. PASS/FAIL lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
trap 'exec 3>&- 2>/dev/null; rm -rf "$T"' EXIT # the FIFO's writer (fd 3) closed first
ulimit -c 0 # SIGQUIT dumps core by default: no core file in the directory
head -c 1048576 /dev/urandom >"$T/data"
printf 'previous output\n' >"$T/prev"

# Is pid writing a file in dir other than its input (a named temp, or an unnamed O_TMPFILE)?
output_open() {
    local pid=$1 dir=$2 f t
    for f in /proc/"$pid"/fd/*; do
        t=$(readlink "$f" 2>/dev/null) || continue
        case $t in "$dir"/in.fifo) ;; "$dir"/*) return 0 ;; esac
    done
    return 1
}

SIGS="INT TERM HUP QUIT USR1 USR2 ALRM PIPE SEGV BUS FPE ILL ABRT TRAP SYS"
SHIM=$T/no_tmpfile.so
if ! cc -shared -fPIC -o "$SHIM" tests/cli/no_tmpfile.c -ldl 2>"$T/cc.err"; then
    skip signal_named_temp "the O_TMPFILE shim does not build: $(head -c 200 "$T/cc.err")"; SHIM=""
fi
cases() { # mode out prev sig: every case of the unnamed mode, the named mode with its shim
    for out in OUT.raw OUT.npy OUT.zst; do for prev in none old; do for sig in $SIGS KILL; do
        echo unnamed $out $prev $sig; done; done; done
    if [ -n "$SHIM" ]; then for prev in none old; do for sig in $SIGS; do
        echo named OUT.raw $prev $sig; done; done; fi
}
cases | while read -r mode out prev sig; do
        {
            name=signal_${sig}_${out#OUT.}_${prev}; pre=()
            if [ "$mode" = named ]; then name=${name}_named; pre=(env "LD_PRELOAD=$SHIM"); fi
            D=$T/$name
            mkdir -p "$D"
            mkfifo "$D/in.fifo"
            force=""
            if [ $prev = old ]; then cp "$T/prev" "$D/$out"; force=-f; fi
            (cd "$D" && exec "${pre[@]}" $G scan -q -t i32 $force in.fifo "$out" 2>"$T/err") &
            pid=$!
            exec 3>"$D/in.fifo" # opens once gpustream has opened its end
            cat "$T/data" >&3   # the output is opened once input has come
            # wait for that state (bounded: a run that never gets there fails, not hangs)
            for _ in $(seq 3000); do output_open $pid "$D" && break; sleep 0.01; done
            if ! output_open $pid "$D"; then
                fail "$name" "the run never opened its output: $(head -c 200 "$T/err")"
                kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null; exec 3>&-; rm -rf "$D"; continue
            fi
            kill -$sig $pid
            # a run that ignores the signal would wait for input forever: bounded, then a failure
            for _ in $(seq 3000); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done
            if kill -0 $pid 2>/dev/null; then
                kill -KILL $pid; wait $pid 2>/dev/null; exec 3>&-
                fail "$name" "SIG$sig did not end the run"; rm -rf "$D"; continue
            fi
            wait $pid 2>/dev/null; rc=$?
            exec 3>&-
            want=$((128 + $(kill -l $sig)))
            left=$(cd "$D" && ls -A | sort | tr '\n' ' ')
            expect="in.fifo "; [ $prev = old ] && expect=$(printf '%s\n' in.fifo "$out" | sort | tr '\n' ' ')
            if [ "$rc" != "$want" ]; then fail "$name" "exit $rc, want $want (killed by SIG$sig)"
            elif [ "$left" != "$expect" ]; then fail "$name" "directory holds [$left], want [$expect]"
            elif [ $prev = old ] && ! cmp -s "$D/$out" "$T/prev"; then fail "$name" "the previous $out was changed"
            else pass "$name"; fi
            rm -rf "$D"
        } </dev/null
done

# A SIGPIPE from a closed pipe downstream still ends the run quietly (exit 0, no error line).
$G gen -q -n 1e9 -t i32 2>/dev/null | $G scan -q -t i32 2>"$T/err" | head -c 10 >/dev/null
rc=${PIPESTATUS[1]}
[ "$rc" = 0 ] && [ ! -s "$T/err" ] && pass sigpipe_from_closed_pipe_quiet || fail sigpipe_from_closed_pipe_quiet "exit $rc: $(head -c 200 "$T/err")"
