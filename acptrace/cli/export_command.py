"""`acptrace export`: the analysis of many transcripts as tables (parquet, csv, ndjson, json),
as a trace-event timeline, or as OpenTelemetry traces (OTLP/JSON, or sent over OTLP/HTTP)."""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

from enum import StrEnum
from functools import partial
from typing import Annotated

import orjson
import typer

from acptrace.cli.common import EXIT_ERROR, fail, note_skipped, print_error, print_note
from acptrace.cli.output import check_output, check_output_folder, write_output
from acptrace.cli.progress import reading
from acptrace.cli.root import app
from acptrace.cli.settings import AnalysisFlags
from acptrace.cli.typer_options import (
    FORMAT,
    FilesArgument,
    JobsOption,
    QuietOption,
    analysis_options,
    output_option,
)
from acptrace.export.file_formats import ExportFormat
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.model.options import Options
from acptrace.model.outputs import OutputFailed, write_error_reason
from acptrace.pipeline.pool import WorkersFailed
from acptrace.read.inputs import Skipped, Unmatched, expand
from acptrace.render.text import plural

COPY_BYTES = 1 << 20
"""A timeline is copied to its output in pieces of this size."""


DEFAULT_TIMEOUT_S = 10.0
"""`--timeout`: OpenTelemetry's exporters wait 10 s by default (`OTEL_EXPORTER_OTLP_TIMEOUT`)."""


class ExportChoice(StrEnum):
    """`--format` of export: a table format (`ExportFormat`), one trace-event timeline, or
    OpenTelemetry traces."""

    PARQUET = ExportFormat.PARQUET.value
    CSV = ExportFormat.CSV.value
    NDJSON = ExportFormat.NDJSON.value
    JSON = ExportFormat.JSON.value
    TRACE_EVENT = "trace-event"
    """Not tables: a Chrome Trace Event timeline (docs/trace-event.md)."""
    OTLP = "otlp"
    """Not tables: OpenTelemetry traces, OTLP/JSON (docs/otlp.md)."""
    SPEEDSCOPE = "speedscope"
    """Not tables: the timeline's slices in speedscope's own format (docs/trace-event.md)."""


@app.command("export")
# (no exit code from findings, no idle-timer verdicts in the tables)
@analysis_options(omit=("fail_on", "strict", "idle_timeouts"))
def export_command(
    files: FilesArgument,
    output: Annotated[
        str | None,
        output_option(
            "The directory to write one file per table in (needed for tables), or the file "
            "for --format trace-event, speedscope or otlp (default: stdout; with --endpoint: "
            "none).",
            metavar="DIR",
        ),
    ] = None,
    output_format: Annotated[ExportChoice, FORMAT] = ExportChoice.PARQUET,
    endpoint: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="With --format otlp: send the traces to this OTLP/HTTP collector instead, its "
            "base URL as OTEL_EXPORTER_OTLP_ENDPOINT takes it (/v1/traces is added).",
            show_default=False,
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            min=0.001,
            metavar="SECONDS",
            help="With --endpoint: seconds sending may take, every retry included.",
        ),
    ] = DEFAULT_TIMEOUT_S,
    jobs: JobsOption = None,
    quiet: QuietOption = False,
    *,
    flags: AnalysisFlags,
) -> None:
    """Export the analysis as tables, a timeline or OpenTelemetry traces.

    Messages, requests, sessions, resumes, turns, tool_calls, permissions, findings, issues and
    connections, one table each.

    One file per table in the directory -o names (required for tables; created when missing,
    its parent must exist),
    in the file format --format names, each with a `file` column; written only when every
    transcript could be read. CSV puts a ' before a text cell that begins with = + - @, a tab
    or a carriage return (a spreadsheet would run it as a formula); the other formats keep
    exact values.
    `--format trace-event` writes one Chrome Trace Event timeline instead (to open in
    ui.perfetto.dev), to the file -o names or stdout; `--format speedscope` its slices in
    speedscope's own format, each frame named by its method.
    `--format otlp` writes OpenTelemetry traces (OTLP/JSON: one trace per connection, its
    sessions, replays, turns, tool calls and permission waits as spans, the findings as
    events) to the file -o names or stdout, or with --endpoint sends them to a collector.
    """
    options = flags.policy(quiet=quiet, judged=False).options
    paths: list[str] = []
    for path in expand(files):
        if isinstance(path, Unmatched):
            fail(f"{path.argument}: {path.reason}")
        if isinstance(path, Skipped):
            note_skipped(path)
        else:
            paths.append(path)
    if endpoint is not None and output_format is not ExportChoice.OTLP:
        fail("--endpoint sends OpenTelemetry traces: add --format otlp")
    if output_format in (ExportChoice.TRACE_EVENT, ExportChoice.SPEEDSCOPE):
        check_output(output)
        _export_trace_event(paths, output, options, quiet, output_format)
        return
    if output_format is ExportChoice.OTLP:
        from acptrace.cli.otlp_export import export_otlp  # (protobuf loads only for this)

        export_otlp(
            paths, options, output=output, endpoint=endpoint, timeout_s=timeout, quiet=quiet
        )
        return
    if output is None:
        fail("-o/--output DIRECTORY is needed to write tables")
    check_output_folder(output)
    from acptrace.export.exporter import export_tables  # polars loads only for this command

    try:
        with reading(quiet):
            result = export_tables(
                paths,
                output,
                ExportFormat(output_format),
                options,
                jobs=jobs,
                require_transcripts=True,
            )
    except UsageError as error:
        fail(str(error))
    except (UnreadableInput, WorkersFailed) as error:
        print_error(f"{error} (nothing was written)")
        raise typer.Exit(EXIT_ERROR) from None
    except OutputFailed as error:  # (a full disk)
        print_error(f"cannot write in {error} (nothing was written)")
        raise typer.Exit(EXIT_ERROR) from None
    counts = ", ".join(
        plural(rows, name.removesuffix("s").replace("_", " ")) for name, rows in result.rows.items()
    )
    if not quiet:
        print_note(f"wrote {len(result.files)} tables to {output}: {counts}")


def _export_trace_event(
    paths: list[str],
    output: str | None,
    options: Options,
    quiet: bool,
    kind: ExportChoice = ExportChoice.TRACE_EVENT,
) -> None:
    """The transcripts as one timeline, to `output` or stdout (nothing written on failure:
    it is made in a temporary file first, in a fixed amount of memory, then copied; as
    speedscope's file, made from it in memory)."""
    import tempfile

    from acptrace.export.trace_event import write_trace_events

    with tempfile.TemporaryFile(prefix="acptrace-trace-") as made:
        try:
            with reading(quiet):
                events = write_trace_events(paths, made.write, options, require_transcripts=True)
        except UsageError as error:
            fail(str(error))
        except UnreadableInput as error:
            print_error(f"{error} (nothing was written)")
            raise typer.Exit(EXIT_ERROR) from None
        except OSError as error:  # (the temporary folder is full)
            fail(f"cannot make the timeline: {write_error_reason(error)}")
        made.seek(0)
        if kind is ExportChoice.SPEEDSCOPE:
            from acptrace.export.speedscope import speedscope

            write_output(orjson.dumps(speedscope(orjson.loads(made.read()))), output)
        else:
            write_output(iter(partial(made.read, COPY_BYTES), b""), output)
    if quiet:
        return
    where = output or "stdout"
    what = "the slices of " if kind is ExportChoice.SPEEDSCOPE else ""
    note = f"wrote {what}{plural(events, 'trace event')} of {plural(len(paths), 'file')}"
    print_note(f"{note} to {where}")
