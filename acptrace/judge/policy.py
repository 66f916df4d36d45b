"""A run's policy (what to judge, what fails it) from `acptrace.toml`, `pyproject.toml` and flags.

The file is found upward from the current directory: in each directory `acptrace.toml` (keys
at the top level, or under `[tool.acptrace]`) wins over a `pyproject.toml` that has a
`[tool.acptrace]` table; the first directory with either ends the search. A setting given on
the command line replaces the file's (lists are not merged).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from acptrace.judge.rules import RULES
from acptrace.model.domain import Analysis, Finding, Severity
from acptrace.model.errors import UsageError
from acptrace.model.options import Options, SchemaDepth

_T = TypeVar("_T")

CONFIG_NAMES = ("acptrace.toml", "pyproject.toml")
"""Files searched in each directory, in order of precedence."""


class FailOn(StrEnum):
    """The lowest finding level that fails a run (`never`: findings never do)."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    NEVER = "never"

    def fails(self, severity: Severity) -> bool:
        """Whether a finding of this level fails the run."""
        match self:
            case FailOn.NEVER:
                return False
            case FailOn.ERROR | FailOn.WARNING | FailOn.NOTE:
                return severity.rank >= Severity(self.value).rank


class Policy(msgspec.Struct, frozen=True):
    """How one run is analysed and judged."""

    options: Options
    """The analysis options."""
    fail_on: FailOn = FailOn.ERROR
    """The lowest finding level that fails the run."""
    strict: bool = False
    """Any input issue fails the run too."""

    def failing(self, analysis: Analysis) -> tuple[Finding, ...]:
        """The findings at or above `fail_on`, in line order."""
        return tuple(f for f in analysis.findings if self.fail_on.fails(f.severity))

    def fails(self, analysis: Analysis, levels: Iterable[Severity] | None = None) -> bool:
        """Whether this analysis fails the run (a failing finding, or an issue when strict);
        `levels` are those of its findings when it does not hold them (`ParkedFindings`)."""
        found = (f.severity for f in analysis.findings) if levels is None else levels
        return any(map(self.fail_on.fails, found)) or (self.strict and bool(analysis.issues))


class Settings(msgspec.Struct, frozen=True):
    """What a config file or the command line says; None where it says nothing."""

    select: tuple[str, ...] | None = None
    """`select`: report only these rule IDs or prefixes."""
    ignore: tuple[str, ...] | None = None
    """`ignore`: leave out these rule IDs or prefixes."""
    fail_on: FailOn | None = None
    """`fail-on`: `error`, `warning`, `note` or `never`."""
    strict: bool | None = None
    """`strict`: any input issue fails the run."""
    assume_closed: bool | None = None
    """`assume-closed`: a transcript that just stops counts as a recorded disconnect."""
    child_rules: bool | None = None
    """`child-rules`: judge the RC-CHILD-* rules."""
    protocol: int | None = None
    """`protocol`: apply the rules of ACP v1 or v2."""
    marker_tag: str | None = None
    """`marker-tag`: the `sessionUpdate` tag that ends a replay."""
    history_tags: tuple[str, ...] | None = None
    """`history-tags`: by-default never-history tags to treat as history."""
    live_tags: tuple[str, ...] | None = None
    """`live-tags`: further tags to treat as never history."""
    schema: SchemaDepth | None = None
    """`schema`: what the schema check reads, `default` or `full`."""

    def over(self, base: Settings) -> Settings:
        """These settings where they say something, `base`'s elsewhere."""
        given = msgspec.structs.asdict(self)
        return msgspec.structs.replace(base, **{k: v for k, v in given.items() if v is not None})

    def policy(self, *, input_format: str | None = None, link: str | None = None) -> Policy:
        """The policy these settings ask for (defaults where they say nothing).

        Raises `UsageError` for a rule ID or prefix that matches no rule, and for an empty
        format name.
        """
        for name, patterns in (("select", self.select), ("ignore", self.ignore)):
            _check_rule_patterns(name, patterns or ())
        if input_format == "":  # (`--input-format "$FORMAT"` with the variable unset)
            raise UsageError("--input-format: an empty name: name a format, or leave it out")
        defaults = Options()
        options = Options(
            input_format=input_format,
            link=link,
            assume_closed=_pick(self.assume_closed, defaults.assume_closed),
            protocol=self.protocol,
            child_rules=_pick(self.child_rules, defaults.child_rules),
            marker_tag=_pick(self.marker_tag, defaults.marker_tag),
            history_tags=self.history_tags or (),
            live_tags=self.live_tags or (),
            select=self.select or (),
            ignore=self.ignore or (),
            schema=_pick(self.schema, defaults.schema),
        )
        return Policy(options, _pick(self.fail_on, FailOn.ERROR), _pick(self.strict, False))


def _pick(value: _T | None, default: _T) -> _T:
    return default if value is None else value


def _check_rule_patterns(name: str, patterns: tuple[str, ...]) -> None:
    for pattern in patterns:
        if not pattern:  # (`--ignore "$RULES"` with the variable unset: every finding gone)
            raise UsageError(f"{name}: an empty rule ID or prefix would match every rule")
        if not any(rule.id.startswith(pattern) for rule in RULES):
            raise UsageError(f"{name}: {pattern!r} matches no rule (see `acptrace rules`)")


