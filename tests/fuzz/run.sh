#!/usr/bin/env bash
# tests/fuzz/run.sh - build every libFuzzer target in tests/fuzz/ and run each for a bounded time.
#   FUZZ_SECONDS=20 bash tests/fuzz/run.sh        (make test: 20 s a target; make fuzz: 300 s;
#                                                  0: the committed seeds only, once each)
#   FUZZ_TARGETS="npy zstd" ...                   (a subset)
#   FUZZ_CFLAGS=-DGS_FZ_LAX_MSG ...               (extra flags for the targets, not the library)
# Targets: fuzz_<name>.c with seeds in corpus_<name>/. Each runs in sequence on a COPY of its
# corpus (the committed seeds never grow) with the flags of tests/fuzz/options.sh, ASan + UBSan
# (UB halts, so it counts), and prints "PASS fuzz_<name>: N execs ..." or "FAIL fuzz_<name>: crash file ..."
# (the input is kept in build/fuzz/crashes/; replay: build/fuzz/fuzz_<name> FILE).
# Without clang's libFuzzer runtime, it says so and prints no PASS or FAIL line.
# The library is compiled once into build/fuzz/lib/ (instrumented, rebuilt when a source or a
# header changes) and archived, so each target links only the objects it uses.
set -u
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-20}
OUT=build/fuzz
CC_FUZZ=${CC_FUZZ:-clang}
CXX_FUZZ=${CXX_FUZZ:-clang++}
FLAGS="-g -O1 -D_GNU_SOURCE -std=c11 -pthread -fno-omit-frame-pointer"
SAN="-fsanitize=address,undefined"
mkdir -p "$OUT/lib" "$OUT/crashes"

note() { echo "note: $*"; }
# libFuzzer reads -max_total_time=0 as "no limit": 0 seconds means no fuzzing.
if [ "$SECONDS_EACH" = 0 ]; then note "FUZZ_SECONDS=0: fuzzing skipped"; exit 0; fi

# ---- is there a libFuzzer runtime? -----------------------------------------------------------
if ! command -v "$CC_FUZZ" >/dev/null 2>&1; then
    note "no $CC_FUZZ: fuzzing skipped (apt-get install clang)"; exit 0
fi
probe="$OUT/probe"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
if ! "$CC_FUZZ" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" >"$probe.log" 2>&1 || ! "$probe" -runs=1 >/dev/null 2>&1; then
    note "$CC_FUZZ has no libFuzzer runtime here (libclang-rt-dev / libclang-common-dev): fuzzing skipped"
    sed 's/^/    /' "$probe.log" | head -3
    exit 0
fi

# ---- libraries, as the Makefile finds them ------------------------------------------------------
DEPS_INC=""; [ -d .deps/usr/include ] && DEPS_INC="-I.deps/usr/include"
DEPS_LIB=""; [ -d .deps/usr/lib/x86_64-linux-gnu ] && DEPS_LIB=".deps/usr/lib/x86_64-linux-gnu"
CSV_A=""
for a in ${DEPS_LIB:+$DEPS_LIB/libcsv.a} /usr/lib/x86_64-linux-gnu/libcsv.a; do
    [ -f "$a" ] && { CSV_A=$a; break; }
done
LIBS="${CSV_A:--lcsv} ${DEPS_LIB:+-L$DEPS_LIB} -lzstd -lm"

