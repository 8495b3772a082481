#!/usr/bin/env bash
# tests/cli/test_help.sh - help in two lengths: `VERB -h` a summary (usage, the verb's own options,
# two examples), `VERB --help` every option the verb takes; both, and `gpustream --help`, within
# 80 columns; an option's text in a verb's help leaves out what it means to other verbs.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

width() { awk '{ if (length > m) m = length } END { print m + 0 }'; }
# the example lines of a help text: the lines after "examples:" up to the next blank line
examples() { awk '/^examples:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print }'; }

for v in scan compact minmax convert gen bench info; do
    "$G" "$v" -h >"$T/short" 2>&1 || { fail "$v -h" "exit $?"; continue; }
    "$G" "$v" --help >"$T/long" 2>&1 || { fail "$v --help" "exit $?"; continue; }
    w=$(width <"$T/short"); W=$(width <"$T/long")
    if [ "$w" -le 80 ]; then pass "$v -h fits 80 columns"; else fail "$v -h fits 80 columns" "$w columns"; fi
    if [ "$W" -le 80 ]; then pass "$v --help fits 80 columns"; else fail "$v --help fits 80 columns" "$W columns"; fi
    ne=$(examples <"$T/short" | wc -l)
    want=2; [ "$v" = info ] && want=1 # info has one example
    missing=$(examples <"$T/short" | while read -r l; do grep -qF -- "$l" "$T/long" || echo "$l"; done)
    if [ "$ne" = "$want" ] && [ -z "$missing" ] && grep -q "^usage: gpustream $v" "$T/short"; then pass "$v -h: usage and $ne examples"
    else fail "$v -h: usage and examples" "$ne examples; not in --help: [$missing]"; fi
    ns=$(grep -c '^  .*--[a-z]' "$T/short"); nl=$(grep -c '^  .*--[a-z]' "$T/long")
    if [ "$ns" -lt "$nl" ]; then pass "$v -h is shorter than --help ($ns and $nl option lines)"
    else fail "$v -h is shorter than --help" "$ns and $nl option lines"; fi
done

# The verb's own options in -h; the engine's settings only in --help.
own() { # VERB OPTION...
    local v=$1 o; shift
    "$G" "$v" -h >"$T/short"
    for o in "$@"; do
        if grep -qE "^  (-[a-z], )? *$o" "$T/short"; then pass "$v -h lists $o"; else fail "$v -h lists $o" "not there"; fi
    done
}
own scan --op --exclusive --out-type
own compact --pred --invert --indices --count
own minmax --window --partial --only
own gen --elements --dist --seed
if "$G" scan -h | grep -q -- '--host-mem'; then fail "scan -h leaves out --host-mem" "listed"; else pass "scan -h leaves out --host-mem"; fi
if "$G" scan --help | grep -q -- '--host-mem'; then pass "scan --help lists --host-mem"; else fail "scan --help lists --host-mem" "missing"; fi
# Other verbs' meanings: --op in scan's help says nothing of bench; bench's --op says nothing of scan's sums.
if "$G" scan --help | grep -- '--op' | grep -q bench; then fail "scan --help: --op without bench's meaning" "$("$G" scan --help | grep -- '--op')"
else pass "scan --help: --op without bench's meaning"; fi
if "$G" bench --help | grep -- '--op ' | grep -q 'sum (default)'; then fail "bench --help: --op without scan's meaning" "found"
else pass "bench --help: --op without scan's meaning"; fi

"$G" --help >"$T/main"
w=$(width <"$T/main")
if [ "$w" -le 80 ]; then pass "gpustream --help fits 80 columns"; else fail "gpustream --help fits 80 columns" "$w columns"; fi
# help VERB is the long help
if cmp -s <("$G" help minmax) <("$G" minmax --help); then pass "help VERB = VERB --help"; else fail "help VERB = VERB --help" "differ"; fi
# A wrapped example stays one shell command: its continuation ends in a backslash outside quotes.
if "$G" bench --help | grep -q "\\\\$" && ! "$G" bench --help | grep -q "'[^']*\\\\$"; then pass "wrapped examples continue with a backslash"
else fail "wrapped examples continue with a backslash" "$("$G" bench --help | grep '\\$' | head -2)"; fi