# -- config files ------------------------------------------------------------------------------


def find_config(start: Path) -> Path | None:
    """The config file that applies in `start`: the nearest one upward, or None."""
    for directory in (start, *start.parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if not candidate.is_file():
                continue
            text = _text(candidate)
            if _passed_over(candidate, text):
                continue
            if _table(candidate, text) is not None:
                return candidate
    return None


def _passed_over(path: Path, text: str) -> bool:
    """A `pyproject.toml` whose text cannot name an acptrace table: not parsed on the way up
    (most projects have one: its TOML cost ~3 ms of every run), and not ours even if it is
    broken. A table's name is a key (`[tool.acptrace]`, `acptrace = {…}`, `acptrace.strict`),
    which a dependency on acptrace (`"acptrace>=0.1"`) is not; an escape can spell one."""
    lowered = text.lower()
    return path.name == "pyproject.toml" and not (
        _TABLE_KEY.search(lowered) or "\\u" in lowered or "\\x" in lowered
    )


_TABLE_KEY = re.compile(r"acptrace[\"']?\s*[.=\]]|tool\s*\.\s*[\"']?acptrace")
"""`acptrace` as a key can be: a table's name, dotted, or given a value; or under `tool.`, even
where the rest is broken (`[tool.acptrace` without its `]`: ours, and said to be broken)."""


def load_config(path: Path) -> Settings:
    """The settings of one config file. Raises `UsageError` when it is invalid."""
    table = _table(path, _text(path))
    return settings_from_table(table or {}, str(path))


def settings_from_table(table: dict[str, Any], where: str) -> Settings:
    """Settings from a `[tool.acptrace]` table. Raises `UsageError` on a bad key or value."""
    values: dict[str, Any] = {}
    for key, value in table.items():
        reader = _KEYS.get(key)
        if reader is None:
            known = ", ".join(sorted(_KEYS))
            raise UsageError(f"{where}: unknown key {key!r} in acptrace settings (known: {known})")
        field_name, convert = reader
        try:
            values[field_name] = convert(value)
        except (TypeError, ValueError) as error:
            raise UsageError(f"{where}: {key}: {error}") from None
    settings = Settings(**values)
    try:
        settings.policy()  # (a rule ID or prefix that matches no rule: said with the file)
    except UsageError as error:
        raise UsageError(f"{where}: {error}") from None
    return settings


def _text(path: Path) -> str:
    """A config file's text. Raises `UsageError` when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read config {path}: {error}") from None


def _table(path: Path, text: str) -> dict[str, Any] | None:
    """The acptrace table of a config file's text (None when a pyproject.toml has none)."""
    import tomllib  # (here: most runs find no config file)

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path}: invalid TOML: {error}") from None
    tool = document.get("tool")
    nested = tool.get("acptrace") if isinstance(tool, dict) else None
    if isinstance(nested, dict):
        return nested
    if path.name == "pyproject.toml":
        return None
    return {k: v for k, v in document.items() if k != "tool"}


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise TypeError("expected a string or a list of strings")


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("expected true or false")
    return value


def _protocol(value: Any) -> int:
    if isinstance(value, bool) or value not in (1, 2):
        raise ValueError("expected 1 or 2")
    return int(value)


def _string(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError("expected a non-empty string")
    return value


def _schema(value: Any) -> SchemaDepth:
    try:
        return SchemaDepth(value)
    except ValueError:
        raise ValueError(f"expected one of {', '.join(SchemaDepth)}") from None


def _fail_on(value: Any) -> FailOn:
    try:
        return FailOn(value)
    except ValueError:
        raise ValueError(f"expected one of {', '.join(FailOn)}") from None


_KEYS: dict[str, tuple[str, Any]] = {
    "select": ("select", _strings),
    "ignore": ("ignore", _strings),
    "fail-on": ("fail_on", _fail_on),
    "strict": ("strict", _boolean),
    "assume-closed": ("assume_closed", _boolean),
    "child-rules": ("child_rules", _boolean),
    "protocol": ("protocol", _protocol),
    "marker-tag": ("marker_tag", _string),
    "history-tags": ("history_tags", _strings),
    "live-tags": ("live_tags", _strings),
    "schema": ("schema", _schema),
}
"""Config keys: the Settings field each sets and how its value is checked."""


def settings_that_count(
    flags: Settings, base: Settings, *, judged: bool = True
) -> list[tuple[str, Any]]:
    """The config keys of `base` (a config file's settings) that change the policy `flags` over
    `base` makes: set there, not given by `flags`, and not the default (as `(key, value)`, in
    the order of `_KEYS`); not `judged`: only those that change the analysis options (a
    command whose exit code is not of findings, as `report`). A run says these once, so that a
    verdict or an exit code the file changed is never a surprise."""

    def made(settings: Settings) -> Policy | Options:
        return settings.policy() if judged else settings.policy().options

    policy = made(flags.over(base))
    counted = []
    for key, (field, _) in _KEYS.items():
        value = getattr(base, field)
        if value is None or getattr(flags, field) is not None:
            continue
        without = msgspec.structs.replace(base, **{field: None})
        if made(flags.over(without)) != policy:
            counted.append((key, value))
    return counted
