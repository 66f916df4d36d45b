"""The `acptrace` command: each subcommand is a module here; the logic lives in the library."""

from __future__ import annotations

from acptrace.cli import analyze, catalogue, export, record, report, timeline  # noqa: F401 (register)
from acptrace.cli.app import app, main

__all__ = ["app", "main"]
