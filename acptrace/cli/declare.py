"""Command lines declared as data, read alike by typer and by the quick reader of `analyze`.

A command line is a msgspec Struct (`AnalysisFlags`, `AnalyzeLine`): one field per option or
argument, its type and default the field's, its `Option` or `Argument` in its annotation
(`jobs: Annotated[int | None, JOBS] = None`, `Annotated` imported from here); a field whose
type is itself such a Struct is a group of options, in that place (`flags: AnalysisFlags`).
`acptrace.cli.typer_options` makes typer's parameters of it (typer then gives every `--help`,
error message and completion), and `acptrace.cli.argv` reads a well-formed command line by it
without typer: neither holds a list of options of its own, so the two cannot drift apart
(tests/test_quick_argv.py).

Nothing here imports typer: the quick path of `analyze` reads these declarations too.
"""

# (no `from __future__ import annotations`: the declarations' annotations are read at run time)

import copy
from collections.abc import Mapping
from functools import cache
from types import NoneType, UnionType
from typing import Annotated as Annotated  # (what declarations import from here)
from typing import Any, TypeVar, get_args, get_origin

import msgspec

_S = TypeVar("_S", bound=msgspec.Struct)


class Option:
    """How one option is spelt and shown: its names (the long one first), its help, and what
    typer would otherwise work out (`off`: the negative form of a flag, `--no-strict`)."""

    __slots__ = (
        "dir_okay",
        "help",
        "maximum",
        "metavar",
        "minimum",
        "names",
        "off",
        "show_default",
    )

    def __init__(
        self,
        *names: str,
        help: str,
        off: str | None = None,
        metavar: str | None = None,
        minimum: int | None = None,
        maximum: int | None = None,
        dir_okay: bool = True,
        show_default: bool = True,
    ) -> None:
        self.names, self.help, self.off, self.metavar = names, help, off, metavar
        self.minimum, self.maximum, self.dir_okay = minimum, maximum, dir_okay
        self.show_default = show_default  # (in `--help` only)

    def helped(self, help: str) -> "Option":
        """The same option with the help of one command (`-o`: what that command writes)."""
        own = copy.copy(self)
        own.help = help
        return own


class Argument:
    """A command's positional argument: its placeholder in the usage and its help."""

    __slots__ = ("help", "metavar")

    def __init__(self, *, metavar: str, help: str) -> None:
        self.metavar, self.help = metavar, help


class Field(msgspec.Struct, frozen=True):
    """One option or argument of a declared command line, its group's fields laid flat."""

    name: str
    """The parameter's name (typer's, and the Struct field's)."""
    annotation: Any
    """Its type as declared (`int | None`, `list[str] | None`): what typer reads."""
    kind: Any
    """The type of one value (`int`, `str`, `Path`, an enum); `bool` for a flag."""
    multiple: bool
    """A list: the option may be given again (`--select A --select B`)."""
    default: Any
    """Its value when not given (`REQUIRED`: it must be given)."""
    spec: Option | Argument


REQUIRED: Any = msgspec.NODEFAULT
"""The default of a field that must be given (the files of `analyze`)."""


def is_group(annotation: Any) -> bool:
    """A field that is a group of options (a Struct declared in the same way)."""
    return isinstance(annotation, type) and issubclass(annotation, msgspec.Struct)


@cache  # (each declaration is read once a process)
def fields_of(line: type[msgspec.Struct]) -> tuple[Field, ...]:
    """The options and arguments of a declared command line, in order, groups laid flat."""
    names = line.__struct_fields__
    defaults = (REQUIRED,) * (len(names) - len(line.__struct_defaults__))
    found: list[Field] = []
    for name, default in zip(names, defaults + line.__struct_defaults__, strict=True):
        annotation = line.__annotations__[name]
        if is_group(annotation):
            found.extend(fields_of(annotation))
            continue
        declared = getattr(annotation, "__origin__", None)
        spec = getattr(annotation, "__metadata__", (None,))[0]
        if not isinstance(spec, Option | Argument):
            raise TypeError(f"{line.__name__}.{name}: declare its Option or Argument")
        kind = _one_value(declared)
        multiple = get_origin(kind) is list
        one = get_args(kind)[0] if multiple else kind
        found.append(Field(name, declared, one, multiple, default, spec))
    return tuple(found)


def build(line: type[_S], values: Mapping[str, Any]) -> _S:
    """The command line of these values (by field name, groups laid flat, as `fields_of`
    lists them): a field without a value keeps its default."""
    given: dict[str, Any] = {}
    for name in line.__struct_fields__:
        annotation = line.__annotations__[name]
        if is_group(annotation):
            given[name] = build(annotation, values)
        elif name in values:
            given[name] = values[name]
    return line(**given)


def _one_value(declared: Any) -> Any:
    """`X | None` as `X` (None stands for "not given")."""
    if isinstance(declared, UnionType):
        kinds = [kind for kind in get_args(declared) if kind is not NoneType]
        if len(kinds) == 1:
            return kinds[0]
        raise TypeError(f"one type and None, not {declared}")
    return declared
