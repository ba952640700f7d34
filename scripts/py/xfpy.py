"""Shared helpers of the Python scripts: clear failures for missing imports."""
import importlib
import sys


def need(module, how):
    """Imports module or exits 2 with the command that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        sys.exit(f"xfbench: Python module '{module}' is missing; run {how}")
