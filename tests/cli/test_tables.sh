#!/usr/bin/env bash
# tests/cli/test_tables.sh - real CSV tables: missing values and the positions of dropped rows
# against pandas (tests/tables.py: every NA spelling, empty fields in every column position,
# quoted delimiters and line breaks, CRLF, --na V|skip, --skip-bad, --indices over several --chunk
# and --threads values, stdin), input detected by content, output formats gpustream does not write,
# and compact --rows. PASS/FAIL/SKIP lines for tests/run.sh; pandas missing: its checks skip.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

python3 tests/tables.py "$G" "$T/tables" ${TABLES_QUICK:+--quick}
