# gpustream - build, test, demo, bench, install.
#   make [all]        build ./gpustream (CUDA auto-detected: CUDA=auto|0|1)
#   make test         unit + CLI tests (+ GPU tests where a GPU is present); ends "N passed, N failed, N skipped"
#   make demo         the main job on the sample data in data/
#   make tsan         the engine under ThreadSanitizer (CPU backend): unit tests and the threaded CLI suites
#   make bench        gpustream bench (benchmarks are never part of make test)
#   make difftest     random cases against a numpy oracle for DIFF_SECONDS (default 600; 60 s in make test)
#   make deps         install missing -dev packages with apt-get (root), else print the command
#   make deps-local   unpack Debian's libcsv-dev/libzstd-dev/libxxhash-dev/libfast-float-dev/libfmt-dev into .deps/ (machines without apt)
#   make deps-nvcomp-local  nvCOMP's headers and libnvcomp.so.6 (PyPI's nvidia-libnvcomp-cu13) into
#                     .deps/nvcomp: GPU zstd in CUDA builds (the folder can be carried offline)
#   make man          regenerate gpustream.1 and completions/gpustream.bash from the command line's tables
#   make install      PREFIX=/usr/local DESTDIR=: the stripped binary, the man page, the bash completion
# Options: CUDA=auto|0|1  MPI=auto|0|1 (gpustream-mpi, with mpicc)  GPU_ARCH="sm_90"  SANITIZE=1 (ASan+UBSan, CPU only)  SANITIZE=thread (TSan, CPU only)  NVCC=path
#          NVCOMP_HOME=dir (include/ and lib64/ of nvCOMP 6; default .deps/nvcomp where it exists)
#          TUNING=1 (also build the block sizes of bench --block and the shapes of --tune: slow)
# Runs on all cores unless -jN is given; a repeated make with nothing changed does nothing.

ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

CC      ?= cc
PREFIX  ?= /usr/local
CUDA    ?= auto
MPI     ?= auto
SANITIZE ?= 0
TUNING  ?= 0

NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
CUDA_GIVEN := $(CUDA)
ifeq ($(CUDA),auto)
  ifneq ($(NVCC),)
    CUDA := 1
  else
    CUDA := 0
  endif
endif
# MPI: pipeline/mpi.c compiled with mpicc's flags goes into a second binary, gpustream-mpi (the
# same objects otherwise), so that gpustream itself never needs libmpi. MPI=auto builds it when
# mpicc is on the PATH and its mpi.h compiles; MPI=1 asks for it; MPI=0 leaves it out. MPI_INC=DIR
# names a directory holding mpi.h where mpicc's own has none.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPI_CFLAGS = $(if $(MPICC),$(shell $(MPICC) --showme:compile 2>/dev/null)) $(if $(MPI_INC),-I$(MPI_INC)) -DGS_HAVE_MPI
MPI_GIVEN := $(MPI)
ifeq ($(MPI),auto)
  MPI := $(if $(MPICC),$(shell printf '\#include <mpi.h>\n' | $(CC) $(MPI_CFLAGS) -E -x c - >/dev/null 2>&1 && echo 1),0)
  ifeq ($(MPI),)
    MPI := 0
  endif
endif
ifneq ($(filter 1 thread,$(SANITIZE)),)
  CUDA := 0
  MPI := 0
  CUDA_GIVEN := SANITIZE=$(SANITIZE)
  MPI_GIVEN := SANITIZE=$(SANITIZE)
endif
# CUDA and CPU-only objects differ (GS_HAVE_CUDA): keep them apart.
BUILD := build/$(if $(filter 1,$(CUDA)),cuda,cpu)

