"""Writing the tables of many transcripts to a directory: parquet, csv, ndjson or json.

Batches are spooled to Arrow IPC files in a scratch directory beside the output, then each
table is streamed into its final file (`scan_ipc(...).sink_*`), so memory holds one batch, not
a whole transcript (`json`, one array per table, is the exception: it is collected first).
Nothing is written unless every transcript was read: the tables are staged in the scratch
directory and moved into place at the end (a new directory appears whole; in an existing one
each file is replaced atomically).

CSV is spreadsheet-safe and terminal-safe: control characters in a text cell (a tab, a
newline, ESC, the C1 controls) are written as escapes (`\\x1b`), as every other view shows
them (a CSV read with `cat` or `column` must not drive the terminal); a text cell that then
begins with `=`, `+`, `-` or `@` gets a single quote in front (OWASP's advice against CSV
formula injection: a spreadsheet would otherwise run `=HYPERLINK(...)` from a transcript as a
formula). Only text columns are touched: numbers stay numbers (a negative latency is still
`-1.5`). Parquet, NDJSON and JSON keep the exact values.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import polars as pl

from acptrace.export.file_formats import ExportFormat
from acptrace.model.domain import Analysis
from acptrace.model.excerpt import printable
from acptrace.model.options import Execution, Options
from acptrace.model.outputs import OutputFailed, check_output_folder, write_error_reason
from acptrace.model.temporary import scratch_folder
from acptrace.pipeline.pool import each_file
from acptrace.pipeline.transcripts import open_walks, require_transcript
from acptrace.tables.builder import BATCH_ROWS, STREAMED, TABLES, Table, named, walk_frames

__all__ = ["ExportFormat", "Exported", "export_tables"]


@dataclass(frozen=True, slots=True)
class Exported:
    """What an export wrote."""

    files: tuple[Path, ...]
    """One file per table, in `TABLES` order."""
    rows: dict[str, int]
    """Rows per table."""
    analyses: tuple[Analysis, ...]
    """The analysis of each transcript (of each connection, in a file that holds several)."""


def export_tables(
    sources: Sequence[str],
    directory: str | os.PathLike[str],
    output_format: ExportFormat,
    options: Options | None = None,
    *,
    batch_rows: int = BATCH_ROWS,
    jobs: int | None = None,
    require_transcripts: bool = False,
) -> Exported:
    """Export every table of these transcripts into `directory` (created when missing, its
    parent not: the rule of every output, `acptrace.model.outputs`), the transcripts analysed
    in the processes `jobs` asks for (`acptrace.pipeline.pool.plan`).

    Raises `OutputRefused` (before any work) when the folder cannot be written, `OutputFailed`
    (nothing is written) when writing fails part way (a full disk),
    `UnreadableInput` (nothing is written) when a transcript cannot be read, and with
    `require_transcripts` when one does not look like a transcript (`require_transcript`).
    """
    check_output_folder(directory)
    try:
        return _export(
            sources, Path(directory), output_format, options, batch_rows, jobs, require_transcripts
        )
    except OSError as error:  # (the scratch directory is gone with what was staged in it)
        raise OutputFailed(f"{os.fspath(directory)}: {write_error_reason(error)}") from error


def _export(
    sources: Sequence[str],
    target: Path,
    output_format: ExportFormat,
    options: Options | None,
    batch_rows: int,
    jobs: int | None,
    require_transcripts: bool,
) -> Exported:
    scratch_parent = target if target.is_dir() else target.parent
    with scratch_folder(scratch_parent, "export") as scratch_path:  # (gone on SIGTERM too)
        scratch = str(scratch_path)
        spool = _Spool(Path(scratch))
        analyses: list[Analysis] = []
        spool_one = partial(_spool_file, scratch=scratch, batch_rows=batch_rows)
        spooled_files = each_file(spool_one, sources, options or Options(), jobs)
        for source, spooled in zip(sources, spooled_files, strict=True):
            if require_transcripts:
                require_transcript(source, spooled.analyses)
            spool.extend(spooled)
            analyses.extend(spooled.analyses)
        staged = Path(scratch) / "tables"
        staged.mkdir()
        names = [f"{table.name}.{output_format.value}" for table in TABLES]
        for table, name in zip(TABLES, names, strict=True):
            spool.write(table, staged / name, output_format)
        _publish(staged, target, names)
    return Exported(tuple(target / n for n in names), dict(spool.rows), tuple(analyses))


@dataclass(frozen=True, slots=True)
class _Spooled:
    """One file's tables (all its connections), parked on disk."""

    parts: dict[str, list[Path]]
    """Arrow IPC files of each table, in row order."""
    rows: dict[str, int]
    """Rows per table."""
    analyses: tuple[Analysis, ...]
    """The analysis of each of its connections."""


