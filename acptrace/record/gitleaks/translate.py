"""Go's RE2 syntax, as gitleaks writes its rules, in Python's `re` syntax: only where the two
mean the same, else `Untranslatable` says why.

Compiled with `re.ASCII` (RE2's `\\w`, `\\d`, `\\b` are ASCII), the differences that matter are
few and each is rewritten here:

- a flag group in the middle of a pattern (`\\b((?i)dop_v1_…)`) applies to the rest of its
  group in RE2; Python takes flags only at the start: it becomes a scoped group `(?i:…)`
  closed where its group closes;
- `$` without the `m` flag is the end of the text in RE2, but also before a last newline in
  Python: it becomes `\\Z`, which is RE2's `\\z`;
- `\\s` is `[\\t\\n\\f\\r ]` in RE2, Python's adds `\\v`: spelled out;
- `(?<name>…)` is `(?P<name>…)`;
- in a class, `[`, `&`, `~` and `|` are escaped (Python reads `[[`, `&&`, `~~`, `||` as the
  set operations it may add one day, and warns).

A class holding `\\S` becomes RE2's non-space or the rest of the class, and the POSIX classes
(`[:alnum:]` and its kin) their ranges. What has no exact counterpart is refused: Unicode
classes (`\\p{…}`), `\\Q…\\E`, `\\C`, other POSIX classes, `{,n}` (a literal in RE2, a
repeat in Python), `$` under the `m` flag, `\\S` in a negated class. One difference is left:
under `(?i)` RE2 folds the Kelvin sign and the long s to `k` and `s`; `re.ASCII` folds ASCII
letters only.
"""

from __future__ import annotations

import re
import warnings

_SPACE = "\\t\\n\\f\\r "
"""RE2's `\\s` (Python's also holds `\\v`)."""
_REFUSED_ESCAPES = frozenset("pPQECz0123456789")
"""Escapes with no exact Python counterpart (`\\z` is handled before this is asked)."""
_CLASS_ESCAPED = frozenset("[&~|")


class Untranslatable(ValueError):
    """An RE2 pattern that Python's `re` cannot say exactly (the message says what)."""


def translated(pattern: str) -> str:
    """`pattern` (RE2) in Python's syntax, meaning the same under `re.ASCII`."""
    out: list[str] = []
    closers: list[int] = [0]
    """For each open group (the whole pattern first), the scoped flag groups to close in it."""
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            escape = pattern[at + 1 : at + 2]
            out.append(_escape(escape))
            at += 2
        elif char == "[":
            at = _class(pattern, at, out)
        elif char == "(":
            at = _group(pattern, at, out, closers)
        elif char == ")":
            out.append(")" * closers.pop() + ")")
            if not closers:
                raise Untranslatable("an unbalanced `)`")
            at += 1
        elif char == "$":
            out.append("\\Z")
            at += 1
        elif char == "{" and pattern.startswith("{,", at):
            raise Untranslatable("`{,n}` is a literal in RE2, a repeat in Python")
        else:
            out.append(char)
            at += 1
    if len(closers) != 1:
        raise Untranslatable("an unclosed `(`")
    return "".join(out) + ")" * closers[0]


def _escape(escape: str) -> str:
    if escape == "z":
        return "\\Z"
    if escape == "s":
        return f"[{_SPACE}]"
    if escape == "S":
        return f"[^{_SPACE}]"
    if escape == "" or escape in _REFUSED_ESCAPES:
        raise Untranslatable(f"the escape `\\{escape}`")
    return "\\" + escape


def _class(pattern: str, at: int, out: list[str]) -> int:
    """Copy the class that starts at `at`; the index after it."""
    end = at + 1
    parts = ["["]
    negated = pattern.startswith("^", end)
    if negated:
        parts.append("^")
        end += 1
    if pattern.startswith("]", end):  # (a `]` first is a literal)
        parts.append("\\]")
        end += 1
    non_space = False
    while end < len(pattern) and pattern[end] != "]":
        char = pattern[end]
        if char == "\\":
            escape = pattern[end + 1 : end + 2]
            if escape == "s":
                parts.append(_SPACE)
            elif escape == "S" and not negated:
                non_space = True  # (`[\S…]`: RE2's non-space, or the rest of the class)
            elif escape in ("S", "z", "") or escape in _REFUSED_ESCAPES:
                raise Untranslatable(f"the escape `\\{escape}` in a class")
            else:
                parts.append("\\" + escape)
            end += 2
            continue
        posix = _POSIX.match(pattern, end)
        if posix is not None:
            if posix.group(1) not in _POSIX_CLASSES:
                raise Untranslatable(f"the POSIX class `{posix.group()}`")
            parts.append(_POSIX_CLASSES[posix.group(1)])
            end = posix.end()
            continue
        if char in _CLASS_ESCAPED or (char == "-" and pattern.startswith("--", end)):
            parts.append("\\" + char)
        else:
            parts.append(char)
        end += 1
    if end >= len(pattern):
        raise Untranslatable("an unclosed `[`")
    rest = "".join(parts) + "]"
    if non_space:
        rest = f"(?:[^{_SPACE}]|{rest})" if rest != "[]" else f"[^{_SPACE}]"
    out.append(rest)
    return end + 1


_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "digit": "0-9",
    "lower": "a-z",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
    "word": "0-9A-Za-z_",
}
"""The POSIX classes RE2 knows inside `[…]` that a rule may use, as ranges."""
_POSIX = re.compile(r"\[:(\w+):\]")


_FLAGS = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")


def _group(pattern: str, at: int, out: list[str], closers: list[int]) -> int:
    """Copy the group opening at `at` (a flag group becomes a scoped one); the index after."""
    if pattern.startswith("(?<", at) and not pattern.startswith(("(?<=", "(?<!"), at):
        out.append("(?P<")
        closers.append(0)
        return at + 3
    flags = _FLAGS.match(pattern, at)
    if flags is None:
        if pattern.startswith("(?", at) and not pattern.startswith("(?P<", at):
            raise Untranslatable(f"the group `{pattern[at : at + 4]}`")
        out.append("(")
        closers.append(0)
        return at + 1
    on, off = flags.group(1), flags.group(2) or ""
    if "m" in on + off or "U" in on + off:
        raise Untranslatable("the `m` or `U` flag")
    if flags.group(3) == ":":
        out.append(flags.group())
        closers.append(0)
    else:  # (flags for the rest of the group: a group of their own, closed with it)
        out.append(flags.group()[:-1] + ":")
        closers[-1] += 1
    return flags.end()


def compiled(pattern: str) -> re.Pattern[str]:
    """The translated pattern compiled (`re.ASCII`); Untranslatable when it is not exact or
    Python refuses or warns about it."""
    return compiled_python(translated(pattern))


def compiled_python(source: str) -> re.Pattern[str]:
    """A pattern in Python's syntax compiled (`re.ASCII`); Untranslatable when Python refuses
    or warns about it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return re.compile(source, re.ASCII)
        except (re.error, FutureWarning, DeprecationWarning) as error:
            raise Untranslatable(f"Python's `re` refuses it ({error})") from None
