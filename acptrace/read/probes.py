"""Clock checks left open by a reader that started inside an input (`Clock(probing=True)`).

A module of its own so that a run that reads its input in one pass never creates the class.
"""

from __future__ import annotations

from acptrace.model.domain import Issue


class TimeProbe(Issue, frozen=True, gc=False):
    """A record's clock check, left open where the piece it was read in had no earlier time.

    An `Issue` only in type: whoever joins the pieces settles it (`Clock.settle`) into the
    `time_went_back` issue it stands for, or into nothing; it never reaches an analysis.
    """

    mono_ns: int | None
    ts_ns: int | None
    last_mono_ns: int | None
    """The piece's time before this record on the monotonic clock (None: from earlier pieces)."""
    last_ts_ns: int | None
    """The piece's time before this record on the wall clock (None: from earlier pieces)."""
