"""Redaction: secret values in parsed JSON-RPC messages (and text) replaced by a marker.

Pure functions on parsed JSON values; `acptrace record` applies them to what it writes (never
to what it forwards) and `acptrace redact` to an existing transcript. Every function returns
the redacted value and how many values it replaced; the input is never modified.

What counts as secret:

- known places: every `value` of `mcpServers[].env[]` and `mcpServers[].headers[]` (list or
  map form), and every string or number in the `params` of credential-bearing methods
  (`authenticate`, `auth/*`, `providers/set`) except the identifiers that name the method;
- secret-like names anywhere (`policy.RedactionPolicy.is_secret_name`): a member, and the
  `value` of a `{"name", "value"}` pair (HTTP headers, environment variables), unless it is a
  placeholder (`${TOKEN}`) or a version (`"jsonwebtoken": "^8.5.1"`); command lines (`argv`,
  every `args` list): the value after `--secret-name`, in `--secret-name=value`, and curl's
  `-u name:password`;
- in every string, the spans `spans.secret_spans` finds: token shapes (`secret_shapes.SHAPES`),
  the caller's patterns, `name=value`, `--flag value`, and `name: value` in free text (raw
  lines, stderr) or at the start of a line of a string of several lines; a string that holds
  JSON (an envelope, a file's content) is parsed and redacted as JSON; a string split by
  zero-width characters is searched without them;
- the chunks of a streamed message, searched together: `acptrace.record.chunks`.

docs/redaction.md lists every rule and shape.

Booleans and nulls are never replaced; objects keep their shape (each leaf is replaced).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from acptrace.record.policy import RedactionPolicy, normalize_name
from acptrace.record.secret_shapes import (
    CREDENTIAL_IDENTIFIERS,
    CREDENTIAL_METHODS,
    DESCRIPTIVE_NAMES,
    USER_FLAGS,
    ZERO_WIDTH,
    kept_by_name_rules,
)
from acptrace.record.spans import Reading, Span, password_of, secret_spans

__all__ = ["REDACTED", "RedactionPolicy", "normalize_name", "redact_message", "redact_text"]

REDACTED = "[REDACTED]"
"""What a secret value is replaced with."""


def redact_message(value: Any, policy: RedactionPolicy) -> tuple[Any, int]:
    """A JSON-RPC message, batch, or any record holding them, with its secrets replaced."""
    return _walk(value, policy)


def redact_text(text: str, policy: RedactionPolicy) -> tuple[str, int]:
    """Text that is not JSON (a raw line, stderr): shapes, patterns and every name rule
    (`name=value`, `name: value`, `"name": "value"`, `--flag value`) anywhere."""
    return redact_string(text, policy, Reading.FREE)


def redact_string(text: str, policy: RedactionPolicy, reading: Reading) -> tuple[str, int]:
    """A string read as `reading` says. A string with zero-width characters is searched
    without them (and so written without them if it held a secret)."""
    if ZERO_WIDTH.search(text):
        visible, count = redact_string(ZERO_WIDTH.sub("", text), policy, reading)
        return (visible, count) if count else (text, 0)
    spans = secret_spans(text, policy, reading, REDACTED)
    return (replace_spans(text, spans), len(spans)) if spans else (text, 0)


def replace_spans(text: str, spans: Sequence[Span]) -> str:
    """The text with each span (in order, none overlapping) replaced by `REDACTED`."""
    pieces: list[str] = []
    done = 0
    for start, end in spans:
        pieces += (text[done:start], REDACTED)
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def reading_of(text: str, *, free_text: bool = False) -> Reading:
    """How a string is read: free text as such, a string of several lines by its lines."""
    if free_text:
        return Reading.FREE
    return Reading.LINES if "\n" in text else Reading.VALUE


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
    """A command line: the value after `--secret-name` or in `--secret-name=value`, the
    password of `-u name:password`, and every rule for free text in each argument."""
    out: list[str] = []
    count = 0
    after: str | None = None
    for arg in argv:
        new, n = _argument(arg, after, policy)
        out.append(new)
        count += n
        after = arg if arg.startswith("-") and len(arg) > 1 and "=" not in arg else None
    return out, count


def _argument(arg: str, after: str | None, policy: RedactionPolicy) -> tuple[str, int]:
    """One argument, given the flag before it (if it was one)."""
    if after is not None and not (arg.startswith("-") and len(arg) > 1):
        if policy.is_secret_name(after.lstrip("-")) and not kept_by_name_rules(arg):
            return (REDACTED, 1) if arg not in ("", REDACTED) else (arg, 0)
        if after in USER_FLAGS and (span := password_of(arg, 0, len(arg))) is not None:
            return replace_spans(arg, [span]), 1
    flag, equals, value = arg.partition("=")
    if equals and flag.startswith("-") and policy.is_secret_name(flag.lstrip("-")):
        if value in ("", REDACTED) or kept_by_name_rules(value):
            return arg, 0
        return f"{flag}={REDACTED}", 1
    return redact_text(arg, policy)


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
    stderr = obj.get("dir") == "stderr" or obj.get("_type") == "stderr"  # (canonical, Zed)
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
        elif isinstance(item, str) and (key == "raw" or (key in ("text", "params") and stderr)):
            new, n = _walk_string(item, policy, free_text=True)
        elif key in ("argv", "args") and _is_strings(item):
            new, n = redact_argv(item, policy)
        else:
            new, n = _walk(item, policy)
        if n:
            changed[key] = new
            count += n
    return ({**obj, **changed}, count) if count else (obj, 0)


def _walk_string(text: str, policy: RedactionPolicy, *, free_text: bool = False) -> tuple[Any, int]:
    """A string holding a JSON object or array (a file's content: whitespace around it is
    kept) is redacted as JSON; others by the shapes, patterns and name rules as its
    `reading_of` says."""
    body = text.strip() if text[:1].isspace() or text[-1:].isspace() else text
    if body[:1] in ("{", "[") and body[-1:] in ("}", "]"):
        try:
            inner = orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
        else:
            new, count = _walk(inner, policy)
            if not count:
                return text, 0
            indent = orjson.OPT_INDENT_2 if "\n" in body else 0
            start = text.index(body[0])
            written = orjson.dumps(new, option=indent).decode()
            return text[:start] + written + text[start + len(body) :], count
    return redact_string(text, policy, reading_of(text, free_text=free_text))


def _secret_value(value: Any, policy: RedactionPolicy) -> tuple[Any, int]:
    """The value of a member with a secret-like name: a string or number is replaced, as is
    every item of a list; an object keeps the members that describe the secret
    (`DESCRIPTIVE_NAMES`: gemini's `"api-key": {"provider": "google"}`), walked as usual,
    and its other members are treated as this value is."""
    if isinstance(value, list):
        items = [_secret_value(item, policy) for item in value]
        count = sum(n for _, n in items)
        return ([new for new, _ in items], count) if count else (value, 0)
    if isinstance(value, str) and kept_by_name_rules(value):
        return value, 0
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