# Libraries: the system's, or .deps/ (make deps-local) when present. libcsv is linked
# statically so the binary runs where only the -dev files were unpacked.
DEPS_INC := $(wildcard .deps/usr/include)
DEPS_LIB := $(wildcard .deps/usr/lib/x86_64-linux-gnu)
CPPFLAGS += -D_GNU_SOURCE $(if $(DEPS_INC),-isystem $(DEPS_INC))
CSV_A    := $(firstword $(wildcard $(DEPS_LIB)/libcsv.a /usr/lib/x86_64-linux-gnu/libcsv.a))
LIBS     := $(if $(CSV_A),$(CSV_A),-lcsv) $(if $(DEPS_LIB),-L$(DEPS_LIB)) -lzstd -lm -pthread

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -pthread
LDFLAGS ?=
ifeq ($(SANITIZE),1)
  CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
  LDFLAGS += -fsanitize=address,undefined
  BUILD   := build/san
endif
ifeq ($(SANITIZE),thread)
  CFLAGS  += -fsanitize=thread -fno-omit-frame-pointer
  LDFLAGS += -fsanitize=thread
  BUILD   := build/tsan
endif

ifeq ($(TUNING),1)
  CPPFLAGS += -DGS_TUNING
  BUILD    := $(BUILD)-tuning
endif

C_SRC  := $(wildcard common/*.c) $(wildcard kernels/*.c) $(wildcard io/*.c) $(wildcard cli/*.c) \
          $(filter-out pipeline/mpi.c,$(wildcard pipeline/*.c)) $(wildcard pipeline/*/*.c)