# ---- the library, instrumented ------------------------------------------------------------------
SRCS="$(ls common/*.c io/*.c io/*.cpp kernels/*.c) pipeline/job.c pipeline/gen.c"
newest_h=$(ls -t common/*.h io/*.h pipeline/*.h kernels/*.h 2>/dev/null | head -1)
objs=()
built=0
t0=$SECONDS
for src in $SRCS; do
    obj="$OUT/lib/$(echo "$src" | tr / _ | sed 's/\.c$/.o/; s/\.cpp$/.cpp.o/')"
    objs+=("$obj")
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_h" -nt "$obj" ]; then
        # io/numconv.cpp: C++ (the Makefile's C++ flags)
        cc=$CC_FUZZ flags=$FLAGS
        case $src in *.cpp) cc=$CXX_FUZZ flags="${FLAGS/-std=c11/-std=c++17} -fno-exceptions -fno-rtti" ;; esac
        echo "$cc $flags -fsanitize=fuzzer-no-link $SAN -c $src" >>"$OUT/build.log"
        "$cc" $flags $DEPS_INC -fsanitize=fuzzer-no-link $SAN -c "$src" -o "$obj" 2>>"$OUT/build.log" &
        built=$((built + 1))
        # two compilers at a time
        if [ $((built % 2)) = 0 ]; then wait; fi
    fi
done
wait
for o in "${objs[@]}"; do
    if [ ! -f "$o" ]; then
        echo "FAIL fuzz_build: $o did not compile (see $OUT/build.log)"; tail -20 "$OUT/build.log" | sed 's/^/    /'; exit 1
    fi
done
rm -f "$OUT/libgs_fuzz.a"
ar rcs "$OUT/libgs_fuzz.a" "${objs[@]}"
[ "$built" -gt 0 ] && note "compiled $built library files in $((SECONDS - t0)) s"

# ---- each target ----------------------------------------------------------------------------------
targets=${FUZZ_TARGETS:-$(ls tests/fuzz/fuzz_*.c | sed 's,.*/fuzz_,,; s,\.c$,,')}
. tests/fuzz/options.sh
status=0
for name in $targets; do
    src=tests/fuzz/fuzz_$name.c
    bin=$OUT/fuzz_$name
    if [ ! -f "$src" ]; then echo "FAIL fuzz_$name: no $src"; status=1; continue; fi
    if ! "$CC_FUZZ" $FLAGS $DEPS_INC -Wall -Wextra -fsanitize=fuzzer $SAN ${FUZZ_CFLAGS:-} "$src" "$OUT/libgs_fuzz.a" $LIBS -o "$bin" \
        >"$OUT/fuzz_$name.build.log" 2>&1; then
        echo "FAIL fuzz_$name: does not build (see $OUT/fuzz_$name.build.log)"
        head -20 "$OUT/fuzz_$name.build.log" | sed 's/^/    /'
        status=1; continue
    fi
    [ -s "$OUT/fuzz_$name.build.log" ] && { note "fuzz_$name: compiler warnings:"; sed 's/^/    /' "$OUT/fuzz_$name.build.log" | head -10; }
    corpus=$OUT/corpus_$name
    rm -rf "$corpus"; mkdir -p "$corpus"
    [ -d tests/fuzz/corpus_$name ] && cp tests/fuzz/corpus_$name/* "$corpus/" 2>/dev/null
    log=$OUT/fuzz_$name.log
    rm -f "$OUT"/crash-* "$OUT"/leak-* "$OUT"/timeout-* "$OUT"/oom-*
    # -max_total_time bounds the fuzzing; timeout(1) is the backstop should a run wedge.
    # FUZZ_SECONDS=0: the seeds only, each run once (libFuzzer's -max_total_time=0 means no limit).
    limit="-max_total_time=$SECONDS_EACH"
    [ "$SECONDS_EACH" = 0 ] && limit="-runs=0"
    timeout -k 5 $((SECONDS_EACH + 60)) "$bin" $limit $FUZZ_RUN_FLAGS -print_final_stats=1 \
        -artifact_prefix="$OUT/" "$corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    crash=$(ls "$OUT"/crash-* "$OUT"/leak-* "$OUT"/timeout-* "$OUT"/oom-* 2>/dev/null | head -1)
    if [ "$rc" -eq 0 ] && [ -z "$crash" ]; then
        echo "PASS fuzz_$name: ${execs:-?} execs in ${SECONDS_EACH} s, ${cov:-cov ?}, corpus $(ls "$corpus" | wc -l) inputs"
    else
        kept=""
        if [ -n "$crash" ]; then kept=$OUT/crashes/fuzz_${name}_$(basename "$crash"); mv "$crash" "$kept"; fi
        echo "FAIL fuzz_$name: crash file ${kept:-none} (exit $rc after ${execs:-?} execs; log $log)"
        grep -m3 -E 'ERROR: |runtime error|SUMMARY' "$log" | sed 's/^/    /'
        # a check in the target itself (abort): the line that made it
        grep -m1 -E '#[0-9]+ 0x[0-9a-f]+ in (gs_fz_|LLVMFuzzerTestOneInput)' "$log" | sed 's/^ */    at /'
        status=1
    fi
done
exit $status
