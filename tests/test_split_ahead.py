"""The join decodes up to `AHEAD` pieces of its own while a worker is busy, and the analysis is
still the one of one pass."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from acptrace.pipeline import pieces as split
from tests.test_split import one_pass, split_pass, write


class _Busy:
    """A worker that is never ready: it takes a piece, and another each time the join asks for
    the one it took (decoding it then, in this process)."""

    def __init__(self, plan: split._Plan, cursor: split._Cursor, taker: int) -> None:
        file = split._File.open(plan)
        assert file is not None
        self.file, self.reader = file, split._PieceReader(plan, file)
        self.cursor, self.taker = cursor, taker
        self.taken: list[split._Piece] = []
        self._take()

    def _take(self) -> None:
        piece = self.cursor.take(self.file, self.taker)
        if piece is not None:
            self.taken.append(piece)

    def ready(self) -> bool:
        return False

    def receive(self) -> split._Decoded:
        decoded = self.reader.decode(self.taken.pop(0))
        self._take()
        return decoded

    def stop(self) -> None:
        self.file.close()


def test_the_join_decodes_pieces_ahead_while_a_worker_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks.generate import generate

    out = io.BytesIO()
    generate(out, mb=None, sessions=6, seed=5, faults=0.3)
    path = write(tmp_path, out.getvalue())
    expected = one_pass(path)

    def start(context: object, plan: split._Plan, cursor: split._Cursor, taker: int) -> _Busy:
        return _Busy(plan, cursor, taker)

    most = 0
    piece = split._Join._piece

    def counted(self: split._Join, index: int, ahead: dict[int, Any]) -> Any:
        nonlocal most
        decoded = piece(self, index, ahead)
        most = max(most, len(ahead))
        return decoded

    monkeypatch.setattr(split._Worker, "start", start)
    monkeypatch.setattr(split._Join, "_piece", counted)
    assert split_pass(path, 2048) == expected
    assert most == split.AHEAD
