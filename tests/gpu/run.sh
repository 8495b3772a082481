#!/usr/bin/env bash
# tests/gpu/run.sh - everything the GPU machine is needed for, in one call (device time is scarce):
#   STEPS="build test sanitize bench blocks cpu io stream codec big startup pipes chains chainspeed" (default),
#   logs under $OUT; also warm, mpistart, mpi, fuzzlong (not in the default list).
#   build     make CUDA=1 GPU_ARCH=sm_90 TUNING=$TUNING (skipped when a carried ./gpustream has CUDA and runs)
#   test      make test's runner: unit + CLI + every GPU variant and the streaming engine vs the CPU
#   sanitize  compute-sanitizer memcheck + racecheck on a representative run of each default
#   bench     gpustream bench --op all (+ types, windows) with CSV for make plots; its plain-cub rows and
#             ceilings (device copy, PCIe) are the vendor reference, measured in the same run
#   blocks    gpustream bench --block 32,...,1024 (i32, 2^28, density 0.5, W=500): block_sweep.png
#             (a TUNING=1 build only: TUNING=1 bash tests/gpu/run.sh)
#   cpu       the CPU variants on 1 and 16 threads (per-core figures)
#   io        CSV ingest and zstd codec speed vs baselines; end-to-end compact on .zst vs convert
#   stream    gpustream bench --stream (host-mem x buffers) and real pipelines with --stats
#   codec     GPU zstd (nvCOMP): round trips, zstd CLI interop, corruption matrix, memcheck, speed
#             (tests/gpu/codec.sh; needs nvCOMP: make deps-nvcomp-local, carried as .deps/nvcomp)
#   big       200 GB through a pipe: gen -n 50e9 -t i32 | scan --stats, last value vs the CPU backend
#   startup   wall time of scan, compact, minmax W=500 on files of 4K..16G (in /dev/shm) with --backend
#             cpu, gpu and auto (median of STARTUP_REPS runs, a `date +%s.%N` loop), auto's choice and
#             why, CUDA start-up never started for small inputs, the overlap check of a 16 GB scan
#             (wall <= max stage busy + 0.15 s), and bench --stream across --device-alloc
#   chains    tests/cli/test_chains.sh with --backend gpu (GPU chains vs the same verbs piped on the
#             CPU, byte for byte), compute-sanitizer memcheck on chains of three vs the CPU backend
#   chainspeed  16 GB raw i32 in /dev/shm to /dev/null: the chain compact->scan->minmax on the GPU vs
#             scan alone vs the same three verbs piped vs the chain on 16 CPU threads
#   pipes     8 GB through Linux pipes: cat | gpustream scan, gen | scan, scan | cat against cat | cat
#   warm      tests/cli/test_warm.sh: chunks on the CPU while CUDA starts, then the GPU continues
#   zcompact  the compaction .zst -> .zst of 4 GB i32 (sparse:0.5, 16 MiB frames) with --backend cpu and
#             gpu (medians of 3, --stats), the codec alone each way, the output checked by the zstd CLI,
#             and libzstd's one-core rates on the same data (zstd -b), the ceiling on this host's cores;
#             ZC_PREV="path...": earlier builds timed against this one, in turn, in the same run
#             (ZC_AB=decode: only the decode-only line of that comparison; ZC_AB=codec: the compaction
#             and the encoding of the raw file with --codec cpu and auto)
#   zdev      (not in the default list) zstd frames decoded where the kernels read them: compact
#             --pred nonzero .zst -> .zst of 4 GB i32 sparse:0.5 as `convert` writes it now (auto: 64K
#             GPU frames) and with libzstd's 16 MiB frames, --codec cpu, auto and gpu (medians of 5 in
#             turn after a warm-up, --stats of each, outputs checked by the zstd CLI); then scan of 16 GB
#             i32 as .zst (64K GPU frames) to /dev/null per codec (medians of 3); ZDEV_VARIANTS="--chunk=128M
#             --buffers=4" (the default): --codec auto with each of these options too
#   zenc      (not in the default list) the headline compaction .zst -> .zst (4 GB i32 sparse:0.5 as
#             `convert` writes it) per codec and option, medians of 5 in turn after a warm-up, output
#             sizes, --stats, outputs checked by the zstd CLI; ZENC_RUNS="label|binary|options;..."
#             (default auto, gpu, cpu; an earlier build as a binary is timed in the same run); the
#             first option run again with GS_TRACE=1 (zenc_trace.txt: the timeline)
#   zprof     (not in the default list) where the device's time goes in the headline compaction
#             (.zst -> .zst, --codec gpu, ZPROF_N i32 elements, default 2.5e8): ncu's duration of every
#             kernel, summed by name (tests/gpu/kernel_times.py; kernels run one at a time there), the
#             same run's --stats without ncu, and bench --zstd at 32, 64 and 256 MiB per call
#   pincost   (not in the default list) tests/gpu/pincost.cu: cudaHostRegister of fresh memory, of memory
#             written first (1 and 16 threads, huge pages advised), and cudaHostAlloc, 64 and 256 MiB
#   zscan     (not in the default list) the 16 GB .zst scan alone (4e9 i32 sparse:0.5 in 32K GPU frames, to
#             /dev/null) per codec, medians of 5 in turn after a warm-up, --stats of each;
#             ZSCAN_RUNS="label|binary|options;..." as zenc's
#   zauto     (not in the default list) zstd jobs per backend: scan, compact --pred nonzero and minmax
#             -w 500 of a .zst (4 GB i32 sparse:0.5, 16 MiB frames) to /dev/null and to .zst, and of
#             the raw file to .zst, with --backend cpu, gpu and auto in turn (medians of 5 after a
#             warm-up; auto's choice from --stats); every output equal to --backend cpu's
#   zscale    (not in the default list) how zstd decoding scales with cores on this host: K copies of
#             the zstd CLI decoding a 250 MB file at once (K = 1, 4, 8, 16: the host's own ceiling
#             under all-core load), then gpustream convert of a 1 GB file's .zst to /dev/null with
#             --threads 1, 2, 4, 8, 16 (medians of 3)
#   zbench    (not in the default list) gpustream bench --zstd: libzstd on all cores (host memory)
#             against nvCOMP on the GPU (device memory, events), encode and decode per frame size, on
#             ZB_N i32 elements (default 2^26, 4x L2) of sparse:0.5 and of uniform:0:2^31, ZB_REPS repeats
#             (default 3), every row checked; the PCIe ceilings beside (zbench.txt, zbench.csv)
#   scantune  (not in the default list) 16 GB raw i32 to /dev/null for TUNE_OPS (scan, compact,
#             minmax) on the CPU (TUNE_CPU_CHUNKS) and the GPU across TUNE_CHUNKS x TUNE_BUFFERS:
#             process wall and --stats wall (medians of 3)
#   lifecycle (not in the default list) where a GPU process's time goes outside its --stats wall:
#             tests/gpu/exitcost.cu (exec, context creation, the end per exit path) and strace's
#             timestamps of gpustream scan (4 KB and LIFE_N elements, cpu and gpu): execve, CUDA's
#             first open, exit_group and the process gone
#   mpilaunch (not in the default list) where mpirun's own time goes: from mpirun's start to a rank's
#             first instruction and from a rank's end to mpirun's exit, per environment (hwloc
#             components, a saved topology, the launcher), medians of 5
#   mpistart  (not in the default list) launch and MPI start-up: mpirun -n 1 and -n 2 of `true`, of
#             `gpustream --version` and of a 4 KB scan (--backend cpu and gpu) under each candidate
#             --mca set, medians of 3 after a warm-up (mpistart.txt); the set fastest for 2 ranks
#             goes to mpi_mca.txt for the mpi step
#   fuzzlong  (not in the default list; no GPU needed, only the cores) the fuzz targets csv, detect
#             and zstd to FUZZ_RUNS executions each (default 10^7) over FUZZ_JOBS jobs (default
#             nproc), from binaries built elsewhere by tests/fuzz/run.sh and carried
#             (build/fuzz/fuzz_csv, fuzz_detect, fuzz_zstd); FUZZ_BUDGET seconds for all (default
#             510, so the step fits in 9 minutes), each target bounded by its share of what is
#             left (time a faster one leaves goes to the next); logs under $OUT/fuzz/
#   mpi       (not in the default list) 1 and 2 MPI ranks, one per GPU, on a 32 GB raw i32 file in
#             /dev/shm -> /dev/null: wall times (medians of 3) of scan, compact and minmax W=500 for
#             1 process, mpirun -n 1, -n 2, and -n 2 with mpi_mca.txt's set (or $MPI_MCA); outputs
#             of 1 and 2 ranks compared on a 1 GB file first (docs/SCALING.md)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gs-out}
mkdir -p "$OUT"
. tests/gpu/zstd_cli.sh
STEPS=${STEPS:-"build test sanitize bench blocks cpu io stream codec big startup pipes chains chainspeed"}
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
log() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
# elapsed CMD...: run CMD (its stdout to /dev/null), print its wall seconds; CMD's exit status
elapsed() {
    local t0 t1 rc
    t0=$(date +%s.%N); "$@" >/dev/null; rc=$?; t1=$(date +%s.%N)
    awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.4f\n", z - a }'
    return $rc
}
# in_turn DIR FN: for each "label|binary|options" in the array runs, `FN BINARY OPTIONS LABEL` (its
# stderr dropped) 6 rounds in turn, the first a warm-up; the wall seconds go to DIR/t.LABEL, a line each
in_turn() {
    local dir=$1 fn=$2 i r lab bin opts t0 t1
    rm -f "$dir"/t.*
    for i in 0 1 2 3 4 5; do
        for r in "${runs[@]}"; do
            IFS='|' read -r lab bin opts <<<"$r"
            t0=$(date +%s.%N); $fn "$bin" "$opts" "$lab" 2>/dev/null; t1=$(date +%s.%N)
            [ $i = 0 ] || awk "BEGIN { print $t1 - $t0 }" >>"$dir/t.$lab"
        done
    done
}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
nproc >>"$OUT/gpu.txt"

