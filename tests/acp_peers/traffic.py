"""Deterministic bulk traffic for stress tests: JSON-RPC lines of many sizes, some not JSON.

Every JSON line is compact orjson output, so `orjson.dumps(orjson.loads(line)) == line`
and a transcript can be turned back into the exact bytes. The alphabet (lowercase letters
and digits) can never match a redaction pattern.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import orjson

SIZES = (40, 200, 1_000, 5_000, 20_000, 65_536, 70_000, 250_000)
LONG_LINE_BYTES = 3_000_000
"""Two lines per pass are this long (longer than the stress test's line limit)."""
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def pool(seed: int) -> list[bytes]:
    """The distinct lines (without newline) the traffic cycles through."""
    rng = random.Random(seed)
    lines: list[bytes] = []
    for k in range(64):
        size = LONG_LINE_BYTES if k in (17, 45) else rng.choice(SIZES)
        data = "".join(rng.choices(_ALPHABET, k=size))
        if k % 16 == 5:
            lines.append(b"not json " + data.encode())
        elif k % 16 == 9:
            lines.append(b"\xff\xfe binary " + data.encode())
        else:
            message = {"jsonrpc": "2.0", "method": "_stress/data", "params": {"k": k, "d": data}}
            lines.append(orjson.dumps(message))
    return lines


def lines(total_bytes: int, seed: int) -> Iterator[bytes]:
    """Lines with their newline, until at least `total_bytes` have been produced."""
    chosen = pool(seed)
    produced = 0
    index = 0
    while produced < total_bytes:
        line = chosen[(index * 7) % len(chosen)] + b"\n"
        index += 1
        produced += len(line)
        yield line
