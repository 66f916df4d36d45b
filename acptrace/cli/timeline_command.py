"""`acptrace timeline`: read one connection (or one session, request or stretch) as it unfolded.

The timeline streams: rows are written as the transcript is read, so memory stays flat however
long it is, and however many findings it has (they are parked in a scratch folder and read
back in line order). A file is first analysed (a cheap pass) so that every row can show its
replay window, outcome and findings; stdin or a pipe is read once (see docs/timeline.md).
"""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import msgspec
import typer

from acptrace.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    fail,
    is_plain,
    plain_width,
    print_error,
    reader_gone,
    rich_bytes,
)
from acptrace.cli.output import Write, check_output, output_stream
from acptrace.cli.progress import reading
from acptrace.cli.root import app
from acptrace.cli.settings import AnalysisFlags
from acptrace.cli.typer_options import QuietOption, analysis_options, output_option
from acptrace.correlate.correlator import Step
from acptrace.judge.policy import Policy
from acptrace.model.domain import Analysis, UpdateRun
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.model.options import Execution, Options
from acptrace.model.temporary import scratch_folder
from acptrace.pipeline.analysis import Item, Walk
from acptrace.pipeline.parked import ParkedFindings, analyze_parked
from acptrace.pipeline.transcripts import open_walks, require_transcript
from acptrace.read.source import replayable
from acptrace.render.entries import DEFAULT_CONTEXT, TimelineBuilder, View, session_tree
from acptrace.render.text import printable, short_id
from acptrace.render.timeline import Rows, TimelineStream, timeline_heading

Parked = tuple[Analysis, ParkedFindings]
"""An analysis and its findings, parked on disk (the analysis holds none)."""
LISTED_SESSIONS = 20
"""At most this many sessions are listed when --session names none of them."""
EVERY_RULE = ("",)
"""`Options.ignore` that leaves out every rule (each rule ID begins with the empty string)."""


@app.command("timeline")
# (its view shows no idle-timer verdicts; it exits 1 on --fail-on, and took no --strict)
@analysis_options(omit=("strict", "idle_timeouts"))
def timeline_command(
    file: Annotated[str, typer.Argument(metavar="FILE", help="The transcript (`-` for stdin).")],
    session: Annotated[
        str | None,
        typer.Option(
            metavar="ID",
            help="Show only this session, the children it announces and their answers.",
        ),
    ] = None,
    request: Annotated[
        str | None,
        typer.Option(
            metavar="ID",
            help="Show only requests with this id, their answers and what came between.",
        ),
    ] = None,
    around: Annotated[
        int | None, typer.Option(min=1, metavar="LINE", help="Show only the lines around this one.")
    ] = None,
    context: Annotated[
        int, typer.Option(min=0, metavar="N", help="Lines either side of --around.")
    ] = DEFAULT_CONTEXT,
    lines: Annotated[
        str | None,
        typer.Option(metavar="A-B", help="Show only input lines A to B (`A-` to the end)."),
    ] = None,
    full: Annotated[
        bool, typer.Option("--full", help="Show payloads and ids whole instead of cut.")
    ] = False,
    output: Annotated[
        str | None, output_option("Write the view to this file instead of stdout.")
    ] = None,
    quiet: QuietOption = False,
    *,
    flags: AnalysisFlags,
) -> None:
    """Show one connection as it unfolded, line by line.

    Replay windows, request/response links and findings, row by row.

    The view goes to stdout, or to the file -o names. Exit 1 when a finding is at or above
    --fail-on, as for `analyze`.
    """
    check_output(output)
    policy = flags.policy(quiet=quiet)  # (-q: only the view and errors, for scripts)
    view = View(session, request, around, context, full, _line_range(lines))
    try:
        # a session's view needs its tree ahead (children that speak before their
        # announcement): stdin or a FIFO is then copied once, and read twice as a file
        copied = replayable(file) if session is not None else nullcontext(file)
        # the findings wait on disk, not in memory (a million would take hundreds of MB)
        watched = reading(quiet or output is None)  # (on a terminal the view is the progress)
        with (
            watched,
            copied as readable,
            scratch_folder(tempfile.gettempdir(), "timeline") as scratch,
        ):
            rereadable = _rereadable(readable)
            ahead = (
                analyze_parked(readable, policy.options, scratch / "ahead", name=file)
                if rereadable
                else None
            )
            if ahead is not None:
                _require_transcript(file, ahead)  # (an empty or a binary file is an error)
                if session is not None:  # (the id, or the short form the tables print)
                    session = _session_named(session, [analysis for analysis, _ in ahead])
                    view = replace(view, session=session)
            with output_stream(output) as write:
                analyses = _write_timelines(
                    readable, file, policy.options, view, ahead, write, output, scratch
                )
                _require_transcript(file, analyses)  # (read once: known only now)
            failed = _exit_code(policy, analyses)
    except UsageError as error:
        fail(str(error))
    except UnreadableInput as error:
        print_error(str(error))
        raise typer.Exit(EXIT_ERROR) from None
    except BrokenPipeError:  # the reader stopped (`| head`): nothing more to say
        reader_gone()
    except OSError as error:  # the output cannot be written (-o in a missing folder, disk full)
        where = output if output not in (None, "-") else "stdout"
        print_error(f"cannot write {where}: {error.strerror or error}")
        raise typer.Exit(EXIT_ERROR) from None
    raise typer.Exit(failed)


