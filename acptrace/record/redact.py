"""Redaction: secret values in parsed JSON-RPC messages (and text) replaced by a marker.

Pure functions on parsed JSON values; `acptrace record` applies them to what it writes (never
to what it forwards) and `acptrace redact` to an existing transcript. Every function returns
the redacted value and how many values it replaced; the input is never modified.

What counts as secret:

- known places: every `value` of `mcpServers[].env[]` and `mcpServers[].headers[]` (list or
  map form), `--name value` / `--name=value` in `mcpServers[].args` with a secret-like name,
  and every string or number in the `params` of credential-bearing methods (`authenticate`,
  `auth/*`, `providers/set`) except the identifiers that name the method;
- secret-like names anywhere: a member whose name (case-, `-`- and `_`-insensitive) ends in one
  of `SECRET_SUFFIXES` or equals a `--redact-key`, and the `value` of a `{"name", "value"}`
  pair whose name is secret-like (HTTP headers, environment variables);
- patterns: well-known token shapes (`secret_shapes.SHAPES`: URL passwords, `Bearer`/`Basic`
  credentials, JWTs, vendor keys; where they start a word) and every `--redact-pattern`
  (wherever it matches), replaced in every string (a pattern with a group replaces only its
  first group), as is the value of `name=value` with a secret-like name (query parameters)
  and of a URL's signing parameters (`?sig=`, `&X-Amz-Signature=`, `&code=`: `URL_SIGNING_NAMES`);
  strings that hold JSON (envelopes that carry the message as a string) are parsed, redacted
  and serialised again when something changed; free text (raw lines, stderr, argv) also
  has `name: value` and `"name": "value"` forms redacted;
- a string split by zero-width characters is searched without them.

docs/redaction.md lists every rule and shape.

Booleans and nulls are never replaced; objects keep their shape (each leaf is replaced).
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from acptrace.model.errors import UsageError
from acptrace.record.secret_shapes import (
    CREDENTIAL_IDENTIFIERS,
    CREDENTIAL_METHODS,
    DESCRIPTIVE_NAMES,
    NOT_SECRET_NAMES,
    SECRET_SUFFIXES,
    SHAPES,
    URL_SIGNING_NAMES,
    ZERO_WIDTH,
    Shape,
)

REDACTED = "[REDACTED]"
"""What a secret value is replaced with."""

_SEPARATOR = re.compile(r"[=:]")
_EQUALS = re.compile(r"=")
_PLAIN_VALUE = re.compile(r"([^\s\"',;&#=][^\s\"',;&#]*+)")
_NAME_BEFORE = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]{0,100})(\"?)\s*\Z")
_TEXT_VALUE = re.compile(r"\s*+((?:Bearer|Basic|Token)\s++[^\s\"',;&]++|[^\s\"',;&]++)")
_QUOTED_VALUE = re.compile(r'\s*+"((?:[^"\\]++|\\.)*+)"')
_NAME_WINDOW = 110
_WORD_CHAR = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class RedactionPolicy:
    """What to redact: secret-like names and the patterns to search strings for."""

    keys: frozenset[str] = frozenset()
    """Extra member names (normalised) whose values are secret, besides `SECRET_SUFFIXES`."""
    shapes: tuple[Shape, ...] = ()
    """Token shapes, replaced where they do not start inside a word."""
    patterns: tuple[re.Pattern[str], ...] = ()
    """The caller's patterns, replaced in every string wherever they match."""
    starts: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    """Any literal a shape starts with: one search tells most strings have none."""

    def __post_init__(self) -> None:
        literals = sorted({re.escape(start) for shape in self.shapes for start in shape.starts})
        object.__setattr__(self, "starts", re.compile("|".join(literals)) if literals else None)

    @classmethod
    def build(
        cls, keys: Iterable[str] = (), patterns: Iterable[str] = (), *, defaults: bool = True
    ) -> RedactionPolicy:
        """`SHAPES` (unless not `defaults`) and these; UsageError for a bad regex."""
        shapes = SHAPES if defaults else ()
        compiled: list[re.Pattern[str]] = []
        for source in patterns:
            try:
                compiled.append(re.compile(source))
            except re.error as error:
                message = f"--redact-pattern {source!r} is not a valid regex: {error}"
                raise UsageError(message) from None
        return cls(frozenset(normalize_name(k) for k in keys), shapes, tuple(compiled))

    def is_secret_name(self, name: str) -> bool:
        """Whether a member, header or variable with this name holds a secret."""
        return _is_secret_name(name, self.keys)


