"""`acptrace analyze` without typer: its command line read by its declaration (`acptrace.cli.argv`)
and run, for a start-up without typer's imports (~85M instructions of ~420M, issue #35).

Only a command line that is sure to mean what typer would make of it takes this path; anything
else (`--help`, a mistake, a shell's completion request) is typer's, unchanged, so every help
text, error message and exit code stays typer's. The run itself is the command's own
(`run_analyze`), ended as typer's command ends it (`plainly`, and an `AcptraceError` as one
line and exit 2).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import NoReturn


def quick_analyze(args: Sequence[str]) -> Callable[[], NoReturn] | None:
    """The run of `analyze ARGS`, if they are read without typer; else None."""
    if os.name == "nt" or _completing():
        return None  # (typer expands globs on Windows, and answers completion requests)
    from acptrace.cli.analyze_run import AnalyzeLine, run_analyze
    from acptrace.cli.argv import read_line

    line = read_line(AnalyzeLine, args)
    if line is None:
        return None

    def run() -> NoReturn:
        from acptrace.cli.common import fail, plainly
        from acptrace.model.errors import AcptraceError

        try:
            with plainly():
                code = run_analyze(line)
        except AcptraceError as error:  # (the last net, as `acptrace.cli.root.main` has it)
            fail(str(error))
        raise SystemExit(code)

    return run


def _completing() -> bool:
    """A shell asks for completions (click's `_ACPTRACE_COMPLETE=…`, however the program is
    named: `_` + its name + `_COMPLETE`; other variables that end so, `SETUP_COMPLETE` in a CI
    job, are not it)."""
    return any(
        name.startswith("_") and name.endswith("_COMPLETE") and value
        for name, value in os.environ.items()
    )
