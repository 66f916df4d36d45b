"""The `acptrace` command: each subcommand is a module here; the logic lives in the library.

A run imports only the module of the command it names: importing every command module (the
report's renderers, the recorder, the timeline) took ~35 ms of each run, a tenth of analysing
a small file. `app` (for tests and embedding) has every command.

The console script (`main`) also keeps Python's cyclic garbage collector out of start-up and
exit, where it only walks the objects of the modules just imported: it is off while typer and
the command's modules are imported, those objects are then set aside for good (`gc.freeze`),
and so is everything left when the interpreter exits (an `atexit` hook), which it would
otherwise walk once more before it quits. About 25 ms of a ~180 ms run on a small file; the
collector runs as usual while the command works. Both happen once per process: a program that
calls `main` again and again sets nothing more aside. Importing this package imports nothing
else.

A well-formed `analyze` command line is read and run without typer at all (`acptrace.cli.quick`:
typer's import is a third of that command's start-up); anything else, `analyze --help` and its
mistakes included, is typer's.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import sys
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

MODULES = {
    "analyze": "analyze_command",
    "timeline": "timeline_command",
    "fidelity": "fidelity_command",
    "report": "report_command",
    "export": "export_command",
    "rules": "catalogue_command",
    "formats": "catalogue_command",
    "explain": "explain_command",
    "record": "record_command",
    "redact": "record_command",
    "mock": "mock_command",
    "drive": "drive_command",
}
"""Each command, and the module that registers it, in the order `acptrace --help` lists them:
the order a new user meets them. First one transcript (`analyze`, then a closer look:
`timeline`, `fidelity`), then many (`report`, `export`), the references (`rules`, `formats`,
`explain`), and last the ways to make transcripts (`record`, `redact`) and to exercise an Agent or a
Client (`mock`, `drive`)."""


def register(*commands: str) -> None:
    """Register these commands on the app (every command when none is named)."""
    from typer.core import TyperCommand

    from acptrace.cli.root import PlainUsageCommand, app

    wanted = {MODULES[command] for command in commands} if commands else set(MODULES.values())
    for module in sorted(wanted):
        importlib.import_module(f"acptrace.cli.{module}")
    order = list(MODULES)
    app.registered_commands.sort(key=lambda command: order.index(command.name or ""))
    for command in app.registered_commands:
        if command.cls in (None, TyperCommand):
            command.cls = PlainUsageCommand


def main() -> None:
    """Console-script entry point (the collector kept out of start-up and exit: see above)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        args = sys.argv[1:]
        run = _chosen(args)
        _set_aside_once()
    except KeyboardInterrupt:  # (Ctrl-C while the command's modules load: as during its run)
        from acptrace.cli.common import EXIT_INTERRUPTED, print_error

        print_error("interrupted")
        raise SystemExit(EXIT_INTERRUPTED) from None
    finally:
        if collecting:
            gc.enable()
    run()


def _chosen(args: Sequence[str]) -> Callable[[], object]:
    """The run the command line asks for, its modules imported."""
    run = _quick(args)
    if run is not None:
        return run
    from acptrace.cli.root import main as typer_main

    named = _command(args)
    if named is not None:
        register(named)
    elif not _version_only(args):  # (`--help` and mistakes list every command)
        register()
    return typer_main


def _quick(args: Sequence[str]) -> Callable[[], object] | None:
    """The run of a well-formed `analyze` command line, read without typer
    (`acptrace.cli.quick`)."""
    if args[:1] != ["analyze"]:
        return None
    from acptrace.cli.quick import quick_analyze

    return quick_analyze(args[1:])


@cache  # (the first time only)
def _set_aside_once() -> None:
    """The objects of the modules just imported, and at exit everything, set aside from the
    collector (`gc.freeze`)."""
    gc.freeze()
    atexit.register(gc.freeze)


def _command(args: Sequence[str]) -> str | None:
    """The command the arguments name (the first that is not an option), if it is one."""
    for arg in args:
        if not arg.startswith("-"):
            return arg if arg in MODULES else None
    return None


def _version_only(args: Sequence[str]) -> bool:
    """The arguments ask for the version and name no command: none need be registered."""
    options = set(args)
    asked = bool(options & {"--version", "-V"})
    return asked and not options & {"--help", "-h"} and all(a[:1] == "-" for a in args)


def __getattr__(name: str) -> Any:
    if name == "app":
        from acptrace.cli.root import app

        register()
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
