"""A strict reader of a well-formed command line, by its declaration (`acptrace.cli.declare`),
without typer: None wherever it is not sure, so that typer reads that line and gives its own
help, error message and exit code.

It reads as typer's parser (click's) does: options and files in any order, `--` ends the
options, `--name=value` and `--name value`, `-xVALUE` and `-x VALUE` (a value is the next
argument whatever it looks like), the last of an option given twice (every one of a list),
each value converted and checked as typer checks it. It leaves to typer what it has no need to
copy: `-h` / `--help` and every name it does not know, a flag given a value, short flags run
together (`-qf json`), a missing or bad value, no file, and any value typer would refuse or
read otherwise (a number with a sign or a `_`, a `--config` that is a folder or unreadable).
tests/test_quick_argv.py holds it to typer's results, option by option.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from acptrace.cli.declare import REQUIRED, Argument, Field, Option, build, fields_of

_S = TypeVar("_S", bound=msgspec.Struct)
_BAD = object()
"""A value typer would refuse (or might read otherwise): typer's to say."""


def read_line(line: type[_S], args: Sequence[str]) -> _S | None:
    """The command line these arguments give, or None if typer must read them."""
    given = _given(line, args)
    if given is None:
        return None
    raw, positional = given
    values: dict[str, Any] = {}
    for field in fields_of(line):
        if isinstance(field.spec, Argument):
            if not positional and field.default is REQUIRED:
                return None  # ("Missing argument")
            values[field.name] = positional
            positional = []
        elif field.name in raw:
            value = _value(field, raw[field.name])
            if value is _BAD:
                return None
            values[field.name] = value
        else:
            values[field.name] = field.default
    return None if positional else build(line, values)


def _given(
    line: type[msgspec.Struct], args: Sequence[str]
) -> tuple[dict[str, list[str] | bool], list[str]] | None:
    """Each option's values as given (a flag: its last state), and the other arguments."""
    spellings = _spellings(line)
    raw: dict[str, list[str] | bool] = {}
    positional: list[str] = []
    at = 0
    while at < len(args):
        arg = args[at]
        at += 1
        if arg == "--":
            positional.extend(args[at:])
            break
        if arg[:1] != "-" or arg == "-":
            positional.append(arg)
            continue
        name, attached = _split(arg)
        found = spellings.get(name)
        if found is None:
            return None  # (`--help`, `-h`, a mistake: typer says what is wrong)
        field, state = found
        if state is not None:  # a flag (`--strict`, `--no-strict`)
            if attached is not None:
                return None
            raw[field.name] = state
            continue
        if attached is None:
            if at == len(args):
                return None  # ("requires an argument")
            attached = args[at]
            at += 1
        values = raw.setdefault(field.name, [])
        assert isinstance(values, list)  # (a name is a flag's or a value's, never both)
        values.append(attached)
    return raw, positional


def _split(arg: str) -> tuple[str, str | None]:
    """An option's name and the value written with it: `--name=value`, `-xVALUE`."""
    if arg.startswith("--"):
        name, equals, value = arg.partition("=")
        return name, value if equals else None
    return arg[:2], arg[2:] or None


@cache  # (one table a declaration)
def _spellings(line: type[msgspec.Struct]) -> dict[str, tuple[Field, bool | None]]:
    """Each name an option is given by, its field, and (a flag) the state the name sets."""
    found: dict[str, tuple[Field, bool | None]] = {}
    for field in fields_of(line):
        spec = field.spec
        if isinstance(spec, Option):
            for name in spec.names:
                found[name] = (field, True if field.kind is bool else None)
            if spec.off is not None:
                found[spec.off] = (field, False)
    return found


def _value(field: Field, given: list[str] | bool) -> Any:
    """An option's value as typer converts it: a flag's state, the list of a repeatable
    option, the last of any other; `_BAD` if typer might not take it."""
    if isinstance(given, bool):
        return given
    converted = [_converted(field, text) for text in (given if field.multiple else given[-1:])]
    if any(value is _BAD for value in converted):
        return _BAD
    return converted if field.multiple else converted[0]


def _converted(field: Field, text: str) -> Any:
    """One value, converted as typer converts it (or `_BAD`)."""
    kind, spec = field.kind, field.spec
    assert isinstance(spec, Option)
    if kind is str:
        return text
    if kind is int:
        if not (text.isascii() and text.isdigit()):
            return _BAD  # (typer takes `+1`, ` 1`, `1_0` too: it says what it makes of them)
        number = int(text)
        low = spec.minimum is not None and number < spec.minimum
        high = spec.maximum is not None and number > spec.maximum
        return _BAD if low or high else number
    if isinstance(kind, type) and issubclass(kind, Enum):
        matched = [member for member in kind if str(member.value) == text]
        return matched[0] if matched else _BAD
    if kind is Path:
        return Path(text) if _readable_path(text, dir_okay=spec.dir_okay) else _BAD
    return _BAD


def _readable_path(text: str, *, dir_okay: bool) -> bool:
    """typer takes this path: one that is not there, or (not a folder, unless it may be) one
    that can be read."""
    try:
        found = os.stat(text)
    except OSError:
        return True
    except ValueError:  # (a NUL in it)
        return False
    if not dir_okay and stat.S_ISDIR(found.st_mode):
        return False
    return os.access(text, os.R_OK)
