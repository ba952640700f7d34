"""Shared helpers of the Python scripts: clear failures for missing imports."""
import importlib
import os
import subprocess
import sys


def die(message):
    """Bad input or set-up: one line on stderr, exit code 2."""
    print(message, file=sys.stderr)
    sys.exit(2)


def need(module, how):
    """Imports module or exits 2 with the command that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        die(f"xfbench: Python module '{module}' is missing; run {how}")


def require_clean(top, dest, allow_dirty):
    """Refuses (exit 2) to record into top/results from a tree with
    uncommitted changes unless allow_dirty (scripts/provenance.sh says
    why); the rows' commit column then ends in -dirty."""
    results = os.path.join(os.path.realpath(top), "results") + os.sep
    if allow_dirty or not os.path.abspath(dest).startswith(results):
        return
    status = subprocess.run(["git", "-C", top, "status", "--porcelain", "--untracked-files=no"],
                            capture_output=True, text=True)
    if status.returncode == 0 and status.stdout.strip():
        die(f"{os.path.basename(sys.argv[0])}: the tree has uncommitted changes; commit them before recording "
            "into results/, or pass --allow-dirty (the rows' commit then ends in -dirty)")
