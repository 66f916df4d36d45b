"""Transcript text made safe for a terminal: never markup, never control sequences."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from acptrace.model.domain import Source, connection_name
from acptrace.model.excerpt import plural, printable

if TYPE_CHECKING:  # (rich is imported by `inert`: the CI formats use `printable` alone)
    from rich.text import Text

__all__ = ["cut_names", "inert", "plural", "printable", "short_id", "transcript_name"]


def inert(value: Any, style: str = "") -> Text:
    """A rich Text of the value with control characters shown as escapes, never as markup."""
    from rich.text import Text

    return Text(printable(value), style=style)


def short_id(value: str, limit: int = 20) -> str:
    """A long identifier shortened in the middle (`742b1dac…2f96`); short ones unchanged."""
    if len(value) <= limit:
        return value
    return f"{value[:8]}…{value[-4:]}"


def cut_names(names: Sequence[str], width: int) -> list[str]:
    """Distinct names in `width` characters each where they are longer: the start all of them
    share (a folder, `/work/runs/`) left out first, then each cut at one place, the middle when
    that keeps them apart, else the place nearest the middle that does."""
    shared = shared_folders(names) if len(names) > 1 else ""
    shown = ["…" + n[len(shared) :] if len(n) > width and shared else n for n in names]
    middle = (width - 1) // 2
    for head in sorted(range(width), key=lambda head: abs(head - middle)):
        cut = [_cut_at(name, width, head) for name in shown]
        if len(set(cut)) == len(cut):
            return cut
    return [_cut_at(name, width, middle) for name in shown]


def shared_folders(names: Sequence[str]) -> str:
    """The leading folders (`/work/runs/`) every name starts with, whole folders only."""
    shared: list[str] = []
    for folders in zip(*(name.split("/")[:-1] for name in names), strict=False):
        if len(set(folders)) > 1:
            break
        shared.append(folders[0])
    return "".join(f"{folder}/" for folder in shared)


def _cut_at(text: str, width: int, head: int) -> str:
    """`text` in `width` characters: its first `head`, `…`, and its end; digits next to the
    cut are left out too, so that no number looks cut (`…1.jsonl` reads as cut)."""
    if len(text) <= width:
        return text
    start = text[:head].rstrip(string.digits)
    end = text[len(text) - (width - 1 - head) :].lstrip(string.digits)
    return f"{start}…{end}"


def transcript_name(source: Source) -> str:
    """What an analysis is called in reports: its path, and its connection in a file that
    holds several (`report.json [test_x.py::test_y]`)."""
    return connection_name(source.path, source.connection)
