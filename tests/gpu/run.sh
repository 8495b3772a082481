#!/usr/bin/env bash
# tests/gpu/run.sh - everything the GPU machine is needed for, in one call (device time is scarce):
#   STEPS="build test sanitize bench blocks cpu io stream big startup chains chainspeed" (default: all), logs under $OUT.
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
#   fuzzlong  (not in the default list; no GPU needed, only the cores) the fuzz targets csv, detect
#             and zstd to FUZZ_RUNS executions each (default 10^7) over FUZZ_JOBS jobs (default
#             nproc), from binaries built elsewhere by tests/fuzz/run.sh and carried
#             (build/fuzz/fuzz_csv, fuzz_detect, fuzz_zstd); FUZZ_BUDGET seconds for all (default
#             510, so the step fits in 9 minutes), each target bounded by its share of what is
#             left (time a faster one leaves goes to the next); logs under $OUT/fuzz/
#   mpi       (not in the default list) 1 and 2 MPI ranks, one per GPU, on a 32 GB raw i32 file in
#             /dev/shm -> /dev/null: wall times of scan, compact and minmax W=500; outputs of 1 and 2
#             ranks compared on a 1 GB file first (docs/SCALING.md)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gs-out}
mkdir -p "$OUT"
. tests/gpu/zstd_cli.sh
STEPS=${STEPS:-"build test sanitize bench blocks cpu io stream codec big startup chains chainspeed"}
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
log() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }
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
        echo "-- CUDA never starts for a 4K input under auto (exit 0; 134 would mean it did):"
        GS_FAIL_ON_CUDA_INIT=1 ./gpustream scan -t i32 "$D/in_4K.raw" >/dev/null 2>&1; echo "exit $?"
        echo "-- overlap: the 16G scan on the GPU, wall <= max(stage busy) + 0.15 s"
        [ -f "$D/in_16G.raw" ] && for i in 1 2 3; do
            j=$(./gpustream scan -t i32 --backend gpu --stats=json "$D/in_16G.raw" 2>&1 >/dev/null | grep '^{')
            w=$(echo "$j" | grep -o '"wall_s":[0-9.]*' | cut -d: -f2)
            m=$(echo "$j" | grep -o '"busy_s":[0-9.]*' | cut -d: -f2 | sort -n | tail -1)
            ci=$(echo "$j" | grep -o '"cuda_init_s":[-0-9.]*' | cut -d: -f2)
            echo "wall $w s, max stage busy $m s, cuda init $ci s: $(awk -v w="$w" -v m="$m" 'BEGIN { print (w <= m + 0.15) ? "ok" : "OVER" }')"
        done
        [ -f "$D/in_16G.raw" ] && ./gpustream scan -t i32 --backend gpu --stats "$D/in_16G.raw" 2>&1 >/dev/null
    } 2>&1 | tee "$OUT/startup.txt"
    echo "-- the CPU default per thread count: cpu vs cpu-par (gs_cpu_par_from, kernels/registry.c)" | tee -a "$OUT/startup.txt"
    for t in 1 2 3 4 8 16; do
        ./gpustream bench --backend cpu --op scan,compact -t i32 -n 2^26 --algo cpu,cpu-par --density 0.5 --reps 5 \
            --threads $t 2>&1 | grep "^cpu" | sed "s/^/threads=$t /"
    done | tee -a "$OUT/startup.txt"
    echo "-- bench --stream across --device-alloc (and pinned vs pageable)" | tee -a "$OUT/startup.txt"
    timeout 300 ./gpustream bench --stream --op scan,compact --host-mem pinned,pageable --buffers 2 \
        --device-alloc once,per-chunk,async --csv "$OUT/bench_devalloc.csv" 2>&1 | tee -a "$OUT/startup.txt"
    [ -n "${STARTUP_KEEP:-}" ] || rm -rf "$D"
fi
if has chains; then
    log "chains: the test matrix with --backend gpu vs the verbs piped on the CPU; memcheck on chains of three"
    BACKEND=gpu timeout 900 bash tests/cli/test_chains.sh >"$OUT/chains.log" 2>&1
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
if has fuzzlong; then
    log "fuzzlong: ${FUZZ_RUNS:-10000000} executions a target over ${FUZZ_JOBS:-$(nproc)} jobs"
    targets=(${FUZZ_LONG_TARGETS:-csv detect zstd})
    t0=$SECONDS
    for i in "${!targets[@]}"; do
        share=$(((${FUZZ_BUDGET:-510} - (SECONDS - t0)) / (${#targets[@]} - i)))
        [ "$share" -lt 10 ] && share=10
        FUZZ_LONG_DIR=$OUT/fuzz/${targets[$i]} FUZZ_MAX_SECONDS=$share bash tests/fuzz/long.sh "${targets[$i]}" |
            tee -a "$OUT/fuzz.txt"
    done
fi
if has mpi; then
    log "mpi: 1 and 2 ranks (one per GPU), 32 GB raw i32 in /dev/shm -> /dev/null"
    {
        INC=$(mpicc --showme:incdirs 2>/dev/null | tr ' ' '\n' | head -1)
        echo "mpi.h: $(ls "$INC/mpi.h" 2>&1)"; mpirun --version | head -1
        # Where the host's Open MPI has no headers: carried ones (.deps/mpi-include, Open MPI 4.1).
        if ! ./gpustream info | grep -q '^mpi  *Open MPI' && [ -f .deps/mpi-include/mpi.h ]; then
            make -j"$(nproc)" CUDA=1 GPU_ARCH=sm_90 MPI=1 MPI_INC=.deps/mpi-include all >"$OUT/build_mpi.log" 2>&1 || tail -5 "$OUT/build_mpi.log"
        fi
        ./gpustream info | grep -E '^(mpi|devices|build)'
        # --bind-to none: mpirun binds each of 2 ranks to one core by default, starving the pools.
        R="mpirun --oversubscribe --allow-run-as-root --bind-to none"
        B="--backend ${MPI_BACKEND:-gpu}"   # one GPU per rank (auto would keep scan on the CPU)
        NT=$(nproc)
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
        wall() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>>$D/err || echo "FAILED: $* ($(tail -2 $D/err))" >&2; t1=$(date +%s.%N); awk "BEGIN { print $t1 - $t0 }"; }
        printf '%-24s %10s %10s %10s %14s %8s\n' op "1 plain" "1 mpirun" "2 ranks" "2 ranks t/2" speedup
        for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
            ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null # page cache and GPU warm
            a=$(wall ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            b=$(wall $R -n 1 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            c=$(wall $R -n 2 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null)
            d=$(wall $R -n 2 ./gpustream $op $B -q -t i32 --threads $((NT / 2)) $D/big.raw -f /dev/null)
            printf '%-24s %10.2f %10.2f %10.2f %14.2f %7.2fx\n' "$op" "$a" "$b" "$c" "$d" "$(awk "BEGIN { print $a / $c }")"
        done
        echo "-- stats, 2 ranks:"
        for op in "scan" "compact --pred nonzero" "minmax -w 500"; do
            $R -n 2 ./gpustream $op $B -q -t i32 $D/big.raw -f /dev/null --stats 2>&1 | grep -vE '^ *$'
        done
        rm -rf $D
    } >"$OUT/mpi.txt" 2>&1
    cat "$OUT/mpi.txt"
fi
log "done"
