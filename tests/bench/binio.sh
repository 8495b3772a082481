#!/usr/bin/env bash
# tests/bench/binio.sh - binary I/O at the link's speed: a raw i32 file in the page cache (/dev/shm)
# through scan, compact --pred nonzero and minmax -w 500, to /dev/null and to a file in /dev/shm
# (removed before each run), per backend, on the GPU with --host-mem pinned (the staged copy, the
# default) and direct (the file's pages locked where they lie);
# then BIN's --stats of each GPU op with direct and pinned (the rows "file pin" against
# "read+decode": what locking a window costs against copying it); then tests/bench/filewrite.c (one
# output file by one write() stream, pwrite threads, mapping threads) and, with a GPU,
# tests/bench/filepin.cu (a window page-locked in place against copied, and H2D from each).
#   bash tests/bench/binio.sh                                 (16 GiB: 2^32 i32, sparse:0.5)
#   BASE=/path/to/old/gpustream bash tests/bench/binio.sh     (both binaries, run for run in turn)
#   SIZE=2G BACKENDS=cpu REPS=3 bash tests/bench/binio.sh     (no GPU)
# OPS: the operations, separated by '|'; BACKENDS (default "gpu cpu", "cpu" without a GPU); MODES
# (the GPU's --host-mem modes, "default" for none given; default "pinned direct"); DESTS (default
# "null file"); OUTDIR (where the output file is written, default the scratch folder in /dev/shm: a
# folder on a disk measures that disk's file system).
. "$(dirname "$0")/lib.sh"
SIZE=${SIZE:-16G}
IFS='|' read -r -a ops <<<"${OPS:-scan|compact --pred nonzero|minmax -w 500}"
BACKENDS=${BACKENDS:-$(has_gpu && echo "gpu cpu" || echo cpu)}
MODES=${MODES:-pinned direct}
DESTS=${DESTS:-null file}
OUTDIR=${OUTDIR:-$D}
header "binio: $SIZE raw i32 (sparse:0.5) in $D -> /dev/null and -> $OUTDIR/out.raw; backends $BACKENDS"
bytes=$(bytes_of "$SIZE")
"$BIN" gen -q -n $((bytes / 4)) -t i32 --dist sparse:0.5 -f "$D/in.raw" || exit 1
for dest in $DESTS; do
    for op in "${ops[@]}"; do
        for b in $BACKENDS; do
            for m in $([ "$b" = gpu ] && echo "$MODES" || echo default); do
                hm=$([ "$m" = default ] || echo " --host-mem $m")
                label="$op --backend $b$hm -> $dest"
                # the output file is removed before each run, outside its time: two of them and the
                # input may not fit in /dev/shm
                out=$([ "$dest" = null ] && echo /dev/null || echo "$OUTDIR/out.raw")
                # shellcheck disable=SC2086
                PRE=$([ "$dest" = null ] || echo "rm -f '$out'") in_turn "$label" @BIN@ $op -t i32 --backend $b$hm "$D/in.raw" -f "$out" -q
                rm -f "$OUTDIR/out.raw"
            done
        done
    done
done
if has_gpu; then
    for op in "${ops[@]}"; do
        for m in direct pinned; do
            echo "-- --stats: $op --backend gpu --host-mem $m -> /dev/null"
            # shellcheck disable=SC2086
            "$BIN" $op -t i32 --backend gpu --host-mem $m --stats "$D/in.raw" -f /dev/null 2>&1 | grep -vE '^ *$'
        done
    done
fi
# One output file written by one write() stream, pwrite threads and mapping threads (filewrite.c);
# a window of the input page-locked against copied, and the H2D rate from each (filepin.cu).
if cc -O2 -pthread tests/bench/filewrite.c -o "$D/filewrite" 2>"$D/cc.err"; then
    echo "-- one output file in $D, 4 GiB, $(nproc) threads (tests/bench/filewrite.c)"
    "$D/filewrite" "$D/fw.out" 4096 "$(nproc)"
else
    echo "filewrite.c did not build: $(head -c 300 "$D/cc.err")"
fi
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if has_gpu && [ -x "$NVCC" ] && "$NVCC" -O2 tests/bench/filepin.cu -lpthread -o "$D/filepin" 2>"$D/cc.err"; then
    echo "-- windows of 64 MiB of $D/in.raw: page-locked in place against copied (tests/bench/filepin.cu)"
    "$D/filepin" "$D/in.raw" 64 16 "$(nproc)"
elif has_gpu; then
    echo "filepin.cu did not build: $(head -c 300 "$D/cc.err")"
fi
