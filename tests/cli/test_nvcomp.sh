#!/usr/bin/env bash
# test_nvcomp.sh - the build with nvCOMP, where nvcc and nvCOMP's headers are here (else SKIP):
# the GPU zstd codec (pipeline/gpu/codec_*.cu) compiles against the headers and links without
# libnvcomp; at run time it finds libnvcomp.so.6 (build-time directory, GS_NVCOMP_LIB), reports its
# version, and refuses the GPU codec with the reason when there is no GPU; a wrong GS_NVCOMP_LIB is
# named in the message.
set -u
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })}
if [ -z "$NVCC" ]; then echo "SKIP nvcomp link: no nvcc"; exit 0; fi
H=${NVCOMP_HOME:-}
[ -z "$H" ] && [ -d .deps/nvcomp ] && H=.deps/nvcomp
if [ -z "$H" ] || [ ! -f "$H/include/nvcomp/zstd.h" ]; then
    echo "SKIP nvcomp link: nvCOMP not installed (make deps-nvcomp-local, or NVCOMP_HOME)"; exit 0
fi
CUDA_HOME=$(dirname "$(dirname "$NVCC")")
LIBDIR=$(cd "$H" && pwd)/lib64
T=${TMPDIR:-/tmp}/gs-nvcomp.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
codec_o=()
DEPS_INC=""; [ -d .deps/usr/include ] && DEPS_INC="-I$PWD/.deps/usr/include" # xxhash.h where make deps-local put it
build_codec() {
    local f o
    for f in pipeline/gpu/codec_*.cu; do
        o=$T/$(basename "$f" .cu).o
        codec_o+=("$o")
        "$NVCC" -O2 -std=c++17 -DGS_HAVE_CUDA -DGS_HAVE_NVCOMP -I"$H/include" $DEPS_INC -DGS_NVCOMP_LIBDIR="\"$LIBDIR\"" \
            -c "$f" -o "$o" 2>>"$T/err" || return 1
    done
}
if build_codec &&
    cc -O2 -std=c11 -DGS_HAVE_CUDA -D_GNU_SOURCE $DEPS_INC -c tests/cli/nvcomp_link.c -o "$T/main.o" 2>>"$T/err" &&
    cc -O2 -std=c11 -D_GNU_SOURCE $DEPS_INC -c common/gs.c -o "$T/gs.o" 2>>"$T/err" &&
    cc -O2 -std=c11 -D_GNU_SOURCE -pthread -c common/pool.c -o "$T/pool.o" 2>>"$T/err" &&
    cc -o "$T/link" "$T/main.o" "$T/gs.o" "$T/pool.o" "${codec_o[@]}" -L"$CUDA_HOME/lib64" -lcudart_static -ldl -lrt -lpthread \
        -lstdc++ 2>>"$T/err"; then
    echo "PASS nvcomp link: the codec builds against nvCOMP's headers and links without libnvcomp"
else
    echo "FAIL nvcomp link: $(head -5 "$T/err")"; exit 1
fi
out=$("$T/link")
rc=$?
if [ $rc = 0 ] && echo "$out" | grep -q "^describe: nvCOMP 6\."; then
    echo "PASS nvcomp link: libnvcomp.so.6 loaded at run time ($(echo "$out" | head -1 | cut -c11-60))"
else
    echo "FAIL nvcomp link: library not loaded: $out"
fi
if echo "$out" | grep -q "^create: 0 ok" || echo "$out" | grep -q "^create: [1-9].*--codec gpu: no GPU"; then
    echo "PASS nvcomp link: --codec gpu without a GPU says so"
else
    echo "FAIL nvcomp link: codec creation: $out"
fi
if echo "$out" | grep -q "^ahead: 0 encode 0 out NULL stopped --codec auto: the GPU zstd codec did not start (no GPU"; then
    echo "PASS nvcomp link: --codec auto's codec made ahead stops at its first call without a GPU (libzstd then encodes)"
else
    echo "FAIL nvcomp link: codec made ahead: $(echo "$out" | grep '^ahead')"
fi
out=$(GS_NVCOMP_LIB=/nonexistent/libnvcomp.so.6 "$T/link")
if [ $? = 1 ] && echo "$out" | grep -q "GS_NVCOMP_LIB=/nonexistent" && echo "$out" | grep -q "^create: [1-9].*GS_NVCOMP_LIB"; then
    echo "PASS nvcomp link: a wrong GS_NVCOMP_LIB is named"
else
    echo "FAIL nvcomp link: wrong GS_NVCOMP_LIB: $out"
fi
