"""One streaming pass over one connection's transcript: the `Walk`, and its `Analysis`.

The entry points that open files (one walk per connection) are in `acptrace.pipeline.transcripts`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, BinaryIO, cast

from acptrace.correlate.correlator import Correlator, Step
from acptrace.correlate.observations import Observation, WindowClosed
from acptrace.decode.classify import Found
from acptrace.decode.malformed import Batch, LostMessage
from acptrace.decode.stream import Decoded, Read, ReadStats, decoded, read_records
from acptrace.decode.views import run_found, sampled_updates, shown_payload
from acptrace.judge.dispatch import FindingSink, Finishing, Judge
from acptrace.judge.lost import LostInput, demote_for_lost_input
from acptrace.judge.outcomes import rows_for
from acptrace.judge.rules import RULES
from acptrace.judge.schema.conformance import Conformance
from acptrace.model.domain import (
    Analysis,
    Connection,
    ConnectionEnd,
    Issue,
    Message,
    ResumeRow,
    Role,
    Source,
    UpdateRun,
)
from acptrace.model.excerpt import file_name
from acptrace.model.options import Execution, Options
from acptrace.model.tags import TagPolicy
from acptrace.pipeline.joined import Recordings
from acptrace.read.envelopes import Part, RecorderEvent
from acptrace.read.formats import ReadSettings, format_named
from acptrace.read.source import iter_blocks, open_input

if TYPE_CHECKING:
    from acptrace.judge.rules.registry import Rule

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
    """The name an input goes by: `name` when given, else its path (`<stream>` for a stream),
    as every output shows it (`file_name`)."""
    if name:
        return file_name(name)
    return file_name(source) if isinstance(source, str | os.PathLike) else "<stream>"


@lru_cache(maxsize=4)
def _wanted_rules(options: Options) -> tuple[Rule, ...]:
    """The rules whose findings the options want, picked once for all the connections an
    analysis reads (a joined file of many recordings: picked again for each, ~0.5 ms)."""
    return tuple(r for r in RULES if options.wants(r.id, r.family))


_MESSAGE = Found | Message
_RECORDED = RecorderEvent | Issue
"""The items `_Run.take` tells apart, as unions made once (`isinstance(x, A | B)` makes the
union anew at every call: more than the check costs)."""


class _Run:
    """What one analysis follows and accumulates while the transcript streams by: the
    correlator and the judge, the outcome rows, the issues, the counts."""

    __slots__ = (
        "closed", "correlator", "events", "forced", "issues", "judge", "lost", "messages",
        "rows", "schema", "unanswered",
    )  # fmt: skip

    def __init__(self, options: Options, sink: FindingSink | None, report_version: int | None):
        self.judge = Judge(list(_wanted_rules(options)), sink=sink)
        self.rows: list[ResumeRow] = []
        self.issues: list[Issue] = []
        self.messages = self.events = 0
        self.closed = False
        self.unanswered: tuple[Message, ...] = ()
        """Requests still pending at the recorded end of the connection."""
        self.lost = LostInput()
        """Whether the input lost messages (rules.md §9)."""
        self.schema = Conformance(options.schema_every) if options.checks_schema else None
        """The schema check (rules.md §12), when a schema rule is wanted."""
        self.forced = options.protocol
        self.correlator = Correlator(
            options.tag_policy(), self.observe, options.protocol, options.child_rules,
            report_version,
        )  # fmt: skip

    def take(self, item: Decoded, runs_whole: bool) -> Iterable[Item]:
        """Follow one decoded item; what a view of every message sees of it (a tuple for most:
        not a generator made for every item, when most give one item or none)."""
        if isinstance(item, _MESSAGE):
            self.messages += 1
            message, payload = (
                (item.message, item.payload) if isinstance(item, Found) else (item, None)
            )
            step = self.correlator.on_message(message, payload)
            if self.schema is not None and isinstance(item, Found) and not item.cut:
                self.check(step)
            return (step,)
        if isinstance(item, UpdateRun):
            self.messages += item.count
            self.correlator.on_run(item)
            if self.schema is not None and item.sampled:
                self.check_run(item)
            if item.lines and runs_whole:  # (the view reads its lines)
                return (item,)
            if item.lines:  # (payloads kept: a step for each, as `on_message` gives)
                return (Step(found.message, payload=found.payload) for found in run_found(item))
        elif isinstance(item, _RECORDED):
            self.record(item)
            return (item,)
        elif isinstance(item, Batch):
            self.correlator.on_batch(item)
        elif isinstance(item, LostMessage):
            self.lost.on_lost(item.line)
        else:
            self.observe(item)
        return ()

    def check(self, step: Step) -> None:
        """A message against the schema (rules.md §12), unless a check of its tag before
        makes it one the default leaves (`Conformance.wants`)."""
        assert self.schema is not None
        message = step.message
        if message.update_tag is None or self.schema.wants(message):  # (most: no update)
            self.schema.message(
                message, shown_payload(step.payload), self.negotiated(), step.request
            )

    def check_run(self, run: UpdateRun) -> None:
        """The updates of a run the hot path kept for the schema check: its first (unless its
        tag was checked before: parsed only if not), and the first of any tag on the
        connection."""
        assert self.schema is not None
        first, version = run.first, self.negotiated()
        for line, tag, payload in sampled_updates(run):
            if line != first.line:
                self.schema.update(first, line, tag, payload, version)
            elif self.schema.wants(first) and not self.schema.screened(payload, version):
                self.schema.message(first, shown_payload(payload), version)

    def negotiated(self) -> int | None:
        """The protocol version negotiated so far (or forced), None before any is."""
        return self.correlator.negotiated_version(self.forced)

    def record(self, item: RecorderEvent | Issue) -> None:
        """An input issue, or a recorder event (the first close ends the connection)."""
        if isinstance(item, Issue):
            self.issue(item)
            return
        self.events += 1
        if item.is_close and not self.closed:
            self.closed = True  # the connection ends here, whatever follows
            self.unanswered = self.correlator.finish(ConnectionEnd.RECORDED)

    def issue(self, issue: Issue) -> None:
        """Keep an input issue."""
        self.issues.append(issue)
        self.lost.on_issue(issue)

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
    and a step for each of its updates follows (`decode.views.run_found`).
    """

    def __init__(
        self,
        stream: BinaryIO | Part | Recordings,
        options: Options,
        *,
        name: str,
        each_message: bool = True,
        execution: Execution | None = None,
    ) -> None:
        """Walk a stream, one connection of a file that holds several (already read), or the
        next connection of a file that may join several recordings (`Recordings`)."""
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
        self._named: str | None = None
        """The connection of `Recordings` it walked, named once walked (`Recordings.name`)."""
        self._walked = False
        self.runs_whole = False
        """Set before a walk that keeps payloads, each run of plain updates is yielded as its
        `UpdateRun` (with its lines), not a step for each update: for a view that reads the
        lines itself (the timeline's rows, `decode.views.run_updates`)."""

    @property
    def connection(self) -> str | None:
        """The connection walked, in a file that holds several; None for a file of one (the
        first recording of a joined file is named once it has been walked)."""
        if isinstance(self._stream, Part):
            return self._stream.name
        if isinstance(self._stream, Recordings):
            if self._walked:
                return self._named
            coming = self._stream.count + 1
            return None if coming == 1 else str(coming)
        return None

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
        part = self._stream if isinstance(self._stream, Part) else None
        run = _Run(self.options, self.findings_sink, part.protocol_version if part else None)
        stats = ReadStats()
        recordings = self._stream if isinstance(self._stream, Recordings) else None
        if recordings is not None:
            reads, stats = recordings.connection(run.correlator.watch), recordings.stats
        elif part is None:
            reads = _records(cast(BinaryIO, self._stream), self.options, self.execution, stats,
                             None if self.each_message else self.options.tag_policy(),
                             run.correlator.watch)  # fmt: skip
        else:
            reads, stats.format, stats.lines = iter(part.records), part.format, part.lines
        for item in decoded(reads):
            yield from run.take(item, self.runs_whole)
        lines = stats.lines
        if recordings is not None:
            self._walked, self._named = True, recordings.name(recordings.count)
            lines = recordings.lines()
        self._analysis = self._finished(run, stats, part, lines)
        if recordings is not None:
            recordings.walked()

    def _finished(self, run: _Run, stats: ReadStats, part: Part | None, lines: int) -> Analysis:
        """The analysis, once the transcript is read: the connection judged to its end."""
        options, correlator = self.options, run.correlator
        end = _connection_end(run.closed, options.assume_closed)
        self._unanswered = run.unanswered if run.closed else correlator.finish(end)
        protocol = correlator.protocol(options.protocol)
        version_issue = correlator.version_issue(options.protocol)
        if version_issue is not None:
            run.issue(version_issue)
        lost = run.lost.reason()
        if run.schema is not None:
            for found in run.schema.breaks(protocol.version):
                run.judge.observe(found)
        if self.findings_sink is not None:
            self.findings_sink.finish(Finishing(protocol.version, lost, protocol.shown))
        return Analysis(
            source=Source(
                self.name,
                stats.format,
                lines,
                run.messages,
                run.events,
                end,
                stats.note,
                connection=self.connection,
                requirements=None if part is None else part.requirements,
                test_status=None if part is None else part.test_status,
            ),
            connection=Connection(
                protocol.version,
                protocol.source,
                correlator.agent,
                correlator.client,
                protocol.reason,
                protocol.shown,
            ),
            resumes=tuple(sorted(run.rows, key=_row_order)),
            findings=demote_for_lost_input(
                run.judge.verdict(protocol.version, protocol.shown), lost
            ),
            issues=tuple(sorted(run.issues, key=lambda i: i.line)),
            sessions=tuple(correlator.sessions.infos()),
            turns=tuple(correlator.turns.turn_rows),
            tool_calls=tuple(correlator.turns.tool_call_rows),
            permissions=tuple(correlator.turns.permission_rows),
        )


