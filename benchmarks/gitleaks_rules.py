"""The worst inputs for each of gitleaks' rules that redaction keeps, and how long each takes.

Python's `re` backtracks, so a rule is kept only when a megabyte of its worst input is searched
well within a second (tests/test_redact_speed.py holds every kept rule to that; `SLOW` in
`acptrace.record.gitleaks.rules` lists those left out). The inputs tried, each a megabyte of
one string of several lines, for each keyword of the rule:

- the keyword over and over (on its own lines, and run together);
- the keyword, then a long run of one kind of character its classes may accept (letters,
  capitals, digits, hex, `_`, `-`, `.`, `=`, blanks);
- near misses: a string the rule's pattern describes (each repeat as few and as many times
  as it may), cut by its last character, over and over.

Every place a keyword is counts as a hit (the worst case for the windows searched).

    .venv/bin/python benchmarks/gitleaks_rules.py            # the ten slowest rules
    .venv/bin/python benchmarks/gitleaks_rules.py --all      # every rule
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acptrace.record.gitleaks.rules import GitleaksRule, rule_set  # noqa: E402

SIZE = 1_000_000
RUNS = ("a", "A", "0", "f", "_", "-", ".", "=", " ", "a0B_", "\t")
"""The characters a run after a keyword is made of."""


def fill(unit: str, size: int = SIZE) -> str:
    return (unit * (size // max(1, len(unit)) + 1))[:size]


def worst_inputs(rule: GitleaksRule, size: int = SIZE) -> Iterator[tuple[str, str]]:
    """(what, text) for each input tried on the rule."""
    for keyword in rule.keywords:
        yield f"{keyword!r} over and over", fill(keyword, size)
        yield f"{keyword!r} on its own lines", fill(keyword + "\n", size)
        for char in RUNS:
            yield f"{keyword!r} then {char!r}s", keyword + "\n" + fill(char, size)
            yield f"{keyword!r} and {char!r}s over and over", fill(keyword + char * 40 + "\n", size)
    for most in (False, True):
        example = _example(re._parser.parse(rule.pattern.pattern, rule.pattern.flags), most)  # type: ignore[attr-defined]
        if len(example) > 1:
            label = "as many" if most else "as few"
            yield f"near misses ({label} repeats)", fill(example[:-1] + "\n", size)


def _example(parsed: Any, most: bool) -> str:
    """A string the parsed pattern describes, roughly: each repeat as few or as many times as
    it may (at most 64), the first branch, a letter or digit for a class."""
    out = []
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            count = min(high, 64) if most else max(low, 0)
            out.append(_example(sub, most) * count)
        elif name == "SUBPATTERN":
            out.append(_example(arg[-1], most))
        elif name == "BRANCH":
            out.append(_example(arg[1][0], most))
        elif name == "IN":
            out.append(_class_char(arg))
        elif name in ("ANY", "NOT_LITERAL", "CATEGORY"):
            out.append("a")
    return "".join(out)


def _class_char(items: list[tuple[Any, Any]]) -> str:
    for op, arg in items:
        if str(op) == "LITERAL":
            return chr(arg)
        if str(op) == "RANGE":
            return chr(arg[0])
    return "a"


def hits_of(rule: GitleaksRule, text: str) -> list[int]:
    """Every place one of the rule's keywords is (in lower case)."""
    lowered = text.lower()
    found = re.compile("|".join(re.escape(k) for k in rule.keywords))
    return [match.start() for match in found.finditer(lowered)]


def seconds(rule: GitleaksRule, text: str) -> float:
    """CPU seconds of searching the rule's windows around every keyword in `text`."""
    hits = hits_of(rule, text)
    start = time.process_time()
    for _ in rule.spans(text, hits):
        pass
    return time.process_time() - start


def slowest(rule: GitleaksRule, size: int = SIZE) -> tuple[float, str]:
    """The slowest input for the rule: seconds, and what it was."""
    return max((seconds(rule, text), what) for what, text in worst_inputs(rule, size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--size", type=int, default=SIZE)
    args = parser.parse_args()
    timed = sorted(((*slowest(rule, args.size), rule.id) for rule in rule_set().kept), reverse=True)
    for took, what, rule_id in timed if args.all else timed[:10]:
        print(f"{took:6.3f} s  {rule_id:45} {what}")


if __name__ == "__main__":
    main()