if has build; then
    if ./gpustream info 2>/dev/null | grep -q "CUDA compiled in" && ./gpustream info | grep -q "^devices    [1-9]"; then
        log "build: using the carried binaries"
    else
        log "build: make CUDA=1 GPU_ARCH=sm_90 TUNING=${TUNING:-0}"
        make -j"$(nproc)" CUDA=1 GPU_ARCH=sm_90 TUNING="${TUNING:-0}" all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    fi
    make -j"$(nproc)" CUDA=1 GPU_ARCH=sm_90 ${BUILD_TESTS:-build/cuda/test_kernels_gpu build/cuda/test_stream_gpu \
        build/cuda/test_kernels build/cuda/test_io build/cuda/test_csv} >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    ./gpustream info | tee "$OUT/info.txt" | head -12
fi
if has gputest; then
    log "gputest: the GPU test programs only"
    for t in build/cuda/test_stream_gpu build/cuda/test_kernels_gpu; do
        [ -x $t ] || continue
        timeout 400 $t --no-big >"$OUT/$(basename $t).log" 2>&1; echo "$(basename $t): exit $? $(grep -c '^PASS' "$OUT/$(basename $t).log") passed $(grep -c '^FAIL' "$OUT/$(basename $t).log") failed"
        grep '^FAIL' "$OUT/$(basename $t).log" | head -5
    done
fi
if has codec; then
    log "codec"
    timeout 580 bash tests/gpu/codec.sh "$OUT" >"$OUT/codec.log" 2>"$OUT/codec_speed.log"
    grep -E "^FAIL|^SKIP|passed" "$OUT/codec.log" | tail -20; cat "$OUT/codec_speed.log"
fi
if has test; then
    log "test"
    BUILD=build/cuda FUZZ_SECONDS=0 timeout 900 bash tests/run.sh >"$OUT/test.log" 2>&1
    grep -E "passed|FAIL" "$OUT/test.log" | tail -30
fi
if has sanitize && command -v compute-sanitizer >/dev/null; then
    log "sanitize"
    {
        ./gpustream gen -n 3000001 -t i32 --dist sparse:0.5 -f /tmp/s.raw
        for tool in memcheck racecheck; do
            for cmd in "scan -t i32" "compact -t i32 --pred nonzero" "minmax -t i32 -w 500" "minmax -t i32 -w 70000 --partial"; do
                echo "-- $tool: $cmd"
                compute-sanitizer --tool $tool --error-exitcode 9 ./gpustream $cmd --backend gpu --chunk 4M /tmp/s.raw -f /tmp/s.out 2>&1 | tail -3
                echo "exit ${PIPESTATUS[0]}"
            done
        done
    } >"$OUT/sanitize.log" 2>&1
    grep -E "^-- |ERROR SUMMARY|exit" "$OUT/sanitize.log"
fi
if has bench; then
    log "bench"
    timeout 600 ./gpustream bench --op all -t i32 --csv "$OUT/bench_all.csv" >"$OUT/bench_all.txt" 2>&1
    timeout 300 ./gpustream bench --op scan -t i64,f32,f64 --csv "$OUT/bench_types.csv" >"$OUT/bench_types.txt" 2>&1
    timeout 300 ./gpustream bench --op scan --algo all -n 2^16,2^20,2^24,2^26 --reps 5 --csv "$OUT/bench_sizes.csv" >"$OUT/bench_sizes.txt" 2>&1
    grep -v "^mode" "$OUT/bench_all.txt"; grep -v "^#\|^mode" "$OUT/bench_types.txt"; grep -c passed "$OUT/bench_sizes.txt"
fi
if has blocks && ! ./gpustream info | grep -q "^tuning .*built"; then
    log "blocks: skipped (the block sizes need a make TUNING=1 build)"
elif has blocks; then
    log "blocks: every GPU variant at each block size it takes"
    timeout 600 ./gpustream bench --op all -t i32 --block 32,64,128,256,512,1024 --density 0.5 --window 500 \
        --csv "$OUT/bench_blocks.csv" >"$OUT/bench_blocks.txt" 2>&1
    grep -v "^mode" "$OUT/bench_blocks.txt"
fi
if has cpu; then
    log "cpu: per-core and all-core CPU throughput"
    for th in 1 16; do
        timeout 300 ./gpustream bench --backend cpu --threads $th --op all -n 2^26 --window 500 --density 0.5 --algo cpu-par,cpu-vhgw,cpu-lemire --reps 5 \
            --csv "$OUT/bench_cpu_t$th.csv" 2>&1 | tee "$OUT/bench_cpu_t$th.txt"
    done
