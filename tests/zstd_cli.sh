# tests/zstd_cli.sh - sourced (from the repository root) by the GPU checks and the benchmarks that
# read zstd output with the zstd CLI: the CLI from PATH, else a copy carried in .deps/zstd-cli/ (the
# binary with its libraries beside it), as the function `zstd`. ZSTD_CLI=1 when one was found, else
# 0, and the checks that need it print a SKIP line.
if command -v zstd >/dev/null 2>&1; then
    ZSTD_CLI=1
elif [ -x .deps/zstd-cli/zstd ]; then
    ZSTD_CLI=1
    zstd() { LD_LIBRARY_PATH=$PWD/.deps/zstd-cli${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$PWD/.deps/zstd-cli/zstd" "$@"; }
else
    ZSTD_CLI=0
fi
