"""Run every timed command with acptrace's byte code compiled, as an installed package has it.

`pip install` compiles a package's modules to byte code, so a user's `acptrace` does not parse
its ~100 modules on every start. A shell with `PYTHONDONTWRITEBYTECODE` set (this workplace's
machines set it) would charge each timed run for that instead: about 50 ms of start-up, and
again in every worker. `use_installed_bytecode()` clears the variable for the commands this
process starts, keeps their byte code under `benchmarks/out/pycache/` (not beside the sources),
and compiles the package there once, before anything is timed.
"""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "acptrace"
CACHE = HERE / "out" / "pycache"


def use_installed_bytecode() -> None:
    """Commands started from now on read compiled byte code from `CACHE` (made here)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(CACHE)
    sys.pycache_prefix = str(CACHE)
    sys.dont_write_bytecode = False
    compileall.compile_dir(PACKAGE, quiet=1)
