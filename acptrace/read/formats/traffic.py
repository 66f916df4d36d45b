"""agent-shell / acp.el `.traffic` files: Emacs' "ACP traffic" buffer saved with
`acp-traffic-save-to`, one `pp` of a list of entries (`acptrace.read.traffic` reads them).

Not JSON: the format owns its bytes (`OwnsBytes`) and claims an input whose first line (not
blank) opens a list (or is a `;` comment). The file is one datum, so it is read whole; acp.el
keeps only the last thousand or so entries, which bounds it. It has one connection and no
times (latencies are null, the order is the file's) and no recorded end; `outgoing` is
Client -> Agent, `incoming` Agent -> Client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from acptrace.model.domain import Issue, IssueKind
from acptrace.read.envelopes import Envelope, Record
from acptrace.read.formats.base import Parsed, ReadSettings
from acptrace.read.source import RawLine

if TYPE_CHECKING:
    from acptrace.read.traffic import TrafficEntry

_BLANK = b" \t\r\n\f\v"


class Traffic(msgspec.Struct, frozen=True):
    """acp.el's saved traffic: Emacs Lisp printed data, read entry by entry."""

    name: str = "traffic"
    summary: str = "agent-shell / acp.el .traffic: an Emacs Lisp list of (:direction :kind :object)"
    producers: str = "acp.el `acp-traffic-save-to` (agent-shell's bug reports, acp-fakes)"
    example: str = (
        '(((:direction . outgoing) (:kind . request) (:object (jsonrpc . "2.0") (id . 1) '
        '(method . "session/new") (params (cwd . "/")))) …)'
    )
    note: str | None = None

    def detect(self, record: Any) -> bool:  # noqa: ARG002 (the TranscriptFormat protocol)
        """Never: no JSON record is a `.traffic` entry (the format claims its input by its
        first line instead)."""
        return False

    def decoder(self, sample: Sequence[Any], settings: ReadSettings) -> Traffic:  # noqa: ARG002 (the TranscriptFormat protocol)
        """This format: it reads its records itself and decodes none."""
        return self

    def decode(self, record: Any, line: int) -> Iterator[Record]:  # noqa: ARG002 (the Decoder protocol)
        """Nothing: a `.traffic` input hands no JSON record back to be decoded."""
        return iter(())

    def claims(self, first: RawLine) -> bool:
        """An input whose first line (not blank) opens a Lisp list or is a Lisp comment."""
        return not first.too_long and first.data.lstrip(_BLANK).startswith((b"(", b";"))

    def read(
        self,
        lines: Iterator[RawLine | Issue],
        decode: Callable[[Iterable[Parsed]], Iterator[Record]],  # noqa: ARG002 (OwnsBytes)
    ) -> Iterator[Record]:
        """Each entry as the envelope of its message, or the issue that says why it is not."""
        import heapq

        from acptrace.read.traffic import read_traffic  # (a Lisp reader: only for .traffic)

        issues: list[Issue] = []  # (the reader's own: CRLF, lines too long)
        entries = read_traffic(_text(lines, issues))
        for entry in heapq.merge(issues, entries, key=_line):
            if isinstance(entry, Issue):
                yield entry
            else:
                yield Envelope(entry.line, entry.direction, entry.message)


def _line(record: Issue | TrafficEntry) -> int:
    return record.line


def _text(lines: Iterable[RawLine | Issue], issues: list[Issue]) -> bytes:
    """The input's bytes, each line at its own line number (blank lines, which the reader
    counts and drops, and lines too long to keep come back as empty lines)."""
    parts: list[bytes] = []
    number = 1
    for item in lines:
        if isinstance(item, Issue):
            issues.append(item)
            continue
        parts.append(b"\n" * (item.number - number))
        number = item.number
        if item.too_long:
            message = f"line of {item.too_long} bytes skipped: the Lisp data around it may not read"
            issues.append(Issue(item.number, IssueKind.LINE_TOO_LONG, message))
        else:
            parts.append(item.data)
    return b"".join(parts)


FORMAT = Traffic()
