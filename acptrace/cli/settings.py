"""The analysis options, declared once: what to judge, how to read the input, which config file.

`AnalysisFlags` is the group, as data (`acptrace.cli.declare`): one field per option, its
`Option` in its annotation, in the order `--help` lists them. typer gives a command the group
in the place of its one parameter annotated `AnalysisFlags` (`analysis_options` in
`acptrace.cli.typer_options`, as sqlite-utils stacks its `output_options`), and hands it the
values as that one `AnalysisFlags`; the quick reader of `analyze` (`acptrace.cli.argv`) reads
the same fields. A command declares no option it does not use, and nothing reads an option
back by its name. A command that does not take an option says so (`omit`); the option then
stays "not given".

Flags default to None ("not given") so that a value from `acptrace.toml` / `[tool.acptrace]`
applies unless the command line says otherwise (`AnalysisFlags.policy`).
"""

# (no `from __future__ import annotations`: the options are read from their annotations, which
# as text would be evaluated again on every run. A msgspec Struct, not a dataclass: a dataclass
# compiles its methods anew on every run, ~1 ms for these fields)

import json
import os
from pathlib import Path
from typing import Any

import msgspec

from acptrace.cli.common import fail, print_note
from acptrace.cli.declare import Annotated, Option
from acptrace.judge.idle_timers import DEFAULT_IDLE_TIMEOUTS_MS, parse_idle_timeouts
from acptrace.judge.policy import (
    FailOn,
    Policy,
    Settings,
    find_config,
    load_config,
    settings_that_count,
)
from acptrace.model.errors import UsageError
from acptrace.model.options import SchemaDepth