def _write_timelines(
    readable: str,
    file: str,
    options: Options,
    view: View,
    ahead: list[Parked] | None,
    write: Write,
    output: str | None,
    scratch: Path,
) -> list[Parked]:
    """Each connection's timeline in turn; the analyses, with their findings parked in
    `scratch`. Raises `UsageError` for a session the transcript does not know (found out at the
    end when it is read once)."""
    analyses: list[Parked] = []
    render = _renderer(output)
    payloads = Execution(payloads=True)  # the timeline shows payloads
    if ahead is not None:  # its findings are known: the walk need not find them a second time
        # (nor hold them: 1M findings)
        options = msgspec.structs.replace(options, select=(), ignore=EVERY_RULE)
    # runs of plain updates are followed as one by the analysis, their steps read for the rows
    with open_walks(readable, options, name=file, each_message=False, execution=payloads) as walks:
        if not walks:
            write(render(f"{file}: holds no connection"))
        for index, walk in enumerate(walks):
            known, found = ahead[index] if ahead is not None else (None, None)
            if found is None:  # (read once: the walk finds them, and parks them)
                walk.findings_sink = found = ParkedFindings(scratch / f"walk-{index}")
            walk.runs_whole = True  # (the rows of a run's updates are made from its lines)
            builder = TimelineBuilder(view, options.marker_tag)
            if known is not None and view.session is not None:  # children before announcement
                builder.focus |= session_tree(known.sessions, view.session)
            stream = TimelineStream(builder, known, findings=found)
            write(render(timeline_heading(walk.name, walk.connection, view, known)))
            awaiting = builder.awaiting_answers
            for item in _items(walk, view, stop_early=known is not None, awaiting=awaiting):
                for block in stream.add(item):
                    write(render(block))
            analysis = known if known is not None else walk.analysis
            for block in stream.finish(analysis, found):
                write(render(block))
            analyses.append((analysis, found))
    if ahead is None and view.session is not None:
        named = _session_named(view.session, [analysis for analysis, _ in analyses])
        if named != view.session:  # (read once: the rows were chosen by the id as given)
            raise UsageError(f"give the whole session id: {named}")
    return analyses


def _items(
    walk: Walk, view: View, *, stop_early: bool, awaiting: Callable[[], bool]
) -> Iterator[Item]:
    """The walk's items up to the view's last line, and past it while a request the view
    shows is still `awaiting` its answer (so its row says `⇢ 12`, not `⇢ unanswered`, when the
    answer comes after the view); past that, when the analysis is not known ahead, the walk
    still runs to the end (for the findings), showing nothing."""
    last = view.last_line
    if last is None:  # (the whole transcript: nothing to check item by item)
        yield from walk
        return
    for item in walk:
        if isinstance(item, Step):
            line = item.message.line
        else:  # (a run: its lines past the view's last the builder does not show)
            line = item.first.line if isinstance(item, UpdateRun) else item.line
        if line <= last or awaiting():
            yield item
        elif stop_early:
            return


def _renderer(output: str | None) -> Callable[[object], bytes]:
    """How each block is turned into bytes: as `rich_bytes` renders it, without the blank line
    it puts after each renderable; rows going to a file or a pipe as the same plain text,
    written directly (the rows are nearly all the output, and a rich print per batch cost
    more than making them)."""
    width = plain_width() if is_plain(output) else None

    def render(block: object) -> bytes:
        if width is not None and isinstance(block, Rows):
            return block.plain_text(width).encode()
        return rich_bytes(block, output=output)[:-1]

    return render


def _session_named(session: str, analyses: list[Analysis]) -> str:
    """The session `--session` names: its id, the short form the tables print (`c09edff1…0751`)
    or the start of its id, when that names one session only. Raises `UsageError` for none or
    several, listing them."""
    known = sorted({s.session_id for a in analyses for s in a.sessions})
    if session in known:
        return session
    named = printable(session)
    matches = [s for s in known if short_id(s) == session or s.startswith(session)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        listed = _listed(matches)
        raise UsageError(f"{named!r} names {len(matches)} sessions: {listed}; give more of the id")
    listed = _listed(known) if known else "none"
    raise UsageError(f"no session {named!r} in this transcript; its sessions: {listed}")


def _listed(sessions: list[str]) -> str:
    """The first `LISTED_SESSIONS` of these sessions, and how many more there are."""
    listed = ", ".join(map(printable, sessions[:LISTED_SESSIONS]))
    if len(sessions) > LISTED_SESSIONS:
        listed += f" and {len(sessions) - LISTED_SESSIONS} more (`acptrace analyze --format json`)"
    return listed


def _require_transcript(file: str, analyses: list[Parked]) -> None:
    """`require_transcript`, for analyses whose findings are parked (a finding is a sign of a
    transcript, as a message is)."""
    if not any(found.count for _, found in analyses):
        require_transcript(file, [analysis for analysis, _ in analyses])


def _exit_code(policy: Policy, analyses: list[Parked]) -> int:
    failing = any(policy.fails(a, found.levels().elements()) for a, found in analyses)
    return EXIT_FINDINGS if failing else EXIT_OK


def _line_range(text: str | None) -> tuple[int, int | None] | None:
    """`A-B`, `A-` (to the end) or `A` as the first and last line (a usage error otherwise)."""
    if text is None:
        return None
    first, dash, last = text.partition("-")
    try:
        start = int(first)
        end = int(last) if last.strip() else (None if dash else start)
    except ValueError:
        fail(f"--lines: expected A-B (line numbers), got {text!r}")
    if start < 1 or (end is not None and end < start):
        fail(f"--lines: expected 1 <= A <= B, got {text!r}")
    return start, end


def _rereadable(file: str) -> bool:
    """Whether the input can be read twice: a regular file (not stdin, a pipe or a device)."""
    if file == "-":
        return False
    try:
        return stat.S_ISREG(os.stat(file).st_mode)
    except OSError:
        return False  # (the walk reports it)
