# tests/fuzz/options.sh - what every fuzzing run uses; sourced by tests/fuzz/run.sh and long.sh.
# libFuzzer: inputs up to 64 KiB, 10 s an input before it counts as a hang, 2.5 GiB of memory.
FUZZ_RUN_FLAGS="-max_len=65536 -timeout=10 -rss_limit_mb=2560"
# Our own sanitizer options (not those of make SANITIZE=1 test): UB halts, so it is a finding.
# An allocation over 512 MiB fails (the library's out-of-memory path, a clean error the targets
# accept): a 20-byte zstd header may claim a 2 GiB window, and ASan poisons a freed block's whole
# shadow, so such claims would cost most of the fuzzing time while decoding nothing more.
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=512}
export UBSAN_OPTIONS=${FUZZ_UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
