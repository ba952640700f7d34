"""Shared helpers of the Python scripts: clear failures for missing imports."""
import importlib
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
