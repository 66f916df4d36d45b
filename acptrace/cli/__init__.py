"""The `acptrace` command: each subcommand is a module here; the logic lives in the library.

A run imports only the module of the command it names: importing every command module (the
report's renderers, the recorder, the timeline) took ~35 ms of each run, a tenth of analysing
a small file. `app` (for tests and embedding) has every command.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

from typer.core import TyperCommand

from acptrace.cli.root import PlainUsageCommand
from acptrace.cli.root import app as _app
from acptrace.cli.root import main as _run

MODULES = {
    "analyze": "analyze_command",
    "rules": "catalogue_command",
    "formats": "catalogue_command",
    "export": "export_command",
    "record": "record_command",
    "redact": "record_command",
    "report": "report_command",
    "timeline": "timeline_command",
    "mock": "mock_command",
    "drive": "drive_command",
    "fidelity": "fidelity_command",
}
"""Each command, and the module that registers it."""


def register(*commands: str) -> None:
    """Register these commands on the app (every command when none is named)."""
    wanted = {MODULES[command] for command in commands} if commands else set(MODULES.values())
    for module in sorted(wanted):  # (the order `acptrace --help` lists them in)
        importlib.import_module(f"acptrace.cli.{module}")
    for command in _app.registered_commands:
        if command.cls in (None, TyperCommand):
            command.cls = PlainUsageCommand


def main() -> None:
    """Console-script entry point."""
    named = _command(sys.argv[1:])
    register(*([named] if named is not None else []))
    _run()


def _command(args: Sequence[str]) -> str | None:
    """The command the arguments name (the first that is not an option), if it is one."""
    for arg in args:
        if not arg.startswith("-"):
            return arg if arg in MODULES else None
    return None


def __getattr__(name: str) -> Any:
    if name == "app":
        register()
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
