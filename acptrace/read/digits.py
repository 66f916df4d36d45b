"""Runs of digits longer than an integer converts with (`sys.get_int_max_str_digits`, 4,300 by
default): the general path's parser (`read.jsontext.loads`) cannot read such an integer (it is
`not_json` there), while msgspec skips it unread in a member its narrowed shapes do not name.
The hot path leaves a line that may hold one to be checked on its own (`decode.skipped`).

A run of `MOST_DIGITS + 1` digits holds `_SAMPLES` of every `_STEP`th byte in a row, so most
bytes are never looked at: bytes whose every `_STEP`th byte never gives that many digits in a
row hold no such run (JSON of a fifth digits gives ten in a row about once in ten million), and
only the others are mapped and searched whole (0.5 ns a byte; a regular expression over every
byte cost 9 ns).
"""

from __future__ import annotations

import re
import sys

MOST_DIGITS = sys.get_int_max_str_digits()
"""The most digits an integer converts with (0: no limit)."""
_SAMPLES = 10
_STEP = max((MOST_DIGITS + 1) // _SAMPLES, 1)
_DIGIT_RUN = re.compile(rb"[0-9]{%d}" % min(_SAMPLES, MOST_DIGITS + 1))
_AS_NINES = bytes.maketrans(b"0123456789", b"9" * 10)
_TOO_MANY = b"9" * (MOST_DIGITS + 1)


def too_many_digits(data: bytes) -> bool:
    """The bytes hold a run of more than `MOST_DIGITS` digits (in a number or in a string: the
    general path reads it in a string, as the hot path would, so that costs only speed)."""
    if not MOST_DIGITS or len(data) <= MOST_DIGITS:
        return False
    if _DIGIT_RUN.search(data[::_STEP]) is None:
        return False
    return _TOO_MANY in data.translate(_AS_NINES)