# mpi.c builds twice: without MPI into gpustream (and the tests), with it into gpustream-mpi
# (GS_HAVE_MPI); nothing else differs.
MPI_OBJ  := $(BUILD)/pipeline/mpi.o
MPI_OBJ1 := $(BUILD)/pipeline/mpi-mpi.o
MPI_LIBS  = $(if $(MPICC),$(shell $(MPICC) --showme:link),-lmpi)
CU_SRC :=
ifeq ($(CUDA),1)
  CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
  # Targets: the GPU present at build time, else Ampere + Hopper + PTX for newer chips.
  GPU_ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d . | sed 's/^/sm_/')
  ifeq ($(strip $(GPU_ARCH)),)
    GENCODE := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
  else
    GENCODE := $(foreach a,$(GPU_ARCH),-gencode arch=compute_$(subst sm_,,$(a)),code=$(a))
  endif
  # The longest nvcc jobs first, longest to shortest, so that -j keeps every core busy to the end:
  # CPU seconds of each on the 2-core machine, 2026-11-29, scan_lookback 67, scan_cub 41, rolling_vhgw 37,
  # bench_gpu 29, minmax_vhgw 28, compact_cub 27, text_gpu 12, scan_basic 10, the others 6 or less
  # (docs/PERFORMANCE.md).
  CU_FIRST := $(wildcard kernels/scan_lookback.cu kernels/scan_cub.cu kernels/rolling_vhgw.cu pipeline/bench_gpu.cu \
              kernels/minmax_vhgw.cu kernels/compact_cub.cu kernels/text_gpu.cu kernels/scan_basic.cu)
  CU_SRC   := $(CU_FIRST) $(filter-out $(CU_FIRST),$(wildcard kernels/*.cu) $(wildcard pipeline/*.cu) $(wildcard pipeline/*/*.cu))
  # CUDA runtime calls and no device code: nvcc compiles these as C++ (-x c++), without the device
  # passes of each target, which would only make empty images (a second of CPU a file). A device
  # keyword or a launch in one of them stops the build here: take that file out of the list.
  HOST_CU  := $(addprefix pipeline/gpu/,backend.cu chain.cu codec_host.cu codec_loader.cu codec_stubs.cu \
              codec_watchdog.cu frames.cu memory.cu multi.cu textin.cu textout.cu zencode.cu)
  HOST_CU_DEV := $(shell grep -s -l -E '__global__|__device__|__shared__|__constant__|__managed__|<<<' $(HOST_CU))
  ifneq ($(HOST_CU_DEV),)
    $(error $(HOST_CU_DEV): device code in a file that HOST_CU compiles as C++)
  endif
  CPPFLAGS += -DGS_HAVE_CUDA
  # nvcc's -O is the host compiler's level alone: the device code is the same whatever it is (the
  # PTX of kernels/rolling_vhgw.cu byte for byte at -O0, -O1 and -O3). The files with device code
  # keep only launchers and their dispatch on the host, so -O1 there (NVOPT_DEV); the host files
  # (HOST_CU) -O3. On the 2-core machine, 2026-11-29, rolling_vhgw.cu's host compile took 1.4 s
  # at -O1 against 2.4 s at -O3, of its 37 s.
  NVOPT    ?= -O3
  NVOPT_DEV ?= -O1
  # One target at a time in each nvcc (--threads 1): make's jobs keep the cores busy (CU_FIRST), and
  # a file's targets in parallel beside them cost more CPU than they save. A fresh make -j2 on the
  # 2-core machine, 2026-11-29, the same tree in turn: 2 min 10.6 s against 2 min 44.5 s with
  # --threads 0 (docs/PERFORMANCE.md, "Build time").
  NVFLAGS  += --threads 1 -std=c++17 $(GENCODE) -Xcompiler -Wall,-Wextra -DGS_HAVE_CUDA -D_GNU_SOURCE $(if $(DEPS_INC),-I$(DEPS_INC)) \
              $(if $(filter 1,$(TUNING)),-DGS_TUNING)
  # Static cudart: the binary starts (and falls back to the CPU) on machines with no driver.
  LIBS     += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
  # nvCOMP (optional): headers at build time; libnvcomp.so.6 is opened at run time (pipeline/gpu/codec_loader.cu).
  # Found one way only: NVCOMP_HOME if given, else .deps/nvcomp (make deps-nvcomp-local).
  NVCOMP_HOME ?= $(wildcard .deps/nvcomp)
  ifneq ($(wildcard $(NVCOMP_HOME)/include/nvcomp/zstd.h),)
    NVCOMP_LIBDIR := $(abspath $(firstword $(wildcard $(NVCOMP_HOME)/lib64 $(NVCOMP_HOME)/lib)))
    NVFLAGS  += -DGS_HAVE_NVCOMP -I$(NVCOMP_HOME)/include -DGS_NVCOMP_LIBDIR='"$(NVCOMP_LIBDIR)"'
    NVCOMP_WHY := nvCOMP headers from $(NVCOMP_HOME)
  else
    # nvCOMP's kernels: these files are wholly under GS_HAVE_NVCOMP, so without it they are empty
    HOST_CU  += $(addprefix pipeline/gpu/,codec_bench.cu codec_decode.cu codec_encode.cu)
    NVCOMP_WHY := no nvCOMP: $(if $(NVCOMP_HOME),no include/nvcomp/zstd.h under NVCOMP_HOME=$(NVCOMP_HOME),no .deps/nvcomp (make deps-nvcomp-local) and no NVCOMP_HOME)
  endif
else
  NVCOMP_WHY := no nvCOMP (a CPU build)
endif
CUDA_WHY := $(if $(filter 1,$(CUDA)),CUDA ($(if $(filter 1,$(CUDA_GIVEN)),CUDA=1,nvcc found: $(NVCC))),CPU only ($(if $(filter 0,$(CUDA_GIVEN)),CUDA=0,$(if $(filter auto,$(CUDA_GIVEN)),no nvcc on the PATH or in /usr/local/cuda,$(CUDA_GIVEN)))))
MPI_REASON := $(if $(filter 1,$(MPI)),$(if $(filter 1,$(MPI_GIVEN)),MPI=1,mpicc found: $(MPICC)),$(if $(filter auto,$(MPI_GIVEN)),no mpicc with a usable mpi.h on the PATH,$(if $(filter 0,$(MPI_GIVEN)),MPI=0,$(MPI_GIVEN))))
MPI_WHY  := $(if $(filter 1,$(MPI)),gpustream-mpi,no gpustream-mpi) ($(MPI_REASON))

