#!/usr/bin/env bash
# tests/cli/test_mpi.sh - MPI ranks over shards of one file: `mpirun -n K gpustream VERB IN OUT`
# gives the bytes one process gives, for K = 1..4 CPU ranks on inputs of odd sizes (shards
# shorter than the window, empty shards when K > n, n = 0), raw, npy and multi-frame zstd input,
# and CSV/text input (line-aligned ranges, a header line).
# zstd output is compared decompressed: each rank writes its own frames, so frame boundaries
# (and the compressed bytes) follow the shards. Float sums are compared between runs of the
# same K only (the carry between ranks reassociates the sum; see docs/SCALING.md).
# Bad cases end with one error line and no output file. Prints PASS/FAIL lines, or SKIP lines
# where this gpustream has no MPI or mpirun is missing. Small inputs and --threads 1: ~1 min.
set -u
cd "$(dirname "$0")/../.."
G=${G:-./gpustream}
case $G in /*) ;; *) G=$PWD/${G#./} ;; esac
MPIRUN=$(command -v mpirun)
if [ -z "$MPIRUN" ]; then echo "SKIP mpi: no mpirun on the PATH"; exit 0; fi
if "$G" info | grep -q '^mpi  *not built'; then echo "SKIP mpi: gpustream built without MPI"; exit 0; fi
T=$(mktemp -d -p "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)")
trap 'rm -rf "$T"' EXIT
cd "$T"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
mpi() { local k=$1; shift; "$MPIRUN" --oversubscribe --allow-run-as-root -n "$k" "$G" "$@"; }
ZSTD=$(command -v zstd)

# Inputs: name n type dist, each as raw, npy and zstd of 1 KiB frames (several frames per rank).
mk() { # NAME N TYPE DIST
    "$G" gen -q -n "$2" -t "$3" --dist "$4" --seed "$2" "$1.raw" &&
        "$G" convert -q -t "$3" "$1.raw" "$1.npy" &&
        "$G" convert -q -t "$3" --frame-size 1K "$1.raw" "$1.raw.zst"
}
mk n0 0 i32 uniform:-9:9
mk n1 1 i32 uniform:-9:9
mk n3 3 i32 uniform:-9:9
mk n17 17 i64 uniform:-1000000000000:1000000000000
mk n1001 1001 i32 uniform:-2147483648:2147483647
mk s2999 2999 i32 sparse:0.3
mk f1003 1003 f32 normal:0:1
mk d777 777 f64 walk

# same NAME K ARGS... IN EXT: K ranks and one process give the same output file
same() {
    local name=$1 k=$2; shift 2
    local n=$# in=${@: -2:1} ext=${@: -1}
    local args=("${@:1:n-2}")
    rm -f one.$ext many.$ext
    "$G" "${args[@]}" -q --threads 1 "$in" one.$ext 2>one.err || { fail "$name" "one process failed: $(head -c 200 one.err)"; return; }
    if ! mpi "$k" "${args[@]}" -q --threads 1 "$in" many.$ext >many.out 2>many.err; then
        fail "$name" "K=$k failed: $(grep gpustream many.err | head -c 300)"
        return
    fi
    if [ "${ext%.zst}" != "$ext" ]; then
        if [ -z "$ZSTD" ]; then echo "SKIP $name: no zstd CLI"; return; fi
        if ! "$ZSTD" -q -t many.$ext; then fail "$name" "K=$k output is not valid zstd"; return; fi
        if cmp -s <("$ZSTD" -dc one.$ext) <("$ZSTD" -dc many.$ext); then pass "$name"; else fail "$name" "K=$k output differs (decompressed)"; fi
    elif cmp -s one.$ext many.$ext; then pass "$name"
    else fail "$name" "K=$k output differs: $(cmp one.$ext many.$ext 2>&1 | head -1)"; fi
}

# The verbs, each on every format; K cycles through 1..4 so every K meets every verb.
cases=(
    "scan"
    "scan --op min"
    "scan --op max --exclusive"
    "scan --exclusive"
    "compact --pred gt:0"
    "compact --pred nonzero --indices"
    "minmax -w 1"
    "minmax -w 5"
    "minmax -w 5 --partial"
    "minmax -w 40 --only max"
    "minmax -w 400 --partial"
)
# n1001: every verb on two formats of three (rotating); the small files (K > n, shards shorter than the window,
# n = 0) and the sparse one: every verb on one format each, the format and K rotating.
i=0
fi=0
for f in n1001 n0 n1 n3 n17 s2999; do
    fi=$((fi + 1)); ci=0
    for c in "${cases[@]}"; do
        ci=$((ci + 1)); fm=0
        for fmt in raw npy raw.zst; do
            fm=$((fm + 1))
            if [ "$f" = n1001 ]; then [ $((ci % 3 + 1)) != "$fm" ] || continue
            else [ $(((ci + fi) % 3 + 1)) = "$fm" ] || continue; fi
            i=$((i + 1)); k=$((i % 4 + 1))
            case $f in n0 | n1 | n3) [ "$k" -gt 2 ] || k=$((k + 2)) ;; esac
            # shellcheck disable=SC2086
            same "$c $f.$fmt K=$k" "$k" $c "$f.$fmt" "$fmt"
        done
    done
done
# zstd-compressed npy: the header in the first frame, data_off in the decompressed stream.
"$G" convert -q --frame-size 1K n1001.npy n1001.npy.zst
same "scan n1001.npy.zst K=3" 3 scan n1001.npy.zst npy.zst
same "minmax -w 33 n1001.npy.zst K=4" 4 minmax -w 33 n1001.npy.zst npy.zst

# zstd frames that cut elements (1025-byte frames of i32): shards start at the next whole element.
"$G" convert -q --frame-size 1025 n1001.raw cut.raw.zst
same "scan cut frames K=3" 3 scan -t i32 cut.raw.zst raw.zst
same "minmax -w 9 --partial cut frames K=4" 4 minmax -w 9 --partial -t i32 cut.raw.zst raw.zst

# Widening, floats (exact operators), a type other than i32 on minmax.
same "scan --out-type i64 n1001 K=3" 3 scan --out-type i64 n1001.raw raw
same "scan --op min f1003.npy K=4" 4 scan --op min f1003.npy npy
same "scan --op max --exclusive d777.raw.zst K=3" 3 scan --op max --exclusive -t f64 d777.raw.zst raw.zst
same "minmax -w 9 d777.raw K=2" 2 minmax -w 9 -t f64 d777.raw raw
same "compact --pred lt:0 f1003.raw.zst K=3" 3 compact --pred lt:0 -t f32 f1003.raw.zst raw.zst

# Float sums: the same K gives the same bytes run to run.
rm -f a.raw b.raw
if mpi 3 scan -q --threads 1 -t f32 f1003.raw a.raw 2>/dev/null && mpi 3 scan -q --threads 1 -t f32 f1003.raw b.raw 2>/dev/null &&
    cmp -s a.raw b.raw; then pass "scan f32 sum K=3 repeatable"; else fail "scan f32 sum K=3 repeatable" "runs differ"; fi

# --count: printed once, by rank 0.
for k in 2 3 4; do
    for f in n0 n3 s2999.raw.zst s2999.npy; do
        [ -f "$f" ] || f=$f.raw
        want=$("$G" compact -q --pred nonzero --count "$f")
        got=$(mpi "$k" compact -q --pred nonzero --count --threads 1 "$f" 2>/dev/null)
        if [ "$got" = "$want" ]; then pass "compact --count $f K=$k"; else fail "compact --count $f K=$k" "got [$got], want [$want]"; fi
    done
done

# Text output: one header line, rank 0's.
same "scan --to csv n1001 K=3" 3 scan --to csv n1001.raw csv

# CSV and text input: line-aligned byte ranges, the header line read once per rank and kept once.
"$G" convert -q -t i32 --to csv n1001.raw c.csv
"$G" convert -q -t i32 --to text n1001.raw c.txt
awk 'NR == 1 { print "id,price"; next } { print NR ",  " $1 "\r" }' c.csv >h.csv # header by name, CRLF, spaces
printf '5\n' >one.txt
: >empty.csv
same "scan -t i32 c.csv K=2" 2 scan -t i32 c.csv csv
same "scan --op min --exclusive c.txt K=3" 3 scan --op min --exclusive -t i32 c.txt raw
same "compact --pred lt:0 --indices c.csv K=4" 4 compact --pred lt:0 --indices -t i32 c.csv csv
same "minmax -w 300 c.txt K=4" 4 minmax -w 300 -t i32 c.txt text
same "minmax -w 3 --partial --col price h.csv K=3" 3 minmax -w 3 --partial --col price h.csv csv
same "scan --col 2 h.csv K=2" 2 scan --col 2 h.csv csv
same "scan one.txt K=4" 4 scan -t i32 one.txt text
same "minmax -w 2 empty.csv K=3" 3 minmax -w 2 -t i32 empty.csv raw

# One zstd frame: rank 0 reads it alone, said once.
"$G" convert -q --frame-size 1G n1001.raw single.raw.zst
same "scan one-frame zstd K=3" 3 scan single.raw.zst raw.zst
notes=$(mpi 3 scan --threads 1 single.raw.zst x.raw.zst 2>&1 | grep -c 'one zstd frame')
if [ "$notes" = 1 ]; then pass "one-frame note said once"; else fail "one-frame note said once" "$notes notes"; fi

# /dev/null output.
if mpi 2 minmax -q -w 5 --threads 1 n1001.raw /dev/null 2>err; then pass "output /dev/null K=2"; else fail "output /dev/null K=2" "$(head -c 200 err)"; fi

# Bad cases: exit status, exactly one error line, no output file (nor a temp file) left.
bad() { # NAME WANT -- ARGS...
    local name=$1 want=$2; shift 3
    rm -rf bad && mkdir bad && (cd bad && mpi "$@") >out 2>err </dev/null
    local rc=$? n
    n=$(grep -c '^gpustream: error: ' err)
    if [ "$rc" -ne "$want" ]; then fail "$name" "exit $rc, want $want: $(grep gpustream err | head -c 200)"
    elif [ "$n" -ne 1 ]; then fail "$name" "$n error lines: $(grep gpustream err | head -c 300)"
    elif [ -n "$(ls -A bad)" ]; then fail "$name" "left behind: $(ls -A bad)"
    else pass "$name"; fi
}
printf 'x\n1\n2\n3\n4\n5\n6\n7\n8\nabc\n9\n' >in.csv
"$G" convert -q -t i32 --to csv -z n1001.raw c.csv.zst
head -c $(($(stat -c %s n1001.raw.zst) - 1)) n1001.raw.zst >trunc.raw.zst
bad "stdin with K=2" 2 -- 2 scan - out.raw
bad "stdout with K=2" 2 -- 2 scan ../n1001.raw
bad "csv with a bad field, K=2" 1 -- 2 scan ../in.csv out.raw
if grep -q "^gpustream: error: ../in.csv: line 10 field 1: invalid number 'abc'" err; then pass "bad field: its line in the whole file"
else fail "bad field: its line in the whole file" "$(grep gpustream err)"; fi
bad "compressed csv input, K=2" 1 -- 2 scan ../c.csv.zst out.raw
# lines ended by CR alone: ranks split by LF, so such a file with a header is refused (it gave K
# copies once); without a header rank 0 reads every line (one process's output)
printf 'a\r1\r2\r3\r4\r' >cr.csv
bad "csv with CR line ends and a header, K=2" 1 -- 2 convert ../cr.csv out.txt
if grep -q "^gpustream: error: ../cr.csv: lines ended by CR alone cannot be split across ranks" err; then pass "CR line ends: the reason"
else fail "CR line ends: the reason" "$(grep gpustream err)"; fi
printf '1\r2\r3\r4\r' >crn.csv
same "csv with CR line ends, no header, K=2" 2 convert --no-header -t i32 crn.csv text
bad "unwritable output K=3" 1 -- 3 scan ../n1001.raw nodir/out.raw
bad "full disk K=3" 1 -- 3 scan ../n1001.raw /dev/full
bad "bad zstd input K=2" 1 -- 2 scan ../trunc.raw.zst out.raw
if command -v zstd >/dev/null; then # from a pipe the zstd CLI writes no content size: no frame table
    zstd -q -c <n1001.raw >nosize.raw.zst
    bad "zstd frames without a content size, K=2" 1 -- 2 scan ../nosize.raw.zst out.raw
else echo "SKIP zstd frames without a content size, K=2: no zstd CLI"; fi
rm -rf bad && mkdir bad && echo keep >bad/out.raw
(cd bad && mpi 2 scan -q ../n1001.raw out.raw) >/dev/null 2>err </dev/null
rc=$?
if [ "$rc" = 1 ] && [ "$(cat bad/out.raw)" = keep ] && [ "$(grep -c '^gpustream: error: .*exists' err)" = 1 ] &&
    [ "$(ls -A bad)" = out.raw ]; then pass "existing output kept without -f"
else fail "existing output kept without -f" "exit $rc: $(grep gpustream err | head -c 200)"; fi
(cd bad && mpi 2 scan -q -f --threads 1 ../n1001.raw out.raw) 2>err && "$G" scan -q n1001.raw one.raw -f &&
    cmp -s one.raw bad/out.raw && pass "existing output replaced with -f" || fail "existing output replaced with -f" "$(head -c 200 err)"
# A symlink as OUT (-f: a link counts as an existing output): written through to the file it names
# (the link stays), as one process does; nothing else is left (the temp name was renamed into place).
rm -rf ln && mkdir -p ln/real && ln -s real/target.raw ln/out.raw
"$G" scan -q n1001.raw one.raw -f
if (cd ln && mpi 2 scan -q -f --threads 1 ../n1001.raw out.raw) 2>err && [ -L ln/out.raw ] && cmp -s one.raw ln/real/target.raw &&
    [ "$(ls -A ln/real)" = target.raw ] && [ "$(ls -A ln)" = "out.raw
real" ]; then pass "symlink OUT written through K=2"
else fail "symlink OUT written through K=2" "$(ls -lA ln ln/real | tr '\n' ' ') $(head -c 200 err)"; fi
# A full file system (a 64 KiB tmpfs, where this user may mount one): the error says why, on one
# line, and nothing is left behind.
mkdir -p full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
    "$G" gen -q -n 100000 -t i32 big.raw
    (cd full && mpi 2 scan -q --threads 1 ../big.raw out.raw) >/dev/null 2>err </dev/null
    rc=$?
    if [ "$rc" = 1 ] && [ "$(grep -c '^gpustream: error: .*: No space left on device$' err)" = 1 ] && [ -z "$(ls -A full)" ]; then
        pass "full file system K=2: the reason named"
    else fail "full file system K=2: the reason named" "exit $rc: $(grep gpustream err | head -c 200); left: $(ls -A full)"; fi
    umount full
else echo "SKIP full file system K=2: cannot mount a tmpfs here"; fi