class AnalysisFlags(msgspec.Struct, frozen=True):
    """The analysis options of one run as the command line gives them: None (for `--no-config`,
    False) where it does not, so that the config file's value applies."""

    fail_on: Annotated[
        FailOn | None,
        Option(
            "--fail-on", help="Exit 1 when a finding is at or above this level (default: error)."
        ),
    ] = None
    strict: Annotated[
        bool | None,
        Option("--strict", off="--no-strict", help="Exit 1 when the input has any issue."),
    ] = None
    assume_closed: Annotated[
        bool | None,
        Option(
            "--assume-closed",
            off="--no-assume-closed",
            help="Treat a transcript that just stops as a recorded disconnect.",
            show_default=False,
        ),
    ] = None
    protocol: Annotated[
        int | None,
        Option(
            "--protocol",
            minimum=1,
            maximum=2,
            metavar="1|2",
            help="Apply the rules of ACP v1 or v2.",
        ),
    ] = None
    child_rules: Annotated[
        bool | None,
        Option(
            "--child-rules",
            off="--no-child-rules",
            help="Judge the RC-CHILD-* rules.",
            show_default=False,
        ),
    ] = None
    marker_tag: Annotated[
        str | None,
        Option(
            "--marker-tag",
            metavar="TAG",
            help="The sessionUpdate tag that marks the end of a replay (replay_complete).",
        ),
    ] = None
    history_tag: Annotated[
        list[str] | None,
        Option(
            "--history-tag",
            metavar="TAG",
            help="Treat a by-default never-history tag as history (repeatable).",
        ),
    ] = None
    live_tag: Annotated[
        list[str] | None,
        Option(
            "--live-tag", metavar="TAG", help="Treat another tag as never history (repeatable)."
        ),
    ] = None
    select: Annotated[
        list[str] | None,
        Option(
            "--select", metavar="RULE", help="Report only these rule IDs or prefixes (repeatable)."
        ),
    ] = None
    ignore: Annotated[
        list[str] | None,
        Option(
            "--ignore", metavar="RULE", help="Leave out these rule IDs or prefixes (repeatable)."
        ),
    ] = None
    schema: Annotated[
        SchemaDepth | None,
        Option(
            "--schema",
            help="What the ACP JSON Schema check reads: default, every message but the updates "
            "of a tag already checked on the connection (each tag's first); full, every "
            "message (1.1x the default's instructions on real v2 recordings, 1.8x on long runs of "
            "valid updates, 2.6x where a third of the updates break the schema). --ignore "
            "SCHEMA- turns it off.",
            show_default=False,
        ),
    ] = None
    input_format: Annotated[
        str | None,
        Option(
            "--input-format",
            metavar="NAME",
            help="Read the input as this format (see `acptrace formats`).",
        ),
    ] = None
    link: Annotated[
        str | None,
        Option(
            "--link",
            metavar="LINK",
            help="Multi-hop traces: analyse this link (client, agent, or 'A,B').",
        ),
    ] = None
    config: Annotated[
        Path | None,
        Option(
            "--config",
            metavar="FILE",
            help="Read settings from this file instead of the acptrace.toml / pyproject.toml "
            "found upward from the current directory.",
            dir_okay=False,
        ),
    ] = None
    no_config: Annotated[
        bool, Option("--no-config", help="Ignore acptrace.toml and pyproject.toml.")
    ] = False
    idle_timeouts: Annotated[
        str | None,
        Option(
            "--idle-timeouts",
            metavar="LIST",
            help="Idle timers to judge replays against, e.g. 50ms,1s "
            "(default: 50ms, 100ms, 250ms, 1s, 5s, 30s).",
        ),
    ] = None

    def policy(self, *, quiet: bool = False, judged: bool = True) -> Policy:
        """The policy of this run: these flags over the config file's settings over defaults.
        The file's settings that change it are said once on stderr (not when `quiet`), as
        pytest names its `configfile:`; not `judged` (a command that uses only the policy's
        options, whose exit code is not of findings): those that change the options.

        A bad config file or rule ID is a usage error (exit 2).
        """
        try:
            base, path = _file_settings(self.config, self.no_config)
            flags = Settings(
                select=_tuple(self.select),
                ignore=_tuple(self.ignore),
                fail_on=self.fail_on,
                strict=self.strict,
                assume_closed=self.assume_closed,
                child_rules=self.child_rules,
                protocol=self.protocol,
                marker_tag=self.marker_tag,
                history_tags=_tuple(self.history_tag),
                live_tags=_tuple(self.live_tag),
                schema=self.schema,
            )
            policy = flags.over(base).policy(input_format=self.input_format, link=self.link)
            said = path is not None and not quiet
            counted = settings_that_count(flags, base, judged=judged) if said else []
        except UsageError as error:
            fail(str(error))
        if counted and path is not None:
            print_note(f"{_settings_text(counted)} from {_shown(path)}")
        return policy

    def idle_timeouts_ms(self) -> tuple[float, ...]:
        """`--idle-timeouts` in milliseconds (the defaults when not given); a usage error if bad."""
        if self.idle_timeouts is None:
            return DEFAULT_IDLE_TIMEOUTS_MS
        try:
            return parse_idle_timeouts(self.idle_timeouts)
        except ValueError as error:
            fail(f"--idle-timeouts: {error}")


def _file_settings(path: Path | None, no_config: bool) -> tuple[Settings, Path | None]:
    """The config file's settings (none without one), and the file."""
    found = path if path is not None else None if no_config else find_config(Path.cwd())
    return (load_config(found) if found is not None else Settings()), found


def _settings_text(counted: list[tuple[str, Any]]) -> str:
    """`fail-on = "warning", select = ["RC-"]`: each as the file says it (TOML)."""
    return ", ".join(f"{key} = {json.dumps(_plain(value))}" for key, value in counted)


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _shown(path: Path) -> str:
    """The file as the user would name it: `./acptrace.toml`, `../pyproject.toml`, else whole."""
    try:
        relative = os.path.relpath(path.resolve(), Path.cwd())
    except ValueError:  # (another drive)
        return str(path)
    if relative.startswith(".."):
        return relative if relative.count("..") <= 2 else str(path)
    return f"./{relative}"


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    """A repeatable option: None when not given, so the config's value stays."""
    return tuple(values) if values else None
