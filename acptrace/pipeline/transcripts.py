"""The library's entry points: a transcript file (a path, `-`, or a binary stream) opened as one
walk per connection it holds.

Most formats hold one connection; an acp-tck report or an acp-inspector-trace export may hold
several, and so may a canonical file that joins several recordings (each `open` record after
traffic starts one, `acptrace.pipeline.joined`); each is analysed and reported on its own,
exactly like several files (input-formats.md), with `source.connection` naming it. Calls that
read one transcript (`analyze`, `open_walk`) refuse a file that holds several connections
instead of merging them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import BinaryIO

from acptrace.model.domain import Analysis
from acptrace.model.errors import NotATranscript, SeveralConnections
from acptrace.model.options import Execution, Options
from acptrace.pipeline.analysis import TranscriptInput, Walk, label, opened, recordings
from acptrace.pipeline.joined import Recordings
from acptrace.read.connections import read_parts
from acptrace.read.envelopes import Part


@contextmanager
def open_walks(
    source: TranscriptInput,
    options: Options | None = None,
    *,
    name: str | None = None,
    each_message: bool = True,
    execution: Execution | None = None,
) -> Iterator[list[Walk]]:
    """One walk per connection the file holds, in file order (one for most formats, none for
    an acp-tck report without tests). Iterate each in turn, for views of every message: a
    file joined from several recordings (`acptrace.pipeline.joined`) gains the walk of the next
    one as the walk before it ends, so the list grows while it is iterated.

    Raises `UnreadableInput` when the input cannot be read at all.
    """
    options, execution = options or Options(), execution or Execution()
    with opened(source, name) as (stream, label):
        parts = read_parts(stream, options.input_format, execution.max_line_bytes)
        walks: list[Walk] = []

        def walk(one: BinaryIO | Part | Recordings) -> Walk:
            return Walk(one, options, name=label, each_message=each_message, execution=execution)

        if parts is not None:
            walks.extend(walk(part) for part in parts)
        else:  # (a file that joins several recordings grows a walk as each one ends)
            joined = recordings(
                stream, options, execution, each_message, lambda: walks.append(walk(joined))
            )
            walks.append(walk(joined))
        yield walks


@contextmanager
def open_walk(
    source: TranscriptInput,
    options: Options | None = None,
    *,
    name: str | None = None,
    each_message: bool = True,
    execution: Execution | None = None,
) -> Iterator[Walk]:
    """A walk over a transcript of one connection, for views of every message.

    Raises `UnreadableInput` when the input cannot be read at all, and `SeveralConnections`
    when it holds several connections (`open_walks` takes those).
    """
    with open_walks(
        source, options, name=name, each_message=each_message, execution=execution
    ) as walks:
        yield _the_one(walks, source, name)
        _the_one(walks, source, name)  # (a file that joins recordings shows it once walked)


def analyze_file(
    source: TranscriptInput,
    options: Options | None = None,
    *,
    name: str | None = None,
    execution: Execution | None = None,
) -> list[Analysis]:
    """Every connection a transcript file holds, analysed: one analysis for most formats, one
    per connection (`source.connection` set) for a multi-connection format, even with one.

    Raises `UnreadableInput` when the input cannot be read at all.
    """
    with open_walks(source, options, name=name, each_message=False, execution=execution) as walks:
        return [_finished(walk) for walk in walks]


def analyze(
    source: TranscriptInput,
    options: Options | None = None,
    *,
    name: str | None = None,
    execution: Execution | None = None,
) -> Analysis:
    """Analyse one transcript of one connection.

    Raises `UnreadableInput` when the input cannot be read at all (everything wrong inside it
    is reported in the result), and `SeveralConnections` when the file holds several
    connections (`analyze_file` gives one analysis for each).
    """
    with open_walks(source, options, name=name, each_message=False, execution=execution) as walks:
        analysis = _finished(_the_one(walks, source, name))
        _the_one(walks, source, name)  # (a file that joins recordings shows it once walked)
        return analysis


def is_multi_connection(analyses: list[Analysis]) -> bool:
    """Whether these analyses come from a multi-connection file (or files)."""
    return any(a.source.connection is not None for a in analyses)


def transcript_refusal(
    path: str, analyses: Sequence[Analysis], *, quoting: bool = True
) -> NotATranscript | None:
    """`NotATranscript` (`PATH: not a transcript (why)`) when none of the analyses of a file
    looks like a transcript (`Analysis.looks_like_transcript`): what commands refuse (what the
    file holds left out without `quoting`: `Analysis.not_a_transcript`)."""
    reasons = [analysis.not_a_transcript(quoting) for analysis in analyses]
    if reasons and all(reasons):
        return NotATranscript(f"{path}: not a transcript ({reasons[0]})")
    return None


def require_transcript(path: str, analyses: Sequence[Analysis], *, quoting: bool = True) -> None:
    """Raise the `transcript_refusal` of a file, if it has one."""
    refusal = transcript_refusal(path, analyses, quoting=quoting)
    if refusal is not None:
        raise refusal


def _finished(walk: Walk) -> Analysis:
    for _ in walk:
        pass
    return walk.analysis


def _the_one(walks: list[Walk], source: TranscriptInput, name: str | None) -> Walk:
    """The only walk of a file of one connection."""
    if len(walks) == 1:
        return walks[0]
    held = f"{len(walks)} connections" if walks else "no connection"
    raise SeveralConnections(
        f"{label(source, name)}: holds {held}; acptrace.analyze_file() or open_walks() read "
        "each on its own"
    )
