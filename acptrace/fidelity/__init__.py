"""Replay fidelity: did each replay carry the history as it was first sent live?

`fidelity(live)` compares, for each replay in one transcript, the session's live history before
the request with what the replay carried before its marker; `fidelity(live, replayed)` takes
the live history from one recording and the replays from a later one. A replay that replayed
nothing (`refused`) or cannot be told from another (`ambiguous`) is not judged. docs/fidelity.md
has the matching rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from acptrace.fidelity.compare import Change, Comparison, Move, compare, not_judged
from acptrace.fidelity.items import HistoryItem, ItemKind
from acptrace.fidelity.places import Place, PlaceNames
from acptrace.fidelity.replays import FirstSeen, LiveBook, Replay, scan
from acptrace.model.domain import Issue, Outcome, ResumeRow, Role
from acptrace.model.options import Options
from acptrace.pipeline.analysis import TranscriptInput, label

"""A transcript: a path (`-` for stdin, `.gz` transparently) or a binary stream."""


@dataclass(frozen=True, slots=True)
class SessionFidelity:
    """One session's replay against its live history."""

    session_id: str
    """The replayed session (the requested one or an announced child)."""
    role: Role
    """`requested` or `child`."""
    path: str
    """The file of the replay (the replayed file, with two)."""
    request_line: int
    """The line of the replaying request in it."""
    outcome: Outcome
    """The replay's outcome class (a truncated replay is compared all the same)."""
    error_code: int | None
    """The code of the error the request was answered with (None: a result or no answer): a
    request refused outright (-32601 from an Agent without `session/load`) replayed nothing."""
    comparison: Comparison
    """Items live and replayed, missing, extra, changed, reordered, and the ratio."""
    first_seen: FirstSeen | None = None
    """Where the input first names a session whose start it did not see (picked up with a
    `session/resume`, say): its history before that is not in the input, so an item replayed
    from it counts as extra. None: the input saw the session start."""
    unfinished: tuple[Place, ...] = ()
    """The prompts of the live turns the recording ended inside (before the turn's `idle` on
    v2, its response on v1): their items count, as far as they went."""
    unjudged: str | None = None
    """Why the replay is not judged (`refused: -32602`, `ambiguous`): it has no ratio and
    lists nothing as missing. None: it is compared."""

    @property
    def no_ratio(self) -> str | None:
        """Why the fidelity is None (not judged, or no live history); None when it is a ratio."""
        if self.comparison.fidelity is not None:
            return None
        return self.unjudged or NO_LIVE_HISTORY


NO_LIVE_HISTORY = "no live history"
"""Why a compared replay has no ratio: the input holds no live item of its session."""
AMBIGUOUS = "ambiguous"
"""Why a replay that overlaps another of its session is not judged."""


@dataclass(frozen=True, slots=True)
class InputIssue:
    """An input problem of one of the files compared."""

    path: str
    """The file it is in."""
    issue: Issue
    """The line, kind and message."""


@dataclass(frozen=True, slots=True)
class FidelityReport:
    """Every replay of the replayed file (the one file, in one-file mode), in request order."""

    sessions: tuple[SessionFidelity, ...]
    """One entry per replayed session."""
    issues: tuple[InputIssue, ...]
    """Input problems of the files read (lines that were skipped)."""
    paths: tuple[str, ...] = ()
    """The files compared, as named (`label`): the one, or the live then the replayed."""

    def rated(self) -> tuple[SessionFidelity, ...]:
        """The sessions that have a ratio (what `--fail-under` judges)."""
        return tuple(s for s in self.sessions if s.comparison.fidelity is not None)

    def below(self, ratio: float) -> tuple[SessionFidelity, ...]:
        """The sessions whose fidelity is below `ratio` (those without one are not judged)."""
        return tuple(s for s in self.rated() if (s.comparison.fidelity or 0.0) < ratio)

    def reordered(self) -> tuple[SessionFidelity, ...]:
        """The sessions whose replay moved an item out of the live order."""
        return tuple(s for s in self.sessions if s.comparison.reordered)


def fidelity(
    live: TranscriptInput,
    replayed: TranscriptInput | None = None,
    options: Options | None = None,
    *,
    require_transcripts: bool = False,
) -> FidelityReport:
    """Compare each replay with the live history of its session.

    One source: it holds the live session and its later replay. Two: the live recording, then
    the recording of the replay. Raises `UnreadableInput` when a file cannot be read at all, and
    with `require_transcripts` `NotATranscript` for a file that does not look like a transcript
    (empty, binary, JSON of another kind: `Analysis.looks_like_transcript`).
    """
    options = options or Options()
    book = LiveBook(options)
    issues: list[InputIssue] = []
    sources = (live,) if replayed is None else (live, replayed)
    for source in sources:
        replays, found = scan(source, options, book, require_transcripts)
        issues += [InputIssue(label(source), issue) for issue in found]
    sessions = tuple(_judged(r) for r in replays)
    return FidelityReport(sessions, tuple(issues), tuple(label(s) for s in sources))


def _judged(replay: Replay) -> SessionFidelity:
    """One replay compared with its live history, unless it is not to be judged."""
    row = replay.row
    why = unjudged(row)
    return SessionFidelity(
        row.session_id,
        row.role,
        replay.path,
        row.request_line,
        row.outcome,
        row.error_code,
        not_judged(replay.live) if why else compare(replay.live, replay.replayed),
        replay.first_seen,
        replay.unfinished,
        why,
    )


def unjudged(row: ResumeRow) -> str | None:
    """Why a replay is not judged: refused (an error before any update: nothing replayed,
    `refused: -32602`), or ambiguous (it overlaps another replay of its session); None: it is
    judged."""
    if row.outcome is Outcome.REFUSED:
        return "refused" if row.error_code is None else f"refused: {row.error_code}"
    return AMBIGUOUS if row.outcome is Outcome.AMBIGUOUS else None


__all__ = [
    "AMBIGUOUS",
    "NO_LIVE_HISTORY",
    "Change",
    "Comparison",
    "FidelityReport",
    "FirstSeen",
    "HistoryItem",
    "InputIssue",
    "ItemKind",
    "Move",
    "Place",
    "PlaceNames",
    "SessionFidelity",
    "fidelity",
]
