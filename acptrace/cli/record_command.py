"""`acptrace record` (a transparent proxy that records an editor's ACP traffic) and
`acptrace redact` (the same redaction, applied to a transcript that already exists)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from acptrace.cli.common import EXIT_ERROR, EXIT_OK, fail, print_error, print_note
from acptrace.cli.output import stdout_bytes
from acptrace.cli.progress import reading
from acptrace.cli.root import app
from acptrace.cli.typer_options import QuietOption, RedactOption, output_option
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.model.excerpt import plural
from acptrace.read.source import open_input
from acptrace.record import (
    AgentNotStarted,
    OutputRefused,
    RecordingExists,
    RecordSettings,
    TranscriptUnwritable,
    default_transcript_path,
    fill_placeholders,
    make_folder,
    open_output,
    record,
    redact_transcript,
)
from acptrace.record.proxy import DEFAULT_MAX_LINE_BYTES, DEFAULT_QUEUE_BYTES
from acptrace.record.redact import RedactionPolicy
from acptrace.record.stopping import AgentGroup

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
    output: Annotated[
        str | None,
        output_option(
            "Record into this file ({time} and {pid} filled in; default: a new one, named on "
            "stderr)."
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace the -o file even if it holds a recording."),
    ] = False,
    redact: RedactOption = True,
    redact_pattern: RedactPatternOption = None,
    redact_key: RedactKeyOption = None,
    max_line_bytes: Annotated[
        int,
        typer.Option(
            min=1, metavar="BYTES", help="Record longer lines in parts of at most this size."
        ),
    ] = DEFAULT_MAX_LINE_BYTES,
    queue_bytes: Annotated[
        int,
        typer.Option(
            min=1,
            metavar="BYTES",
            help="Memory for lines waiting for the disk; lines beyond it are left out of the "
            "transcript (a `gap` event), never held back from the peer.",
        ),
    ] = DEFAULT_QUEUE_BYTES,
    quiet: QuietOption = False,
) -> None:
    """Record an Agent's ACP traffic, through a proxy.

    Runs the ACP agent behind a transparent proxy and records its traffic.

    Put `acptrace record -o 'my-agent-{time}.jsonl' --` in front of the agent command in the
    editor's settings. The transcript goes to the file -o names ({time} and {pid} replaced, the
    name then said on stderr), mode 0600 (its folder must exist; a folder, a read-only file, and
    a file that is not empty unless --force is given, are refused), by default acptrace-<UTC
    time>-<pid>.jsonl in $ACPTRACE_DIR (created 0700 if missing) or the current directory, named
    on stderr. Every byte passes through unchanged; the transcript gets every line in each
    direction, the agent's stderr, and open/close events. acptrace exits with the agent's exit
    status; when that is 0 but the transcript is incomplete (lines left out, a full disk), with
    2, after forwarding everything.
    """
    if output == "-":
        fail("the transcript cannot go to stdout: stdout carries the agent's output")
    if output == "":  # (not the default name: an empty -o is a mistake, as everywhere)
        fail("-o: an empty path: name a file, or leave -o out for the default name")
    policy = _policy(redact_key, redact_pattern) if redact else None
    path = fill_placeholders(output) if output is not None else str(default_transcript_path())
    if output is None:
        try:
            make_folder(Path(path))
        except OSError as error:
            fail(f"cannot create the folder for {path} ({error.strerror or error})")
    announce = path != output and not quiet  # a name acptrace made (default, {time}, {pid})
    settings = RecordSettings(
        redaction=policy,
        max_line_bytes=max_line_bytes,
        queue_bytes=queue_bytes,
        keep_recording=output is not None and not force,
    )
    try:
        # (said once the Agent runs: one that cannot be started makes no file to name)
        result = record(agent, path, settings, started=_announced(path) if announce else None)
    except RecordingExists as error:
        fail(
            f"cannot write the transcript {error}: --force replaces it, "
            "{time} in the name makes a new file each run"
        )
    except AgentNotStarted as error:
        print_error(str(error))
        raise typer.Exit(error.exit_code) from None
    except TranscriptUnwritable as error:
        fail(str(error))
    problems: list[str] = []
    if result.dropped:
        problems.append(f"{_were(result.dropped, 'line')} left out (the disk could not keep up)")
    if result.abandoned:
        abandoned = _were(result.abandoned, "line")
        problems.append(f"{abandoned} left out (not redacted when the signal's grace ran out)")
    if result.transcript_error:
        unwritten = f"; {_were(result.unwritten, 'record')} not written" if result.unwritten else ""
        problems.append(f"{result.transcript_error}{unwritten}")
    for problem in problems:
        print_error(f"the transcript {path} is incomplete: {problem}")
    # the Agent's status when it failed (it says more); else 2 when the transcript is incomplete
    raise typer.Exit(result.exit_code or (EXIT_ERROR if problems else EXIT_OK))


def _were(n: int, noun: str) -> str:
    """`1 line was`, `2 lines were`."""
    return f"{plural(n, noun)} {'was' if n == 1 else 'were'}"


def _announced(path: str) -> Callable[[AgentGroup], None]:
    """Says where the recording goes, once the Agent runs."""
    return lambda _: print_note(f"recording to {path}")


@app.command("redact")
def redact_command(
    file: Annotated[
        str,
        typer.Argument(metavar="FILE", help="Transcript to redact, any format (`-` for stdin)."),
    ],
    output: Annotated[
        str | None,
        output_option("Write the redacted transcript to this file instead of stdout."),
    ] = None,
    redact_pattern: RedactPatternOption = None,
    redact_key: RedactKeyOption = None,
    quiet: QuietOption = False,
) -> None:
    """Replace secrets in a transcript.

    The same redaction as `acptrace record` applies by default, to an existing transcript.

    Known places (mcpServers env and header values, credential params of authenticate and
    auth/*), secret-like names (tokens, API keys, passwords, Authorization headers) and
    well-known token shapes are replaced by "[REDACTED]"; everything else is kept as it was.
    The redacted transcript goes to stdout, or to the file -o names, mode 0600 (written only
    on success; `.gz` compresses; its folder must exist, a folder or a read-only file is
    refused).
    """
    policy = _policy(redact_key, redact_pattern)
    try:
        with reading(quiet or output in (None, "-")), open_input(file) as source:
            if output is None or output == "-":
                stdout = stdout_bytes()
                stats = redact_transcript(source, stdout, policy)
                stdout.flush()
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
    summary = (
        f"{plural(stats.redactions, 'value')} redacted in {stats.changed} of "
        f"{plural(stats.lines, 'line')}"
    )
    if stats.marked:
        summary += '; the open record rewritten to say "redacted": true'
    if not quiet:
        print_note(summary)
    raise typer.Exit(EXIT_OK)
