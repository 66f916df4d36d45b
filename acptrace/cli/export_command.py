"""`acptrace export`: the analysis of many transcripts as tables (parquet, csv, ndjson, json)."""

from __future__ import annotations

from typing import Annotated

import typer

from acptrace.cli.common import EXIT_ERROR, fail, print_error
from acptrace.cli.options import FORMAT, OUTPUT, JobsOption
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
from acptrace.export.file_formats import ExportFormat
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.pipeline.pool import WorkersFailed
from acptrace.read.inputs import Unmatched, expand


@app.command("export")
def export_command(
    ctx: typer.Context,
    files: Annotated[
        list[str], typer.Argument(help="Transcripts, directories or globs (`-` for stdin).")
    ],
    output: Annotated[str, OUTPUT],
    output_format: Annotated[ExportFormat, FORMAT] = ExportFormat.PARQUET,
    jobs: JobsOption = None,
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
    """Export messages, requests, sessions, resumes, findings and issues as tables.

    One file per table in the directory -o names (required; created when missing), in the
    file format --format names, each with a `file` column; written only when every transcript
    could be read.
    """
    from acptrace.export.exporter import export_tables  # polars loads only for this command

    options = policy_from(ctx).options
    paths: list[str] = []
    for path in expand(files):
        if isinstance(path, Unmatched):
            fail(f"{path.argument}: {path.reason}")
        paths.append(path)
    try:
        result = export_tables(paths, output, output_format, options, jobs=jobs)
    except UsageError as error:
        fail(str(error))
    except (UnreadableInput, WorkersFailed) as error:
        print_error(f"{error} (nothing was written)")
        raise typer.Exit(EXIT_ERROR) from None
    counts = ", ".join(f"{rows} {name}" for name, rows in result.rows.items())
    typer.echo(f"acptrace: wrote {len(result.files)} tables to {output}: {counts}", err=True)