# C++: io/numconv.cpp alone (fast_float and {fmt}, header-only), with the C flags' warnings and
# sanitizers. Without exceptions, and in sections: fmt's header emits its format_error vtable,
# which refers to libstdc++; the CPU build drops those unused sections at the link instead of
# linking libstdc++ (the CUDA build links it anyway).
CXX_SRC  := $(wildcard io/*.cpp)
CXXFLAGS_GS = $(filter-out -std=c11,$(CFLAGS)) -std=c++17 -fno-exceptions -fno-rtti -ffunction-sections -fdata-sections
ifneq ($(CUDA),1)
  LDFLAGS += -Wl,--gc-sections
endif
# UBSan's C++ checks keep those references: the sanitizer builds (tests only) link libstdc++.
ifneq ($(filter 1 thread,$(SANITIZE)),)
  LIBS += -lstdc++
endif

OBJ := $(patsubst %.cu,$(BUILD)/%.cu.o,$(CU_SRC)) $(patsubst %.c,$(BUILD)/%.o,$(C_SRC)) \
       $(patsubst %.cpp,$(BUILD)/%.cpp.o,$(CXX_SRC)) $(MPI_OBJ)
# The test programs link the library, not the command line (cli/ calls gpustream.c's verb table).
LIB_OBJ := $(filter-out $(BUILD)/cli/%,$(OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/%,$(UNIT_SRC))
GPU_TEST_C  := $(wildcard tests/gpu/test_*.c)
GPU_TEST_CU := $(wildcard tests/gpu/test_*.cu)
GPU_BIN := $(if $(filter 1,$(CUDA)),$(patsubst tests/gpu/%.c,$(BUILD)/%,$(GPU_TEST_C)) $(patsubst tests/gpu/%.cu,$(BUILD)/%,$(GPU_TEST_CU)))


.PHONY: all test demo bench plots man install clean deps deps-local deps-nvcomp-local check-deps fuzz difftest tsan
all: gpustream $(if $(filter 1,$(MPI)),gpustream-mpi)

# Stamps, rewritten only when their text changes: $(BUILD)/flags holds the flags its objects were
# built with (a change rebuilds them); build/linked names the build ./gpustream comes from, so that
# switching CUDA=0/1, SANITIZE or TUNING relinks it and a repeated make does not. Neither depends
# on what a probe finds on the PATH (Python, mpicc): $(BUILD)/mpi-flags, written only where
# gpustream-mpi may be built (not by `make gpustream`), holds mpicc's flags for that binary alone.
BUILD_FLAGS := $(CC) $(CPPFLAGS) $(CFLAGS) | $(NVCC) $(NVOPT) $(NVOPT_DEV) $(NVFLAGS) | $(CXX) $(CXXFLAGS_GS) | $(LDFLAGS) $(LIBS)
$(shell mkdir -p $(BUILD) && { echo '$(BUILD_FLAGS)' | cmp -s - $(BUILD)/flags || echo '$(BUILD_FLAGS)' >$(BUILD)/flags; })
$(shell echo '$(BUILD)' | cmp -s - build/linked || echo '$(BUILD)' >build/linked)
ifeq ($(MPI),1)
  ifneq ($(MAKECMDGOALS),gpustream)
    MPI_FLAGS := $(MPI_CFLAGS) | $(MPI_LIBS)
    $(shell echo '$(MPI_FLAGS)' | cmp -s - $(BUILD)/mpi-flags || echo '$(MPI_FLAGS)' >$(BUILD)/mpi-flags)
  endif
endif

# The end of a build says what is built in and why (also `gpustream info`).
gpustream: $(BUILD)/gpustream.o $(OBJ) build/linked
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS)
	@echo "built gpustream: $(CUDA_WHY); $(if $(filter 1,$(CUDA)),$(NVCOMP_WHY); )$(MPI_WHY)"

ifeq ($(MPI),1)
gpustream-mpi: $(BUILD)/gpustream.o $(filter-out $(MPI_OBJ),$(OBJ)) $(MPI_OBJ1) build/linked $(BUILD)/mpi-flags
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS) $(MPI_LIBS)
	@echo "built gpustream-mpi: gpustream with MPI ($(MPI_REASON)); gpustream runs it under mpirun"
else
gpustream-mpi:
	@echo "gpustream-mpi: not built ($(MPI_REASON)); make MPI=1 with mpicc on the PATH" >&2; exit 2
endif

# rolling's f64 sweep: sqrt in vector form (no errno to set); never a fused multiply-add (its
# wide versions have FMA, and the bits must be the generic sweep's and the GPU's).
$(BUILD)/kernels/rolling_fast.o: CFLAGS += -fno-math-errno -ffp-contract=off

# check-deps first: a missing library is installed (root) before anything includes it.
$(BUILD)/%.o: %.c $(BUILD)/flags | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/%.cpp.o: %.cpp $(BUILD)/flags | check-deps
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS_GS) -MMD -MP -c $< -o $@

$(MPI_OBJ1): pipeline/mpi.c $(BUILD)/flags $(BUILD)/mpi-flags | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@

$(patsubst %.cu,$(BUILD)/%.cu.o,$(HOST_CU)): NVLANG := -x c++
$(patsubst %.cu,$(BUILD)/%.cu.o,$(HOST_CU)): NVO := $(NVOPT)
$(BUILD)/%.cu.o: NVO = $(NVOPT_DEV)
$(BUILD)/%.cu.o: %.cu $(BUILD)/flags | check-deps
	@mkdir -p $(dir $@)
	$(NVCC) $(NVO) $(NVFLAGS) $(NVLANG) -MMD -MP -c $< -o $@

# (the unit tests' own headers, e.g. the fake GPU backend, rebuild them when they change)
$(BUILD)/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(LIB_OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $(filter-out %.h,$^) $(LDFLAGS) $(LIBS)

$(BUILD)/test_%: tests/gpu/test_%.c $(LIB_OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)

$(BUILD)/test_%: $(BUILD)/tests/gpu/test_%.cu.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

-include $(OBJ:.o=.d) $(BUILD)/gpustream.d $(MPI_OBJ1:.o=.d)

test: all $(UNIT_BIN) $(GPU_BIN)
	@BUILD=$(BUILD) G=$(CURDIR)/gpustream $(if $(filter 1,$(SANITIZE)),ASAN_OPTIONS=exitcode=86:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86) \
	  $(if $(filter thread,$(SANITIZE)),TSAN_OPTIONS=halt_on_error=1:exitcode=87) ONLY="$(ONLY)" bash tests/run.sh

# The threaded engine under ThreadSanitizer (CPU backend): the unit tests and the CLI suites that
# drive the engine's threads on real inputs (pipes and chunkings), in build/tsan.
TSAN_SUITES := test_pool test_engine test_io cli_test_pipes
tsan:
	@$(MAKE) --no-print-directory SANITIZE=thread ONLY="$(TSAN_SUITES)" test

demo: all
	@bash tests/demo.sh

bench: all
	./gpustream bench --op all

plots:
	@bash tests/bench/plots.sh

fuzz:
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-300} bash tests/fuzz/run.sh

difftest: all
	@G=$(CURDIR)/gpustream DIFF_SECONDS=$${DIFF_SECONDS:-600} bash tests/cli/test_diff.sh

# The man page and the completion are generated from the CLI's tables and committed;
# tests/cli/test_docs.sh fails when they differ from what the binary generates.
man: all
	./gpustream --generate man > gpustream.1
	@mkdir -p completions
	./gpustream --generate complete-bash > completions/gpustream.bash

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -s -m 755 gpustream $(DESTDIR)$(PREFIX)/bin/gpustream
	if [ -f gpustream-mpi ]; then install -s -m 755 gpustream-mpi $(DESTDIR)$(PREFIX)/bin/gpustream-mpi; fi
	install -m 644 gpustream.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpustream.1
	install -m 644 completions/gpustream.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gpustream

clean:
	rm -rf build gpustream gpustream-mpi tests/out

# Libraries: present (system or .deps) or installed here when root.
HAVE_HDRS = $(shell printf '\#include <zstd.h>\n\#include <csv.h>\n\#include <xxhash.h>\n' | $(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && \
  printf '\#include <fast_float/fast_float.h>\n\#include <fmt/format.h>\n' | $(CXX) $(CPPFLAGS) -std=c++17 -E -x c++ - >/dev/null 2>&1 && echo yes)
check-deps:
	@if [ "$(HAVE_HDRS)" != yes ]; then $(MAKE) --no-print-directory deps; fi

deps:
	@if printf '#include <zstd.h>\n#include <csv.h>\n#include <xxhash.h>\n' | $(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && \
	   printf '#include <fast_float/fast_float.h>\n#include <fmt/format.h>\n' | $(CXX) $(CPPFLAGS) -std=c++17 -E -x c++ - >/dev/null 2>&1; then \
	  echo "deps: libzstd-dev, libcsv-dev, libxxhash-dev, libfast-float-dev and libfmt-dev are present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "deps: installing libzstd-dev libcsv-dev libxxhash-dev libfast-float-dev libfmt-dev zstd with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libzstd-dev libcsv-dev libxxhash-dev libfast-float-dev libfmt-dev zstd >/dev/null; \
	else \
	  echo "deps: missing libzstd-dev/libcsv-dev/libxxhash-dev/libfast-float-dev/libfmt-dev; run: sudo apt-get install libzstd-dev libcsv-dev libxxhash-dev libfast-float-dev libfmt-dev zstd (or make deps-local)"; exit 1; \
	fi

deps-local:
	@rm -rf .deps/usr .deps/debs && mkdir -p .deps/debs
	@cd .deps/debs && apt-get download libcsv-dev libcsv3 libzstd-dev libxxhash-dev libfast-float-dev libfmt-dev >/dev/null
	@for f in .deps/debs/*.deb; do dpkg -x $$f .deps; done
	@rm -rf .deps/debs
	@echo "deps-local: unpacked into .deps/ ($$(ls .deps/usr/include | tr '\n' ' '))"

# nvCOMP 6 for CUDA 13 from PyPI. The local copy keeps what gpustream uses (headers, libnvcomp.so.6):
# the folder can be copied to a machine without network, beside the binary or under NVCOMP_HOME.
# (pip only downloads the wheel here; the build never asks Python where nvCOMP is.)
NVCOMP_PKG := nvidia-libnvcomp-cu13
deps-nvcomp-local:
	@rm -rf .deps/nvcomp .deps/nvcomp-wheel && mkdir -p .deps/nvcomp-wheel
	python3 -m pip download --no-deps -q -d .deps/nvcomp-wheel $(NVCOMP_PKG)
	@python3 -c 'import sys, zipfile, os; z = zipfile.ZipFile(sys.argv[1]); p = "nvidia/libnvcomp/"; \
	  [z.extract(m, ".deps/nvcomp-wheel") for m in z.namelist() if m.startswith(p + "include/") or m == p + "lib64/libnvcomp.so.6"]' \
	  .deps/nvcomp-wheel/*.whl
	@mv .deps/nvcomp-wheel/nvidia/libnvcomp .deps/nvcomp
	@python3 -c 'import sys, zipfile, os; z = zipfile.ZipFile(sys.argv[1]); \
	  [open(".deps/nvcomp/" + os.path.basename(m), "wb").write(z.read(m)) for m in z.namelist() if os.path.basename(m).upper().startswith("LICENSE")]' \
	  .deps/nvcomp-wheel/*.whl
	@rm -rf .deps/nvcomp-wheel
	@echo "deps-nvcomp-local: .deps/nvcomp ($$(du -sh .deps/nvcomp | cut -f1))"
