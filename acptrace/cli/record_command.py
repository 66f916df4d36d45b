"""`acptrace record` (a transparent proxy that records an editor's ACP traffic) and
`acptrace redact` (the same redaction, applied to a transcript that already exists)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from acptrace.cli.common import EXIT_ERROR, EXIT_OK, fail, print_error, print_note
from acptrace.cli.options import OutputOption
from acptrace.cli.root import app
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.read.source import open_input
from acptrace.record import (
    AgentNotStarted,
    OutputRefused,
    RecordSettings,
    TranscriptUnwritable,
    default_transcript_path,
    make_folder,
    open_output,
    record,
    redact_transcript,
)
from acptrace.record.proxy import DEFAULT_MAX_LINE_BYTES, DEFAULT_QUEUE_BYTES
from acptrace.record.redact import RedactionPolicy

RedactPatternOption = Annotated[
    list[str] | None,
    typer.Option(
        "--redact-pattern",
        metavar="REGEX",
        help="Also replace matches of this regex in every string (its first group, if it has "
        "one). Repeatable.",
    ),
]
RedactKeyOption = Annotated[
    list[str] | None,
    typer.Option(
        "--redact-key",
        metavar="NAME",
        help="Also replace the values of members (and name/value pairs) with this name "
        "(case-, '-'- and '_'-insensitive). Repeatable.",
    ),
]


def _policy(keys: list[str] | None, patterns: list[str] | None) -> RedactionPolicy:
    try:
        return RedactionPolicy.build(keys or (), patterns or ())
    except UsageError as error:
        fail(str(error))


@app.command(
    "record",
    context_settings={"allow_interspersed_args": False},
    no_args_is_help=True,
)
def record_command(
    agent: Annotated[
        list[str],
        typer.Argument(
            metavar="AGENT_CMD...",
            help="The agent command and its arguments, after `--`.",
            show_default=False,
        ),
    ],
    output: OutputOption = None,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact/--no-redact", help="Replace secrets in the transcript (never in the traffic)."
        ),
    ] = True,
    redact_pattern: RedactPatternOption = None,
    redact_key: RedactKeyOption = None,
    max_line_bytes: Annotated[
        int, typer.Option(min=1, help="Record longer lines in parts of at most this size.")
    ] = DEFAULT_MAX_LINE_BYTES,
    queue_bytes: Annotated[
        int,
        typer.Option(
            min=1,
            help="Memory for lines waiting for the disk; lines beyond it are left out of the "
            "transcript (a `gap` event), never held back from the peer.",
        ),
    ] = DEFAULT_QUEUE_BYTES,
) -> None:
    """Run an ACP agent behind a transparent proxy and record its traffic.

    Put `acptrace record -o t.jsonl --` in front of the agent command in the editor's
    settings. The transcript goes to the file -o names, mode 0600 (its folder must exist; a
    folder or a read-only file is refused), by default acptrace-<UTC time>-<pid>.jsonl in
    $ACPTRACE_DIR (created if missing) or the current directory, named on stderr. Every byte
    passes through unchanged; the transcript gets every line in each direction, the agent's
    stderr, and open/close events. acptrace exits with the agent's
    exit status, or 2 (after forwarding everything) when the transcript is incomplete.
    """
    if output == "-":
        fail("the transcript cannot go to stdout: stdout carries the agent's output")
    policy = _policy(redact_key, redact_pattern) if redact else None
    path = output or str(default_transcript_path())
    if output is None:
        try:
            make_folder(Path(path))
        except OSError as error:
            fail(f"cannot create the folder for {path} ({error.strerror or error})")
        print_note(f"recording to {path}")
    settings = RecordSettings(
        redaction=policy, max_line_bytes=max_line_bytes, queue_bytes=queue_bytes
    )
    try:
        result = record(agent, path, settings)
    except AgentNotStarted as error:
        print_error(str(error))
        raise typer.Exit(error.exit_code) from None
    except TranscriptUnwritable as error:
        fail(str(error))
    if result.dropped:
        print_note(f"{result.dropped} lines were left out of {path}: the disk could not keep up")
    if result.transcript_error:
        print_error(f"the transcript {path} is incomplete: {result.transcript_error}")
        raise typer.Exit(result.exit_code or EXIT_ERROR)
    raise typer.Exit(result.exit_code)


@app.command("redact")
def redact_command(
    file: Annotated[
        str, typer.Argument(metavar="IN", help="Transcript to redact, any format (`-` for stdin).")
    ],
    output: OutputOption = None,
    redact_pattern: RedactPatternOption = None,
    redact_key: RedactKeyOption = None,
) -> None:
    """Replace secrets in an existing transcript, as `acptrace record` does by default.

    Known places (mcpServers env and header values, credential params of authenticate and
    auth/*), secret-like names (tokens, API keys, passwords, Authorization headers) and
    well-known token shapes are replaced by "[REDACTED]"; everything else is kept as it was.
    The redacted transcript goes to stdout, or to the file -o names, mode 0600 (written only
    on success; `.gz` compresses; its folder must exist, a folder or a read-only file is
    refused).
    """
    policy = _policy(redact_key, redact_pattern)
    try:
        with open_input(file) as source:
            if output is None or output == "-":
                stats = redact_transcript(source, sys.stdout.buffer, policy)
                sys.stdout.buffer.flush()
            else:
                with open_output(output) as sink:
                    stats = redact_transcript(source, sink, policy)
    except UnreadableInput as error:
        fail(str(error))
    except OutputRefused as error:
        fail(f"cannot write the redacted transcript {error}")
    except BrokenPipeError:
        raise  # (the reader went away: the command ends quietly, `PlainUsageCommand`)
    except OSError as error:  # (a full disk, say)
        where = "stdout" if output in (None, "-") else f"the redacted transcript {output}"
        fail(f"cannot write {where}: {error.strerror or error}")
    print_note(f"{stats.redactions} values redacted in {stats.changed} of {stats.lines} lines")
    raise typer.Exit(EXIT_OK)
