"""`acptrace analyze` as typer runs it: its help, its errors and completion; a well-formed command
line is read without typer (`acptrace.cli.quick`), by the same declaration (`AnalyzeLine`)."""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

import typer

from acptrace.cli.analyze_run import AnalyzeLine, run_analyze
from acptrace.cli.root import app
from acptrace.cli.typer_options import takes


@app.command("analyze")
@takes(AnalyzeLine)
def analyze_command(line: AnalyzeLine) -> None:
    """Analyse transcripts: outcomes, latencies, findings.

    Resume outcomes, replay latencies and rule findings for each connection.

    The result goes to stdout, or to the file -o names. Over several files (or connections)
    the terminal view ends with a summary across them all; --summary prints that alone.
    """
    raise typer.Exit(run_analyze(line))
