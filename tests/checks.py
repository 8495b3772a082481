"""tests/checks.py - the PASS and FAIL lines of the Python test programs (tests/*.py) and their
counts, in the form tests/run.sh counts."""
import sys

counts = {"passed": 0, "failed": 0}


def check(ok, name, why="", limit=400):
    """One check: `PASS name`, or `FAIL name: why` cut to LIMIT characters (None: whole)."""
    if ok:
        counts["passed"] += 1
        print(f"PASS {name}")
    else:
        counts["failed"] += 1
        line = f"FAIL {name}: {why}"
        print(line[:limit] if limit else line)
    sys.stdout.flush()


def summary(label=""):
    """The closing line; the exit status (1 where a check failed)."""
    print(f"# {label}{counts['passed']} passed, {counts['failed']} failed")
    return 1 if counts["failed"] else 0
