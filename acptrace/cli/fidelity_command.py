"""`acptrace fidelity`: did each replay carry the history as it was first sent live?"""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

from enum import StrEnum
from typing import Annotated

import typer

from acptrace.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    fail,
    print_error,
    print_note,
    rich_bytes,
)
from acptrace.cli.output import check_output, write_output
from acptrace.cli.progress import reading
from acptrace.cli.root import app
from acptrace.cli.settings import AnalysisFlags
from acptrace.cli.typer_options import FORMAT, QuietOption, analysis_options, output_option
from acptrace.fidelity import FidelityReport, PlaceNames, fidelity
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.render.text import plural

SHOWN_ISSUES = 20
"""Input issues listed on stderr; the JSON has them all."""


class FidelityFormat(StrEnum):
    """Output formats of `fidelity`."""

    RICH = "rich"
    JSON = "json"


@app.command("fidelity")
# (no rules judged, its own exit code: only the options of reading the input and its history)
@analysis_options(
    omit=(
        "fail_on",
        "strict",
        "assume_closed",
        "protocol",
        "child_rules",
        "select",
        "ignore",
        "schema",
        "idle_timeouts",
    )
)
def fidelity_command(
    live: Annotated[
        str,
        typer.Argument(
            metavar="LIVE",
            help="The live recording, or one transcript holding the live session and its "
            "later replay (`-` for stdin).",
        ),
    ],
    replayed: Annotated[
        str | None,
        typer.Argument(
            metavar="[REPLAYED]", help="The recording of the replay, when it is another file."
        ),
    ] = None,
    output_format: Annotated[FidelityFormat, FORMAT] = FidelityFormat.RICH,
    output: Annotated[
        str | None,
        output_option("Write the comparison, in --format, to this file instead of stdout."),
    ] = None,
    fail_under: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            metavar="RATIO",
            help="Exit 1 when a replayed session's fidelity is below this ratio (0 to 1). "
            "Sessions without a ratio (not judged, no live history) are skipped, and named on "
            "stderr; exit 2 when no session has one.",
        ),
    ] = None,
    fail_on_reorder: Annotated[
        bool,
        typer.Option(
            "--fail-on-reorder",
            help="Exit 1 when a replay moved an item out of the live order.",
        ),
    ] = False,
    *,
    flags: AnalysisFlags,
    quiet: QuietOption = False,
) -> None:
    """Compare each replay's history with the live one.

    Each replayed session's history against the history as first sent live.

    Per session: items live and replayed, missing, extra, changed (with a short diff),
    reordered, and the fidelity ratio (`—`, with the reason, for a replay that was refused or
    is ambiguous, and without live history). The result goes to stdout, or to the file -o
    names.
    """
    check_output(output)
    options = flags.policy(quiet=quiet, judged=False).options
    if live == "-" and replayed == "-":
        fail("only one of the files can be stdin (`-`)")
    try:
        with reading(quiet):
            report = fidelity(live, replayed, options, require_transcripts=True)
    except UsageError as error:
        fail(str(error))
    except UnreadableInput as error:
        print_error(str(error))
        raise typer.Exit(EXIT_ERROR) from None
    if not quiet:
        _warn_issues(report)
    write_output(_render(report, output_format, output), output)
    if fail_under is not None:
        _gate(report, fail_under, quiet)
    below = fail_under is not None and bool(report.below(fail_under))
    moved = fail_on_reorder and bool(report.reordered())
    raise typer.Exit(EXIT_FINDINGS if below or moved else EXIT_OK)


def _gate(report: FidelityReport, ratio: float, quiet: bool) -> None:
    """`--fail-under` judges the sessions with a ratio: those without one are named on stderr
    (unless `quiet`), and with none at all there is nothing to judge: exit 2, one line."""
    skipped = [entry for entry in report.sessions if entry.no_ratio is not None]
    if not report.rated():
        reasons = ", ".join(sorted({entry.no_ratio or "" for entry in skipped}))
        none = (
            f"none of {plural(len(skipped), 'replayed session')} has a fidelity ({reasons})"
            if skipped
            else "no replays to compare"
        )
        print_error(f"--fail-under {ratio:g} checked nothing: {none}")
        raise typer.Exit(EXIT_ERROR)
    if skipped and not quiet:
        lines = PlaceNames.of(report.paths)
        named = ", ".join(f"{lines.at(entry.path, entry.request_line)} ({entry.no_ratio})"
                          for entry in skipped)  # fmt: skip
        print_note(f"--fail-under {ratio:g} skips {plural(len(skipped), 'session')} without "
                   f"a fidelity: {named}")  # fmt: skip


def _render(report: FidelityReport, output_format: FidelityFormat, output: str | None) -> bytes:
    from acptrace.render import fidelity_view  # (rich, only where it is drawn)

    match output_format:
        case FidelityFormat.JSON:
            return fidelity_view.fidelity_json(report)
        case FidelityFormat.RICH:
            return rich_bytes(fidelity_view.fidelity_view(report), output=output)


def _warn_issues(report: FidelityReport) -> None:
    """Input problems on stderr, one line each up to `SHOWN_ISSUES` (all are in the JSON)."""
    for found in report.issues[:SHOWN_ISSUES]:
        issue = found.issue
        print_note(f"{found.path}:{issue.line}: {issue.kind.value}: {issue.message}")
    if len(report.issues) > SHOWN_ISSUES:
        more = len(report.issues) - SHOWN_ISSUES
        print_note(f"… and {plural(more, 'more input issue')}")
