"""The report's names relative to the folder every path in it shares, said once (on a terminal,
in report.md and report.html alike).

`report DIR --by directory` named each group by its whole folder (`/work/shared/real-world/
agents-2026-12b/…`), so at 80 columns every row was cut to the same leading folders and lost
the part that tells it apart; `file:line` cells lost their folders the same way. Here every
path of the report (the group names when they are paths, and each `file:line`) is made relative
to the folder they all share, which the header says once (a `file:line` of a folder's group,
or of a file's, to that folder: the group's name says it on the row); a name that still does
not fit keeps its end, the part that tells rows apart (`…/claude-agent-acp-drive`), and is cut
one way in every table of a terminal: the way the table that leaves it least room cuts it
(`NameBook`); the path of a `file:line` is cut the same way, one way in every table too (the
book's `places`), its line number kept whole.
"""

from __future__ import annotations

import dataclasses
import string
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import TypeVar

from rich.console import Console, ConsoleOptions

from acptrace.render.fitted import UNBOUNDED, Column, FittedTable
from acptrace.render.text import cut_names, printable, shared_folders
from acptrace.report.groups import TOP
from acptrace.report.summaries import Group, GroupBy, Report, ResumeRef, RuleCount
from acptrace.report.turn_summaries import PermissionRef, ToolCallRef, TurnFigures, TurnRef


def relative_report(report: Report) -> tuple[Report, str]:
    """The report with its paths relative to the folder they all share, and that folder (`""`
    when they share none, or when there is only one path and no folder to speak of)."""
    folder = shared_folders(list(_paths(report)))
    if not folder:
        return report, ""
    groups = tuple(_relative_group(group, folder, report.group_by) for group in report.groups)
    return dataclasses.replace(report, groups=groups), folder


def _paths(report: Report) -> Iterator[str]:
    """Every path the terminal report shows (a folder group as a folder: with its `/`)."""
    for group in report.groups:
        if report.group_by is GroupBy.DIRECTORY:
            yield group.name.rstrip("/") + "/"
        elif report.group_by is GroupBy.FILE:
            yield group.name
        yield from group_places(group)


def group_places(group: Group) -> Iterator[str]:
    """The path of every `file:line` the group's rows show."""
    yield from (ref.path for ref in (*group.slowest, *group.cut, *_turn_refs(group.turns)))
    yield from (path for count in group.findings for path, _ in count.first)


def _turn_refs(figures: TurnFigures) -> tuple[Ref, ...]:
    """The turns, tool calls and permission requests a group's turn tables point at."""
    return (
        *figures.slowest_first_output,
        *figures.longest_turns,
        *figures.slowest_tool_calls,
        *figures.longest_permission_waits,
    )


def _relative_group(group: Group, folder: str, by: GroupBy) -> Group:
    """The group with its name relative to `folder`, and its `file:line` paths too, or to the
    group's own folder when it is one, or holds its file (the group's name says the folder,
    its rows the file)."""
    name, within = group.name, folder
    if by is GroupBy.DIRECTORY:
        within = name.rstrip("/") + "/"
        name = _relative(within, folder).rstrip("/") or TOP
    elif by is GroupBy.FILE:
        within = name[: name.rfind("/") + 1] or folder
        name = _relative(name, folder)
    figures = group.turns
    turns = dataclasses.replace(
        figures,
        slowest_first_output=_relative_refs(figures.slowest_first_output, within),
        longest_turns=_relative_refs(figures.longest_turns, within),
        slowest_tool_calls=_relative_refs(figures.slowest_tool_calls, within),
        longest_permission_waits=_relative_refs(figures.longest_permission_waits, within),
    )
    return dataclasses.replace(
        group,
        name=name,
        slowest=_relative_refs(group.slowest, within),
        cut=_relative_refs(group.cut, within),
        findings=tuple(_relative_count(count, within) for count in group.findings),
        turns=turns,
    )


