# tests/gpu/zstd_cli.sh - sourced by the GPU scripts (from the repository root): the zstd CLI from
# PATH, else the copy carried in .deps/zstd-cli/ (the binary with its libraries beside it), as the
# function `zstd` and, for programs that run it (/usr/bin/time), the command words $ZSTD_EXE.
# ZSTD_CLI=1 when one was found, else 0 and the checks that need it print a SKIP line.
if command -v zstd >/dev/null 2>&1; then
    ZSTD_CLI=1
    ZSTD_EXE=zstd
elif [ -x .deps/zstd-cli/zstd ]; then
    ZSTD_CLI=1
    ZSTD_EXE="env LD_LIBRARY_PATH=$PWD/.deps/zstd-cli${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $PWD/.deps/zstd-cli/zstd"
    zstd() { $ZSTD_EXE "$@"; }
else
    ZSTD_CLI=0
    ZSTD_EXE=false
fi
