# shellcheck shell=bash
# tests/bench/lib.sh - sourced by the benchmark scripts of tests/bench/; it moves to the repository
# root. Settings, from the environment:
#   BIN   the gpustream binary timed (default ./gpustream)
#   BASE  a second binary (an older build) timed beside BIN, run for run in turn (default: none)
#   REPS  timed runs of each command after one warm-up (default 5); the median is reported
#   OUT   a folder: the script's output goes to $OUT/<script>.txt too (default: the terminal only)
# Gives D (a scratch folder, in /dev/shm where writable, removed at exit) and the functions below.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
abs_path() { case $1 in /*) echo "$1" ;; *) echo "$PWD/${1#./}" ;; esac; }
BIN=$(abs_path "${BIN:-./gpustream}")
BASE=${BASE:+$(abs_path "$BASE")}
REPS=${REPS:-5}
[ -x "$BIN" ] || { echo "bench: no binary $BIN (make, or BIN=PATH)" >&2; exit 1; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "bench: no binary $BASE (BASE=PATH)" >&2; exit 1; }
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    exec > >(tee -a "$OUT/$(basename "$0" .sh).txt") 2>&1
fi
D=$(mktemp -d -p "$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")" gs-bench.XXXXXX)
trap 'rm -rf "$D"' EXIT

has_gpu() { "$BIN" info 2>/dev/null | grep -qE '^devices +[1-9]'; }
has_nvcomp() { has_gpu && "$BIN" info | grep -q '^nvcomp  *nvCOMP [0-9]'; }

# header TITLE [NOTE]: what runs, on which machine, when, with which binaries, and how it is timed
header() {
    echo "== $1"
    echo "date $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores; $(uname -r)"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader 2>/dev/null
    echo "BIN  $BIN ($("$BIN" --version 2>&1 | head -1); $("$BIN" info | grep -E '^build' | tr -s ' '))"
    [ -z "$BASE" ] || echo "BASE $BASE ($("$BASE" --version 2>&1 | head -1))"
    echo "${2:-median of $REPS runs after a warm-up${BASE:+, BIN and BASE in turn}; seconds of the whole process}"
}

# bytes_of SIZE: 4K, 16M, 16G (powers of 2) or a plain number of bytes
bytes_of() {
    case $1 in
    *K) echo $((${1%K} << 10)) ;; *M) echo $((${1%M} << 20)) ;; *G) echo $((${1%G} << 30)) ;; *) echo "$1" ;;
    esac
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) printf "%.4f\n", a[int((NR + 1) / 2)]; else print "nan" }'; }

# run_as EXE ARGS...: ARGS with each word @BIN@ replaced by EXE; stdout to /dev/null, stderr to $D/err
run_as() {
    local exe=$1 a cmd=()
    shift
    for a in "$@"; do [ "$a" = @BIN@ ] && cmd+=("$exe") || cmd+=("$a"); done
    "${cmd[@]}" >/dev/null 2>"$D/err"
}

# in_turn LABEL ARGS...: the command ARGS (@BIN@ stands for the binary) with BIN, and with BASE in
# turn, one warm-up and REPS timed rounds; prints one line and sets MED (BIN's median) and MED_BASE.
# PRE, where set, is a command run before each run, outside its time (removing the last output).
in_turn() {
    local label=$1 r b exe t0 t1 rc
    shift
    : >"$D/t.new"
    : >"$D/t.base"
    for r in $(seq 0 "$REPS"); do
        for b in new ${BASE:+base}; do
            exe=$BIN
            [ $b = base ] && exe=$BASE
            [ -z "${PRE:-}" ] || eval "$PRE"
            t0=$(date +%s.%N)
            run_as "$exe" "$@"
            rc=$?
            t1=$(date +%s.%N)
            [ $rc = 0 ] || echo "FAILED ($b, exit $rc): $*: $(head -c 300 "$D/err")"
            [ "$r" = 0 ] || awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.4f\n", z - a }' >>"$D/t.$b"
        done
    done
    MED=$(median <"$D/t.new")
    MED_BASE=$(median <"$D/t.base")
    local spread
    spread=$(sort -g "$D/t.new" | sed -n '1p;$p' | paste -sd- -)
    if [ -n "$BASE" ]; then
        printf '%-74s %8.4f s (%s)  base %8.4f s  new/base %.3f\n' "$label" "$MED" "$spread" "$MED_BASE" \
            "$(awk -v a="$MED" -v b="$MED_BASE" 'BEGIN { print a / b }')"
    else
        printf '%-74s %8.4f s (%s)\n' "$label" "$MED" "$spread"
    fi
}

# gbps BYTES SECONDS: GB/s (10^9)
gbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.2f", b / s / 1e9 }'; }