fi
if has io; then
    log "io: CSV and zstd"
    {
        G=./gpustream
        D=/dev/shm/gsio; mkdir -p $D
        cc -O2 -I.deps/usr/include tests/bench/csv_baseline.c $(ls .deps/usr/lib/x86_64-linux-gnu/libcsv.a 2>/dev/null || echo -lcsv) -o $D/csv_baseline
        $G gen -n 40M -t f64 --dist normal:0:1000 --to csv -f $D/f.csv
        $G gen -n 40M -t i64 --dist uniform:-1000000:1000000 --to csv -f $D/i.csv
        $G gen -n 40M -t f32 --dist walk --to csv -f $D/s.csv   # short decimals, like prices
        ls -la $D/*.csv
        $D/csv_baseline $D/f.csv
        $D/csv_baseline $D/s.csv
        for f in f i s; do for th in 1 2 4 8 16; do
            /usr/bin/time -f "csv ingest $f.csv ($(stat -c %s $D/$f.csv) bytes) threads $th: %e s" $G convert $D/$f.csv --threads $th --to raw -f $D/x.raw -q
        done; done
        for th in 1 16; do /usr/bin/time -f "csv output threads $th: %e s" $G convert -t f64 $D/x.raw --to csv --threads $th -f $D/o.csv -q; done
        $G gen -n 1e9 -t i32 --dist sparse:0.5 -f $D/s.raw
        ls -la $D/s.raw
        for th in 1 16; do
            /usr/bin/time -f "zstd encode gpustream threads $th: %e s" $G convert -t i32 $D/s.raw --threads $th -f $D/s.raw.zst -q
            /usr/bin/time -f "zstd decode gpustream threads $th: %e s" $G convert $D/s.raw.zst --threads $th -t i32 --to raw -f /dev/null -q
        done
        ls -la $D/s.raw.zst
        if [ $ZSTD_CLI = 0 ]; then
            echo "SKIP io: zstd CLI timings: no zstd on PATH or in .deps/zstd-cli"
        else
            /usr/bin/time -f "zstd CLI -T1 encode: %e s" $ZSTD_EXE -q -3 -T1 -f $D/s.raw -o $D/c1.zst
            /usr/bin/time -f "zstd CLI -T16 encode: %e s" $ZSTD_EXE -q -3 -T16 -f $D/s.raw -o $D/c16.zst
            /usr/bin/time -f "zstd CLI -d (our multi-frame file): %e s" $ZSTD_EXE -q -d -c $D/s.raw.zst >/dev/null
            zstd -lv $D/s.raw.zst 2>&1 | grep -iE "frames|ratio" | head -3
        fi
        for th in 16; do
            /usr/bin/time -f "convert .zst -> raw (codec only) threads $th: %e s" $G convert $D/s.raw.zst -t i32 --to raw -f /dev/null -q --threads $th
            /usr/bin/time -f "compact .zst -> .zst gpu threads $th: %e s" $G compact --pred nonzero $D/s.raw.zst -t i32 -f $D/c.zst -q --threads $th --stats
            /usr/bin/time -f "convert .zst -> .zst (codec only) threads $th: %e s" $G convert $D/s.raw.zst -t i32 -f $D/c2.zst -q --threads $th
        done
        rm -rf $D
    } >"$OUT/io.txt" 2>&1
    grep -vE "^ " "$OUT/io.txt" | tail -40
fi
if has stream; then
    log "stream"
    timeout 400 ./gpustream bench --stream --op scan,compact --csv "$OUT/bench_stream.csv" 2>&1 | tee "$OUT/bench_stream.txt"
    ./gpustream gen -n 4e9 -t i32 --dist sparse:0.5 -f /tmp/big.raw
    for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
        echo "-- file -> /dev/null: $op" ; ./gpustream $op -t i32 /tmp/big.raw -f /dev/null --stats 2>&1
        echo "-- file -> /dev/null cpu: $op" ; ./gpustream $op -t i32 --backend cpu /tmp/big.raw -f /dev/null --stats 2>&1 | grep -E "wall"
    done 2>&1 | tee "$OUT/pipelines.txt"
    rm -f /tmp/big.raw
fi
if has big; then
    log "big: 200 GB through a pipe"
    ( /usr/bin/time -v ./gpustream gen -n 50e9 -t i32 --dist uniform:-100:100 | /usr/bin/time -v ./gpustream scan -t i32 --stats | tail -c 4 | od -An -td4 ) >"$OUT/big.txt" 2>&1
    # The same stream on the CPU backend (BIG_CPU=0 leaves it to a machine without the GPU).
    [ "${BIG_CPU:-1}" = 1 ] && ./gpustream gen -n 50e9 -t i32 --dist uniform:-100:100 | ./gpustream scan -t i32 --backend cpu | tail -c 4 | od -An -td4 >>"$OUT/big.txt" 2>&1
    grep -E "wall|Maximum resident|GB/s|^ +-?[0-9]+$" "$OUT/big.txt"
fi
if has startup; then
    log "startup: cpu vs gpu vs auto per op and input size; the crossover for GS_AUTO_GPU_MIN_BYTES"
    D=${STARTUP_DIR:-/dev/shm/gs-startup}
    SIZES=${STARTUP_SIZES:-"4K 1M 16M 64M 256M 1G 16G"}
    R=${STARTUP_REPS:-3}
    mkdir -p "$D"
    bytes() { case $1 in *K) echo $((${1%K} << 10)) ;; *M) echo $((${1%M} << 20)) ;; *G) echo $((${1%G} << 30)) ;; esac; }
    for s in $SIZES; do
        [ -f "$D/in_$s.raw" ] || ./gpustream gen -q -n $(($(bytes $s) / 4)) -t i32 --dist sparse:0.5 -f "$D/in_$s.raw"
    done
    median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.4f\n", a[int((NR + 1) / 2)] }'; }
    wall() { # command...: median wall seconds of R runs, stdout to /dev/null ("failed" if one fails)
        local ok=1 t0 t1 i
        for i in $(seq "$R"); do
            t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || ok=0; t1=$(date +%s.%N)
            awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$D/times"
        done
        if [ $ok = 1 ]; then median <"$D/times"; else echo failed; fi
        rm -f "$D/times"
    }
    {
        printf "%-24s %6s %9s %9s %9s  %s\n" op size cpu_s gpu_s auto_s "auto's choice (--stats)"
        for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
            for s in $SIZES; do
                c=$(wall ./gpustream $op -t i32 --backend cpu "$D/in_$s.raw")
                g=$(wall ./gpustream $op -t i32 --backend gpu "$D/in_$s.raw")
                a=$(wall ./gpustream $op -t i32 --backend auto "$D/in_$s.raw")
                why=$(./gpustream $op -t i32 --stats "$D/in_$s.raw" 2>&1 >/dev/null | grep -o "backend .*, algo [a-z-]*")
                printf "%-24s %6s %9s %9s %9s  %s\n" "$op" "$s" "$c" "$g" "$a" "$why"
            done
        done
        echo "-- CUDA never starts for a 4K input under auto (cuda_init_s -1, the plan's reason):"
        [ -f "$D/in_4K.raw" ] || ./gpustream gen -q -n 1K -t i32 -f "$D/in_4K.raw"
        ./gpustream scan -t i32 --stats=json "$D/in_4K.raw" 2>&1 >/dev/null | grep -o '"backend_why":"[^"]*","cuda_init_s":[-0-9.]*'
        echo "-- overlap: the 16G scan on the GPU, wall <= max(stage busy) + 0.15 s"
        [ -f "$D/in_16G.raw" ] && for i in 1 2 3; do
            t0=$(date +%s.%N)
            j=$(./gpustream scan -t i32 --backend gpu --stats=json "$D/in_16G.raw" 2>&1 >/dev/null | grep '^{')
            t1=$(date +%s.%N)
            w=$(echo "$j" | grep -o '"wall_s":[0-9.]*' | cut -d: -f2)
            m=$(echo "$j" | grep -o '"busy_s":[0-9.]*' | cut -d: -f2 | sort -n | tail -1)
            ci=$(echo "$j" | grep -o '"cuda_init_s":[-0-9.]*' | cut -d: -f2)
            echo "wall $w s (the process: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s), max stage busy $m s, cuda init $ci s: $(awk -v w="$w" -v m="$m" 'BEGIN { print (w <= m + 0.15) ? "ok" : "OVER" }')"
        done
        [ -f "$D/in_16G.raw" ] && ./gpustream scan -t i32 --backend gpu --stats "$D/in_16G.raw" 2>&1 >/dev/null
    } 2>&1 | tee "$OUT/startup.txt"
    # STARTUP_EXTRA=0: the backend table only (not the CPU default sweep nor the --device-alloc bench)
    [ "${STARTUP_EXTRA:-1}" = 1 ] && echo "-- the CPU default per thread count: cpu vs cpu-par (gs_cpu_par_from, kernels/registry.c)" | tee -a "$OUT/startup.txt"
    [ "${STARTUP_EXTRA:-1}" = 1 ] && for t in 1 2 3 4 8 16; do
        ./gpustream bench --backend cpu --op scan,compact -t i32 -n 2^26 --algo cpu,cpu-par --density 0.5 --reps 5 \
            --threads $t 2>&1 | grep "^cpu" | sed "s/^/threads=$t /"
    done | tee -a "$OUT/startup.txt"
    [ "${STARTUP_EXTRA:-1}" = 1 ] && echo "-- bench --stream across --device-alloc (and pinned vs pageable)" | tee -a "$OUT/startup.txt"
    [ "${STARTUP_EXTRA:-1}" = 1 ] && timeout 300 ./gpustream bench --stream --op scan,compact --host-mem pinned,pageable --buffers 2 \
        --device-alloc once,per-chunk,async --csv "$OUT/bench_devalloc.csv" 2>&1 | tee -a "$OUT/startup.txt"
    [ -n "${STARTUP_KEEP:-}" ] || rm -rf "$D"
fi
if has pipes; then
    log "pipes: 8 GB of i32 through Linux pipes, against cat | cat on the same machine"
    {
        G=./gpustream
        F=/dev/shm/pipes8g.raw
        $G gen -q -n 2e9 -t i32 --dist sparse:0.5 -f $F
        TIMEFORMAT="%R s"
        for rep in 1 2; do
            echo "-- cat | cat, run $rep"; time { cat $F | cat >/dev/null; }
            echo "-- cat | gpustream scan (auto), run $rep"; time { cat $F | $G scan -t i32 -q >/dev/null; }
            echo "-- cat | gpustream scan --backend cpu, run $rep"; time { cat $F | $G scan -t i32 --backend cpu -q >/dev/null; }
            echo "-- gpustream gen | gpustream scan (auto), run $rep"
            time { $G gen -q -n 2e9 -t i32 --dist sparse:0.5 | $G scan -t i32 -q >/dev/null; }
            echo "-- gpustream gen > /dev/null, run $rep"; time { $G gen -q -n 2e9 -t i32 --dist sparse:0.5 >/dev/null; }
            echo "-- gpustream scan (auto) file | cat, run $rep"; time { $G scan -t i32 -q $F | cat >/dev/null; }
        done
        echo "-- cat | gpustream scan --stats"; cat $F | $G scan -t i32 --stats >/dev/null
        rm -f $F
    } >"$OUT/pipes.txt" 2>&1
    cat "$OUT/pipes.txt"
fi
if has warm; then
    log "warm: the hand-over from the CPU to the GPU while CUDA starts (tests/cli/test_warm.sh)"
    bash tests/cli/test_warm.sh 2>&1 | tee "$OUT/warm.txt" | grep -vE "^PASS"
    echo "$(grep -c ^PASS "$OUT/warm.txt") passed, $(grep -c ^FAIL "$OUT/warm.txt") failed" | tee -a "$OUT/warm.txt"
fi
if has chains; then
    log "chains: the test matrix with --backend gpu vs the verbs piped on the CPU; memcheck on chains of three"
    BACKEND=gpu timeout 480 bash tests/cli/test_chains.sh >"$OUT/chains.log" 2>&1
    grep -E "^FAIL|^# chains" "$OUT/chains.log" | tail -20
    if command -v compute-sanitizer >/dev/null; then
        ./gpustream gen -q -n 3000001 -t i32 --dist sparse:0.3 -f /tmp/c.raw
        for cmd in "compact --pred nonzero then scan then minmax -w 500 --only max" \
            "scan --out-type i64 then compact --pred gt:0 --indices then minmax -w 70000 --only min --partial" \
            "minmax -w 3 --only min then compact --pred nonzero then scan --op max"; do
            echo "-- memcheck: $cmd"
            compute-sanitizer --tool memcheck --error-exitcode 9 ./gpustream $cmd -t i32 --backend gpu --chunk 1M \
                /tmp/c.raw -f /tmp/c.gpu -q 2>&1 | tail -2
            echo "exit ${PIPESTATUS[0]}"
            ./gpustream $cmd -t i32 --backend cpu --chunk 1M /tmp/c.raw -f /tmp/c.cpu -q
            cmp /tmp/c.gpu /tmp/c.cpu && echo "same bytes as the CPU backend"
        done >"$OUT/chains_sanitize.log" 2>&1
        cat "$OUT/chains_sanitize.log"
        rm -f /tmp/c.raw /tmp/c.gpu /tmp/c.cpu
    fi
fi
if has chainspeed; then
    log "chainspeed: 16 GB raw i32 in /dev/shm -> /dev/null"
    {
        G=./gpustream
        F=/dev/shm/chain16g.raw
        C="compact --pred nonzero then scan then minmax -w 500 --only max"
        $G gen -q -n 4e9 -t i32 --dist sparse:0.5 -f $F
        ls -la $F
        TIMEFORMAT="%R s"
        for rep in 1 2; do
            echo "-- scan alone (gpu), run $rep"; time $G scan -t i32 --backend gpu -q $F -f /dev/null
            echo "-- chain (gpu): $C, run $rep"; time $G $C -t i32 --backend gpu -q $F -f /dev/null
        done
        echo "-- chain (gpu) --stats"; $G $C -t i32 --backend gpu $F -f /dev/null --stats
        echo "-- the same three verbs piped"
        time { $G compact --pred nonzero -t i32 -q $F | $G scan -t i32 -q | $G minmax -w 500 --only max -t i32 -q - /dev/null -f; }
        echo "-- chain (cpu, 16 threads)"; time $G $C -t i32 --backend cpu --threads 16 -q $F -f /dev/null
        echo "-- bench --chain (device-resident stages one by one vs the chain, from host memory)"
        $G bench --chain "$C" -n 2^28 --reps 3
        rm -f $F
    } >"$OUT/chainspeed.txt" 2>&1
    grep -vE "^ +(read|cpu|gpu|h2d|d2h|kernel|encode)" "$OUT/chainspeed.txt"
fi
if has zauto; then
    log "zauto: zstd jobs with --backend cpu, gpu and auto"
    {
        G=./gpustream; D=/dev/shm/gszauto; rm -rf $D; mkdir -p $D
        $G gen -q -n ${ZAUTO_N:-1e9} -t i32 --dist sparse:0.5 -f $D/s.raw
        $G convert -q --codec cpu -t i32 $D/s.raw -f $D/s.zst   # libzstd, 16 MiB frames
        ls -la $D
        for job in "scan|zst|null" "scan|zst|zst" "scan|raw|zst" "compact --pred nonzero|zst|null" \
            "compact --pred nonzero|zst|zst" "compact --pred nonzero|raw|zst" "minmax -w 500|zst|null" \
            "minmax -w 500|zst|zst" "minmax -w 500|raw|zst"; do
            IFS='|' read -r op in out <<<"$job"
            o=/dev/null; [ $out = zst ] && o=$D/o.zst
            for b in cpu gpu auto; do : >$D/t.$b; done
            for r in 0 1 2 3 4 5; do
                for b in cpu gpu auto; do
                    oo=$o; [ $out = zst ] && oo=$D/o.$b.zst
                    t=$(elapsed $G $op -q -t i32 --backend $b $D/s.$in -f $oo) || echo "FAILED: $op --backend $b $in -> $out"
                    [ $r -gt 0 ] && echo "$t" >>$D/t.$b
                done
            done
            same=
            if [ $out = zst ]; then
                for b in gpu auto; do cmp -s $D/o.cpu.zst $D/o.$b.zst || same="$same OUTPUT OF $b DIFFERS"; done
            fi
            choice=$($G $op -t i32 --stats $D/s.$in -f $o 2>&1 >/dev/null | sed -n 's/^gpustream [a-z]*: backend \([a-z]*\).*/\1/p' | head -1)
            printf "%-24s %s -> %-4s cpu %s  gpu %s  auto %s (ran %s)%s\n" "$op" $in $out "$(sort -g $D/t.cpu | sed -n 3p)" \
                "$(sort -g $D/t.gpu | sed -n 3p)" "$(sort -g $D/t.auto | sed -n 3p)" "$choice" "$same"
        done
        rm -rf $D
    } >"$OUT/zauto.txt" 2>&1
    cat "$OUT/zauto.txt"
