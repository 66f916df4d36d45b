"""Replay fidelity as a terminal table with the differences under it, and as JSON."""

from __future__ import annotations

from typing import Any

import orjson
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from acptrace.fidelity import (
    Comparison,
    FidelityReport,
    FirstSeen,
    HistoryItem,
    Place,
    PlaceNames,
    SessionFidelity,
)
from acptrace.model.domain import Outcome, Role
from acptrace.render.facts import Facts
from acptrace.render.fitted import Column, FittedTable
from acptrace.render.summary import OUTCOME_STYLE
from acptrace.render.text import inert, short_id

SCHEMA_VERSION = 1
"""Of the JSON document: fields may be added; none is renamed or removed without bumping it."""
TITLE = "Replay fidelity"
UNKNOWN = "—"
"""The fidelity shown without a ratio (None in the JSON), and the counts of a replay not
judged."""
EXCERPT_CHARS = 60
"""A missing or extra item's text is shown up to this many characters."""


def fidelity_document(report: FidelityReport) -> dict[str, Any]:
    """The JSON document: the files, one entry per replayed session, then the input issues."""
    return {
        "schema_version": SCHEMA_VERSION,
        "files": list(report.paths),
        "sessions": [_session(entry) for entry in report.sessions],
        "issues": [
            {"path": i.path, "line": i.issue.line, "kind": i.issue.kind.value,
             "message": i.issue.message}
            for i in report.issues
        ],
    }  # fmt: skip


def fidelity_json(report: FidelityReport) -> bytes:
    """`fidelity_document` as indented JSON."""
    return orjson.dumps(fidelity_document(report), option=orjson.OPT_INDENT_2) + b"\n"


def _session(entry: SessionFidelity) -> dict[str, Any]:
    c = entry.comparison
    return {
        "session_id": entry.session_id,
        "role": entry.role.value,
        "path": entry.path,
        "request_line": entry.request_line,
        "outcome": entry.outcome.value,
        "error_code": entry.error_code,
        "first_seen": None if entry.first_seen is None else {
            "path": entry.first_seen.path, "line": entry.first_seen.line,
            "named_by": entry.first_seen.named_by,
        },
        "unfinished_turns": [{"path": p.path, "line": p.line} for p in entry.unfinished],
        "live_items": c.live_items,
        "replayed_items": c.replayed_items,
        "missing": [{**_item(i), "path": i.path, "line": i.line} for i in c.missing],
        "extra": [{**_item(i), "path": i.path, "line": i.line} for i in c.extra],
        "changed": [
            {**_item(ch.live), "live_path": ch.live.path, "live_line": ch.live.line,
             "replayed_path": ch.replayed.path, "replayed_line": ch.replayed.line,
             "diff": list(ch.diff)}
            for ch in c.changed
        ],
        "reordered": [
            {**_item(m.item), "live_index": m.live_index, "replayed_index": m.replayed_index}
            for m in c.reordered
        ],
        "fidelity": None if c.fidelity is None else round(c.fidelity, 4),
        "fidelity_reason": entry.no_ratio,
    }  # fmt: skip


def _item(item: HistoryItem) -> dict[str, Any]:
    return {"kind": item.kind.value, "id": item.id, "role": item.role}


def fidelity_view(report: FidelityReport) -> RenderableType:
    """The table (one row per replayed session), then what differs, session by session."""
    if not report.sessions:
        return Text("No replays to compare: no session/resume with replayFrom or session/load.")
    lines = PlaceNames.of(report.paths)
    replayed = lines.file(report.paths[-1]) if report.paths else ""
    title = TITLE if lines.names is None else f"{TITLE} of the replays in {replayed}"
    table = FittedTable(_columns(), legend="fidelity", title=title, title_justify="left")
    for entry in report.sessions:
        c = entry.comparison
        judged = entry.unjudged is None
        counts = (c.replayed_items, len(c.missing), len(c.extra), len(c.changed),
                  len(c.reordered))  # fmt: skip
        styles = ("", "red", "yellow", "yellow", "yellow")
        table.add_row(
            str(entry.request_line),
            inert(("└ " if entry.role is Role.CHILD else "") + short_id(entry.session_id)),
            Text(_outcome(entry), OUTCOME_STYLE[entry.outcome]),
            str(c.live_items),
            *(_count(n, style) if judged else Text(UNKNOWN, "dim")
              for n, style in zip(counts, styles, strict=True)),
            Text(UNKNOWN if c.fidelity is None else f"{c.fidelity:.2f}", _ratio_style(c)),
        )  # fmt: skip
    details = (_details(entry, lines) for entry in report.sessions if _differs(entry))
    return Group(table, *details)


def _outcome(entry: SessionFidelity) -> str:
    """The outcome, with the error code of a request answered with one (`refused -32601`: the
    ratio's dash alone would not say why)."""
    code = entry.error_code
    return entry.outcome.value if code is None else f"{entry.outcome.value} {code}"


def _columns() -> list[Column]:
    """The table's columns; at narrow widths the counts a row's others imply go first
    (replayed, moved, live), then the outcome, the fidelity last (the line and the session name the
    row; the outcome says why a ratio is low or missing, a refused request's most of all)."""
    right = "right"
    return [
        Column("line", right),
        Column("session"),
        Column("outcome", drop=4),
        Column("live", right, drop=3),  # (the ratio's denominator: kept longer than repl)
        Column("repl", right, drop=1),
        Column("missing", right, drop=7),
        Column("extra", right, drop=6),
        Column("changed", right, drop=5),
        Column("moved", right, drop=2),
        Column("fidelity", right, drop=8),
    ]


