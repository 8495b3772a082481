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


def need(label, *modules):
    """The modules named, imported; where one is missing, `SKIP label: why` and exit 0 (a tool
    this machine lacks is skipped, never failed)."""
    import importlib
    try:
        return [importlib.import_module(m) for m in modules]
    except ImportError as e:
        print(f"SKIP {label}: {e}")
        sys.exit(0)


def cli_args():
    """The test programs' arguments: the binary, a scratch folder, --quick, --backend B."""
    a = sys.argv
    return a[1], a[2], "--quick" in a, a[a.index("--backend") + 1] if "--backend" in a else "cpu"
