"""Lines of the files compared, and how a report names them: `line 7` with one file, `FILE:7`
with two (docs/fidelity.md, "Two files")."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Place:
    """A line of one of the files compared."""

    path: str
    """The file (as the report names it: `label`)."""
    line: int
    """The line in it (1-based)."""


@dataclass(frozen=True, slots=True)
class PlaceNames:
    """How a report names a line: `line 7` with one file; with two, `FILE:7`, FILE the file's
    name (its path as given where the two names are alike)."""

    names: dict[str, str] | None
    """The name shown for each file's path; None with one file."""

    @classmethod
    def of(cls, paths: Sequence[str]) -> PlaceNames:
        """The naming for the files compared (the live one first)."""
        if len(set(paths)) < 2:
            return cls(None)
        names = [os.path.basename(path) or path for path in paths]
        return cls(dict(zip(paths, names if len(set(names)) == len(names) else paths, strict=True)))

    def file(self, path: str) -> str:
        """The name shown for a file."""
        return path if self.names is None else self.names.get(path, path)

    def at(self, path: str, line: int, side: str = "") -> str:
        """`live line 7`, `line 7` (one file); `live at live.jsonl:7`, `live.jsonl:7` (two)."""
        return " ".join(self.words(path, line, side))

    def words(self, path: str, line: int, side: str = "") -> list[str]:
        """`at` in pieces a line may wrap between, never between a line and its file or
        `line` (`live line 7`; `live at`, `live.jsonl:7`)."""
        if self.names is None:
            return [f"{side} line {line}".lstrip()]
        return [*([f"{side} at"] if side else []), f"{self.file(path)}:{line}"]