def _spool_file(
    path: str, options: Options, *, scratch: str, batch_rows: int, execution: Execution
) -> _Spooled:
    """Walk one transcript, parking its tables in a directory of their own under `scratch`
    (in whichever process the pool runs it)."""
    spool = _Spool(Path(tempfile.mkdtemp(dir=scratch)))
    with open_walks(path, options, execution=execution) as walks:
        for walk in walks:
            before, start = walk.connection, {t.name: len(spool.parts[t.name]) for t in STREAMED}
            for table, frame in walk_frames(walk, batch_rows):
                spool.add(table, frame)
            if walk.connection != before:  # (a joined file's first recording: named once walked)
                spool.name_connection(start, walk.connection)
        return _Spooled(spool.parts, spool.rows, tuple(walk.analysis for walk in walks))


class _Spool:
    """Frames of each table, parked on disk as Arrow IPC until the table is written."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.parts: dict[str, list[Path]] = {table.name: [] for table in TABLES}
        self.rows: dict[str, int] = {table.name: 0 for table in TABLES}

    def add(self, table: Table, frame: pl.DataFrame) -> None:
        if frame.height == 0:
            return
        parts = self.parts[table.name]
        path = self.directory / f"{table.name}-{len(parts):06d}.arrow"
        frame.write_ipc(path)
        parts.append(path)
        self.rows[table.name] += frame.height

    def name_connection(self, start: dict[str, int], connection: str | None) -> None:
        """Name the connection of the parts from `start` on of each table `start` names (each
        rewritten beside itself, one at a time: memory holds one batch)."""
        for name, first in start.items():
            parts = self.parts[name]
            for index in range(first, len(parts)):
                renamed = parts[index].with_suffix(".named.arrow")
                named(pl.read_ipc(parts[index]), connection).write_ipc(renamed)
                parts[index] = renamed

    def extend(self, spooled: _Spooled) -> None:
        """Add a transcript spooled elsewhere, after what is here."""
        for name, parts in spooled.parts.items():
            self.parts[name].extend(parts)
            self.rows[name] += spooled.rows[name]

    def write(self, table: Table, path: Path, output_format: ExportFormat) -> None:
        parts = self.parts[table.name]
        if not parts:
            _write_frame(table.empty(), path, output_format)
            return
        lazy = pl.scan_ipc(parts)
        match output_format:
            case ExportFormat.PARQUET:
                lazy.sink_parquet(path)
            case ExportFormat.CSV:
                spreadsheet_safe(lazy).sink_csv(path)
            case ExportFormat.NDJSON:
                lazy.sink_ndjson(path)
            case ExportFormat.JSON:
                lazy.collect().write_json(path)


FORMULA_STARTS = ("=", "+", "-", "@")
"""What a CSV text cell must not begin with: a spreadsheet reads it as a formula (a tab or a
carriage return, which some read so too, are escaped first: `CONTROLS`)."""
_FORMULA_START = "^[" + "".join(re.escape(c) for c in FORMULA_STARTS) + "]"

CONTROLS = [chr(code) for code in (*range(0x20), *range(0x7F, 0xA0))]
"""The control characters (C0, DEL, C1) a CSV cell shows as escapes, as `printable` does."""
_ESCAPES = [printable(char) for char in CONTROLS]
_CONTROL = r"[\x00-\x1f\x7f-\x9f]"


def spreadsheet_safe(frame: pl.LazyFrame) -> pl.LazyFrame:
    """Text cells with control characters escaped, and those that then begin with a formula
    character prefixed with `'`; others as they were."""
    texts = [name for name, dtype in frame.collect_schema().items() if dtype == pl.String]
    escaped = frame.with_columns(
        pl.when(pl.col(name).str.contains(_CONTROL))
        .then(pl.col(name).str.replace_many(CONTROLS, _ESCAPES))
        .otherwise(pl.col(name))
        .alias(name)
        for name in texts
    )
    return escaped.with_columns(
        pl.when(pl.col(name).str.contains(_FORMULA_START))
        .then(pl.lit("'") + pl.col(name))
        .otherwise(pl.col(name))
        .alias(name)
        for name in texts
    )


def _write_frame(frame: pl.DataFrame, path: Path, output_format: ExportFormat) -> None:
    match output_format:
        case ExportFormat.PARQUET:
            frame.write_parquet(path)
        case ExportFormat.CSV:
            frame.write_csv(path)
        case ExportFormat.NDJSON:
            frame.write_ndjson(path)
        case ExportFormat.JSON:
            frame.write_json(path)


def _publish(staged: Path, target: Path, names: Sequence[str]) -> None:
    """Move the staged tables into place: the whole directory when new, else file by file."""
    if not target.exists():
        try:
            os.rename(staged, target)
            return
        except OSError:  # created meanwhile, or another file system: fall back to files
            target.mkdir(exist_ok=True)
    for name in names:
        os.replace(staged / name, target / name)
