#!/usr/bin/env bash
# tests/cli/test_mpi_pass.sh - the first pass of scan and compact over MPI ranks (each rank's shard
# total or kept count, read by its thread pool in 16 MiB blocks of 64 parts) on inputs of several
# blocks per shard and odd sizes: integer scans, widened scans and compaction byte-identical to one
# process for K = 2 and 3 and --threads 1 to 3, raw and npy (a header before the data); float sums
# of small integers (exact in any order) identical to one process, float sums of normal values
# identical for one K whatever the threads (the main pass on one variant). Then a rank's default --threads: the host's cores
# shared by the ranks on it (--stats=json says the count), an explicit --threads kept, and the
# MPI_Init/MPI_Finalize times in rank 0's --stats. Prints PASS/FAIL lines, or SKIP lines where this
# gpustream has no MPI or mpirun is missing. About 40 runs on 40-50 MB inputs.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
MPIRUN=$(command -v mpirun)
if [ -z "$MPIRUN" ]; then skip "mpi first pass" "no mpirun on the PATH"; exit 0; fi
if "$G" info | grep -q '^mpi  *not built'; then skip "mpi first pass" "gpustream built without MPI"; exit 0; fi
cd "$T"
mpi() { local k=$1; shift; "$MPIRUN" --oversubscribe --allow-run-as-root --bind-to none -n "$k" "$G" "$@"; }

# 16 MiB blocks hold 4194304 i32/f32 elements: shards of 1.5 to 3.1 blocks, none a whole number.
"$G" gen -q -n 13000007 -t i32 --dist uniform:-2147483648:2147483647 --seed 7 a.raw
"$G" convert -q -t i32 a.raw a.npy
"$G" gen -q -n 9437191 -t f32 --dist normal:0:1 --seed 8 f.raw
"$G" gen -q -n 9437191 -t i32 --dist uniform:-9:9 --seed 9 small.raw
"$G" convert -q -t i32 --out-type f32 small.raw e.raw # integers in f32: sums exact in any order

# same NAME K THREADS ARGS... IN: K ranks with THREADS threads and one process give the same file
same() {
    local name=$1 k=$2 t=$3; shift 3
    rm -f one.out many.out
    "$G" "$@" -q one.out 2>err || { fail "$name" "one process: $(head -c 200 err)"; return; }
    mpi "$k" "$@" -q --threads "$t" many.out 2>err || { fail "$name" "K=$k: $(grep gpustream err | head -c 200)"; return; }
    if cmp -s one.out many.out; then pass "$name"; else fail "$name" "$(cmp one.out many.out 2>&1 | head -1)"; fi
}
same "scan i32 K=2 threads 1" 2 1 scan -t i32 a.raw
same "scan i32 K=3 threads 3" 3 3 scan -t i32 a.raw
same "scan --op min npy K=2 threads 2" 2 2 scan --op min a.npy
same "scan --op max --exclusive npy K=3 threads 1" 3 1 scan --op max --exclusive a.npy
same "scan --out-type i64 K=3 threads 2" 3 2 scan --out-type i64 -t i32 a.raw
same "scan --exclusive --out-type i64 npy K=2 threads 3" 2 3 scan --exclusive --out-type i64 a.npy
same "compact --pred gt:0 K=3 threads 2" 3 2 compact --pred gt:0 -t i32 a.raw
same "compact --pred lt:-1000 --indices npy K=2 threads 3" 2 3 compact --pred lt:-1000 --indices a.npy
same "scan f32 exact sums K=2 threads 2" 2 2 scan -t f32 e.raw
same "scan f32 exact sums K=3 threads 1" 3 1 scan -t f32 e.raw
same "scan --op max f32 K=3 threads 3" 3 3 scan --op max -t f32 f.raw

want=$("$G" compact -q --pred gt:0 -t i32 --count a.raw)
for k in 2 3; do
    for t in 1 3; do
        got=$(mpi "$k" compact -q --pred gt:0 -t i32 --count --threads "$t" a.raw 2>/dev/null)
        if [ "$got" = "$want" ]; then pass "compact --count K=$k threads $t"
        else fail "compact --count K=$k threads $t" "got [$got], want [$want]"; fi
    done
done

# Float sums: the carry reassociates the sum (the rule is in docs/SCALING.md), the same for any
# number of threads. --algo cpu: the main pass's variant, which the threads would otherwise pick.
for k in 2 3; do
    rm -f t*.out
    ok=1
    for t in 1 2 3; do mpi "$k" scan -q -t f32 --algo cpu --threads "$t" f.raw t$t.out 2>/dev/null || ok=0; done
    if [ $ok = 1 ] && cmp -s t1.out t2.out && cmp -s t1.out t3.out; then pass "scan f32 sum K=$k: threads 1, 2, 3 agree"
    else fail "scan f32 sum K=$k: threads 1, 2, 3 agree" "outputs differ or a run failed"; fi
done

# The default --threads under mpirun: the host's cores shared by its ranks (at least 1).
N=$(getconf _NPROCESSORS_ONLN)
json_threads() { grep -o '"threads":[0-9]*' | head -1 | cut -d: -f2; }
for k in 2 3; do
    w=$((N / k)); [ $w -ge 1 ] || w=1
    if [ "$w" = "$N" ]; then echo "SKIP default threads K=$k: one core, all cores and a share are the same"; continue; fi
    got=$(mpi "$k" compact -q --pred gt:0 -t i32 --count a.raw --stats=json 2>&1 >/dev/null | json_threads)
    if [ "$got" = "$w" ]; then pass "default threads K=$k: $w of $N cores"
    else fail "default threads K=$k" "got [$got] threads, want $w ($N cores / $k ranks)"; fi
done
got=$(mpi 2 compact -q --pred gt:0 -t i32 --count --threads 3 a.raw --stats=json 2>&1 >/dev/null | json_threads)
if [ "$got" = 3 ]; then pass "--threads 3 kept under mpirun"; else fail "--threads 3 kept under mpirun" "got [$got]"; fi
got=$("$G" compact -q --pred gt:0 -t i32 --count a.raw --stats=json 2>&1 >/dev/null | json_threads)
if [ "$got" = "$N" ]; then pass "default threads, one process: all $N cores"; else fail "default threads, one process" "got [$got], want $N"; fi
mpi 2 scan -q -t i32 a.raw --stats -f /dev/null 2>err
if grep -q "^gpustream scan: .*, $((N / 2 > 0 ? N / 2 : 1)) CPU threads*, algo " err &&
    grep -qE '^  mpi        MPI_Init [0-9.]+ s .*MPI_Finalize [0-9.]+ s' err; then pass "--stats: threads, MPI_Init and MPI_Finalize"
else fail "--stats: threads, MPI_Init and MPI_Finalize" "$(grep -E 'CPU thread|mpi ' err | head -c 300)"; fi
mpi 2 scan -q -t i32 a.raw --stats=json -f /dev/null 2>err
if grep -qE '^\{"ranks":2,.*"mpi_init_s":[0-9.]+,"mpi_finalize_s":[0-9.]+' err; then pass "--stats=json: mpi_init_s, mpi_finalize_s"
else fail "--stats=json: mpi_init_s, mpi_finalize_s" "$(grep ranks err | head -c 300)"; fi
