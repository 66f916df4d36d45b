"""The library entry point: one streaming pass from a transcript to an `Analysis`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import BinaryIO

from acptrace.classify import Classifier
from acptrace.correlate import Correlator
from acptrace.formats import format_named
from acptrace.judge import Judge
from acptrace.model import (
    Analysis,
    Connection,
    ConnectionEnd,
    Issue,
    Message,
    ResumeRow,
    Role,
    Source,
)
from acptrace.observations import Observation, WindowClosed
from acptrace.options import Options
from acptrace.outcomes import rows_for
from acptrace.read import ReadStats, read_records
from acptrace.records import Envelope, RecorderEvent
from acptrace.rules import RULES
from acptrace.source import iter_lines, open_input


def analyze(
    source: str | os.PathLike[str] | BinaryIO,
    options: Options | None = None,
    *,
    name: str | None = None,
) -> Analysis:
    """Analyse one transcript: a path (`-` for stdin, `.gz` transparently) or a binary stream.

    Raises `UnreadableInput` when the input cannot be read at all; everything wrong inside it
    is reported in the result.
    """
    options = options or Options()
    if isinstance(source, str | os.PathLike):
        with open_input(source) as stream:
            return analyze_stream(stream, options, name=name or os.fspath(source))
    return analyze_stream(source, options, name=name or "<stream>")


@dataclass(slots=True)
class _Run:
    """What one analysis accumulates while the transcript streams by."""

    options: Options
    judge: Judge
    rows: list[ResumeRow] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    messages: int = 0
    events: int = 0
    closed: bool = False

    def observe(self, observation: Observation) -> None:
        self.judge.observe(observation)
        if isinstance(observation, WindowClosed):
            self.rows.extend(rows_for(observation, self.options.assume_closed))


def analyze_stream(stream: BinaryIO, options: Options, *, name: str) -> Analysis:
    """Analyse a transcript from an open binary stream."""
    forced = format_named(options.input_format) if options.input_format else None
    rules = [r for r in RULES if options.wants(r.id, r.family)]
    run = _Run(options, Judge(rules))
    correlator = Correlator(options.tag_policy(), run.observe)
    classifier = Classifier()
    stats = ReadStats()
    for record in read_records(iter_lines(stream, options.max_line_bytes), stats, forced):
        if isinstance(record, Envelope):
            for item in classifier.classify(record):
                if isinstance(item, Message):
                    run.messages += 1
                    correlator.on_message(item)
                elif isinstance(item, Issue):
                    run.issues.append(item)
                else:
                    run.observe(item)
        elif isinstance(record, RecorderEvent):
            run.events += 1
            run.closed = run.closed or record.is_close
            correlator.on_event(record)
        else:
            run.issues.append(record)
    end = _connection_end(run.closed, options.assume_closed)
    correlator.finish(end)
    version, protocol_source = correlator.protocol(options.protocol)
    return Analysis(
        source=Source(name, stats.format, stats.lines, run.messages, run.events, end),
        connection=Connection(version, protocol_source, correlator.agent, correlator.client),
        resumes=tuple(sorted(run.rows, key=_row_order)),
        findings=run.judge.verdict(version),
        issues=tuple(sorted(run.issues, key=lambda i: i.line)),
        sessions=tuple(correlator.sessions.infos()),
    )


def _connection_end(recorded: bool, assume_closed: bool) -> ConnectionEnd:
    if recorded:
        return ConnectionEnd.RECORDED
    return ConnectionEnd.ASSUMED if assume_closed else ConnectionEnd.UNKNOWN


def _row_order(row: ResumeRow) -> tuple[int, int, int]:
    """Requests in line order; each request's own row before its children's."""
    child = row.role is Role.CHILD
    return (row.request_line, int(child), row.announce_line or 0)
