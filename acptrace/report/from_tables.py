"""Reports from the Parquet tables `acptrace export` wrote, without reading any transcript.

An export directory (one holding `connections.parquet`, `resumes.parquet`, … as `export`
writes them) stands for the transcripts it was exported from: its `connections` rows become
`FileSummary`s again, with their `resumes` and `findings` rows as `ResumeRow`s and `Finding`s,
and the report adds them up like summaries of analysed transcripts, so the numbers are the
same. Directories are scanned lazily by polars, many at a time (`CHUNK` per scan); a
directory whose tables cannot be read (a table missing, a damaged file, another schema) is an
error of its own and the others go on.

What an export cannot give back: a JSON-RPC id is text in the tables (`1` and `"1"` both read
`1`), and the analysis options are those the export ran with.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Any

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
from acptrace.report.summaries import FileError, FileSummary
from acptrace.tables.builder import CONNECTIONS, FINDINGS, RESUMES, TABLES, Table

NEEDED: tuple[Table, ...] = (CONNECTIONS, RESUMES, FINDINGS)
"""The tables a report reads from an export directory."""

CHUNK = 1000
"""Export directories read by one scan (a directory that spoils a scan is read on its own)."""

SUFFIX = ".parquet"

Read = tuple[FileSummary, ...] | FileError
"""What reading one export directory gives: its connections' summaries, or why not."""

_Key = tuple[str, str | None]
"""(file, connection): one analysed connection inside an export directory."""


def is_export(path: str | Path) -> bool:
    """Whether `path` is a directory holding any of the tables `acptrace export` writes as
    Parquet (a directory missing some of them is still one, and an error when read)."""
    directory = Path(path)
    return directory.is_dir() and any(
        (directory / f"{table.name}{SUFFIX}").is_file() for table in TABLES
    )


def find_exports(directory: str | Path) -> list[str]:
    """The export directories in `directory` (itself included), recursively, sorted."""
    root = Path(directory)
    candidates = {root} | {p.parent for p in root.rglob(f"*{SUFFIX}")}
    return sorted(str(p) for p in candidates if is_export(p) and not _hidden(p, root))


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def read_exports(directories: Sequence[str]) -> Iterator[tuple[str, Read]]:
    """Each export directory with its summaries (or its error), in the order given."""
    for start in range(0, len(directories), CHUNK):
        yield from _read_chunk(directories[start : start + CHUNK])


def _read_chunk(directories: Sequence[str]) -> Iterator[tuple[str, Read]]:
    missing = {d: _missing(d) for d in directories}
    complete = [d for d in directories if missing[d] is None]
    try:
        read = _read_together(complete)
    except (pl.exceptions.PolarsError, OSError):  # one spoils the scan: read them one by one
        read = {d: _read_alone(d) for d in complete}
    for directory in directories:
        error = missing[directory]
        yield directory, FileError(directory, error) if error else read[directory]


def _missing(directory: str) -> str | None:
    absent = [
        t.name + SUFFIX for t in NEEDED if not (Path(directory) / (t.name + SUFFIX)).is_file()
    ]
    if not absent:
        return None
    return (
        f"exported tables without {', '.join(absent)} (a report reads connections, resumes "
        "and findings: export the transcripts again with this acptrace)"
    )


def _read_alone(directory: str) -> Read:
    try:
        return _read_together([directory])[directory]
    except (pl.exceptions.PolarsError, OSError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return FileError(
            directory, f"exported tables cannot be read: {type(error).__name__}: {first}"
        )


def _read_together(directories: Sequence[str]) -> dict[str, Read]:
    """Scan the tables of these directories at once and rebuild each one's summaries."""
    if not directories:
        return {}
    connections, resumes, findings = (_scan(table, directories) for table in NEEDED)
    rows_of: dict[tuple[str, str | None, str | None], list[ResumeRow]] = defaultdict(list)
    for row in resumes:
        rows_of[_where(row)].append(_resume(row))
    findings_of: dict[tuple[str, str | None, str | None], list[Finding]] = defaultdict(list)
    for row in findings:
        findings_of[_where(row)].append(_finding(row))
    summaries: dict[str, list[FileSummary]] = {d: [] for d in directories}
    for row in connections:
        where = _where(row)
        summaries[where[0]].append(
            FileSummary(
                path=row["file"],
                agent=_peer(row, "agent"),
                client=_peer(row, "client"),
                resumes=tuple(rows_of[where]),
                findings=tuple(findings_of[where]),
                issues=row["issues"],
                connection=row["connection"],
            )
        )
    return {d: tuple(found) for d, found in summaries.items()}


_SOURCE = "__export_source"


def _scan(table: Table, directories: Sequence[str]) -> list[dict[str, Any]]:
    """The table's rows in every directory, in directory and row order, each with the
    directory it came from (`_SOURCE`); columns checked against the table's schema."""
    by_path = {str(Path(d) / (table.name + SUFFIX)): d for d in directories}
    frame = (
        pl.scan_parquet(list(by_path), include_file_paths=_SOURCE)
        .select(*(pl.col(c.name).cast(c.dtype, strict=True) for c in table.columns), _SOURCE)
        .collect()
    )
    rows = frame.to_dicts()
    for row in rows:
        row[_SOURCE] = by_path[row[_SOURCE]]
    return rows


def _where(row: dict[str, Any]) -> tuple[str, str | None, str | None]:
    return row[_SOURCE], row["file"], row["connection"]


def _peer(row: dict[str, Any], side: str) -> PeerInfo | None:
    name, version = row[f"{side}_name"], row[f"{side}_version"]
    protocol = row[f"{side}_protocol_version"]
    if name is None and version is None and protocol is None:
        return None
    return PeerInfo(name=name, version=version, protocol_version=protocol)


def _resume(row: dict[str, Any]) -> ResumeRow:
    replay_from = row["replay_from"]
    pauses = orjson.loads(row["replay_pauses"]) if row["replay_pauses"] else []
    return ResumeRow(
        request_id=row["request_id"],
        session_id=row["session_id"],
        role=Role(row["role"]),
        parent_session_id=row["parent_session_id"],
        method=row["method"],
        replay_from=None if replay_from is None else orjson.loads(replay_from),
        outcome=Outcome(row["outcome"]),
        end=WindowEnd(row["end"]),
        error_code=row["error_code"],
        cancelled=row["cancelled"],
        marker_count=row["marker_count"],
        replayed_updates=row["replayed_updates"],
        held_updates=row["held_updates"],
        request_line=row["request_line"],
        marker_line=row["marker_line"],
        response_line=row["response_line"],
        request_to_first_update_ms=row["request_to_first_update_ms"],
        request_to_marker_ms=row["request_to_marker_ms"],
        marker_to_response_ms=row["marker_to_response_ms"],
        request_to_response_ms=row["request_to_response_ms"],
        announce_line=row["announce_line"],
        max_replay_gap_ms=row["max_replay_gap_ms"],
        replay_pauses=tuple(ReplayPause(p["gap_ms"], p["updates_after"]) for p in pauses),
    )


def _finding(row: dict[str, Any]) -> Finding:
    return Finding(
        rule=row["rule"],
        severity=Severity(row["severity"]),
        line=row["line"],
        message=row["message"],
        session_id=row["session_id"],
        request_id=row["request_id"],
    )


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
