"""One streaming pass over one connection's transcript: the `Walk`, and its `Analysis`.

The entry points that open files (one walk per connection) are in `acptrace.pipeline.transcripts`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO, cast

import msgspec

from acptrace.correlate.correlator import Correlator, Step
from acptrace.correlate.observations import Observation, WindowClosed
from acptrace.decode.classify import Classifier, Found
from acptrace.decode.fastpath import run_found
from acptrace.decode.malformed import Batch, LostMessage
from acptrace.decode.stream import Read, ReadStats, read_records
from acptrace.judge.dispatch import FindingSink, Finishing, Judge
from acptrace.judge.lost import LostInput, demote_for_lost_input
from acptrace.judge.outcomes import rows_for
from acptrace.judge.rules import RULES
from acptrace.model.domain import (
    Analysis,
    Connection,
    ConnectionEnd,
    Issue,
    IssueKind,
    Message,
    ResumeRow,
    Role,
    Source,
    UpdateRun,
)
from acptrace.model.options import Execution, Options
from acptrace.model.tags import TagPolicy
from acptrace.read.connections import Part
from acptrace.read.envelopes import Envelope, RecorderEvent
from acptrace.read.formats import ReadSettings, format_named
from acptrace.read.source import iter_blocks, open_input

TranscriptInput = str | os.PathLike[str] | BinaryIO
"""A transcript: a path (`-` for stdin, `.gz` transparently) or an open binary stream."""


@contextmanager
def opened(source: TranscriptInput, name: str | None = None) -> Iterator[tuple[BinaryIO, str]]:
    """The input as a binary stream, and the name it goes by (`label`)."""
    if isinstance(source, str | os.PathLike):
        with open_input(source) as stream:
            yield stream, label(source, name)
    else:
        yield source, label(source, name)


def label(source: TranscriptInput, name: str | None = None) -> str:
    """The name an input goes by: `name` when given, else its path (`<stream>` for a stream)."""
    if name:
        return name
    return os.fspath(source) if isinstance(source, str | os.PathLike) else "<stream>"


class _Run(msgspec.Struct):
    """What one analysis accumulates while the transcript streams by."""

    options: Options
    judge: Judge
    rows: list[ResumeRow] = msgspec.field(default_factory=list)
    issues: list[Issue] = msgspec.field(default_factory=list)
    messages: int = 0
    events: int = 0
    closed: bool = False
    lost: LostInput = msgspec.field(default_factory=LostInput)
    """Whether the input lost messages (rules.md §9)."""

    def issue(self, issue: Issue) -> None:
        """Keep an input issue."""
        self.issues.append(issue)
        self.lost.on_issue(issue)

    def after_close(self, record: Message | Found | Envelope | UpdateRun) -> Iterator[Issue]:
        """Traffic after the recorded end of the connection: reported, not analysed."""
        first = record.first.line if isinstance(record, UpdateRun) else record.line
        count = record.count if isinstance(record, UpdateRun) else 1
        for line in range(first, first + count):
            issue = Issue(
                line, IssueKind.AFTER_CLOSE, "a message after the recorded end of the connection"
            )
            self.issues.append(issue)
            yield issue

    def observe(self, observation: Observation) -> None:
        self.judge.observe(observation)
        if isinstance(observation, WindowClosed):
            self.rows.extend(rows_for(observation))


def analyze_stream(
    stream: BinaryIO, options: Options, *, name: str, execution: Execution | None = None
) -> Analysis:
    """Analyse a transcript from an open binary stream."""
    walk = Walk(stream, options, name=name, each_message=False, execution=execution)
    for _ in walk:
        pass
    return walk.analysis


Item = Step | RecorderEvent | Issue | UpdateRun
"""What a walk yields: each message as correlated, recorder events and input issues (and runs
of plain updates with their lines, when asked for: `Walk.runs_whole`)."""


class Walk:
    """The analysis as a stream: iterate it for every item in order; `analysis` is ready after.

    Views that show every message (timelines, exports) iterate the walk; the memory it holds
    is still only what is open. A walk for the analysis alone (`each_message=False`) takes
    runs of plain updates together (`UpdateRun`) and yields no step for them, unless it keeps
    payloads (`Execution.payloads`, the timeline): then the analysis follows each run as one,
    and a step for each of its updates follows (`decode.fastpath.run_found`).
    """

    def __init__(
        self,
        stream: BinaryIO | Part,
        options: Options,
        *,
        name: str,
        each_message: bool = True,
        execution: Execution | None = None,
    ) -> None:
        """Walk a stream, or one connection of a file that holds several (already read)."""
        self.options = options
        self.execution = execution or Execution()
        self.name = name
        self.each_message = each_message
        self._stream = stream
        self._analysis: Analysis | None = None
        self._unanswered: tuple[Message, ...] = ()
        self.findings_sink: FindingSink | None = None
        """Set before the walk, where its findings go instead of `analysis.findings` (left
        empty): a million findings need not be held (`acptrace.pipeline.parked`)."""
        self.runs_whole = False
        """Set before a walk that keeps payloads, each run of plain updates is yielded as its
        `UpdateRun` (with its lines), not a step for each update: for a view that reads the
        lines itself (the timeline's rows, `decode.fastpath.run_updates`)."""

    @property
    def connection(self) -> str | None:
        """The connection walked, in a file that holds several; None for a file of one."""
        return self._stream.name if isinstance(self._stream, Part) else None

    @property
    def analysis(self) -> Analysis:
        """The finished analysis (only once the walk has been iterated to its end)."""
        if self._analysis is None:
            raise RuntimeError("the walk has not been iterated to its end yet")
        return self._analysis

    @property
    def unanswered(self) -> tuple[Message, ...]:
        """Requests still pending when the transcript ended, in order (after the walk)."""
        return self._unanswered

    def __iter__(self) -> Iterator[Item]:
        options = self.options
        rules = [r for r in RULES if options.wants(r.id, r.family)]
        run = _Run(options, Judge(rules, sink=self.findings_sink))
        part = self._stream if isinstance(self._stream, Part) else None
        correlator = Correlator(
            options.tag_policy(),
            run.observe,
            options.protocol,
            options.child_rules,
            part.protocol_version if part is not None else None,
        )
        classifier = Classifier()
        stats = ReadStats()
        runs_for = None if self.each_message else options.tag_policy()
        if part is None:
            records = _records(
                cast(BinaryIO, self._stream), options, self.execution, stats, runs_for
            )
        else:
            records = iter(part.records)
            stats.format, stats.lines = part.format, part.lines
        for record in records:
            if run.closed and isinstance(record, Message | Found | Envelope | UpdateRun):
                yield from run.after_close(record)
            elif isinstance(record, Found):  # (the hot path, keeping payloads)
                run.messages += 1
                yield correlator.on_message(record.message, record.payload)
            elif isinstance(record, UpdateRun):
                run.messages += record.count
                correlator.on_run(record)
                if record.lines and self.runs_whole:  # (the view reads its lines)
                    yield record
                elif record.lines:  # (payloads kept: a step for each, as `on_message` gives)
                    for found in run_found(record, stats.format):
                        yield Step(found.message, payload=found.payload)
            elif isinstance(record, Message):
                run.messages += 1
                yield correlator.on_message(record)
            elif isinstance(record, Envelope):
                for item in classifier.classify(record):
                    if isinstance(item, Found):
                        run.messages += 1
                        yield correlator.on_message(item.message, item.payload)
                    elif isinstance(item, Issue):
                        run.issue(item)
                        yield item
                    elif isinstance(item, Batch):
                        correlator.on_batch(item)
                    elif isinstance(item, LostMessage):
                        run.lost.on_lost(item.line)
                    else:
                        run.observe(item)
            else:
                if isinstance(record, RecorderEvent):
                    run.events += 1
                    if record.is_close and not run.closed:
                        run.closed = True  # the connection ends here, whatever follows
                        self._unanswered = correlator.finish(ConnectionEnd.RECORDED)
                else:
                    run.issue(record)
                yield record
        end = _connection_end(run.closed, options.assume_closed)
        if not run.closed:
            self._unanswered = correlator.finish(end)
        protocol = correlator.protocol(options.protocol)
        version = protocol.version
        version_issue = correlator.version_issue(options.protocol)
        if version_issue is not None:
            run.issue(version_issue)
        if self.findings_sink is not None:
            self.findings_sink.finish(Finishing(version, run.lost.reason(), protocol.shown))
        self._analysis = Analysis(
            source=Source(
                self.name,
                stats.format,
                stats.lines,
                run.messages,
                run.events,
                end,
                stats.note,
                connection=None if part is None else part.name,
                requirements=None if part is None else part.requirements,
                test_status=None if part is None else part.test_status,
            ),
            connection=Connection(
                version,
                protocol.source,
                correlator.agent,
                correlator.client,
                protocol.reason,
                protocol.shown,
            ),
            resumes=tuple(sorted(run.rows, key=_row_order)),
            findings=demote_for_lost_input(
                run.judge.verdict(version, protocol.shown), run.lost.reason()
            ),
            issues=tuple(sorted(run.issues, key=lambda i: i.line)),
            sessions=tuple(correlator.sessions.infos()),
        )


def _records(
    stream: BinaryIO,
    options: Options,
    execution: Execution,
    stats: ReadStats,
    runs_for: TagPolicy | None,
) -> Iterator[Read]:
    """The input's records: decoded by several processes when the execution asks for it and
    the input is a big plain file (`acptrace.pipeline.pieces`), else in this one."""
    if _may_split(stream, execution):
        from acptrace.pipeline.pieces import split_records  # (most inputs never are split)

        split = split_records(stream, options, execution, stats, runs_for)
        if split is not None:
            return split
    forced = format_named(options.input_format) if options.input_format else None
    lines = iter_blocks(stream, execution.max_line_bytes)
    settings = ReadSettings(
        link=options.link, fast=execution.fast, runs_for=runs_for, payloads=execution.payloads
    )
    return read_records(lines, stats, forced, settings)


def _may_split(stream: BinaryIO, execution: Execution) -> bool:
    """Whether `acptrace.pipeline.pieces` might split the input: several processes asked, and
    a file of `Execution.split_min_bytes` or more (it checks the rest). Start-up of a small
    file does not pay for importing it."""
    if execution.split < 2 or not isinstance(stream, io.BufferedReader):
        return False  # (what `pieces` reads: a file opened by its path; not any file-like)
    try:
        return os.fstat(stream.fileno()).st_size >= execution.split_min_bytes
    except (OSError, ValueError):
        return False


def _connection_end(recorded: bool, assume_closed: bool) -> ConnectionEnd:
    if recorded:
        return ConnectionEnd.RECORDED
    return ConnectionEnd.ASSUMED if assume_closed else ConnectionEnd.UNKNOWN


def _row_order(row: ResumeRow) -> tuple[int, int, int]:
    """Requests in line order; each request's own row before its children's."""
    child = row.role is Role.CHILD
    return (row.request_line, int(child), row.announce_line or 0)
