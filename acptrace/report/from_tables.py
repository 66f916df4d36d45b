"""Reports from the tables `acptrace export` wrote, without reading any transcript.

An export directory (one holding `connections.parquet`, `resumes.parquet`, … as `export`
writes them, or the same tables as NDJSON, `connections.ndjson`, …) stands for the transcripts
it was exported from: its `connections` rows become
`FileSummary`s again, with their `resumes` and `findings` rows as `ResumeRow`s and `Finding`s
and their `turns`, `tool_calls` and `permissions` rows as the rows of `acptrace.model.turns`,
and the report adds them up like summaries of analysed transcripts, so the numbers are the
same. Directories are scanned lazily by polars, many at a time (`CHUNK` per scan); a
directory whose tables cannot be read (a table missing, a damaged file, another schema) is an
error of its own and the others go on.

What an export cannot give back: a JSON-RPC id is text in the tables (`1` and `"1"` both read
`1`), and the analysis options are those the export ran with.
"""

from __future__ import annotations

import os
import stat
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path, PurePath
from types import NoneType
from typing import Any, TypeVar, get_args, get_type_hints

import orjson
import polars as pl

from acptrace.model.domain import (
    Finding,
    Outcome,
    PeerInfo,
    ReplayPause,
    ResumeRow,
    Role,
    Severity,
    WindowEnd,
)
from acptrace.model.excerpt import cut_name, excerpt, printable
from acptrace.model.turns import PermissionRow, ToolCallRow, TurnEnd, TurnRow
from acptrace.report.summaries import FileError, FileSummary
from acptrace.tables.builder import (
    CONNECTIONS,
    FINDINGS,
    PERMISSIONS,
    REQUESTS,
    RESUMES,
    TABLES,
    TOOL_CALLS,
    TURNS,
    Table,
)

NEEDED: tuple[Table, ...] = (
    CONNECTIONS,
    RESUMES,
    FINDINGS,
    REQUESTS,
    TURNS,
    TOOL_CALLS,
    PERMISSIONS,
)
"""The tables a report reads from an export directory (of `requests`, only when each
connection started: `FileSummary.started_us`)."""

CHUNK = 200
"""Export directories read by one scan (a directory that spoils a scan is read on its own)."""

SUFFIXES = (".parquet", ".ndjson")
"""The file formats of export a report reads back, Parquet first where a directory has both."""
UNREAD_SUFFIXES = (".json", ".csv")
"""The other formats of export (CSV changes text to keep spreadsheets safe, JSON holds each
table as one array): a directory of them, known by its `connections` table, is an error of its
own, and its files are never read as transcripts."""

Read = tuple[FileSummary, ...] | FileError
"""What reading one export directory gives: its connections' summaries, or why not."""


MARKS = frozenset(
    {
        *(table.name + SUFFIXES[0] for table in TABLES),
        *(CONNECTIONS.name + suffix for suffix in (*SUFFIXES[1:], *UNREAD_SUFFIXES)),
    }
)
"""A file of one of these names makes its directory an export directory: any Parquet table
(no transcript is Parquet), else a `connections` table (a recording may well be called
`messages.ndjson`, hardly `connections.ndjson`)."""
TABLE_FILES = frozenset(t.name + s for t in TABLES for s in (*SUFFIXES, *UNREAD_SUFFIXES))
"""The names of the tables' files in an export directory (none of them a transcript)."""


def is_export(path: str | Path) -> bool:
    """Whether `path` is a directory holding any of the tables `acptrace export` writes as
    Parquet or NDJSON (a directory missing some of them is still one, and an error when read),
    or a `connections` table in another format (an error when read)."""
    directory = Path(path)
    return directory.is_dir() and any((directory / name).is_file() for name in MARKS)


def is_table_file(path: str | Path) -> bool:
    """Whether `path` is one of the tables in an export directory (`resumes.ndjson` there is
    not a transcript)."""
    return Path(path).name in TABLE_FILES and is_export(Path(path).parent)


def find_exports(directory: str | Path) -> list[str]:
    """The export directories in `directory` (itself included), recursively, sorted; hidden
    directories are skipped."""
    found = []
    for folder, subfolders, files in os.walk(directory):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        if not MARKS.isdisjoint(files):
            found.append(folder)
    return sorted(found)