@functools.lru_cache(maxsize=8192)
def _is_secret_name(name: str, keys: frozenset[str]) -> bool:
    normal = normalize_name(name)
    if normal in keys:
        return True
    return normal.endswith(SECRET_SUFFIXES) and normal not in NOT_SECRET_NAMES


def normalize_name(name: str) -> str:
    """Names compare case-insensitively and ignore `-`, `_`, `.`, spaces and zero-width
    characters."""
    return name.lower().translate(_NAME_NOISE)


_NAME_NOISE = str.maketrans("", "", "-_. \u200b\u200c\u200d\u2060\ufeff\u00ad")


def redact_message(value: Any, policy: RedactionPolicy) -> tuple[Any, int]:
    """A JSON-RPC message, batch, or any record holding them, with its secrets replaced."""
    return _walk(value, policy)


def redact_text(text: str, policy: RedactionPolicy) -> tuple[str, int]:
    """Text that is not JSON (a raw line, stderr): patterns, `"name": "value"`, `name=value`,
    `name: value`."""
    return _redact_string(text, policy, free_text=True)


def _redact_string(text: str, policy: RedactionPolicy, *, free_text: bool) -> tuple[str, int]:
    """Shapes, patterns and `name=value` in any string; `name: value` forms too in free text.
    A string with zero-width characters is searched without them (and so written if it held
    a secret)."""
    if ZERO_WIDTH.search(text):
        visible, count = _redact_visible(ZERO_WIDTH.sub("", text), policy, free_text=free_text)
        return (visible, count) if count else (text, 0)
    return _redact_visible(text, policy, free_text=free_text)


def _redact_visible(text: str, policy: RedactionPolicy, *, free_text: bool) -> tuple[str, int]:
    text, count = _sub_patterns(text, policy)
    text, n = _sub_assignments(text, policy, loose=free_text)
    return text, count + n


def redact_bytes(data: bytes, policy: RedactionPolicy) -> tuple[bytes, int]:
    """Bytes that may not be UTF-8: redacted as text, undecodable bytes kept as they were."""
    text, count = redact_text(data.decode("utf-8", "surrogateescape"), policy)
    return (text.encode("utf-8", "surrogateescape"), count) if count else (data, 0)


def redact_base64(encoded: str, policy: RedactionPolicy) -> tuple[str, int]:
    """Base64 of bytes that may not be UTF-8, redacted inside; unchanged if not valid base64."""
    try:
        data = base64.b64decode(encoded, validate=True)
    except ValueError:
        return redact_text(encoded, policy)
    redacted, count = redact_bytes(data, policy)
    return (base64.b64encode(redacted).decode("ascii"), count) if count else (encoded, 0)


def redact_argv(argv: Sequence[str], policy: RedactionPolicy) -> tuple[list[str], int]:
    """A command line: the value after `--secret-name` or in `--secret-name=value`, patterns."""
    out: list[str] = []
    count = 0
    secret_next = False
    for arg in argv:
        if secret_next and not (arg.startswith("-") and len(arg) > 1):
            out.append(REDACTED)
            count += 1
            secret_next = False
            continue
        secret_next = False
        flag, equals, value = arg.partition("=")
        if flag.startswith("-") and policy.is_secret_name(flag.lstrip("-")):
            if equals:
                out.append(f"{flag}={REDACTED}" if value else arg)
                count += bool(value)
                continue
            secret_next = True
        text, n = redact_text(arg, policy)
        out.append(text)
        count += n
    return out, count


def _walk(value: Any, policy: RedactionPolicy) -> tuple[Any, int]:
    if isinstance(value, dict):
        return _walk_object(value, policy)
    if isinstance(value, list):
        return _walk_list(value, policy)
    if isinstance(value, str):
        return _walk_string(value, policy)
    return value, 0


def _walk_list(items: list[Any], policy: RedactionPolicy) -> tuple[list[Any], int]:
    """Copied only when something in it changes (most messages have no secret)."""
    count = 0
    out: list[Any] | None = None
    for index, item in enumerate(items):
        new, n = _walk(item, policy)
        if n:
            out = list(items) if out is None else out
            out[index] = new
            count += n
    return (items, 0) if out is None else (out, count)


