"""typer's side of the declared options (`acptrace.cli.declare`): each `Option` or `Argument` as
typer's own, a declared command line as a command's parameters, and the analysis options
(`AnalysisFlags`) given to the commands that analyse.

Only the commands typer runs import this: the quick path of `analyze` never does.
"""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

import functools
import inspect
from collections.abc import Callable, Collection
from typing import Annotated, Any, TypeVar

import msgspec
import typer

from acptrace.cli import options
from acptrace.cli.declare import REQUIRED, Argument, Option, build, fields_of
from acptrace.cli.settings import AnalysisFlags

_R = TypeVar("_R")
_S = TypeVar("_S", bound=msgspec.Struct)


def typer_form(spec: Option | Argument) -> Any:
    """typer's `Option` or `Argument` of a declared one."""
    if isinstance(spec, Argument):
        return typer.Argument(metavar=spec.metavar, help=spec.help)
    first, *others = spec.names
    return typer.Option(
        f"{first}/{spec.off}" if spec.off else first,
        *others,
        help=spec.help,
        metavar=spec.metavar,
        min=spec.minimum,
        max=spec.maximum,
        dir_okay=spec.dir_okay,
        show_default=spec.show_default,
    )


def output_option(help: str, metavar: str = "FILE") -> Any:
    """`-o`: `help` says what this command writes there, and where it goes without -o."""
    return typer_form(options.output_option(help, metavar))


FORMAT = typer_form(options.FORMAT)
FilesArgument = Annotated[list[str], typer_form(options.FILES)]
JobsOption = Annotated[int | None, typer_form(options.JOBS)]
RedactOption = Annotated[bool, typer_form(options.REDACT)]
QuietOption = Annotated[bool, typer_form(options.QUIET)]
ReportQuietOption = Annotated[bool, typer_form(options.REPORT_QUIET)]


def parameters(line: type[msgspec.Struct]) -> tuple[inspect.Parameter, ...]:
    """A declared command line as the parameters typer reads, in its order (keyword-only:
    typer passes every value by name)."""
    return tuple(
        inspect.Parameter(
            field.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if field.default is REQUIRED else field.default,
            annotation=Annotated[field.annotation, typer_form(field.spec)],
        )
        for field in fields_of(line)
    )


ANALYSIS_OPTIONS = parameters(AnalysisFlags)
"""The group as the parameters typer reads, in the order `--help` lists them."""


def takes(line: type[_S]) -> Callable[[Callable[[_S], _R]], Callable[..., _R]]:
    """Give a command the options and arguments of a declared command line (`AnalyzeLine`);
    the command receives their values as that one line."""

    def decorate(command: Callable[[_S], _R]) -> Callable[..., _R]:
        @functools.wraps(command)
        def run(**values: Any) -> _R:
            return command(build(line, values))

        return _reads(run, inspect.Signature(list(parameters(line))))

    return decorate


def analysis_options(
    *, omit: Collection[str] = ()
) -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """Give a command the analysis options, but those it `omit`s (field names of
    `AnalysisFlags`), in the place of its parameter annotated `AnalysisFlags` (keyword-only:
    after `*`); that parameter then receives their values as one `AnalysisFlags` (an omitted
    option: not given)."""
    unknown = set(omit) - {option.name for option in ANALYSIS_OPTIONS}
    if unknown:
        raise ValueError(f"not analysis options: {', '.join(sorted(unknown))}")
    taken = [option for option in ANALYSIS_OPTIONS if option.name not in omit]

    def decorate(command: Callable[..., _R]) -> Callable[..., _R]:
        signature = inspect.signature(command, eval_str=True)
        own = list(signature.parameters.values())
        slots = [i for i, p in enumerate(own) if p.annotation is AnalysisFlags]
        if len(slots) != 1 or own[slots[0]].kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{command.__name__}: needs one `*, flags: AnalysisFlags` parameter")
        [slot] = slots
        flags_name = own[slot].name

        @functools.wraps(command)
        def run(**values: Any) -> _R:
            flags = AnalysisFlags(**{o.name: values.pop(o.name, o.default) for o in taken})
            return command(**values, **{flags_name: flags})

        # the command's parameters with the group in the place of its flags
        return _reads(run, signature.replace(parameters=[*own[:slot], *taken, *own[slot + 1 :]]))

    return decorate


def _reads(run: Callable[..., _R], signature: inspect.Signature) -> Callable[..., _R]:
    """`run` as typer reads it: with this signature, its annotations evaluated (once, here:
    typer would evaluate text on every run)."""
    wrapper: Any = run  # (a function's attributes, which mypy does not know)
    wrapper.__signature__ = signature
    wrapper.__annotations__ = {
        p.name: p.annotation for p in signature.parameters.values() if p.annotation is not p.empty
    }
    if signature.return_annotation is not signature.empty:
        wrapper.__annotations__["return"] = signature.return_annotation
    return run