def _suffix(directory: str) -> str:
    """The format of a directory's tables: the first of `SUFFIXES` and `UNREAD_SUFFIXES` its
    `connections` table has (Parquet when none has it: the error then names the Parquet
    files)."""
    kinds = (*SUFFIXES, *UNREAD_SUFFIXES)
    has = (Path(directory) / CONNECTIONS.name).with_suffix
    return next((s for s in kinds if has(s).is_file()), SUFFIXES[0])


def read_exports(directories: Sequence[str]) -> Iterator[tuple[str, Read]]:
    """Each export directory with its summaries (or its error), in the order given."""
    for start in range(0, len(directories), CHUNK):
        yield from _read_chunk(directories[start : start + CHUNK])


def _read_chunk(directories: Sequence[str]) -> Iterator[tuple[str, Read]]:
    suffixes = {d: _suffix(d) for d in directories}
    missing = {d: _missing(d, suffixes[d]) for d in directories}
    read: dict[str, Read] = {}
    for suffix in SUFFIXES:  # (one scan per format)
        complete = [d for d in directories if missing[d] is None and suffixes[d] == suffix]
        try:
            read |= _read_together(complete, suffix)
        except _UNREADABLE:  # one spoils the scan: one by one
            read |= {d: _read_alone(d, suffix) for d in complete}
    for directory in directories:
        error = missing[directory]
        yield directory, FileError(directory, error) if error else read[directory]


def _missing(directory: str, suffix: str) -> str | None:
    if suffix in UNREAD_SUFFIXES:
        return (
            f"exported tables as {suffix[1:].upper()} (a report reads Parquet or NDJSON "
            "exports: export the transcripts again with --format parquet)"
        )
    try:
        present = set(os.listdir(directory))
    except OSError as error:
        return f"exported tables cannot be listed: {error.strerror or error}"
    absent = [t.name + suffix for t in NEEDED if t.name + suffix not in present]
    if absent:
        return (
            f"exported tables without {', '.join(absent)} (a report reads connections, resumes, "
            "findings, requests, turns, tool_calls and permissions: export the transcripts "
            "again with this acptrace)"
        )
    special = next(
        (n for n in (t.name + suffix for t in NEEDED) if _not_regular(directory, n)), None
    )
    if special is not None:  # (a FIFO would be waited on for ever, a device read for ever)
        return f"exported tables cannot be read: {special} is not a regular file"
    return _other_schema(directory) if suffix == ".ndjson" else None


def _not_regular(directory: str, name: str) -> bool:
    """Whether the table's file is something other than a regular file (a FIFO, a device, a
    socket; a link to one)."""
    try:
        return not stat.S_ISREG(os.stat(Path(directory) / name).st_mode)
    except OSError:
        return False  # (reading it says why)


def _other_schema(directory: str) -> str | None:
    """What an NDJSON table's first row lacks of its columns (NDJSON scanned with a schema reads
    a missing column as nulls: a table of another version would give a wrong report)."""
    for table in NEEDED:
        path = Path(directory) / f"{table.name}.ndjson"
        try:
            with path.open("rb") as file:
                first = file.readline()
            row = orjson.loads(first) if first.strip() else {}
        except (OSError, orjson.JSONDecodeError) as error:
            return f"exported tables cannot be read: {path.name}: {error}"
        if not isinstance(row, dict):
            return f"exported tables cannot be read: {path.name}: line 1 is not an object"
        lacking = [c.name for c in table.columns if row and c.name not in row]
        if lacking:
            what = ", ".join(lacking[:3]) + (" …" if len(lacking) > 3 else "")
            return (
                f"exported tables of another schema: {path.name} has no {what} (export the "
                "transcripts again with this acptrace)"
            )
    return None


_UNREADABLE = (pl.exceptions.PolarsError, OSError, KeyError, TypeError, ValueError)
"""What reading back tables that are damaged (a value not of its column's kind) raises."""


def _read_alone(directory: str, suffix: str) -> Read:
    try:
        return _read_together([directory], suffix)[directory]
    except Damaged as error:
        return FileError(directory, f"exported tables cannot be read: {error}")
    except _UNREADABLE as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return FileError(
            directory, f"exported tables cannot be read: {type(error).__name__}: {first}"
        )


Columns = dict[str, list[Any]]
"""A table's rows as one list per column (cheaper than a dict per row)."""