def _walk_object(obj: dict[str, Any], policy: RedactionPolicy) -> tuple[dict[str, Any], int]:
    credentials = _is_credential_method(obj.get("method"))
    pair_secret = isinstance(obj.get("name"), str) and policy.is_secret_name(obj["name"])
    base64_payload = obj.get("encoding") == "base64"
    stderr = obj.get("dir") == "stderr"
    count = 0
    changed: dict[str, Any] = {}
    for key, item in obj.items():
        if policy.is_secret_name(key) or (key == "value" and pair_secret):
            new, n = _secret_value(item, policy)
        elif key == "mcpServers":
            new, n = _mcp_servers(item, policy)
        elif key == "params" and credentials:
            new, n = _credential_params(item, policy)
        elif key in ("raw", "text") and base64_payload and isinstance(item, str):
            new, n = redact_base64(item, policy)
        elif isinstance(item, str) and (key == "raw" or (key == "text" and stderr)):
            new, n = _walk_string(item, policy, free_text=True)
        elif key == "argv" and _is_strings(item):
            new, n = redact_argv(item, policy)
        else:
            new, n = _walk(item, policy)
        if n:
            changed[key] = new
            count += n
    return ({**obj, **changed}, count) if count else (obj, 0)


def _walk_string(text: str, policy: RedactionPolicy, *, free_text: bool = False) -> tuple[Any, int]:
    """A string holding a JSON object or array is redacted as JSON; others by the patterns
    (and, for `free_text` such as raw lines, by `redact_text`'s name rules too)."""
    if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
        try:
            inner = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
        else:
            new, count = _walk(inner, policy)
            return (orjson.dumps(new).decode(), count) if count else (text, 0)
    return _redact_string(text, policy, free_text=free_text)


def _secret_value(value: Any, policy: RedactionPolicy) -> tuple[Any, int]:
    """The value of a member with a secret-like name: a string or number is replaced, as is
    every item of a list; an object keeps the members that describe the secret
    (`DESCRIPTIVE_NAMES`: gemini's `"api-key": {"provider": "google"}`), walked as usual,
    and its other members are treated as this value is."""
    if isinstance(value, list):
        items = [_secret_value(item, policy) for item in value]
        count = sum(n for _, n in items)
        return ([new for new, _ in items], count) if count else (value, 0)
    if not isinstance(value, dict):
        return _blank(value)
    return _blank_all_but(
        value, DESCRIPTIVE_NAMES, policy, lambda item: _secret_value(item, policy)
    )


def _blank_all_but(
    obj: dict[str, Any],
    kept: frozenset[str],
    policy: RedactionPolicy,
    blank: Callable[[Any], tuple[Any, int]],
) -> tuple[dict[str, Any], int]:
    """The object with each member `blank`ed but those whose (normalised) name is in `kept`,
    which are walked as usual; the object itself when nothing was replaced."""
    count = 0
    changed: dict[str, Any] = {}
    for key, item in obj.items():
        new, n = _walk(item, policy) if normalize_name(key) in kept else blank(item)
        if n:
            changed[key] = new
            count += n
    return ({**obj, **changed}, count) if count else (obj, 0)


