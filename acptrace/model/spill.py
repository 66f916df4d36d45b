"""Records parked on disk, so that memory holds a batch of them, not all of them: an append-only
file of records read back in order, and a sort that merges sorted runs from disk.

A record is a tuple of what `marshal` writes (ints, floats, strings, bytes); the files live in
a folder the caller owns (and removes).
"""

from __future__ import annotations

import heapq
import itertools
import marshal
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

BATCH = 50_000
"""Records sorted in memory at once (the rest wait on disk in sorted runs)."""

Record = tuple[Any, ...]
_RUNS = itertools.count()
"""Numbers the run files (unique in the process)."""


class Spill:
    """An append-only file of records, read back in the order they were added."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self._stream: BinaryIO | None = path.open("wb")

    def add(self, record: Record) -> None:
        assert self._stream is not None, "records are added before they are read"
        marshal.dump(record, self._stream)
        self.count += 1

    def records(self) -> Iterator[Record]:
        """Every record in the order added (the file is closed for adding first)."""
        self.close()
        yield from _read(self.path, self.count)

    def close(self) -> None:
        """No more records are added (the file stays, to be read)."""
        if self._stream is not None:
            self._stream.close()
            self._stream = None


def sorted_records(records: Iterable[Record], folder: Path) -> Iterator[Record]:
    """The records in sorted order: batches of `BATCH` sorted in memory, written to `folder` as
    runs when there is more than one, and merged. Records must compare without reaching a field that
    does not (give each a unique key before its payload)."""
    runs = SortedRuns(folder)
    for record in records:
        runs.add(record)
    yield from runs.merged()


class SortedRuns:
    """Records added one by one (as a walk finds them), given back in sorted order: batches of
    `BATCH` sorted in memory and written to `folder` as runs as they fill, then merged."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0
        self._runs: list[tuple[Path, int]] = []
        self._pending: list[Record] = []

    def add(self, record: Record) -> None:
        """One record (compared as `sorted_records` says)."""
        self._pending.append(record)
        self.count += 1
        if len(self._pending) >= BATCH:
            self._runs.append(_write_run(self._pending, self.folder))
            self._pending = []

    def merged(self) -> Iterator[Record]:
        """Every record added, in sorted order (once: no record is added after)."""
        pending, self._pending = self._pending, []
        if not self._runs:
            pending.sort()
            yield from pending
            return
        if pending:
            self._runs.append(_write_run(pending, self.folder))
        del pending
        yield from heapq.merge(*(_read(path, count) for path, count in self._runs))


def _write_run(records: list[Record], folder: Path) -> tuple[Path, int]:
    records.sort()
    path = folder / f"run-{next(_RUNS)}"
    with path.open("wb") as stream:
        for record in records:
            marshal.dump(record, stream)
    return path, len(records)


def _read(path: Path, count: int) -> Iterator[Record]:
    with path.open("rb") as stream:
        for _ in range(count):
            yield marshal.load(stream)