_Where = tuple[str, str | None, str | None]
"""(export directory, file, connection): one analysed connection."""

_SOURCE = "__export_source"

_RESUME_FIELDS = ResumeRow.__struct_fields__
_FINDING_FIELDS = Finding.__struct_fields__
_PEER_FIELDS = ("name", "version", "protocol_version")
"""What the `connections` table keeps of each side's `PeerInfo` (in its order)."""
_PEER_COLUMNS = tuple(f"{side}_{name}" for side in ("agent", "client") for name in _PEER_FIELDS)
_COUNTED = ("resumes", "findings", "turns", "tool_calls", "permissions")
"""The tables of a connection's rows: each one's name is the `connections` column that counts
its rows and the `FileSummary` field they go in."""
_SUMMARY_COLUMNS = ("file", "connection", *_PEER_COLUMNS, "issues", *_COUNTED)
"""The columns of `connections` a report reads."""

_T = TypeVar("_T")

_TURN_ENDS = {end.value: end for end in TurnEnd}
_ROLES = {role.value: role for role in Role}
_OUTCOMES = {outcome.value: outcome for outcome in Outcome}
_ENDS = {end.value: end for end in WindowEnd}
_SEVERITIES = {severity.value: severity for severity in Severity}


def _read_together(directories: Sequence[str], suffix: str) -> dict[str, Read]:
    """Scan the tables of these directories (in the format of `suffix`) at once and rebuild
    each one's summaries."""
    if not directories:
        return {}
    connections = _scan(CONNECTIONS, directories, _SUMMARY_COLUMNS, suffix)
    rows_of = {
        table.name: _rows_by_connection(table, names, build, directories, suffix)
        for table, names, build in _ROW_TABLES
    }
    started = _starts(directories, suffix)
    summaries: dict[str, list[FileSummary]] = {d: [] for d in directories}
    wheres = list(_wheres(connections))
    repeated = {where for where, n in Counter(wheres).items() if n > 1}
    given: Counter[tuple[_Where, str]] = Counter()  # rows of a repeated one handed out so far
    peers = zip(*(connections[name] for name in _PEER_COLUMNS), strict=True)
    counts = zip(*(connections[name] for name in _COUNTED), strict=True)
    for where, peer, issues, counted in zip(
        wheres, peers, connections["issues"], counts, strict=True
    ):
        rows: dict[str, tuple[Any, ...]] = {}
        for name, count in zip(_COUNTED, counted, strict=True):
            found = tuple(rows_of[name][where])
            if where in repeated:  # one file exported twice: each copy has its own rows, in turn
                found = _next(found, count, given, (where, name))
            rows[name] = found
        summaries[where[0]].append(
            FileSummary(
                path=where[1] or "",
                agent=_peer(*peer[:3]),
                client=_peer(*peer[3:]),
                resumes=rows["resumes"],
                findings=rows["findings"],
                issues=issues,
                connection=where[2],
                started_us=started.get(where),
                turns=rows["turns"],
                tool_calls=rows["tool_calls"],
                permissions=rows["permissions"],
            )
        )
    return {d: tuple(found) for d, found in summaries.items()}


def _rows_by_connection(
    table: Table,
    names: Sequence[str],
    build: Callable[[Columns], list[Any]],
    directories: Sequence[str],
    suffix: str,
) -> dict[_Where, list[Any]]:
    """The rows of a table as records (`build`), by the connection they belong to."""
    columns = _scan(table, directories, ("file", "connection", *names), suffix)
    rows_of: dict[_Where, list[Any]] = defaultdict(list)
    for where, row in zip(_wheres(columns), build(columns), strict=True):
        rows_of[where].append(row)
    return rows_of


def _next(
    rows: tuple[_T, ...], count: int, given: Counter[tuple[_Where, str]], key: tuple[_Where, str]
) -> tuple[_T, ...]:
    """The `count` rows after those handed to the earlier copies."""
    start = given[key]
    given[key] += count
    return rows[start : start + count]