def _ratio_style(c: Comparison) -> str:
    """Dim without a ratio (nothing was compared), green when whole, else red."""
    return "dim" if c.fidelity is None else "green" if c.fidelity == 1 else "red"


def _count(n: int, style: str) -> Text:
    return Text(str(n), style if n else "dim")


def _differs(entry: SessionFidelity) -> bool:
    c = entry.comparison
    return bool(
        c.missing or c.extra or c.changed or c.reordered or c.fidelity is None or entry.unfinished
    )


def _details(entry: SessionFidelity, lines: PlaceNames) -> Group:
    """What differs in one session's replay, an item a line (a changed one with its diff); a
    line wraps between its facts (`replayed line 31` stays whole), its excerpt and diff under
    their item."""
    c = entry.comparison
    heading = inert(entry.session_id, "bold").append(" ")
    where = _where(_request(entry, lines), [_outcome(entry)])
    shown: list[RenderableType] = [Text(), Facts([heading, *_dim(where)], " ", hang=2)]
    if entry.first_seen is not None and c.extra:
        shown.append(_note(_before_input(entry.first_seen, lines), "dim"))
    shown += [_note(_unfinished(place, lines), "dim") for place in entry.unfinished]
    if c.fidelity is None:
        shown.append(_note(_no_ratio(entry)))
        return Group(*shown)
    for item in c.missing:
        shown.append(
            _line("missing", "red", item, _where(lines.words(item.path, item.line, "live")))
        )
        shown.extend(_excerpt(item))
    for item in c.extra:
        where = _where(lines.words(item.path, item.line, "replayed"))
        shown.append(_line("extra", "yellow", item, where))
        shown.extend(_excerpt(item))
    for change in c.changed:
        where = _where(
            lines.words(change.live.path, change.live.line, "live"),
            lines.words(change.replayed.path, change.replayed.line, "replayed"),
        )
        shown.append(_line("changed", "yellow", change.live, where))
        for diff in change.diff:
            style = "red" if diff.startswith("-") else "green" if diff.startswith("+") else "dim"
            shown.append(_under(inert(diff, style)))
    for move in c.reordered:
        where = [f"(live #{move.live_index + 1},", f"replayed #{move.replayed_index + 1})"]
        shown.append(_line("reordered", "yellow", move.item, where))
    return Group(*shown)


def _where(*groups: list[str]) -> list[str]:
    """Facts in parentheses, the groups parted by commas: `(live line 7,`, `replayed line 6)`."""
    facts: list[str] = []
    for group in groups:
        if facts:
            facts[-1] += ","
        facts += group
    facts[0] = "(" + facts[0]
    facts[-1] += ")"
    return facts


def _request(entry: SessionFidelity, lines: PlaceNames) -> list[str]:
    """Where the replay's request is: `request at line 4`; `request at`, `replay.jsonl:4`."""
    words = lines.words(entry.path, entry.request_line)
    return [f"request at {words[0]}"] if lines.names is None else ["request at", *words]


def _no_ratio(entry: SessionFidelity) -> str:
    """Why the fidelity is `—`: the replay is not judged, or nothing live was there."""
    if entry.unjudged is None:
        why = "no live history before the request to compare with"
        replayed = entry.comparison.replayed_items
        extra = f" (all {replayed} replayed items are extra)" if replayed else ""
        return f"fidelity {UNKNOWN}: {why}{extra}"
    why = (
        "an error before any update: nothing was replayed"
        if entry.outcome is Outcome.REFUSED
        else "it overlaps another replay of the session: no update is surely its own"
    )
    return f"fidelity {UNKNOWN}: not judged, {entry.unjudged} ({why})"


def _unfinished(place: Place, lines: PlaceNames) -> str:
    """Why a live turn may hold less than its replay: the recording ended inside it."""
    return (
        f"turn unfinished: the recording ends inside the turn of the prompt at "
        f"{lines.at(place.path, place.line)} (its items count as far as it went)"
    )


def _before_input(seen: FirstSeen, lines: PlaceNames) -> str:
    """Why an extra item may be history after all: the session began before the input."""
    return (
        f"live history from {lines.at(seen.path, seen.line)} ({seen.named_by}) on: what the "
        "session held before is not in the input, so an extra item may be history from before it"
    )


def _note(text: str, style: str = "") -> Padding:
    """A sentence about the whole session, under its heading."""
    return Padding(Text(text, style), (0, 0, 0, 2))


def _excerpt(item: HistoryItem) -> list[RenderableType]:
    """The start of a missing or extra item's text, on a line of its own."""
    words = " ".join(item.text.split())
    if not words:
        return []
    shown = words if len(words) <= EXCERPT_CHARS else words[: EXCERPT_CHARS - 1] + "…"
    return [_under(inert(shown, "dim"))]


def _under(text: Text) -> Padding:
    """An excerpt or a diff line under its item, wrapped lines as far in."""
    return Padding(text, (0, 0, 0, 6))


def _dim(parts: list[str]) -> list[Text]:
    return [Text(part, "dim") for part in parts]


def _line(label: str, style: str, item: HistoryItem, where: list[str]) -> Facts:
    name = item.kind.value if item.role is None else f"{item.role} {item.kind.value}"
    head = Text(f"{label:<9}", style).append_text(inert(f" {name} {item.id} "))
    return Facts([head, *_dim(where)], " ", indent=2, hang=12)
