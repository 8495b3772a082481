#!/usr/bin/env bash
# tests/cli/test_chains.sh - chains (`gpustream A then B then C`) against the same verbs piped in
# a shell, byte for byte: every ordered pair of scan, compact, minmax --only min, minmax --only max
# and the triples below, on the six types, with odd chunk sizes, chunks that compaction empties,
# windows longer than any chunk that reaches them, and n = 0 and 1. Bad chains exit 2 naming the
# stage and leave no output. Float sums: a chain's scan after a compaction sees other chunk
# boundaries than a scan reading a pipe, so float scans use the sequential variant (--algo cpu),
# whose result does not depend on chunking; integer sums, min/max, compaction and windows never do.
#   BACKEND=gpu (default cpu) runs the chains on the GPU (tests/gpu/run.sh step "chains"); the
#   shell pipes always run on the CPU backend, so the comparison is GPU chain vs CPU verbs. The GPU
#   sums floats in its own order, so there a float "scan" stage is scan --op max (exact); bench
#   --chain below checks GPU float sums within the reassociation bound. TYPES="i32 f64" narrows.
# Prints PASS/FAIL lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
G=${G:-./gpustream}
case $G in /*) ;; *) G=$PWD/${G#./} ;; esac
BACKEND=${BACKEND:-cpu}
T=$(mktemp -d -p "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)")
trap 'rm -rf "$T"' EXIT

npass=0
nfail=0
pass() { echo "PASS $1"; npass=$((npass + 1)); }
fail() { echo "FAIL $1: $2"; nfail=$((nfail + 1)); }

# Input per type: random values, a run of zeros longer than several chunks (compaction empties
# those chunks), random again, a short run of zeros.
mkdata() { # type -> $T/in.TYPE
    local t=$1 d
    case $t in u32 | u64) d=uniform:0:100 ;; *) d=uniform:-50:50 ;; esac
    {
        "$G" gen -q -n 1500 -t "$t" --dist "$d" --seed 7
        "$G" gen -q -n 2000 -t "$t" --dist uniform:0:0
        "$G" gen -q -n 1234 -t "$t" --dist "$d" --seed 9
        "$G" gen -q -n 77 -t "$t" --dist uniform:0:0
    } >"$T/in.$t"
    : >"$T/empty.$t"
    "$G" gen -q -n 1 -t "$t" --dist "$d" --seed 3 >"$T/one.$t"
}

# The type a stage writes for its input type.
out_type() { # stage-text in-type
    case $1 in
    *--indices*) echo u64 ;;
    *"--out-type "*) local r=${1#*--out-type }; echo "${r%% *}" ;;
    *) echo "$2" ;;
    esac
}

# A stage's text for an input type: predicates that keep about half and drop the zeros; float
# sums sequential.
stage() { # name type W
    local gt=0
    case $2 in u32 | u64) gt=50 ;; esac
    case $1 in
    scan) case $2 in f32 | f64) [ "$BACKEND" = gpu ] && echo "scan --op max" || echo "scan --algo cpu" ;;
          *) echo "scan" ;; esac ;;
    scanmax) echo "scan --op max" ;;
    scan64) echo "scan --out-type i64" ;;
    compact) echo "compact --pred gt:$gt" ;;
    compact0) echo "compact --pred gt:0" ;;
    nonzero) echo "compact --pred nonzero" ;;
    indices) echo "compact --pred gt:$gt --indices" ;;
    mmin) echo "minmax -w $3 --only min" ;;
    mmax) echo "minmax -w $3 --only max" ;;
    mmaxp) echo "minmax -w $3 --only max --partial" ;;
    mboth) echo "minmax -w $3" ;;
    count) echo "compact --pred gt:$gt --count" ;;
    esac
}

# check NAME TYPE CHUNK W INPUT STAGE...: the chain vs the shell pipe of the same stages.
check() {
    local name=$1 t=$2 chunk=$3 w=$4 in=$5
    shift 5
    local chain=() pipe="" ty=$t s k=0 txt
    for s in "$@"; do
        txt=$(stage "$s" "$ty" "$w")
        [ $k -gt 0 ] && chain+=(then)
        # shellcheck disable=SC2206
        chain+=($txt)
        pipe+="${pipe:+ | }\"\$G\" $txt -q -t $ty --backend cpu --chunk $chunk"
        ty=$(out_type "$txt" "$ty")
        k=$((k + 1))
    done
    local want=$T/want got=$T/got
    rm -f "$want" "$got"
    if ! G=$G bash -c "$pipe" <"$in" >"$want" 2>"$T/pipe.err"; then
        fail "$name" "shell pipe failed: $(head -1 "$T/pipe.err")"
        return
    fi
    local out=("$got") # --count prints the count on stdout
    [ "$s" = count ] && out=()
    if ! "$G" "${chain[@]}" -q -t "$t" --backend "$BACKEND" --chunk "$chunk" "$in" "${out[@]+"${out[@]}"}" \
        >"$T/chain.out" 2>"$T/chain.err"; then
        fail "$name" "chain failed: $(head -1 "$T/chain.err") [${chain[*]}]"
        return
    fi
    [ "$s" = count ] && mv "$T/chain.out" "$got"
    if cmp -s "$want" "$got"; then
        pass "$name"
    else
        fail "$name" "differs from the shell pipe ($(stat -c %s "$got") vs $(stat -c %s "$want") bytes) [${chain[*]} -t $t --chunk $chunk]"
    fi
}

TYPES=${TYPES:-"i32 i64 u32 u64 f32 f64"}
for t in $TYPES; do mkdata "$t"; done
[ -f "$T/in.i32" ] || mkdata i32 # the cases after the matrix read it whatever TYPES says

# Every ordered pair, at two shapes: 172-byte chunks (43 or 21 elements) with W = 100, longer
# than any chunk a compaction passes on; 1000-byte chunks with W = 3.
PAIR="scan compact mmin mmax"
for t in $TYPES; do
    for a in $PAIR; do
        for b in $PAIR; do
            check "pair $a>$b $t chunk 172 W 100" "$t" 172 100 "$T/in.$t" "$a" "$b"
            check "pair $a>$b $t chunk 1000 W 3" "$t" 1000 3 "$T/in.$t" "$a" "$b"
        done
    done
done

# Triples and the other shapes.
for t in $TYPES; do
    for cw in "172 100" "1000 3" "4100 777"; do
        set -- $cw
        c=$1 w=$2
        check "compact>scan>mmax $t chunk $c W $w" "$t" "$c" "$w" "$T/in.$t" compact scan mmax
        check "nonzero>scanmax>mmaxp $t chunk $c W $w" "$t" "$c" "$w" "$T/in.$t" nonzero scanmax mmaxp
        check "indices>scan $t chunk $c" "$t" "$c" "$w" "$T/in.$t" indices scan
        check "mmin>compact $t chunk $c W $w" "$t" "$c" "$w" "$T/in.$t" mmin compact
        check "scan>scan $t chunk $c" "$t" "$c" "$w" "$T/in.$t" scan scan
        check "compact>mboth $t chunk $c W $w" "$t" "$c" "$w" "$T/in.$t" compact mboth
        check "scan>mmin>compact>count $t chunk $c W $w" "$t" "$c" "$w" "$T/in.$t" scan mmin count
    done
    case $t in i32) check "scan64>compact0 $t" "$t" 172 3 "$T/in.$t" scan64 compact0
                    check "scan64>compact0>scan $t chunk 1000" "$t" 1000 3 "$T/in.$t" scan64 compact0 scan ;; esac
    # n = 0 and n = 1
    for f in empty one; do
        check "$f: compact>scan>mmax $t" "$t" 172 2 "$T/$f.$t" compact scan mmax
        check "$f: mmin>scan $t W 1" "$t" 172 1 "$T/$f.$t" mmin scan
        check "$f: scan>mmaxp $t" "$t" 172 5 "$T/$f.$t" scan mmaxp
    done
done

# IN and OUT and run-wide options may sit in any stage; the same value twice is allowed.
"$G" compact --pred gt:0 -q -t i32 --backend cpu --chunk 172 <"$T/in.i32" | "$G" scan -q -t i32 >"$T/want"
rm -f "$T/got"
if "$G" compact --pred gt:0 -t i32 "$T/in.i32" then scan -t i32 -q --backend "$BACKEND" --chunk 172 "$T/got" &&
    cmp -s "$T/want" "$T/got"; then
    pass "IN in stage 1, OUT in stage 2, -t twice with one value"
else
    fail "IN in stage 1, OUT in stage 2, -t twice with one value" "exit or output differs"
fi

# Given twice within one stage, an option takes its last value, as for a single verb (stage
# options and run-wide ones alike); the run-wide rule compares the stages' last values.
"$G" minmax -w 3 --only max -q -t i32 --backend cpu "$T/in.i32" | "$G" scan -q -t i32 >"$T/want"
rm -f "$T/got"
if "$G" minmax -w 0 -w 3 --only min --only max -t i64 -t i32 "$T/in.i32" then scan -t i32 -q --backend "$BACKEND" \
    "$T/got" && cmp -s "$T/want" "$T/got"; then
    pass "last option wins within a stage"
else
    fail "last option wins within a stage" "exit or output differs"
fi
if "$G" scan --progress -t i32 then scan --no-progress --progress -q --backend "$BACKEND" "$T/in.i32" -f "$T/got" 2>/dev/null; then
    pass "--no-progress --progress in a stage is --progress"
else
    fail "--no-progress --progress in a stage is --progress" "refused"
fi

# CSV through a chain: the header follows the stages as it does through a pipe.
if [ -f data/prices.csv ]; then
    "$G" compact --pred gt:100 -q --backend cpu data/prices.csv --col 2 --to csv | "$G" scan -q --algo cpu --from csv --to csv >"$T/want.csv"
    "$G" compact --pred gt:100 then scan --algo cpu -q data/prices.csv --col 2 --to csv >"$T/got.csv"
    if cmp -s "$T/want.csv" "$T/got.csv"; then pass "csv compact>scan"; else fail "csv compact>scan" "differs"; fi
fi

# --stats: a row per stage.
if "$G" compact --pred gt:0 then scan then minmax -w 5 --only max -t i32 --backend "$BACKEND" --stats "$T/in.i32" \
    -f "$T/got" 2>"$T/stats" && grep -q "1 compact" "$T/stats" && grep -q "2 scan" "$T/stats" &&
    grep -q "3 minmax" "$T/stats"; then
    pass "--stats shows each stage"
else
    fail "--stats shows each stage" "$(head -3 "$T/stats")"
fi

# bench --chain: the chain beside its stages one by one, checked against them.
if "$G" bench --chain 'compact --pred nonzero then scan then minmax -w 500 --only max' -n 100000 -t i32,f64 \
    --chunk 64K --reps 1 --backend "$BACKEND" >"$T/bench" 2>&1 && grep -q "^# 10 rows, 0 FAILED" "$T/bench" &&
    [ "$(grep -c '^chain .*passed$' "$T/bench")" -eq 10 ]; then
    pass "bench --chain"
else
    fail "bench --chain" "$(tail -2 "$T/bench")"
fi
"$G" bench --chain 'minmax -w 5 then scan' -n 1000 >"$T/bench" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "stage 1 (minmax): .*--only" "$T/bench"; then pass "bench --chain refuses a bad chain"
else fail "bench --chain refuses a bad chain" "exit $rc: $(head -1 "$T/bench")"; fi
"$G" bench --chain 'scan -t i64 then scan' -n 1000 >"$T/bench" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "give -t/--type to bench itself" "$T/bench"; then pass "bench --chain refuses run-wide options"
else fail "bench --chain refuses run-wide options" "exit $rc: $(head -1 "$T/bench")"; fi

# Bad chains: exit 2, one error line naming the stage (PATTERN), nothing in the directory.
bad() { # name pattern -- args...
    local name=$1 pat=$2
    shift 3
    local D=$T/bad
    rm -rf "$D"
    mkdir -p "$D"
    cp "$T/in.i32" "$D/in.raw"
    (cd "$D" && "$G" "$@" >"$T/bad.out" 2>"$T/bad.err")
    local rc=$?
    local left
    left=$(cd "$D" && ls -A | tr '\n' ' ')
    if [ "$rc" -ne 2 ]; then
        fail "bad: $name" "exit $rc, want 2 ($(head -1 "$T/bad.err"))"
    elif [ "$(grep -c '^gpustream: error:' "$T/bad.err")" -ne 1 ] || ! grep -Eq -e "$pat" "$T/bad.err"; then
        fail "bad: $name" "message '$(head -1 "$T/bad.err")' does not match '$pat'"
    elif [ "$left" != "in.raw " ] || [ -s "$T/bad.out" ]; then
        fail "bad: $name" "left output behind: '$left'"
    else
        pass "bad: $name"
    fi
}
bad "unknown op" "error: stage 2 \(scan\): unknown --op 'avg'" -- compact --pred gt:0 then scan --op avg in.raw out.raw
bad "minmax pairs in the middle" "stage 1 \(minmax\): .*--only min or --only max" -- minmax -w 5 then scan in.raw out.raw
bad "minmax pairs before a third stage" "stage 2 \(minmax\): .*--only" -- compact then minmax -w 5 then scan in.raw out.raw
bad "--count not last" "stage 1 \(compact\): --count ends a chain" -- compact --count then scan in.raw out.raw
bad "convert as a stage" "stage 2: convert is not a chain stage" -- scan then convert in.raw out.raw
bad "convert first" "stage 1 \(convert\): convert is not a chain stage" -- convert then scan in.raw out.raw
bad "gen as a stage" "stage 2: gen is not a chain stage" -- scan then gen in.raw out.raw
bad "unknown verb" "stage 2: unknown verb 'sort'" -- scan then sort in.raw out.raw
bad "then at the end" "stage 2: 'then' needs a verb" -- scan then
bad "-t twice" "-t/--type 'i32' in stage 1 and -t/--type 'i64' in stage 2" -- scan -t i32 then compact -t i64 in.raw out.raw
bad "--chunk twice" "--chunk '1M' in stage 1 and --chunk '2M' in stage 3" -- scan --chunk 1M then scan then scan --chunk 2M in.raw out.raw
bad "--progress and --no-progress" "--progress in stage 1 and --no-progress in stage 2" -- scan --progress then scan --no-progress in.raw out.raw
bad "-t twice, the last differs" "-t/--type 'i64' in stage 1 and -t/--type 'i32' in stage 2" -- scan -t i32 -t i64 then compact -t i32 in.raw out.raw
bad "stage option in the wrong stage" "stage 2 \(scan\): unknown option '--pred'" -- compact then scan --pred gt:0 in.raw out.raw
bad "window missing" "stage 2 \(minmax\): minmax needs --window" -- scan then minmax --only max in.raw out.raw
bad "predicate for the stage's type" "stage 2 \(compact\): invalid value in predicate 'gt:0.5' for type i64" -- scan --out-type i64 then compact --pred gt:0.5 in.raw out.raw
bad "out-type that does not widen" "stage 1 \(scan\): --out-type f32 cannot hold a scan of i32" -- scan --out-type f32 then compact in.raw out.raw
bad "indices then float predicate" "stage 2 \(compact\): invalid value in predicate 'gt:1.5' for type u64" -- compact --indices then compact --pred gt:1.5 in.raw out.raw
bad "three inputs" "unexpected argument" -- scan in.raw then scan out.raw third.raw

echo "# chains ($BACKEND): $npass passed, $nfail failed"