def _scan(table: Table, directories: Sequence[str], names: Sequence[str], suffix: str) -> Columns:
    """These columns of the table in every directory, in directory and row order, with the
    directory each row came from (`_SOURCE`); each column checked against the table's schema
    (a directory where one is missing, or of another type, spoils the scan)."""
    by_path = {str(Path(d) / (table.name + suffix)): d for d in directories}
    schema = table.schema
    paths = list(by_path)
    scanned = (
        pl.scan_parquet(paths, include_file_paths=_SOURCE)
        if suffix == ".parquet"
        else pl.scan_ndjson(paths, schema=schema, include_file_paths=_SOURCE)
    )
    frame = scanned.select(
        *(pl.col(name).cast(schema[name], strict=True) for name in names), _SOURCE
    ).collect()
    _check(table, suffix, frame, names)
    columns: Columns = frame.to_dict(as_series=False)
    columns[_SOURCE] = [by_path[path] for path in columns[_SOURCE]]
    return columns


class Damaged(ValueError):
    """A table holds a value no export writes (a latency of `inf`, a count or a rule left
    empty): the directory is an error of its own, said in one line, not a report of
    nonsense or a crash further on."""


MIN_MS, MAX_MS = 1e-6, 1e12
"""The latencies an export can hold, other than 0: from a nanosecond (the finest a timestamp
resolves) to about 30 years; `inf`, NaN, 1e308 and 5e-324 are none."""


def _required(record: type) -> frozenset[str]:
    """The fields of a row that are never None (`int`, `str`, not `int | None`)."""
    hints = get_type_hints(record)
    return frozenset(
        name for name, hint in hints.items() if hint is not Any and NoneType not in get_args(hint)
    )


_REQUIRED = {
    RESUMES.name: _required(ResumeRow),
    FINDINGS.name: _required(Finding),
    CONNECTIONS.name: frozenset({"issues", "resumes", "findings"}),
}
"""The columns of each table a report reads that no export leaves empty."""

_KNOWN: dict[tuple[str, str], list[str]] = {
    (table.name, name): list(words)
    for table, name, words in (
        (RESUMES, "role", _ROLES),
        (RESUMES, "outcome", _OUTCOMES),
        (RESUMES, "end", _ENDS),
        (TURNS, "end", _TURN_ENDS),
        (FINDINGS, "severity", _SEVERITIES),
    )
}
"""The columns (table, column) that hold one of a few words."""


def _check(table: Table, suffix: str, frame: pl.DataFrame, names: Sequence[str]) -> None:
    """Raise `Damaged` at the first value of these columns that no export writes."""
    required = _REQUIRED.get(table.name, frozenset())
    for name in names:
        column = frame[name]
        if (known := _KNOWN.get((table.name, name))) is not None:
            bad = column.is_null() | ~column.is_in(known)
        elif name.endswith("_ms"):  # (NaN compares as no number: bad as well)
            bad = ~(column.is_null() | (column == 0) | column.is_between(MIN_MS, MAX_MS))
        elif name in required:
            bad = column.is_null()
        else:
            continue
        if bad.any():
            row = bad.arg_true()[0]
            raise Damaged(
                f"{table.name}{suffix}: {name} is {_shown(column[row])} in row {row + 1}, "
                "which no export writes (export the transcripts again)"
            )


def _shown(value: object) -> str:
    return "empty" if value is None else printable(repr(value) if isinstance(value, str) else value)


def _starts(directories: Sequence[str], suffix: str) -> dict[_Where, int]:
    """When each connection started: the time of its first request (by line) that has one, in
    microseconds (`collect.analyze_timed` takes the same from the walk)."""
    by_path = {str(Path(d) / (REQUESTS.name + suffix)): d for d in directories}
    schema = REQUESTS.schema
    paths = list(by_path)
    scanned = (
        pl.scan_parquet(paths, include_file_paths=_SOURCE)
        if suffix == ".parquet"
        else pl.scan_ndjson(paths, schema=schema, include_file_paths=_SOURCE)
    )
    keys = ("file", "connection", "request_line", "ts")
    frame = (
        scanned.select(*(pl.col(name).cast(schema[name], strict=True) for name in keys), _SOURCE)
        .filter(pl.col("ts").is_not_null())
        .group_by(_SOURCE, "file", "connection")
        .agg(pl.col("ts").sort_by("request_line").first().dt.epoch("us"))
        .collect()
    )
    return {
        (by_path[source], file, connection): started
        for source, file, connection, started in frame.select(
            _SOURCE, "file", "connection", "ts"
        ).iter_rows()
    }