def recordings(
    stream: BinaryIO, options: Options, execution: Execution, each_message: bool,
    follow: Callable[[], None],
) -> Recordings:  # fmt: skip
    """A stream read once for every recording it may join (`Recordings`)."""
    runs_for = None if each_message else options.tag_policy()

    def open_reads(stats: ReadStats, watch: Callable[[str], int]) -> Iterator[Read]:
        return _records(stream, options, execution, stats, runs_for, watch)

    return Recordings(open_reads, follow)


def _records(
    stream: BinaryIO,
    options: Options,
    execution: Execution,
    stats: ReadStats,
    runs_for: TagPolicy | None,
    watch: Callable[[str], int],
) -> Iterator[Read]:
    """The input's records: decoded by several processes when the execution asks for it and
    the input is a big plain file (`acptrace.pipeline.pieces`), else in this one (asking
    `watch` what the analysis needs of each run of updates: `FastDecoder`)."""
    if _may_split(stream, execution):
        from acptrace.pipeline.pieces import split_records  # (most inputs never are split)

        split = split_records(stream, options, execution, stats, runs_for, watch)
        if split is not None:
            return split
    forced = format_named(options.input_format) if options.input_format else None
    lines = iter_blocks(stream, execution.max_line_bytes)
    settings = ReadSettings(
        link=options.link,
        fast=execution.fast,
        runs_for=runs_for,
        payloads=execution.payloads,
        sampled=options.schema if options.checks_schema else None,
    )
    return read_records(lines, stats, forced, settings, watch)


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