AnyRef = TypeVar("AnyRef", ResumeRef, TurnRef, ToolCallRef, PermissionRef)
Ref = ResumeRef | TurnRef | ToolCallRef | PermissionRef
"""What a `file:line` cell points at."""


def _relative_refs(refs: tuple[AnyRef, ...], folder: str) -> tuple[AnyRef, ...]:
    return tuple(dataclasses.replace(ref, path=_relative(ref.path, folder)) for ref in refs)


def _relative_count(count: RuleCount, folder: str) -> RuleCount:
    first = tuple((_relative(path, folder), line) for path, line in count.first)
    return dataclasses.replace(count, first=first)


def _relative(path: str, folder: str) -> str:
    return path[len(folder) :] if path.startswith(folder) else path


def end_names(names: Sequence[str], width: int) -> list[str]:
    """Names in `width` characters each where they are longer, each keeping its end, the part
    that tells rows apart: a path its last folders whole after `…/` (as many as fit, so that
    it is cut the same way at any width that keeps the same folders), else the end of its last
    one; where two would then read alike (`…/01-replay.jsonl` of two folders), and for a name
    that is no path, the end of the name after `…`; names whose ends are alike keep the start
    of their folder and their last parts (`claude-…/01-replay.jsonl`), or the start and the
    end of their last part (`opencode-…_live.jsonl`), else, for packages of one name in two
    scopes, the starts of the scope and the name (`@agen…/claude…`), else their start
    (`claude-agen…`); only names that would still read alike are cut elsewhere, as near their
    middle as tells them apart (`cut_names`)."""
    shown = [_end(name, width) for name in names]
    shown = _apart(names, shown, lambda alike: [_tail(name, width) for name in alike])
    shown = _apart(names, shown, lambda alike: [_both_ends(name, width) for name in alike])
    shown = _apart(names, shown, lambda alike: [_heads(name, width) for name in alike])
    shown = _apart(names, shown, lambda alike: [_head(name, width) for name in alike])
    shown = _apart(names, shown, lambda alike: cut_names(alike, width))
    if len(set(shown)) == len(shown):
        return shown
    whole = cut_names(names, width)  # (all cut at one place, if that tells them apart)
    return whole if len(set(whole)) == len(whole) else shown


def _apart(
    names: Sequence[str], shown: list[str], cut: Callable[[list[str]], list[str]]
) -> list[str]:
    """`shown`, the names that read alike in it cut again by `cut` (the others as they are)."""
    counts = Counter(shown)
    alike = [index for index, text in enumerate(shown) if counts[text] > 1]
    if not alike:
        return shown
    again = dict(zip(alike, cut([names[index] for index in alike]), strict=True))
    return [again.get(index, text) for index, text in enumerate(shown)]


def _end(name: str, width: int) -> str:
    """The name whole, or its last folders after `…/`, or the end of its last folder or of a
    name that is no path (`_tail`), or, where that end would lose a number, its start too
    (`_start_and_end`)."""
    if len(name) <= width:
        return name
    kept = _last_folders(name, width - 2)
    if kept:
        return f"…/{kept}"
    tail = _tail(name, width)
    return tail if len(tail) >= width - NUMBER_LOST else _start_and_end(name, width)


NUMBER_LOST = 2
"""Characters the end of a name may lose to a number it would cut (`…0.101.0-drive-v2` shown as
`…-drive-v2`) before the name keeps its start too (`claude…ive-v2`)."""


EXTENSION = 8
"""The longest end of a file's name after its last `.` (letters only: not `.0-drive`) that is
taken for its extension."""


