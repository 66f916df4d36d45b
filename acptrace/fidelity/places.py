"""Lines of the files compared: with two, a line number alone does not say which."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Place:
    """A line of one of the files compared."""

    path: str
    """The file (as the report names it: `label`)."""
    line: int
    """The line in it (1-based)."""