def _blank(value: Any) -> tuple[Any, int]:
    """Every string and number in the value replaced; booleans, nulls and shape kept."""
    if isinstance(value, dict):
        pairs = {k: _blank(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, sum(n for _, n in pairs.values())
    if isinstance(value, list):
        items = [_blank(v) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    if isinstance(value, bool) or value is None or value in ("", REDACTED):
        return value, 0
    if isinstance(value, str | int | float):
        return REDACTED, 1
    return value, 0


def _mcp_servers(servers: Any, policy: RedactionPolicy) -> tuple[Any, int]:
    """Each server: all env and header values, secret-named args; the rest walked as usual."""
    if not isinstance(servers, list):
        return _walk(servers, policy)
    count = 0
    out: list[Any] = []
    for server in servers:
        if not isinstance(server, dict):
            new, n = _walk(server, policy)
        else:
            new, n = _mcp_server(server, policy)
        out.append(new)
        count += n
    return (out, count) if count else (servers, 0)


def _mcp_server(server: dict[str, Any], policy: RedactionPolicy) -> tuple[dict[str, Any], int]:
    count = 0
    out: dict[str, Any] = {}
    for key, item in server.items():
        if key in ("env", "headers"):
            new, n = _all_values(item)
        elif key == "args" and _is_strings(item):
            new, n = redact_argv(item, policy)
        else:
            new, n = _walk(item, policy)
        out[key] = new
        count += n
    return (out, count) if count else (server, 0)


def _all_values(entries: Any) -> tuple[Any, int]:
    """`[{"name", "value"}]` or `{name: value}`: every value replaced, names kept."""
    if isinstance(entries, dict):
        return _blank(entries)
    if not isinstance(entries, list):
        return _blank(entries)
    count = 0
    out: list[Any] = []
    for entry in entries:
        if isinstance(entry, dict) and "value" in entry:
            value, n = _blank(entry["value"])
            out.append({**entry, "value": value})
        else:
            new, n = _blank(entry)
            out.append(new)
        count += n
    return (out, count) if count else (entries, 0)


def _credential_params(params: Any, policy: RedactionPolicy) -> tuple[Any, int]:
    """Params of `authenticate`, `auth/*`, `providers/set`: all but the identifiers replaced."""
    if not isinstance(params, dict):
        return _blank(params)
    return _blank_all_but(params, CREDENTIAL_IDENTIFIERS, policy, _blank)


def _is_credential_method(method: Any) -> bool:
    return isinstance(method, str) and (method.startswith("auth/") or method in CREDENTIAL_METHODS)


def _is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _sub_patterns(text: str, policy: RedactionPolicy) -> tuple[str, int]:
    count = 0
    shapes = policy.shapes if policy.starts and policy.starts.search(text) else ()
    for shape in shapes:
        if any(start in text for start in shape.starts):
            text, n = _sub_pattern(shape.pattern, text, word_start=True, check=shape.check)
            count += n
    for pattern in policy.patterns:
        text, n = _sub_pattern(pattern, text, word_start=False)
        count += n
    return text, count


def _sub_pattern(
    pattern: re.Pattern[str],
    text: str,
    *,
    word_start: bool,
    check: Callable[[str], bool] | None = None,
) -> tuple[str, int]:
    """Replace each match (or its first group) that passes `check` and is not already
    redacted; with `word_start`, not those inside a word."""
    if pattern.search(text) is None:
        return text, 0
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        start = match.start()
        inside = start and _WORD_CHAR.match(text, start - 1) and _WORD_CHAR.match(text, start)
        grouped = bool(pattern.groups) and match.group(1) is not None
        secret = match.group(1) if grouped else match.group(0)
        if (word_start and inside) or REDACTED in secret or (check and not check(secret)):
            return match.group(0)
        count += 1
        if grouped:
            whole = match.group(0)
            begin, end = match.start(1) - start, match.end(1) - start
            return whole[:begin] + REDACTED + whole[end:]
        return REDACTED

    return pattern.sub(replace, text), count


def _signs_a_url(text: str, name: re.Match[str], at: int) -> bool:
    """`?sig=`, `&X-Amz-Signature=`, …: a URL parameter in `URL_SIGNING_NAMES`."""
    start = name.start(1)
    return (
        text[at] == "="
        and name.end(1) == at
        and start > 0
        and text[start - 1] in "?&#;"
        and name.group(1).lower() in URL_SIGNING_NAMES
    )


def _sub_assignments(text: str, policy: RedactionPolicy, *, loose: bool) -> tuple[str, int]:
    """`name=value` (as in a query string or an environment) with a secret-like name: value
    replaced; when `loose` (free text), also `"name": "value"`, `name: value`, `name = value`.

    Finds separators first and looks at the name before each, so a long text with few
    separators costs one fast scan (no regex walks every word).
    """
    if "=" not in text and (not loose or ":" not in text):
        return text, 0
    pieces: list[str] = []
    done = 0
    count = 0
    for separator in (_SEPARATOR if loose else _EQUALS).finditer(text):
        at = separator.start()
        if at < done:
            continue
        name = _NAME_BEFORE.search(text, max(done, at - _NAME_WINDOW), at)
        if name is None:
            continue
        if not policy.is_secret_name(name.group(1)) and not _signs_a_url(text, name, at):
            continue
        quoted = name.group(2) == '"'
        if loose:
            value = (_QUOTED_VALUE if quoted else _TEXT_VALUE).match(text, at + 1)
        elif quoted or name.end(1) != at:
            continue
        else:
            value = _PLAIN_VALUE.match(text, at + 1)
        if value is None or not value.group(1) or REDACTED in value.group(1):
            continue
        pieces += (text[done : value.start(1)], REDACTED)
        done = value.end(1)
        count += 1
    if not count:
        return text, 0
    pieces.append(text[done:])
    return "".join(pieces), count