def _start_and_end(name: str, width: int) -> str:
    """The start and the end of the name's last part, cut in its middle, its extension whole
    (`01-repl….jsonl`), no number cut."""
    last = name.rpartition("/")[2]
    dot = last.rfind(".")
    known = dot > 0 and len(last) - dot <= EXTENSION and last[dot + 1 :].isalpha()
    extension = len(last) - dot if known else 0
    ends = max(extension, (width - 1) // 2)
    start = _past_number(last[: width - 1 - ends][::-1])[::-1]
    return f"{start}…{_past_number(last[len(last) - ends :])}"


def _last_folders(name: str, width: int) -> str:
    """The most of the path's last parts, whole, that fit in `width` (`""`: not even one)."""
    kept = ""
    for part in reversed(name.split("/")[1:]):
        longer = f"{part}/{kept}" if kept else part
        if len(longer) > width:
            break
        kept = longer
    return kept


def _both_ends(name: str, width: int) -> str:
    """The start of the path's folder, `…/` and its last parts whole (`claude-…/01-replay.jsonl`,
    `…/claude…/01-replay.jsonl` in a folder of folders): for files of one name in folders whose
    ends are alike too (`…acp-drive/`), the start of their folder is what tells them apart; a
    name whose last part alone does not fit, that part's start and its extension, or end
    (`opencode-….jsonl`, `01-repl….jsonl` where every name ends in `_v1_live.jsonl`, or in
    `-replay.jsonl`)."""
    if len(name) <= width:
        return name
    kept = _last_folders(name, width - 4)
    if not kept:
        return _start_and_end(name, width)
    rest = name[: len(name) - len(kept) - 1]
    lead = "…/" if "/" in rest else ""
    folder = rest.rpartition("/")[2][: width - len(lead) - 2 - len(kept)]
    head = _past_number(folder[::-1])[::-1]
    return f"{lead}{head}…/{kept}" if head.strip("/") else _end(name, width)


def _tail(name: str, width: int) -> str:
    """The name whole, or its end after `…` (no number at its start: `…1_load` reads as cut)."""
    if len(name) <= width:
        return name
    at = len(name) - width + 1
    return "…" + _past_number(name[at:])


def _heads(name: str, width: int) -> str:
    """A scoped package's name (`@scope/name`) as the starts of its scope and of its name
    (`@agen…/claude…`): where their ends read alike (`@agentclientprotocol/claude-agent-acp`,
    `@zed-industries/claude-agent-acp`), the scope's start tells them apart and the name's
    says what they are; the start alone (`_head`) would keep the scope and lose the name. Any
    other name: `_head`."""
    scope, _, last = name.partition("/")
    lead = scope[: max(4, (width - 3) // 3)]
    room = width - len(lead) - 2
    if len(name) <= width or not scope.startswith("@") or not last or "/" in last or room < 4:
        return _head(name, width)
    joint = "/" if lead == scope else "…/"
    return f"{lead}{joint}{_head(last, room + 2 - len(joint))}"


def _head(name: str, width: int) -> str:
    """The name whole, or its start before `…` (no number at its end: `codex-acp-2…` reads as
    cut)."""
    if len(name) <= width:
        return name
    return _past_number(name[: width - 1][::-1])[::-1] + "…"


def _past_number(text: str) -> str:
    """`text` from past the number it starts with, its digits and a `.` between them
    (`0.101.0-drive` → `-drive`, `7.jsonl` → `.jsonl`): `…1.jsonl` reads as a cut number."""
    at = 0
    while at < len(text) and (text[at].isdigit() or text[at : at + 2] in _DOT_DIGITS):
        at += 1
    return text[at:]


_DOT_DIGITS = frozenset(f".{digit}" for digit in string.digits)


class NameBook:
    """The cut of every group name and of every `file:line`'s path, one for all the tables of a
    report: each table that shows them registers (`register`), and before the first is laid
    out at a width, every one of them is laid out once to learn the least room any leaves the
    names, and the paths (`settle`); from then on each shortens them to that room, the whole
    set at once (`end_names` tells them apart among all of them, not among the few one table
    lists). The book is the `shorten` of group columns, its `places` that of `file:line`
    columns. A table with room for the names whole shows them whole."""

    def __init__(self, names: Sequence[str], paths: Sequence[str] = ()) -> None:
        self.names = _Shelf(names)
        self.paths = _Shelf(paths)
        self.places = Places(self.paths)
        self.tables: list[FittedTable] = []
        self._rooms: dict[int, tuple[int, int]] = {}
        self._settling = False

    def register(self, table: FittedTable) -> FittedTable:
        """The table, its names' cuts now settled with the others'."""
        table.settle = self.settle
        self.tables.append(table)
        return table

    def settle(self, console: Console, options: ConsoleOptions) -> None:
        """The least room any table leaves the names, and the paths, at this width, learnt
        once."""
        if self._settling:
            return  # (a table laid out while the rooms are learnt)
        width = options.max_width
        if width not in self._rooms:
            self._settling = True
            self.names.room = self.paths.room = UNBOUNDED
            names: list[int] = []
            paths: list[int] = []
            for table in self.tables:
                table.layout(console, options)
                for column in _shortened(table, self):
                    if column.shorten is self:
                        names.append(column.need())
                    else:
                        paths.append(max(len(c.plain.rpartition(":")[0]) for c in column.cells))
            self._rooms[width] = (self.names.least(names), self.paths.least(paths))
            self._settling = False
        self.names.room, self.paths.room = self._rooms[width]

    def __call__(self, names: Sequence[str], width: int) -> list[str]:
        """`names` shortened as a column's `shorten` (`_Shelf.cut`)."""
        return self.names.cut(names, width)


class Places:
    """The `shorten` of a `file:line` column: each path cut as the report's book cuts it, to
    the room the longest line number leaves; the line number always whole."""

    def __init__(self, shelf: _Shelf) -> None:
        self.shelf = shelf

    def __call__(self, places: Sequence[str], width: int) -> list[str]:
        return short_places(places, width, self.shelf.cut)


def short_places(
    places: Sequence[str],
    width: int,
    cut: Callable[[Sequence[str], int], list[str]] = end_names,
) -> list[str]:
    """Each `path:line` in `width` characters: the paths cut by `cut` (`end_names`: their end
    kept, whole folders first, all told apart), to the room the longest line number leaves;
    the line number always whole."""
    split = [place.rpartition(":") for place in places]
    room = width - max((len(line) + 1 for _, colon, line in split if colon), default=0)
    paths = sorted({path for path, colon, _ in split if colon})
    cuts = dict(zip(paths, cut(paths, max(room, 1)), strict=True))
    return [f"{cuts[path]}:{line}" if colon else line for path, colon, line in split]


class _Shelf:
    """One set of names a book cuts one way (the group names, or the paths), and the room it
    settled for them."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(dict.fromkeys(printable(name) for name in names))
        self.room = UNBOUNDED

    def cut(self, names: Sequence[str], width: int) -> list[str]:
        """`names` shortened to the settled room, however wide `width` (to `width` where the
        room would make two of them read alike: a table too narrow for the others' cut cuts
        its own, as wide as telling them apart takes)."""
        shown: list[str] = []
        for room in (min(width, self.room), width):
            cut = dict(zip(self.names, end_names(self.names, room), strict=True))
            shown = [cut.get(name, name) for name in names]
            if len(set(shown)) == len(set(names)):
                break
        return shown

    def least(self, rooms: Sequence[int]) -> int:
        """The least of the rooms tables left that still tells every name from every other."""
        apart = [room for room in rooms if self._apart(room)]
        return min(apart, default=UNBOUNDED)

    def _apart(self, room: int) -> bool:
        """Every name still told apart from every other when cut to `room`."""
        return len(set(end_names(self.names, room))) == len(self.names)


def _shortened(table: FittedTable, book: NameBook) -> Iterator[Column]:
    """The table's columns of names or paths that its last layout shortened (a shortened
    column is a new one: `fitted.shortened`)."""
    for column in table.shown:
        if column.shorten in (book, book.places) and all(column is not c for c in table.columns):
            yield column


BOOK: ContextVar[NameBook | None] = ContextVar("BOOK", default=None)
"""The book of the report whose tables are being made (`group_column` and the tables take it)."""