fi
if has zscale; then
    log "zscale: zstd decoding against the core count"
    {
        G=./gpustream; D=/dev/shm/gszs; rm -rf $D; mkdir -p $D
        lscpu | grep -E "^(Model name|CPU\(s\)|Thread|Core)"
        $G gen -q -n 6.25e7 -t i32 --dist sparse:0.5 -f $D/p.raw && $G convert -q -t i32 $D/p.raw -f $D/p.zst
        $G gen -q -n 2.5e8 -t i32 --dist sparse:0.5 -f $D/s.raw && $G convert -q -t i32 $D/s.raw -f $D/s.zst
        ls -la $D/*.zst
        if [ $ZSTD_CLI = 1 ]; then
            zstd -q -d -c $D/p.zst >/dev/null
            for k in 1 4 8 16; do
                t0=$(date +%s.%N)
                for i in $(seq $k); do zstd -q -d -c $D/p.zst >/dev/null & done; wait
                t1=$(date +%s.%N)
                awk -v k=$k -v a=$t0 -v z=$t1 'BEGIN { printf "zstd -d, %2d at once, 250 MB each: %.3f s, %.2f GB/s of output together\n", k, z - a, k * 0.25 / (z - a) }'
            done
        fi
        for t in 1 2 4 8 16; do
            for r in 1 2 3; do elapsed $G convert -q --threads $t -t i32 $D/s.zst --to raw -f /dev/null; done | sort -g | sed -n 2p | awk -v t=$t '{ printf "gpustream convert --threads %2d, 1 GB: %.3f s, %.2f GB/s\n", t, $1, 1.0 / $1 }'
        done
        rm -rf $D
    } >"$OUT/zscale.txt" 2>&1
    cat "$OUT/zscale.txt"
fi
if has zbench; then
    log "zbench: the zstd codecs, libzstd on the host against nvCOMP on the device"
    for dist in sparse:0.5 uniform:0:2147483647; do
        timeout 560 ./gpustream bench --zstd -n "${ZB_N:-2^26}" -t i32 --dist $dist --reps "${ZB_REPS:-3}" \
            --frame-size "${ZB_FRAMES:-64K,256K,1M,16M}" --csv "$OUT/zbench_${dist%%:*}.csv"
    done >"$OUT/zbench.txt" 2>&1
    cat "$OUT/zbench.txt"
fi
if has zcompact; then
    log "zcompact: compact --pred nonzero .zst -> .zst, 4 GB i32, per backend; codec ceilings"
    {
        G=./gpustream; D=/dev/shm/gsz; rm -rf $D; mkdir -p $D
        lscpu | grep -E "^(Model name|Thread|Core|Socket|CPU\(s\))"
        $G gen -q -n 1e9 -t i32 --dist sparse:0.5 -f $D/s.raw
        $G convert -q --codec cpu -t i32 $D/s.raw -f $D/s.zst   # libzstd, 16 MiB frames
        $G compact -q --pred nonzero -t i32 $D/s.raw -f $D/c.raw
        ls -la $D
        # ZC_AB=decode: only the decode-only comparison of the builds below
        [ "${ZC_AB:-}" = decode ] || for b in cpu gpu; do
            for i in 0 1 2 3; do
                t0=$(date +%s.%N)
                $G compact --pred nonzero --backend $b $D/s.zst -f $D/c.zst --stats=json 2>$D/stats.json
                t1=$(date +%s.%N)
                [ $i = 0 ] || echo "compact s.zst -> c.zst --backend $b: $(awk "BEGIN { print $t1 - $t0 }") s  $(grep -o '"wall_s":[0-9.]*' $D/stats.json)"
            done
            $G compact --pred nonzero --backend $b $D/s.zst -f $D/c.zst --stats 2>&1 | grep -vE '^ *$'
            if [ $ZSTD_CLI = 1 ]; then
                zstd -q -d -c $D/c.zst | cmp - $D/c.raw && echo "c.zst ($b) decoded by the zstd CLI = compact of the raw file"
            fi
        done
        [ "${ZC_AB:-}" = decode ] || for i in 1 2 3; do
            /usr/bin/time -f "decode only: convert s.zst -> /dev/null: %e s" $G convert -q $D/s.zst -t i32 --to raw -f /dev/null
            /usr/bin/time -f "encode only: convert c.raw -> c2.zst: %e s" $G convert -q -t i32 $D/c.raw -f $D/c2.zst
        done
        if [ -n "${ZC_PREV:-}" ] || [ "${ZC_AB:-}" = codec ]; then
            echo "-- this build${ZC_PREV:+ against $ZC_PREV} in the same run (in turn; medians of 5 after a warm-up)"
            whats=("compact --pred nonzero --backend cpu $D/s.zst -f $D/c.zst"
                "compact --pred nonzero --backend gpu $D/s.zst -f $D/c.zst"
                "convert -q $D/s.zst -t i32 --to raw -f /dev/null" "scan -t i32 --backend gpu $D/s.zst -f /dev/null")
            [ "${ZC_AB:-}" = decode ] && whats=("convert -q $D/s.zst -t i32 --to raw -f /dev/null")
            [ "${ZC_AB:-}" = codec ] && whats=("compact --pred nonzero --codec cpu $D/s.zst -f $D/c.zst"
                "compact --pred nonzero --codec auto $D/s.zst -f $D/c.zst"
                "convert -q -t i32 --codec cpu $D/s.raw -f $D/e.zst" "convert -q -t i32 --codec auto $D/s.raw -f $D/e.zst")
            for what in "${whats[@]}"; do
                rm -f $D/t.*
                for i in 0 1 2 3 4 5; do
                    v=0
                    for bin in $G ${ZC_PREV:-}; do
                        v=$((v + 1))
                        t0=$(date +%s.%N); $bin $what 2>/dev/null; t1=$(date +%s.%N)
                        [ $i = 0 ] || awk "BEGIN { print $t1 - $t0 }" >>$D/t.$v
                    done
                done
                v=0; line="$what:"
                for bin in $G ${ZC_PREV:-}; do v=$((v + 1)); line="$line $bin $(sort -g $D/t.$v | sed -n 3p) s;"; done
                echo "$line"
            done
        fi
        if [ $ZSTD_CLI = 1 ] && [ "${ZC_AB:-}" != decode ]; then
            echo "-- libzstd on one core (zstd -b3 -T1: compression, decompression), then -T$(nproc):"
            zstd -b3 -T1 -i3 $D/c.raw 2>&1 | tr '\r' '\n' | grep 'MB/s' | tail -1
            zstd -b3 -T1 -i3 $D/s.raw 2>&1 | tr '\r' '\n' | grep 'MB/s' | tail -1
            zstd -b3 -T"$(nproc)" -i3 $D/c.raw 2>&1 | tr '\r' '\n' | grep 'MB/s' | tail -1
        fi
        rm -rf $D
    } >"$OUT/zcompact.txt" 2>&1
    grep -E "^(compact|decode|encode|c.zst|convert|scan|-)|MB/s" "$OUT/zcompact.txt" | tail -40
fi
if has zdev; then
    log "zdev: frames decoded on the device: the headline compaction and the 16 GB .zst scan"
    {
        G=./gpustream; D=/dev/shm/gsd; rm -rf $D; mkdir -p $D
        $G info | grep -E "^(gpu|nvcomp)"
        $G gen -q -n 1e9 -t i32 --dist sparse:0.5 -f $D/s.raw
        $G convert -q -t i32 $D/s.raw -f $D/s.zst                 # as convert writes it (auto: GPU, 64K frames)
        $G convert -q --codec cpu -t i32 $D/s.raw -f $D/s16.zst   # libzstd, 16 MiB frames
        $G compact -q --pred nonzero -t i32 $D/s.raw -f $D/c.raw
        ls -la $D
        whats=()
        # (--codec gpu on s16.zst: 16 MiB frames go through the GPU codec on the host, 8-23 s: not timed)
        for c in cpu auto gpu; do whats+=("compact --pred nonzero --codec $c $D/s.zst -f $D/c.$c.s.zst"); done
        for c in cpu auto; do whats+=("compact --pred nonzero --codec $c $D/s16.zst -f $D/c.$c.s16.zst"); done
        ZV=${ZDEV_VARIANTS-"--chunk=128M --buffers=4"}
        for v in $ZV; do whats+=("compact --pred nonzero --codec auto ${v/=/ } $D/s.zst -f $D/c.auto${v#*=}.s.zst"); done
        rm -f $D/t.*
        for i in 0 1 2 3 4 5; do
            v=0
            for what in "${whats[@]}"; do
                v=$((v + 1))
                t0=$(date +%s.%N); $G $what 2>/dev/null; t1=$(date +%s.%N)
                [ $i = 0 ] || awk "BEGIN { print $t1 - $t0 }" >>$D/t.$v
            done
        done
        v=0
        for what in "${whats[@]}"; do
            v=$((v + 1))
            echo "$what: median $(sort -g $D/t.$v | sed -n 3p) s of $(tr '\n' ' ' <$D/t.$v)"
        done
        for what in "${whats[@]}"; do
            echo "-- $what --stats"
            $G $what --stats 2>&1 | grep -vE '^ *$'
            out=${what##* }
            if [ $ZSTD_CLI = 1 ]; then
                zstd -q -d -c $out | cmp - $D/c.raw && echo "$out decoded by the zstd CLI = compact of the raw file" ||
                    echo "MISMATCH $out"
            fi
            rm -f $out
        done
        rm -f $D/*
        $G gen -q -n 4e9 -t i32 --dist sparse:0.5 --codec gpu -z -f $D/big.zst
        ls -la $D
        for c in "cpu" "auto" "gpu" $(for v in $ZV; do echo "auto:$v"; done); do
            c=${c/:/ }; c=${c/=/ }
            ts=""
            for i in 0 1 2 3; do
                t0=$(date +%s.%N); $G scan --codec $c -t i32 $D/big.zst -f /dev/null; t1=$(date +%s.%N)
                [ $i = 0 ] || ts="$ts $(awk "BEGIN { print $t1 - $t0 }")"
            done
            med=$(echo $ts | tr ' ' '\n' | sort -g | sed -n 2p)
            echo "scan 16 GB .zst --codec $c: median $med s = $(awk "BEGIN { printf \"%.2f\", 16 / $med }") GB/s of raw data (of$ts)"
            $G scan --codec $c -t i32 $D/big.zst -f /dev/null --stats 2>&1 | grep -vE '^ *$'
        done
        rm -rf $D
    } >"$OUT/zdev.txt" 2>&1
    grep -E "median|MISMATCH|zstd CLI" "$OUT/zdev.txt"
fi
if has zenc; then
    log "zenc: the headline compaction .zst -> .zst per codec and option (output encoded where the kernels wrote it)"
    {
        G=./gpustream; D=/dev/shm/gse; rm -rf $D; mkdir -p $D
        $G info | grep -E "^(gpu|nvcomp)"
        $G gen -q -n 1e9 -t i32 --dist sparse:0.5 -f $D/s.raw
        $G convert -q -t i32 $D/s.raw -f $D/s.zst                 # as convert writes it (auto: GPU, 64K frames)
        $G compact -q --pred nonzero -t i32 $D/s.raw -f $D/c.raw
        ls -la $D
        # ZENC_RUNS: "label|binary|options;..." (an earlier build as its binary: the same run compares them)
        IFS=";" read -ra runs <<<"${ZENC_RUNS:-auto|./gpustream|--codec auto;gpu|./gpustream|--codec gpu;cpu|./gpustream|--codec cpu}"
        # shellcheck disable=SC2086
        zenc_run() { $1 compact --pred nonzero $2 $D/s.zst -f $D/c.$3.zst; }
        in_turn $D zenc_run
        for r in "${runs[@]}"; do
            IFS='|' read -r lab bin opts <<<"$r"
            echo "$lab ($bin compact --pred nonzero $opts s.zst -f c.zst): median $(sort -g $D/t.$lab | sed -n 3p) s of $(tr '\n' ' ' <$D/t.$lab), output $(stat -c %s $D/c.$lab.zst) B"
        done
        for r in "${runs[@]}"; do
            IFS='|' read -r lab bin opts <<<"$r"
            echo "-- $lab: $bin compact --pred nonzero $opts s.zst --stats"
            $bin compact --pred nonzero $opts $D/s.zst -f $D/c.$lab.zst --stats 2>&1 | grep -vE '^ *$'
            if [ $ZSTD_CLI = 1 ]; then
                zstd -q -d -c $D/c.$lab.zst | cmp - $D/c.raw && echo "c.$lab.zst decoded by the zstd CLI = compact of the raw file" ||
                    echo "MISMATCH c.$lab.zst"
            fi
        done
        # the timeline of the first option's run (GS_TRACE=1): CUDA's start, the backend, the staging
        # buffers' writing and locking, the first and last chunk (all of it in zenc_trace.txt)
        IFS='|' read -r lab bin opts <<<"${runs[0]}"
        GS_TRACE=1 $bin compact --pred nonzero $opts $D/s.zst -f $D/c.t.zst 2>"$OUT/zenc_trace.txt"
        echo "-- GS_TRACE=1 $bin compact --pred nonzero $opts s.zst (zenc_trace.txt)"
        grep -E 'cuda: |backend .* ready|zstd (de|en)coder made|chunk 0 (submitted|retired)|last chunk retired|writer: ended' "$OUT/zenc_trace.txt"
        grep 'staging buffer' "$OUT/zenc_trace.txt" | awk '{ n++; w += $(NF-4); l += $(NF-1) } END { if (n) printf "%d staging buffers: pages written %.1f ms, page-locked %.1f ms in all\n", n, w, l }'
        rm -rf $D
    } >"$OUT/zenc.txt" 2>&1
    grep -E "median|MISMATCH|^trace|staging buffers" "$OUT/zenc.txt"
fi
if has zprof; then
    log "zprof: the device's work in the headline compaction, kernel by kernel (ncu), and nvCOMP per call size"
    {
        G=./gpustream; D=/dev/shm/gsp; rm -rf $D; mkdir -p $D
        $G gen -q -n ${ZPROF_N:-2.5e8} -t i32 --dist sparse:0.5 -f $D/s.raw
        $G convert -q --codec gpu -t i32 $D/s.raw -f $D/s.zst
        ls -la $D
        # kernels one at a time: the sum is the device's work without overlap (the run itself is slower)
        timeout 300 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
            $G compact --pred nonzero --codec gpu --backend gpu $D/s.zst -f $D/c.zst >$D/ncu.csv 2>$D/ncu.err
        echo "ncu exit $? ($(grep -c '^\"' $D/ncu.csv) rows)"; grep -v '^==PROF==' $D/ncu.err | head -5
        python3 tests/gpu/kernel_times.py $D/ncu.csv
        cp $D/ncu.csv "$OUT/zprof_ncu.csv"
        echo "-- the same without ncu, --stats"
        $G compact --pred nonzero --codec gpu --backend gpu $D/s.zst -f $D/c.zst --stats 2>&1 | grep -vE '^ *$'
        # nvCOMP alone per call size (one chunk's output is 32 MiB at 64 MiB chunks, half kept)
        for n in 2^23 2^24 2^26; do
            echo "-- bench --zstd -n $n --frame-size 16K,32K,64K"
            $G bench --zstd -n $n --frame-size 16K,32K,64K 2>&1 | grep -vE '^ *$'
        done
        rm -rf $D
    } >"$OUT/zprof.txt" 2>&1
    cat "$OUT/zprof.txt"
fi
if has pincost; then
    log "pincost: what page-locking a 64 and a 256 MiB staging buffer costs, per way of getting one (tests/gpu/pincost.cu)"
    { [ -x build/pincost ] || { mkdir -p build && nvcc -O2 -arch=sm_90 -o build/pincost tests/gpu/pincost.cu; }; } >"$OUT/pincost.txt" 2>&1
    { cat /sys/kernel/mm/transparent_hugepage/enabled; build/pincost 64 5; build/pincost 256 3; } >>"$OUT/pincost.txt" 2>&1
    cat "$OUT/pincost.txt"
fi
if has zscan; then
    log "zscan: scan of 16 GB i32 as .zst (32K GPU frames) to /dev/null per codec, medians of 5 in turn"
    {
        D=/dev/shm/gsz; rm -rf $D; mkdir -p $D
        ./gpustream gen -q -n 4e9 -t i32 --dist sparse:0.5 --codec gpu -z -f $D/big.zst
        ls -la $D
        # ZSCAN_RUNS: "label|binary|options;..." (an earlier build as its binary: the same run compares them)
        IFS=";" read -ra runs <<<"${ZSCAN_RUNS:-auto|./gpustream|--codec auto;gpu|./gpustream|--codec gpu;cpu|./gpustream|--codec cpu}"
        # shellcheck disable=SC2086
        zscan_run() { $1 scan $2 -t i32 $D/big.zst -f /dev/null; }
        in_turn $D zscan_run
        for r in "${runs[@]}"; do
            IFS='|' read -r lab bin opts <<<"$r"
            med=$(sort -g $D/t.$lab | sed -n 3p)
            echo "$lab ($bin scan $opts big.zst -f /dev/null): median $med s = $(awk "BEGIN { printf \"%.1f\", 16 / $med }") GB/s of raw data (of $(tr '\n' ' ' <$D/t.$lab))"
        done
        for r in "${runs[@]}"; do
            IFS='|' read -r lab bin opts <<<"$r"
            echo "-- $lab: $bin scan $opts big.zst --stats"
            $bin scan $opts -t i32 $D/big.zst -f /dev/null --stats 2>&1 | grep -vE '^ *$'
        done
        # the first option's timeline (GS_TRACE=1, zscan_trace.txt): where the reader's time goes
        IFS='|' read -r lab bin opts <<<"${runs[0]}"
        GS_TRACE=1 $bin scan $opts -t i32 $D/big.zst -f /dev/null 2>"$OUT/zscan_trace.txt"
        echo "-- GS_TRACE=1 $bin scan $opts big.zst (zscan_trace.txt)"
        grep -E 'cuda: started|backend .* ready|chunk 0 (submitted|retired)|last chunk retired' "$OUT/zscan_trace.txt"
        awk '/reader: chunk [0-9]+ in,/ { n++; t += $(NF-1) }
             /reader: [0-9]+ frames/ { f++; fc += $(NF-6); rd += $(NF-3); g += $(NF-1) }
             END { printf "reader: %d chunks in %.1f ms; %d of frames: found and checked %.1f ms (of it reading %.1f), gathered %.1f ms\n", n, t, f, fc, rd, g }' "$OUT/zscan_trace.txt"
        rm -rf $D
    } >"$OUT/zscan.txt" 2>&1
    grep -E "median|^trace|^reader" "$OUT/zscan.txt"
fi
# mpirun and the timing helper of the mpistart and mpi steps. --bind-to none: mpirun binds each of
# 2 ranks to one core by default, starving the pools.
R="mpirun --oversubscribe --allow-run-as-root --bind-to none"
med3() { # CMD...: the median wall seconds of 3 runs after a warm-up (failures said on stderr)
    local t=() i t0 t1
    "$@" >/dev/null 2>>"$OUT/mpi_err.log" || echo "FAILED: $*" >&2
    for i in 1 2 3; do
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>>"$OUT/mpi_err.log" || echo "FAILED: $*" >&2
        t1=$(date +%s.%N)
        t+=("$(awk "BEGIN { print $t1 - $t0 }")")
    done
    printf '%s\n' "${t[@]}" | sort -g | sed -n 2p
}
mpi_build() { # where the host's Open MPI has no headers: carried ones (.deps/mpi-include, Open MPI 4.1)
    if ! ./gpustream info | grep -q '^mpi  *Open MPI' && [ -f .deps/mpi-include/mpi.h ]; then
        make -j"$(nproc)" CUDA=1 GPU_ARCH=sm_90 MPI=1 MPI_INC=.deps/mpi-include all >"$OUT/build_mpi.log" 2>&1 || tail -5 "$OUT/build_mpi.log"
    fi
}
if has scantune; then
    log "scantune: 16 GB raw i32 to /dev/null per op, backend, --chunk and --buffers (process and --stats wall, medians of 3)"
    {
        D=/dev/shm/gstune; rm -rf $D; mkdir -p $D
        ./gpustream gen -q -n 4e9 -t i32 --dist sparse:0.5 -f $D/big.raw
        one() { # OP ARGS...: "process s  stats-wall s", medians of 3 after a warm-up
            local op=$1 p=() w=() i t0 t1; shift
            for i in 0 1 2 3; do
                # shellcheck disable=SC2086
                t0=$(date +%s.%N); ./gpustream $op -t i32 $D/big.raw -f /dev/null --stats=json "$@" 2>$D/s.json; t1=$(date +%s.%N)
                [ $i = 0 ] && continue
                p+=("$(awk "BEGIN { print $t1 - $t0 }")"); w+=("$(grep -o '"wall_s":[0-9.]*' $D/s.json | cut -d: -f2)")
            done
            echo "$(printf '%s\n' "${p[@]}" | sort -g | sed -n 2p) $(printf '%s\n' "${w[@]}" | sort -g | sed -n 2p)"
        }
        printf '%-24s %-40s %9s %9s\n' op options process stats-wall
        OPS=${TUNE_OPS:-"scan|compact --pred nonzero|minmax -w 500"}
        IFS='|' read -r -a ops <<<"$OPS"
        for op in "${ops[@]}"; do
            for ch in ${TUNE_CPU_CHUNKS:-64M}; do
                printf '%-24s %-40s %9s %9s\n' "$op" "--backend cpu --chunk $ch" $(one "$op" --backend cpu --chunk $ch)
            done
            for ch in ${TUNE_CHUNKS:-32M 64M 128M 256M}; do for bu in ${TUNE_BUFFERS:-2 4}; do
                printf '%-24s %-40s %9s %9s\n' "$op" "--backend gpu --chunk $ch --buffers $bu" $(one "$op" --backend gpu --chunk $ch --buffers $bu)
            done; done
        done
        for ch in ${TUNE_CHUNKS:-32M 64M}; do
            echo "-- scan --backend gpu --chunk $ch --stats:"
            ./gpustream scan -t i32 $D/big.raw -f /dev/null --backend gpu --chunk $ch --stats 2>&1 | grep -vE '^ *$'
        done
        rm -rf $D
    } >"$OUT/scantune.txt" 2>&1
    cat "$OUT/scantune.txt"
fi
if has lifecycle; then
    log "lifecycle: a GPU process's time outside its --stats wall (exec, CUDA start, the end), per exit path"
    {
        D=/dev/shm/gslife; rm -rf $D; mkdir -p $D
        nvidia-smi -q | grep -iE "persistence mode|^ *product name" | sort -u
        [ -x build/exitcost ] || { mkdir -p build && nvcc -O2 -arch=sm_90 -o build/exitcost tests/gpu/exitcost.cu; }
        echo "-- exitcost: a CUDA process per way of ending it (tests/gpu/exitcost.cu)"
        build/exitcost 5
        ST=strace; [ -x .deps/strace/strace ] && ST=".deps/strace/strace"
        ./gpustream gen -q -n 1K -t i32 -f $D/4K.raw
        ./gpustream gen -q -n ${LIFE_N:-4e9} -t i32 --dist sparse:0.5 -f $D/big.raw
        # execve -> the first open of /dev/nvidiactl (CUDA's start) -> exit_group -> the process gone,
        # from strace's timestamps (seccomp-bpf: only the traced calls stop the process)
        life() { # LABEL ARGS...
            local label=$1; shift
            ./gpustream "$@" >/dev/null 2>&1 # warm-up
            LD_LIBRARY_PATH=$(dirname $ST) $ST -f --seccomp-bpf -ttt -e trace=execve,exit_group,openat -o $D/st.txt \
                ./gpustream "$@" --stats=json 2>$D/s.json >/dev/null
            awk -v label="$label" -v wall="$(grep -o '"wall_s":[0-9.]*' $D/s.json | cut -d: -f2)" '
                /execve\(/ && !t0 { t0 = $2; pid = $1 }
                /nvidiactl/ && !tc { tc = $2 }
                $1 == pid && /exit_group\(/ { te = $2 }
                $1 == pid && /\+\+\+ exited/ { tx = $2 }
                END { printf "%-34s cuda open %7.4f  exit_group %7.4f  (--stats wall %s)  end %7.4f  total %7.4f\n",
                      label, tc ? tc - t0 : -1, te - t0, wall, tx - te, tx - t0 }' $D/st.txt
        }
        for r in 1 2 3; do
            life "scan 4K --backend cpu" scan -t i32 --backend cpu $D/4K.raw
            life "scan 4K --backend gpu" scan -t i32 --backend gpu $D/4K.raw
            life "scan big --backend cpu" scan -t i32 --backend cpu $D/big.raw
            life "scan big --backend gpu" scan -t i32 --backend gpu $D/big.raw
        done
        # The end left to a helper (the default) against the plain end (GS_GPU_TEARDOWN=wait), in turn
        # in the same run: process wall, medians of 5 after a warm-up; then ten 4K GPU scans back to
        # back each way (does a helper still tearing down slow the next start?); then strace -f of
        # one detached run: the process's exit_group, its end, and the helper's end
        for f in 4K big; do
            for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
                [ $f = 4K ] && [ "$op" != scan ] && continue
                : >$D/t.cpu; : >$D/t.gpu; : >$D/t.wait
                for r in 0 1 2 3 4 5; do
                    for v in cpu gpu wait; do
                        b=$v; env=; [ $v = wait ] && { b=gpu; env="GS_GPU_TEARDOWN=wait"; }
                        t=$(elapsed env $env ./gpustream $op -t i32 --backend $b $D/$f.raw 2>/dev/null)
                        [ $r -gt 0 ] && echo "$t" >>$D/t.$v
                    done
                done
                printf "%-26s %-4s wall: cpu %s  gpu %s  gpu with GS_GPU_TEARDOWN=wait %s\n" "$op" $f \
                    "$(sort -g $D/t.cpu | sed -n 3p)" "$(sort -g $D/t.gpu | sed -n 3p)" "$(sort -g $D/t.wait | sed -n 3p)"
            done
        done
        for v in detach wait detach wait; do
            t0=$(date +%s.%N)
            for r in 1 2 3 4 5 6 7 8 9 10; do GS_GPU_TEARDOWN=$v ./gpustream scan -t i32 --backend gpu $D/4K.raw >/dev/null; done
            t1=$(date +%s.%N)
            awk -v v=$v -v a="$t0" -v z="$t1" 'BEGIN { printf "ten 4K GPU scans back to back, GS_GPU_TEARDOWN=%s: %.3f s\n", v, z - a }'
        done
        LD_LIBRARY_PATH=$(dirname $ST) $ST -f --seccomp-bpf -ttt -e trace=execve,exit_group,clone -o $D/st.txt \
            ./gpustream scan -t i32 --backend gpu $D/4K.raw >/dev/null
        awk '/execve\(/ && !t0 { t0 = $2; pid = $1 }
             $1 == pid && /exit_group\(/ { te = $2 }
             $1 == pid && /\+\+\+ exited/ { tx = $2 }
             /\+\+\+ (exited|killed)/ { last = $2; lastpid = $1 }
             END { printf "detached end (strace -f): exit_group %.4f, process gone %.4f, last of its tasks gone %.4f (pid %s)\n",
                   te - t0, tx - t0, last - t0, lastpid }' $D/st.txt
        # When a reader downstream sees its end of input, against when the GPU stage is gone; and three
        # GPU stages piped (medians of 3). LIFE_PREV: an earlier build to compare with, in the same run.
        ./gpustream gen -q -n ${LIFE_PIPE_N:-1e9} -t i32 --dist sparse:0.5 -f $D/pipe.raw
        for bin in ./gpustream ${LIFE_PREV:-}; do
            [ -x "$bin" ] || continue
            for r in 1 2 3; do
                t0=$(date +%s.%N)
                $bin scan -t i32 --backend gpu $D/4K.raw | { cat >/dev/null; date +%s.%N >$D/eof; }
                t1=$(date +%s.%N)
                awk -v b="$bin" -v a="$t0" -v e="$(cat $D/eof)" -v z="$t1" 'BEGIN {
                    printf "%-22s scan 4K --backend gpu | cat: end of input seen %.4f s, the pipeline done %.4f s\n", b, e - a, z - a }'
            done
            for r in 1 2 3; do
                t0=$(date +%s.%N)
                $bin scan -t i32 --backend gpu $D/pipe.raw | $bin compact -t i32 --backend gpu --pred nonzero |
                    $bin minmax -t i32 --backend gpu -w 500 >/dev/null
                t1=$(date +%s.%N)
                awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.4f\n", z - a }'
            done | sort -g | sed -n 2p | sed "s|^|$bin scan \| compact \| minmax, three GPU processes, median of 3: |"
        done
        rm -rf $D
    } >"$OUT/lifecycle.txt" 2>&1
    cat "$OUT/lifecycle.txt"
fi
if has mpilaunch; then
    log "mpilaunch: mpirun's start and exit, per environment (medians of 5)"
    {
        D=/dev/shm/gslaunch; rm -rf $D; mkdir -p $D
        mpirun --version | head -1
        ompi_info 2>/dev/null | grep -iE "hwloc|plm:|ess:|oob:" | tr -s ' ' | head -20
        TOPO=""
        for l in lstopo-no-graphics lstopo hwloc-ls; do
            command -v $l >/dev/null && $l --of xml $D/topo.xml 2>/dev/null && TOPO=$D/topo.xml && break
        done
        echo "saved topology: ${TOPO:-none (no lstopo)}"
        VARIANTS=("" "HWLOC_COMPONENTS=-linuxio,-pci,-nvml,-cuda,-opencl,-gl,-rsmi,-levelzero"
            "OMPI_MCA_oob_tcp_if_include=lo" "OMPI_MCA_plm=isolated" "OMPI_MCA_ras=simulator"
            "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none")
        [ -n "$TOPO" ] && VARIANTS+=("HWLOC_XMLFILE=$TOPO" "OMPI_MCA_hwloc_base_topo_file=$TOPO")
        for n in 1 2; do for v in "${VARIANTS[@]}"; do
            ls_=(); ex_=()
            for i in 1 2 3 4 5 6; do
                rm -f $D/in.*
                t0=$(date +%s.%N)
                env $v $R -n $n sh -c "date +%s.%N > $D/in.\$\$" 2>>$D/err.log
                t2=$(date +%s.%N)
                t1=$(cat $D/in.* 2>/dev/null | sort -g | head -1); t1b=$(cat $D/in.* 2>/dev/null | sort -g | tail -1)
                [ -n "$t1" ] || { echo "FAILED: $v"; break; }
                [ $i = 1 ] && continue
                ls_+=("$(awk "BEGIN { print $t1 - $t0 }")"); ex_+=("$(awk "BEGIN { print $t2 - $t1b }")")
            done
            [ ${#ls_[@]} = 5 ] || continue
            printf -- "-n %d %-78s start %6.3f s  exit %6.3f s\n" $n "${v:-(default)}" \
                "$(printf '%s\n' "${ls_[@]}" | sort -g | sed -n 3p)" "$(printf '%s\n' "${ex_[@]}" | sort -g | sed -n 3p)"
        done; done
        sort $D/err.log 2>/dev/null | uniq -c | sort -rn | head -5
        rm -rf $D
    } >"$OUT/mpilaunch.txt" 2>&1
    cat "$OUT/mpilaunch.txt"
fi
if has mpistart; then
    log "mpistart: mpirun -n 1 and 2 of true, gpustream --version and a 4 KB scan, per --mca set (medians of 3)"
    {
        mpirun --version | head -1
        mpi_build
        ./gpustream info | grep -E '^(mpi|devices)'
        ompi_info 2>/dev/null | grep -E 'MCA (pml|btl|mtl|osc): ' | sed 's/ (MCA v.*//' | tr -s ' ' | paste -sd ';'
        ompi_info --parsable --all 2>/dev/null | grep -E 'mpi_built_with_cuda_support:value|^mca:opal:base:param:opal_cuda_support:value'
        D=/dev/shm/gsstart; rm -rf $D; mkdir -p $D
        ./gpustream gen -q -n 1024 -t i32 -f $D/s.raw
        S4="scan -q -t i32 $D/s.raw -f /dev/null"
        SETS=("" "--mca pml ob1 --mca btl self,vader"
            "--mca pml ob1 --mca btl self,vader --mca osc ^ucx --mca opal_cuda_support 0")
        printf '%-96s %7s %7s\n' "seconds, median of 3 after a warm-up" "-n 1" "-n 2"
        printf '%-96s %7.3f\n' "true (no mpirun)" "$(med3 true)"
        printf '%-96s %7.3f\n' "gpustream --version (no mpirun)" "$(med3 ./gpustream --version)"
        for b in cpu gpu; do printf '%-96s %7.3f\n' "gpustream scan 4 KB --backend $b (no mpirun)" "$(med3 ./gpustream $S4 --backend $b)"; done
        printf '%-96s %7.3f %7.3f\n' "mpirun true" "$(med3 $R -n 1 true)" "$(med3 $R -n 2 true)"
        printf '%-96s %7.3f %7.3f\n' "mpirun gpustream --version (no MPI_Init)" "$(med3 $R -n 1 ./gpustream --version)" "$(med3 $R -n 2 ./gpustream --version)"
        best=""; bestt=999
        for set in "${SETS[@]}"; do
            for b in cpu gpu; do
                # shellcheck disable=SC2086
                t1=$(med3 $R $set -n 1 ./gpustream $S4 --backend $b); t2=$(med3 $R $set -n 2 ./gpustream $S4 --backend $b)
                printf '%-96s %7.3f %7.3f\n' "mpirun ${set:-(default MCA)} scan 4 KB --backend $b" "$t1" "$t2"
                if [ $b = gpu ] && awk "BEGIN { exit !($t2 < $bestt - 0.02) }"; then best=$set; bestt=$t2; fi
            done
        done
        echo "fastest for 2 ranks (4 KB scan, --backend gpu; the default unless another is 0.02 s faster): ${best:-(default MCA)}"
        echo "$best" >"$OUT/mpi_mca.txt"
        for set in "" "$best"; do
            echo "-- --stats of 2 ranks, 4 KB scan --backend gpu, ${set:-(default MCA)}:"
            # shellcheck disable=SC2086
            $R $set -n 2 ./gpustream $S4 --backend gpu --stats 2>&1 | grep -E '^  (cuda init|wall|ranks|mpi) '
            [ -n "$best" ] || break
        done
        echo "-- messages of these runs (counted):"
        sort "$OUT/mpi_err.log" 2>/dev/null | uniq -c | sort -rn | head -8
        rm -rf $D
    } >"$OUT/mpistart.txt" 2>&1
    cat "$OUT/mpistart.txt"
