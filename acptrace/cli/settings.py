"""The analysis options `analyze`, `timeline` and `export` share, merged with the config file.

Each option is defined once here. Flags default to None ("not given") so that a value from
`acptrace.toml` / `[tool.acptrace]` applies unless the command line says otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from acptrace.cli.common import fail
from acptrace.judge.idle_timers import DEFAULT_IDLE_TIMEOUTS_MS, parse_idle_timeouts
from acptrace.judge.policy import FailOn, Policy, Settings, find_config, load_config
from acptrace.model.errors import UsageError

AssumeClosedOption = Annotated[
    bool | None,
    typer.Option(
        "--assume-closed/--no-assume-closed",
        help="Treat a transcript that just stops as a recorded disconnect.",
        show_default=False,
    ),
]
ProtocolOption = Annotated[
    int | None, typer.Option(min=1, max=2, metavar="1|2", help="Apply the rules of ACP v1 or v2.")
]
ChildRulesOption = Annotated[
    bool | None,
    typer.Option(
        "--child-rules/--no-child-rules", help="Judge the RC-CHILD-* rules.", show_default=False
    ),
]
MarkerTagOption = Annotated[
    str | None,
    typer.Option(
        metavar="TAG",
        help="The sessionUpdate tag that marks the end of a replay (replay_complete).",
    ),
]
HistoryTagOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar="TAG", help="Treat a by-default never-history tag as history (repeatable)."
    ),
]
LiveTagOption = Annotated[
    list[str] | None,
    typer.Option(metavar="TAG", help="Treat another tag as never history (repeatable)."),
]
SelectOption = Annotated[
    list[str] | None,
    typer.Option(metavar="RULE", help="Report only these rule IDs or prefixes (repeatable)."),
]
IgnoreOption = Annotated[
    list[str] | None,
    typer.Option(metavar="RULE", help="Leave out these rule IDs or prefixes (repeatable)."),
]
InputFormatOption = Annotated[
    str | None,
    typer.Option(metavar="NAME", help="Read the input as this format (see `acptrace formats`)."),
]
LinkOption = Annotated[
    str | None,
    typer.Option(
        metavar="LINK", help="Multi-hop traces: analyse this link (client, agent, or 'A,B')."
    ),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Read settings from this file instead of the acptrace.toml / pyproject.toml "
        "found upward from the current directory.",
        dir_okay=False,
    ),
]
NoConfigOption = Annotated[
    bool, typer.Option("--no-config", help="Ignore acptrace.toml and pyproject.toml.")
]
FailOnOption = Annotated[
    FailOn | None,
    typer.Option(help="Exit 1 when a finding is at or above this level (default: error)."),
]
StrictOption = Annotated[
    bool | None,
    typer.Option("--strict/--no-strict", help="Exit 1 when the input has any issue."),
]
IdleTimeoutsOption = Annotated[
    str | None,
    typer.Option(
        "--idle-timeouts",
        metavar="LIST",
        help="Idle timers to judge replays against, e.g. 50ms,1s "
        "(default: 50ms,100ms,250ms,1s,5s,30s).",
    ),
]


def idle_timeouts_from(text: str | None) -> tuple[float, ...]:
    """`--idle-timeouts` in milliseconds (the defaults when not given); a usage error if bad."""
    if text is None:
        return DEFAULT_IDLE_TIMEOUTS_MS
    try:
        return parse_idle_timeouts(text)
    except ValueError as error:
        fail(f"--idle-timeouts: {error}")


def policy_from(ctx: typer.Context) -> Policy:
    """The policy of this command: its flags over the config file's settings over defaults.

    Reads the options above by name from the command's parameters (a command that does not
    declare one leaves it unset). A bad config file or rule ID is a usage error (exit 2).
    """
    params: dict[str, Any] = ctx.params
    try:
        config = params.get("config")  # (typer before 0.29 leaves the path's text here)
        base = _file_settings(
            None if config is None else Path(config), bool(params.get("no_config"))
        )
        flags = Settings(
            select=_tuple(params.get("select")),
            ignore=_tuple(params.get("ignore")),
            fail_on=_fail_on(params.get("fail_on")),
            strict=params.get("strict"),
            assume_closed=params.get("assume_closed"),
            child_rules=params.get("child_rules"),
            protocol=params.get("protocol"),
            marker_tag=params.get("marker_tag"),
            history_tags=_tuple(params.get("history_tag")),
            live_tags=_tuple(params.get("live_tag")),
        )
        return flags.over(base).policy(
            input_format=params.get("input_format"), link=params.get("link")
        )
    except UsageError as error:
        fail(str(error))


def _file_settings(path: Path | None, no_config: bool) -> Settings:
    if path is not None:
        return load_config(path)
    found = None if no_config else find_config(Path.cwd())
    return load_config(found) if found is not None else Settings()


def _fail_on(value: FailOn | str | None) -> FailOn | None:
    """`--fail-on` as given (typer before 0.29 leaves the choice's text in the parameters)."""
    return None if value is None else FailOn(value)


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    """A repeatable option: None when not given, so the config's value stays."""
    return tuple(values) if values else None
