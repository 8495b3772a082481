#!/usr/bin/env bash
# tests/bench/kernels.sh - the kernels on data already in memory: `gpustream bench ARGS` (default
# --op all -t i32: every variant of scan, compact and minmax on 2^28 elements in device memory,
# each row the median of 10 timed repeats, checked against the CPU reference, with plain CUB's rows
# and the ceilings beside), run REPS times (default 3), BIN and BASE in turn. Per row: the median
# of the runs' ms, and with BASE its ms and new/base. Any row that did not pass is named.
#   bash tests/bench/kernels.sh
#   BASE=/path/to/old/gpustream OUT=/tmp/out bash tests/bench/kernels.sh
#   ARGS="--backend cpu --op all -t i32 -n 2^16 --reps 3" REPS=1 bash tests/bench/kernels.sh   (no GPU)
REPS=${REPS:-3}
. "$(dirname "$0")/lib.sh"
# shellcheck disable=SC2206
ARGS=(${ARGS:---op all -t i32})
header "kernels: gpustream bench ${ARGS[*]}" "$REPS runs${BASE:+, BIN and BASE in turn}; per row the median of their ms"
for r in $(seq 1 "$REPS"); do
    for b in new ${BASE:+base}; do
        exe=$BIN
        [ $b = base ] && exe=$BASE
        "$exe" bench "${ARGS[@]}" --csv "$D/$b.$r.csv" >"$D/$b.$r.txt" 2>&1 ||
            echo "FAILED ($b): bench ${ARGS[*]}: $(tail -2 "$D/$b.$r.txt")"
    done
done
grep -h '^# ' "$D"/new.1.csv | head -1
# rows keyed by mode, op, variant, type, n, param, block; ms is column 8, check column 13
awk -F, '
    FNR == 1 { b = (FILENAME ~ /\/base\.[0-9]+\.csv$/) ? "base" : "new" }
    /^#/ || /^mode,/ { next }
    {
        k = $1 " " $2 " " $3 " " $4 " " $5 " " $6 ($7 != 0 ? " block=" $7 : "")
        if (!(k in seen)) { seen[k] = 1; order[++n] = k }
        ms[b, k] = ms[b, k] " " $8
        if ($13 != "passed" && $13 != "reference") bad[k] = bad[k] " " b ":" $13
    }
    function med(list,   v, m, i, j, t) {
        m = split(list, v, " ")
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
        return m ? v[int((m + 1) / 2)] : ""
    }
    END {
        printf "%-64s %10s %10s %9s\n", "mode op variant type n param", "ms", "base ms", "new/base"
        for (i = 1; i <= n; i++) {
            k = order[i]; a = med(ms["new", k]); c = med(ms["base", k])
            printf "%-64s %10s %10s %9s%s\n", k, a, c, (a != "" && c != "" && c > 0) ? sprintf("%.3f", a / c) : "",
                (k in bad) ? "  NOT PASSED:" bad[k] : ""
        }
    }' "$D"/*.csv