fi
if has fuzzlong; then
    log "fuzzlong: ${FUZZ_RUNS:-10000000} executions a target over ${FUZZ_JOBS:-$(nproc)} jobs"
    targets=(${FUZZ_LONG_TARGETS:-csv detect zstd})
    t0=$SECONDS
    for i in "${!targets[@]}"; do
        share=$(((${FUZZ_BUDGET:-510} - (SECONDS - t0)) / (${#targets[@]} - i)))
        [ "$share" -lt 10 ] && share=10
        # the jobs' logs stay on the machine (FUZZ_LOG_DIR); what comes back is the summary, and for a
        # finding its input and the report of the job that found it
        d=${FUZZ_LOG_DIR:-/tmp/gs-fuzz}/${targets[$i]}
        FUZZ_LONG_DIR=$d FUZZ_MAX_SECONDS=$share bash tests/fuzz/long.sh "${targets[$i]}" | tee -a "$OUT/fuzz.txt"
        for c in "$d"/job*-crash-* "$d"/job*-leak-* "$d"/job*-timeout-* "$d"/job*-oom-*; do
            [ -f "$c" ] || continue
            cp "$c" "$OUT/${targets[$i]}-$(basename "$c")"
            j=$(basename "$c" | sed 's/-.*//')
            grep -v -E "^#[0-9]+|^INFO:" "$d/$j.log" | tail -60 >"$OUT/${targets[$i]}-$j-report.txt"
        done
    done
fi
if has mpivar; then
    log "mpivar: 2 ranks on a 32 GB raw i32 file, per launch variant (medians of 3)"
    {
        B="--backend ${MPI_BACKEND:-gpu}"
        MCA=${MPI_MCA-"--mca pml ob1 --mca btl self,vader"}
        echo "HWLOC_COMPONENTS=${HWLOC_COMPONENTS:-(unset)}; --mca set: ${MCA:-(default)}"
        D=/dev/shm/gsmpi; rm -rf $D; mkdir -p $D
        ./gpustream gen -q -n 8e9 -t i32 --dist sparse:0.5 -f $D/big.raw
        # one GPU visible to each rank (CUDA_VISIBLE_DEVICES from the launcher's local rank)
        CVD='CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"'
        printf '%-24s %9s %9s %9s %9s %9s\n' op "1 process" "2 ranks" "+1 GPU" "+detach" "+both"
        for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
            a=$(med3 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            # shellcheck disable=SC2086
            b=$(med3 $R $MCA -n 2 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            # shellcheck disable=SC2086
            c=$(med3 $R $MCA -n 2 sh -c "$CVD" ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            # shellcheck disable=SC2086
            d=$(med3 $R $MCA -n 2 -x GS_GPU_TEARDOWN=detach ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            # shellcheck disable=SC2086
            e=$(med3 $R $MCA -n 2 -x GS_GPU_TEARDOWN=detach sh -c "$CVD" ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            printf '%-24s %9.3f %9.3f %9.3f %9.3f %9.3f\n' "$op" "$a" "$b" "$c" "$d" "$e"
        done
        for v in all one; do
            echo "-- GS_TRACE=1, 2 ranks, scan, GPUs visible to a rank: $v"
            w=(); [ $v = one ] && w=(sh -c "$CVD")
            # shellcheck disable=SC2086
            $R $MCA -n 2 --tag-output -x GS_TRACE=1 -x GS_GPU_TEARDOWN=detach "${w[@]}" ./gpustream scan $B -q -t i32 $D/big.raw -f /dev/null 2>&1 |
                grep -E 'mpi:|cuda: started|last chunk retired'
        done
        sleep 2; echo "-- gpustream processes left 2 s after the last run: $(pgrep -c gpustream)"
        rm -rf $D
    } >"$OUT/mpivar.txt" 2>&1
    cat "$OUT/mpivar.txt"
fi
if has mpi; then
    log "mpi: 1 and 2 ranks (one per GPU), 32 GB raw i32 in /dev/shm -> /dev/null"
    {
        INC=$(mpicc --showme:incdirs 2>/dev/null | tr ' ' '\n' | head -1)
        echo "mpi.h: $(ls "$INC/mpi.h" 2>&1)"; mpirun --version | head -1
        mpi_build
        ./gpustream info | grep -E '^(mpi|devices|build)'
        lscpu | grep -E '^(Model name|Socket|NUMA node|CPU\(s\))'; nvidia-smi topo -m 2>/dev/null | head -4
        echo "HWLOC_COMPONENTS=${HWLOC_COMPONENTS:-(unset)}"
        B="--backend ${MPI_BACKEND:-gpu}"   # one GPU per rank (auto would keep scan on the CPU)
        MCA=${MPI_MCA-$(cat "$OUT/mpi_mca.txt" 2>/dev/null)}
        D=/dev/shm/gsmpi; rm -rf $D; mkdir -p $D
        ./gpustream gen -q -n 256M -t i32 --dist sparse:0.5 -f $D/small.raw
        for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
            ./gpustream $op $B -q -t i32 $D/small.raw -f $D/o1.raw
            $R -n 2 ./gpustream $op $B -q -t i32 $D/small.raw -f $D/o2.raw
            if cmp -s $D/o1.raw $D/o2.raw; then echo "same output, 1 vs 2 ranks, 1 GB: $op ($(stat -c %s $D/o1.raw) bytes)"
            else echo "OUTPUTS DIFFER, 1 vs 2 ranks: $op"; fi
        done
        rm -f $D/o1.raw $D/o2.raw $D/small.raw
        ./gpustream gen -q -n 8e9 -t i32 --dist sparse:0.5 -f $D/big.raw
        ls -la $D/big.raw; free -g | head -2
        echo "seconds, median of 3 after a warm-up; --mca set of the last columns: ${MCA:-(none: the default)}"
        printf '%-24s %9s %9s %9s %9s %8s\n' op "1 plain" "1 mpirun" "2 ranks" "2 + mca" speedup
        for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
            a=$(med3 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            b=$(med3 $R -n 1 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            c=$(med3 $R -n 2 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            d=$c
            # shellcheck disable=SC2086
            [ -z "$MCA" ] || d=$(med3 $R $MCA -n 2 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            printf '%-24s %9.2f %9.2f %9.2f %9.2f %7.2fx\n' "$op" "$a" "$b" "$c" "$d" "$(awk "BEGIN { m = $c < $d ? $c : $d; print $a / m }")"
        done
        echo "-- stats, 1 process and 2 ranks (${MCA:-default MCA}):"
        for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
            ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null --stats 2>&1 | grep -vE '^ *$'
            # shellcheck disable=SC2086
            $R $MCA -n 2 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null --stats 2>&1 | grep -vE '^ *$'
        done
        # each rank's timeline (GS_TRACE=1, mpi_trace.txt): MPI_Init, the first pass, the main pass
        for op in "scan" "minmax -w 500"; do
            echo "-- GS_TRACE=1, 2 ranks: $op (mpi_trace.txt)" | tee -a "$OUT/mpi_trace.txt"
            # shellcheck disable=SC2086
            $R $MCA -n 2 --tag-output -x GS_TRACE=1 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null 2>&1 |
                tee -a "$OUT/mpi_trace.txt" | grep -E 'mpi:|cuda: started|backend .* ready|chunk 0 (submitted|retired)|last chunk retired'
        done
        rm -rf $D
    } >"$OUT/mpi.txt" 2>&1
    cat "$OUT/mpi.txt"
fi
log "done"