def _wheres(columns: Columns) -> Iterator[_Where]:
    return zip(columns[_SOURCE], columns["file"], columns["connection"], strict=True)


def _peer(name: str | None, version: str | None, protocol: int | None) -> PeerInfo | None:
    if name is None and version is None and protocol is None:
        return None
    return PeerInfo(name=cut_name(name), version=cut_name(version), protocol_version=protocol)


def _resumes(columns: Columns) -> list[ResumeRow]:
    """The rows as `ResumeRow`s: enums, JSON text and the ids' text turned back."""
    c = dict(columns)
    c["role"] = [_ROLES[v] for v in c["role"]]
    c["outcome"] = [_OUTCOMES[v] for v in c["outcome"]]
    c["end"] = [_ENDS[v] for v in c["end"]]
    c["method"] = [sys.intern(v) for v in c["method"]]  # two values over 100,000s of rows
    c["replay_from"] = [None if v is None else orjson.loads(v) for v in c["replay_from"]]
    c["replay_pauses"] = [_pauses(v) for v in c["replay_pauses"]]
    values = zip(*(c[name] for name in _RESUME_FIELDS), strict=True)
    return [ResumeRow(*row) for row in values]


def _pauses(text: str | None) -> tuple[ReplayPause, ...]:
    if not text:
        return ()
    pauses = tuple(ReplayPause(p["gap_ms"], p["updates_after"]) for p in orjson.loads(text))
    if any(not (type(p.gap_ms) in (int, float) and MIN_MS <= p.gap_ms <= MAX_MS) for p in pauses):
        raise Damaged(f"resumes: replay_pauses holds a gap no export writes: {excerpt(text)}")
    return pauses


def _findings(columns: Columns) -> list[Finding]:
    c = dict(columns)
    c["severity"] = [_SEVERITIES[v] for v in c["severity"]]
    values = zip(*(c[name] for name in _FINDING_FIELDS), strict=True)
    return [Finding(*row) for row in values]


def _turns(columns: Columns) -> list[TurnRow]:
    """The rows as `TurnRow`s (the prompt's id stays text)."""
    c = dict(columns)
    c["end"] = [_TURN_ENDS[v] for v in c["end"]]
    return _structs(TurnRow, c)


def _tool_calls(columns: Columns) -> list[ToolCallRow]:
    return _structs(ToolCallRow, columns)


def _permissions(columns: Columns) -> list[PermissionRow]:
    return _structs(PermissionRow, columns)


_S = TypeVar("_S", TurnRow, ToolCallRow, PermissionRow)


def _structs(struct: type[_S], columns: Columns) -> list[_S]:
    """The rows as Structs of `acptrace.model.turns`, whose fields are the table's columns."""
    names = struct.__struct_fields__
    return [struct(*row) for row in zip(*(columns[name] for name in names), strict=True)]


_ROW_TABLES: tuple[tuple[Table, tuple[str, ...], Callable[[Columns], list[Any]]], ...] = (
    (RESUMES, _RESUME_FIELDS, _resumes),
    (FINDINGS, _FINDING_FIELDS, _findings),
    (TURNS, TurnRow.__struct_fields__, _turns),
    (TOOL_CALLS, ToolCallRow.__struct_fields__, _tool_calls),
    (PERMISSIONS, PermissionRow.__struct_fields__, _permissions),
)
"""The tables of a connection's rows (`_COUNTED`, in that order): the columns a report reads
of each, and what makes records of them."""


def qualify(read: Sequence[tuple[str, Read]]) -> list[tuple[str, Read]]:
    """Where a transcript path was exported into more than one directory (every CI job
    exporting its own `trace.jsonl`), its summaries are named `DIRECTORY/PATH` instead, so that
    they stay apart (files counted, grouped by file or directory, pointed at)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for directory, found in read:
        if not isinstance(found, FileError):
            for summary in found:
                seen[summary.path].add(directory)
    shared = {path for path, places in seen.items() if len(places) > 1}
    if not shared:
        return list(read)
    return [(d, _qualified(d, found, shared)) for d, found in read]


def _qualified(directory: str, found: Read, shared: set[str]) -> Read:
    if isinstance(found, FileError):
        return found
    return tuple(
        replace(s, path=str(PurePath(directory) / s.path.lstrip("/"))) if s.path in shared else s
        for s in found
    )
