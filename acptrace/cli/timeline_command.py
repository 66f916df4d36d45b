"""`acptrace timeline`: read one connection (or one session, request or stretch) as it unfolded."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Annotated

import typer

from acptrace.cli.common import EXIT_ERROR, fail, print_error, rich_bytes
from acptrace.cli.options import OutputOption
from acptrace.cli.output import check_output, write_output
from acptrace.cli.root import app
from acptrace.cli.settings import (
    AssumeClosedOption,
    ChildRulesOption,
    ConfigOption,
    HistoryTagOption,
    IgnoreOption,
    InputFormatOption,
    LinkOption,
    LiveTagOption,
    MarkerTagOption,
    NoConfigOption,
    ProtocolOption,
    SelectOption,
    policy_from,
)
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.model.options import Execution
from acptrace.pipeline.transcripts import analyze, open_walk, require_transcript
from acptrace.read.source import replayable
from acptrace.render.entries import DEFAULT_CONTEXT, TimelineBuilder, View, session_tree
from acptrace.render.timeline import render_timeline


@app.command("timeline")
def timeline_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="The transcript (`-` for stdin).")],
    session: Annotated[
        str | None,
        typer.Option(help="Show only this session, the children it announces and their answers."),
    ] = None,
    request: Annotated[
        str | None,
        typer.Option(help="Show only requests with this id, their answers and what came between."),
    ] = None,
    around: Annotated[
        int | None, typer.Option(min=1, help="Show only the lines around this one.")
    ] = None,
    context: Annotated[
        int, typer.Option(min=0, help="Lines either side of --around.")
    ] = DEFAULT_CONTEXT,
    full: Annotated[
        bool, typer.Option("--full", help="Show payloads and ids whole instead of cut.")
    ] = False,
    output: OutputOption = None,
    assume_closed: AssumeClosedOption = None,
    protocol: ProtocolOption = None,
    child_rules: ChildRulesOption = None,
    marker_tag: MarkerTagOption = None,
    history_tag: HistoryTagOption = None,
    live_tag: LiveTagOption = None,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    input_format: InputFormatOption = None,
    link: LinkOption = None,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    """Show one connection as it unfolded: replay windows, request/response links, findings.

    The view goes to stdout, or to the file -o names.
    """
    check_output(output)
    options = policy_from(ctx).options
    payloads = Execution(fast=False)  # the timeline shows payloads
    view = View(session, request, around, context, full)
    builder = TimelineBuilder(view, options.marker_tag)
    try:
        # (two passes for --session: stdin or a FIFO is copied first, as it can be read once)
        with replayable(file) if session is not None else nullcontext(file) as readable:
            if session is not None:  # children that speak before their announcement
                tree = analyze(readable, options, name=file).sessions
                builder.focus |= session_tree(tree, session)
            with open_walk(readable, options, name=file, execution=payloads) as walk:
                for item in walk:
                    builder.add(item)
                analysis = walk.analysis
        require_transcript(file, [analysis])
    except UsageError as error:
        fail(str(error))
    except UnreadableInput as error:
        print_error(str(error))
        raise typer.Exit(EXIT_ERROR) from None
    write_output(rich_bytes(render_timeline(builder, analysis)), output)
