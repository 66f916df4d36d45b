"""Redaction: the pure functions (acptrace/record/redact.py) and `acptrace redact` on files."""

from __future__ import annotations

import base64
import gzip
import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.model.errors import UsageError
from acptrace.record.events import Captured, Line, Stream
from acptrace.record.redact import (
    REDACTED,
    RedactionPolicy,
    redact_argv,
    redact_base64,
    redact_bytes,
    redact_message,
    redact_text,
)
from acptrace.record.rewrite import redact_document, redact_transcript
from acptrace.record.secret_shapes import RULES, SECRET_SUFFIXES, SHAPES
from acptrace.record.transcript import encode
from tests.shared import REAL_WORLD

FIXTURE = Path(__file__).resolve().parent / "acp_peers" / "secrets.jsonl"
MARK = b"S3CR3T"
"""Every secret in the fixture contains this."""
POLICY = RedactionPolicy.build()
runner = CliRunner()


def redacted(value: Any, policy: RedactionPolicy = POLICY) -> Any:
    return redact_message(value, policy)[0]


def rpc(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


# -- known places ------------------------------------------------------------------------------


def test_mcp_server_env_and_header_values_are_all_replaced() -> None:
    servers = [
        {
            "name": "gh",
            "command": "gh-mcp",
            "args": ["--token", "t0k", "--port", "8080", "--secret=abc"],
            "env": [{"name": "PLAIN", "value": "v1"}, {"name": "GITHUB_TOKEN", "value": "v2"}],
        },
        {"type": "http", "name": "h", "url": "u", "headers": [{"name": "X-Any", "value": "v3"}]},
        {"type": "sse", "name": "s", "url": "u", "headers": {"Authorization": "Basic v4"}},
    ]
    out = redacted(rpc("session/new", {"cwd": "/p", "mcpServers": servers}))["params"]
    stdio, http, sse = out["mcpServers"]
    assert stdio["env"] == [
        {"name": "PLAIN", "value": REDACTED},
        {"name": "GITHUB_TOKEN", "value": REDACTED},
    ]
    assert stdio["args"] == ["--token", REDACTED, "--port", "8080", f"--secret={REDACTED}"]
    assert (stdio["name"], stdio["command"]) == ("gh", "gh-mcp")
    assert http["headers"] == [{"name": "X-Any", "value": REDACTED}]
    assert sse["headers"] == {"Authorization": REDACTED}
    assert out["cwd"] == "/p"


@pytest.mark.parametrize("method", ["authenticate", "auth/login", "auth/refresh"])
def test_credential_params_keep_only_identifiers(method: str) -> None:
    params = {"methodId": "oauth", "code": "c0de", "nested": {"pin": 1234, "remember": True}}
    assert redacted(rpc(method, params))["params"] == {
        "methodId": "oauth",
        "code": REDACTED,
        "nested": {"pin": REDACTED, "remember": True},
    }


def test_provider_headers_are_replaced() -> None:
    params = {"providerId": "p", "apiType": "openai", "baseUrl": "https://x", "headers": {"a": "b"}}
    out = redacted(rpc("providers/set", params))["params"]
    assert out == {**params, "headers": {"a": REDACTED}}


@pytest.mark.parametrize(
    ("member", "secret"),
    [
        ("apiKey", True),
        ("api_key", True),
        ("X-Api-Key", True),
        ("accessToken", True),
        ("refresh-token", True),
        ("Authorization", True),
        ("proxy-authorization", True),
        ("password", True),
        ("clientSecret", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("cookie", True),
        ("secret_key", True),
        ("pwd", True),
        ("auth", True),
        ("ssh_key", True),
        ("signature", True),
        ("apiKeys", True),
        ("api\u200bkey", True),
        ("inputTokens", False),
        ("maxTokens", False),
        ("tokenizer", False),
        ("sessionId", False),
        ("stopReason", False),
        ("authMethods", False),
    ],
)
def test_secret_like_names_anywhere(member: str, secret: bool) -> None:
    message = {"jsonrpc": "2.0", "id": 2, "result": {"deep": [{member: "v4lue"}]}}
    value = redacted(message)["result"]["deep"][0][member]
    assert value == (REDACTED if secret else "v4lue")


def test_a_secret_name_over_an_object_keeps_what_describes_the_secret() -> None:
    """gemini-cli's initialize result (agents-2026-12/SOURCES.md, "Redaction"): the member
    `api-key` names the kind of auth method; `provider` is not a secret."""
    gemini = {"id": "gemini-api-key", "_meta": {"api-key": {"provider": "google"}}}
    methods = [{"id": "oauth-personal", "name": "Log in with Google"}, gemini]
    message = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1, "authMethods": methods}}
    out, count = redact_message(message, POLICY)
    assert out["result"]["authMethods"][1]["_meta"]["api-key"] == {"provider": "google"}
    assert (out, count) == (message, 0)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("k3y", REDACTED),
        (1234, REDACTED),
        (["a", "b"], [REDACTED, REDACTED]),
        ({"openai": "k1", "anthropic": "k2"}, {"openai": REDACTED, "anthropic": REDACTED}),
        ({"provider": "google", "value": "k"}, {"provider": "google", "value": REDACTED}),
        (
            {"type": "env_var", "keys": [{"id": "a", "key": "k"}]},
            {"type": "env_var", "keys": [{"id": "a", "key": REDACTED}]},
        ),
        ({"provider": "sk-proj-" + "x" * 24}, {"provider": REDACTED}),  # shapes still apply
        ({"enabled": True, "expires": None}, {"enabled": True, "expires": None}),
    ],
)
def test_a_secret_name_replaces_strings_numbers_and_undescribed_members(
    value: Any, expected: Any
) -> None:
    assert redacted({"result": {"apiKeys": value}}) == {"result": {"apiKeys": expected}}


@pytest.mark.parametrize(
    "name",
    [
        "sig",
        "signature",
        "X-Amz-Signature",
        "X-Amz-Credential",
        "X-Amz-Security-Token",
        "X-Goog-Signature",
        "X-Goog-Credential",
        "token",
        "access_token",
        "code",
        "key",
        "SIG",
    ],
)
def test_url_signing_parameters_are_redacted_and_ordinary_ones_kept(name: str) -> None:
    url = f"https://h.example/o?sv=2022-11-02&{name}=S3cr3t%2Fv&se=2025-01-01&page=2#top"
    expected = f"https://h.example/o?sv=2022-11-02&{name}={REDACTED}&se=2025-01-01&page=2#top"
    first = f"https://h.example/o?{name}=S3cr3t&page=2"
    assert redacted({"uri": url}) == {"uri": expected}
    assert redact_text(f"fetching {url} ok", POLICY)[0] == f"fetching {expected} ok"
    assert redact_text(first, POLICY)[0] == f"https://h.example/o?{name}={REDACTED}&page=2"


@pytest.mark.parametrize(
    "text",
    [
        "https://h.example/search?q=key&page=2&sv=1&se=2&keyword=x&codec=h264",
        "the key=value pair and error code=3 in prose",
        "if (a && key == b) { sig = 1 }",
    ],
)
def test_ordinary_parameters_and_prose_survive_url_signing(text: str) -> None:
    assert redact_text(text, POLICY) == (text, 0)
    assert redacted({"text": text}) == {"text": text}


def test_name_value_pairs_with_secret_names() -> None:
    env = [{"name": "NPM_TOKEN", "value": "n"}, {"name": "PAGER", "value": "cat"}]
    out = redacted(rpc("terminal/create", {"command": "npm", "env": env}))
    assert out["params"]["env"] == [{"name": "NPM_TOKEN", "value": REDACTED}, env[1]]


def test_extra_keys_and_patterns() -> None:
    policy = RedactionPolicy.build(keys=["tenant-id"], patterns=[r"INC-(\d+)", "internal"])
    message = rpc("_x", {"TenantId": "acme", "note": "INC-42 is internal"})
    assert redacted(message, policy)["params"] == {
        "TenantId": REDACTED,
        "note": f"INC-{REDACTED} is {REDACTED}",
    }


def test_user_patterns_alone() -> None:
    policy = RedactionPolicy.build(patterns=["abc"], defaults=False)
    assert redact_text("xabc sk-" + "a" * 30, policy) == (f"x{REDACTED} sk-" + "a" * 30, 1)


@pytest.mark.parametrize(
    "token",
    [
        "sk-ant-api03-" + "a" * 30,
        "sk-proj-" + "B" * 40,
        "ghp_" + "c" * 36,
        "github_pat_" + "d" * 40,
        "glpat-" + "e" * 20,
        "xoxb-1234567890-abcdef",
        "AKIA" + "Q" * 16,
        "AIza" + "f" * 35,
    ],
)
def test_well_known_token_shapes_in_any_string(token: str) -> None:
    message = rpc("session/prompt", {"prompt": [{"type": "text", "text": f"use {token}."}]})
    assert redacted(message)["params"]["prompt"][0]["text"] == f"use {REDACTED}."


def test_bearer_and_private_keys_in_strings() -> None:
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"
    text = f"curl -H 'Authorization: Bearer abcdefghijklmnop12' && echo '{key}'"
    out, count = redact_text(text, POLICY)
    assert out == f"curl -H 'Authorization: Bearer {REDACTED}' && echo '{REDACTED}'"
    assert count == 2


def test_patterns_do_not_fire_inside_words() -> None:
    text = "the risk-assessment-of-the-whole-project and desk-" + "x" * 30
    assert redact_text(text, POLICY) == (text, 0)


def test_json_held_in_a_string_is_redacted_as_json() -> None:
    message = {"dir": "c2a", "json": orjson.dumps(rpc("authenticate", {"token": "x"})).decode()}
    inner = orjson.loads(redacted(message)["json"])
    assert inner["params"]["token"] == REDACTED


def test_batches_and_clean_messages() -> None:
    clean = rpc("session/prompt", {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]})
    assert redact_message(clean, POLICY) == (clean, 0)
    assert redact_message(clean, POLICY)[0] is clean  # nothing copied when nothing changed
    batch = [clean, rpc("authenticate", {"methodId": "m", "key": "k"})]
    out, count = redact_message(batch, POLICY)
    assert (out[0], out[1]["params"]["key"], count) == (clean, REDACTED, 1)


def test_nulls_booleans_and_empty_values_are_kept() -> None:
    message = {"result": {"token": None, "password": "", "secret": True, "apiKey": 12}}
    assert redacted(message)["result"] == {
        "token": None,
        "password": "",
        "secret": True,
        "apiKey": REDACTED,
    }


# -- text, bytes, argv ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"apiKey": "a\\"b", "x": 1}', f'{{"apiKey": "{REDACTED}", "x": 1}}'),
        ("export OPENAI_API_KEY=abc123 && run", f"export OPENAI_API_KEY={REDACTED} && run"),
        ("Authorization: Basic dXNlcjpw more", f"Authorization: {REDACTED} more"),
        ("password = hunter2;", f"password = {REDACTED};"),
        ("maxTokens: 5, url=http://h:80/x", "maxTokens: 5, url=http://h:80/x"),
        ('truncated {"token":"abc', 'truncated {"token":"abc'),
    ],
)
def test_redact_text(text: str, expected: str) -> None:
    assert redact_text(text, POLICY)[0] == expected


def test_redact_bytes_keeps_undecodable_bytes() -> None:
    data = b"\xff\xfe token=abc \x80"
    assert redact_bytes(data, POLICY) == (b"\xff\xfe token=" + REDACTED.encode() + b" \x80", 1)
    assert redact_bytes(b"\xff clean", POLICY) == (b"\xff clean", 0)


def test_redact_base64() -> None:
    encoded = base64.b64encode(b"\xff password=pw").decode()
    out, count = redact_base64(encoded, POLICY)
    assert (base64.b64decode(out), count) == (b"\xff password=" + REDACTED.encode(), 1)


def test_redact_argv() -> None:
    argv = ["agent", "--api-key", "k", "--token=t", "--no-token", "--verbose", "sk-" + "a" * 24]
    assert redact_argv(argv, POLICY) == (
        [
            "agent",
            "--api-key",
            REDACTED,
            f"--token={REDACTED}",
            "--no-token",
            "--verbose",
            REDACTED,
        ],
        3,
    )


EMPTY_MATCHING = ["x*", "token|", "(?:secret)?", "^", "$", ".*", r"(\d*)"]
"""Patterns that match the empty string (a `*` meant as `+`, a stray `|`)."""


def test_a_bad_pattern_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not a valid regex"):
        RedactionPolicy.build(patterns=["("])


@pytest.mark.parametrize("pattern", EMPTY_MATCHING)
def test_a_pattern_that_matches_the_empty_string_is_refused(pattern: str) -> None:
    """Issue #39.10 (the commands' refusal: tests/test_hostile_io.py)."""
    with pytest.raises(UsageError, match="matches the empty string"):
        RedactionPolicy.build(patterns=[pattern])
    assert RedactionPolicy.build(patterns=["x+", r"key=(\w*)"]).patterns  # (may match nothing)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=20,
)


@given(JSON)
def test_redaction_never_fails_and_is_idempotent(value: Any) -> None:
    once, _ = redact_message(value, POLICY)
    orjson.dumps(once)
    assert redact_message(once, POLICY)[0] == once


@given(st.text())
def test_text_redaction_never_fails_and_is_idempotent(text: str) -> None:
    once, _ = redact_text(text, POLICY)
    assert redact_text(once, POLICY)[0] == once


# -- `acptrace redact` -----------------------------------------------------------------------


def test_redact_command_on_bare_json_rpc_lines(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["redact", str(FIXTURE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    original = FIXTURE.read_bytes().splitlines(keepends=True)
    rewritten = out.read_bytes().splitlines(keepends=True)
    assert MARK not in out.read_bytes()
    assert len(rewritten) == len(original)
    for before, after in zip(original, rewritten, strict=True):
        if MARK not in before:
            assert after == before  # untouched lines are copied byte for byte
    assert "values redacted in" in result.output


def test_redact_command_on_a_canonical_transcript(tmp_path: Path) -> None:
    lines = FIXTURE.read_bytes().splitlines()
    recorded = b"".join(
        encode(Captured(Stream.C2A if i % 2 else Stream.A2C, Line(line), 10**18 + i, i), None)
        for i, line in enumerate(lines)
    )
    recorded += encode(
        Captured(Stream.STDERR, Line(b"using password=S3CR3T-x"), 2 * 10**18, 99), None
    )
    source = tmp_path / "plain.jsonl"
    source.write_bytes(recorded)
    assert recorded.count(MARK) > 10
    out = tmp_path / "clean.jsonl.gz"

    result = runner.invoke(app, ["redact", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    cleaned = gzip.decompress(out.read_bytes())
    assert MARK not in cleaned
    before, after = acptrace.analyze(source), acptrace.analyze(out)
    assert after.source.format == "acptrace"
    assert (after.source.messages, len(after.issues)) == (
        before.source.messages,
        len(before.issues),
    )


def test_redact_command_on_a_pretty_printed_document(tmp_path: Path) -> None:
    zed = [
        {"_direction": "outgoing", "_type": "request", "id": 1, "method": "authenticate",
         "params": {"methodId": "key", "apiKey": "S3CR3T-zed"}},
        {"_direction": "incoming", "_type": "response", "id": 1, "params": {}},
    ]  # fmt: skip
    source = tmp_path / "zed.json"
    source.write_bytes(orjson.dumps(zed, option=orjson.OPT_INDENT_2))
    result = runner.invoke(app, ["redact", str(source)])
    assert result.exit_code == 0
    document = orjson.loads(result.stdout)
    assert document[0]["params"] == {"methodId": "key", "apiKey": REDACTED}
    assert document[1] == zed[1]


def test_redact_reads_stdin_and_writes_stdout() -> None:
    line = orjson.dumps(rpc("authenticate", {"methodId": "m", "token": "S3CR3T"})) + b"\n"
    result = runner.invoke(app, ["redact", "-"], input=line + b"not json\n")
    assert result.exit_code == 0
    assert result.stdout.encode().splitlines() == [
        orjson.dumps(redacted(orjson.loads(line))),
        b"not json",
    ]


def test_redact_of_an_unreadable_input_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["redact", str(tmp_path / "missing.jsonl"), "-o", str(out)])
    assert result.exit_code == 2
    assert "no such file" in result.output
    assert list(tmp_path.iterdir()) == []


def test_redact_transcript_pieces_of_an_overlong_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("acptrace.record.rewrite.MAX_LINE_BYTES", 64)
    data = b'{"x": "' + b"a" * 100 + b' password=hunter2 "}\n{"token": "t"}\n'
    sink = io.BytesIO()
    stats = redact_transcript(io.BytesIO(data), sink, POLICY)
    assert b"hunter2" not in sink.getvalue()
    assert sink.getvalue().endswith(b'{"token":"[REDACTED]"}\n')
    assert (stats.lines, stats.redactions) == (2, 2)


# -- every shape and rule of docs/redaction.md -------------------------------------------------

DOC = Path(__file__).resolve().parents[1] / "docs" / "redaction.md"
FAKE = "AbCdEfGh0123456789IjKlMnOpQrStUvWxYz01"
"""Letters and digits to build tokens from (built here, so no file holds a whole token)."""

SHAPE_CASES: dict[str, tuple[str, str]] = {
    "private-key": (
        "key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY----- ok",
        f"key: {REDACTED} ok",
    ),
    "url-credentials": (
        "DATABASE_URL=https://admin:pass@db:5432/prod, redis://:s3cret@cache ftp://a:p@ss@h/",
        f"DATABASE_URL=https://admin:{REDACTED}@db:5432/prod, redis://:{REDACTED}@cache "
        f"ftp://a:{REDACTED}@h/",
    ),
    "bearer": (
        "send bearer ab1 or Bearer xY, not the bearer of news",
        f"send bearer {REDACTED} or Bearer {REDACTED}, not the bearer of news",
    ),
    "authorization": (
        "set Authorization: Bearer abc and authorization=xyz;",
        f"set Authorization: {REDACTED} and authorization={REDACTED};",
    ),
    "basic": (
        "Basic dXNlcjpwYXNz, a Basic idea",
        f"Basic {REDACTED}, a Basic idea",
    ),
    "jwt": (
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl here",
        f"token {REDACTED} here",
    ),
    "openai-anthropic": ("use sk-ant-api03-" + FAKE, f"use {REDACTED}"),
    "stripe-secret": ("sk_live_" + FAKE[:24] + " sk_test_" + FAKE[:12], f"{REDACTED} {REDACTED}"),
    "stripe-restricted": ("rk_live_" + FAKE[:24], REDACTED),
    "webhook-secret": ("signing with whsec_" + FAKE[:32] + ".", f"signing with {REDACTED}."),
    **{f"github-gh{k}": (f"gh{k}_" + FAKE[:36], REDACTED) for k in "pousr"},
    "github-pat": ("github_pat_" + FAKE + "_" + FAKE, REDACTED),
    "gitlab": ("glpat-" + FAKE[:20], REDACTED),
    "gitlab-other": (
        "runner glrt-" + FAKE[:20] + " deploy gldt-" + FAKE[:24],
        f"runner {REDACTED} deploy {REDACTED}",
    ),
    "slack": ("xoxb-1234567890-" + FAKE[:12], REDACTED),
    "slack-app": ("xapp-1-A0123456789-1234567890123-" + FAKE[:30].lower(), REDACTED),
    "slack-webhook": (
        "POST https://hooks.slack.com/services/T0123ABCD/B0123ABCD/" + FAKE[:24] + " ok",
        f"POST https://hooks.slack.com/services/{REDACTED} ok",
    ),
    "discord-webhook": (
        "https://discord.com/api/webhooks/1234567890123456789/" + FAKE + "-x",
        f"https://discord.com/api/webhooks/1234567890123456789/{REDACTED}",
    ),
    "aws-access-key": ("id AKIA" + FAKE.upper()[:16], f"id {REDACTED}"),
    "aws-temporary-key": ("id ASIA" + FAKE.upper()[:16] + ".", f"id {REDACTED}."),
    "google-api-key": ("AIza" + FAKE[:35], REDACTED),
    "google-oauth-secret": ("secret GOCSPX-" + FAKE[:28], f"secret {REDACTED}"),
    "google-oauth-token": ("ya29." + FAKE + FAKE, REDACTED),
    "azure-storage-key": (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + FAKE + FAKE + "==;x=1",
        f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={REDACTED};x=1",
    ),
    "npm": ("//registry/:_authToken=npm_" + FAKE[:36], f"//registry/:_authToken={REDACTED}"),
    "pypi": ("pypi-AgEIcHlwaS5vcmc" + FAKE, REDACTED),
    "huggingface": ("HF hf_" + FAKE[:34], f"HF {REDACTED}"),
    "xai": ("key xai-" + FAKE + FAKE, f"key {REDACTED}"),
    "groq": ("gsk_" + FAKE + FAKE[:14], REDACTED),
    "perplexity": ("pplx-" + FAKE + FAKE[:10], REDACTED),
    "replicate": ("r8_" + FAKE[:37], REDACTED),
    "shopify": ("shpat_" + "0123456789abcdef" * 2, REDACTED),
    "digitalocean": ("dop_v1_" + "0123456789abcdef" * 4, REDACTED),
    "vault": ("VAULT hvs." + FAKE + FAKE, f"VAULT {REDACTED}"),
    "sendgrid": ("SG." + FAKE[:22] + "." + FAKE, REDACTED),
    "linear": ("lin_api_" + FAKE, REDACTED),
    "databricks": ("dapi" + "0123456789abcdef" * 2, REDACTED),
    "docker-hub": ("dckr_pat_" + FAKE[:27], REDACTED),
    "age": ("AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58], REDACTED),
    "netrc": (
        "machine h login bob password S3cr3t-pw\nmachine g\n  login al\n  password Pa55word",
        f"machine h login bob password {REDACTED}\nmachine g\n  login al\n  password {REDACTED}",
    ),
    "telegram-bot": ("bot 1234567890:AA" + FAKE[:33] + " up", f"bot {REDACTED} up"),
}
"""Each token shape: a prompt text holding it, and the text redacted."""

SERVER = {"type": "http", "name": "db", "url": "https://u:pw@mcp.example/x"}


def chunk(text: str) -> dict[str, Any]:
    """A streamed chunk of an Agent's message, as Zed's dump holds it."""
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    return {"_direction": "incoming", "_type": "notification", "method": "session/update",
            "params": {"sessionId": "s", "update": update}}  # fmt: skip


RULE_CASES: dict[str, tuple[dict[str, Any], Any, Any]] = {
    "secret-names": (
        {},
        {"db": {"secret_key": "k", "count": 3}},
        {"db": {"secret_key": REDACTED, "count": 3}},
    ),
    "name-value-pairs": (
        {},
        {"env": [{"name": "DB_PWD", "value": "p"}, {"name": "HOME", "value": "/h"}]},
        {"env": [{"name": "DB_PWD", "value": REDACTED}, {"name": "HOME", "value": "/h"}]},
    ),
    "mcp-server-env-headers": (
        {},
        {"mcpServers": [{**SERVER, "headers": [{"name": "X-Tenant", "value": "t"}]}]},
        {
            "mcpServers": [
                {
                    **SERVER,
                    "url": f"https://u:{REDACTED}@mcp.example/x",
                    "headers": [{"name": "X-Tenant", "value": REDACTED}],
                }
            ]
        },
    ),
    "mcp-server-args": (
        {},
        {"mcpServers": [{"name": "s", "command": "c", "args": ["--api-key", "k", "--v"]}]},
        {"mcpServers": [{"name": "s", "command": "c", "args": ["--api-key", REDACTED, "--v"]}]},
    ),
    "credential-params": (
        {},
        rpc("authenticate", {"methodId": "m", "code": "c"}),
        rpc("authenticate", {"methodId": "m", "code": REDACTED}),
    ),
    "name=value": (
        {},
        {"text": "GET /x?api_key=abc&page=2&access_token=t0k&token=q#top; if token == 1"},
        {
            "text": f"GET /x?api_key={REDACTED}&page=2&access_token={REDACTED}&token={REDACTED}"
            "#top; if token == 1"
        },
    ),
    "url-signing": (
        {},
        {"uri": "https://acct.blob.example/c/f?sv=2022&sig=S1gn%2B&se=2025", "key": "k"},
        {"uri": f"https://acct.blob.example/c/f?sv=2022&sig={REDACTED}&se=2025", "key": "k"},
    ),
    "name: value": (
        {},
        {"dir": "stderr", "text": 'password: hunter2, {"apiKey": "k", oops'},
        {"dir": "stderr", "text": f'password: {REDACTED}, {{"apiKey": "{REDACTED}", oops'},
    ),
    "lines": (
        {},
        {"content": "[pypi]\nusername = __token__\npassword = S3cr3t-Pypi\nToken: the limit\n"},
        {"content": f"[pypi]\nusername = __token__\npassword = {REDACTED}\nToken: the limit\n"},
    ),
    "flags": (
        {},
        {"command": "gh auth login --with-token t0k3n && curl -u bob:pw1 -u 1000:1000 x"},
        {
            "command": f"gh auth login --with-token {REDACTED} && "
            f"curl -u bob:{REDACTED} -u 1000:1000 x"
        },
    ),
    "json-in-strings": (
        {},
        {"raw": '{"params": {"url": "postgres://a:b@h/db", "token": "t"}}'},
        {"raw": f'{{"params":{{"url":"postgres://a:{REDACTED}@h/db","token":"{REDACTED}"}}}}'},
    ),
    "zero-width": (
        {},
        {"text": "ghp_\u200b" + FAKE[:36], "api\u200bKey": "k"},
        {"text": REDACTED, "api\u200bKey": REDACTED},
    ),
    "argv": (
        {},
        {"dir": "meta", "event": "open", "argv": ["agent", "--token", "t", "https://a:b@h"]},
        {
            "dir": "meta",
            "event": "open",
            "argv": ["agent", "--token", REDACTED, f"https://a:{REDACTED}@h"],
        },
    ),
    "streamed-chunks": (
        {},
        [chunk("key: gh"), chunk("p_" + FAKE[:20]), chunk(FAKE[20:36] + " ok")],
        [chunk(f"key: {REDACTED}"), chunk(REDACTED), chunk(f"{REDACTED} ok")],
    ),
    "placeholders": (
        {},
        {
            "env": "OPENAI_API_KEY=${OPENAI_API_KEY}",
            "token": "{{ secrets.TOKEN }}",
            "pwd": "****",
            "text": "(such as `--openai-api-key=sk-…`). Or --api-key=sk-proj-" + "Ab1" * 8 + "…",
        },
        {
            "env": "OPENAI_API_KEY=${OPENAI_API_KEY}",
            "token": "{{ secrets.TOKEN }}",
            "pwd": "****",
            "text": f"(such as `--openai-api-key=sk-…`). Or --api-key={REDACTED}…",
        },
    ),
    "versions": (
        {},
        {
            "content": '{\n  "dependencies": {\n    "jsonwebtoken": "^8.5.1",\n'
            '    "next-auth": ">=4.24 <5 || 5.0.0-beta.4"\n  },\n  "token": "8a5f1c"\n}\n',
            "toml": 'oauth-token = "1.2"\nsecret = "1.2.3.4.5"\n',
            "command": "pip install --token ~=3.1 --password v2.x",
        },
        {
            "content": '{\n  "dependencies": {\n    "jsonwebtoken": "^8.5.1",\n'
            f'    "next-auth": ">=4.24 <5 || 5.0.0-beta.4"\n  }},\n  "token": "{REDACTED}"\n}}\n',
            "toml": f'oauth-token = "1.2"\nsecret = "{REDACTED}"\n',
            "command": "pip install --token ~=3.1 --password v2.x",
        },
    ),
    "user-keys": ({"keys": ["tenant"]}, {"Tenant": "acme"}, {"Tenant": REDACTED}),
    "user-patterns": (
        {"patterns": [r"INC-(\d+)"]},
        {"note": "INC-42"},
        {"note": f"INC-{REDACTED}"},
    ),
}
"""Each rule: the policy's extra keys/patterns, a value, and the value redacted."""


def doc_table(heading: str) -> list[str]:
    """The first column (a `name`) of the table under this heading of docs/redaction.md."""
    section = DOC.read_text().split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [row.split("`")[1] for row in rows]


def test_the_docs_list_every_shape_rule_and_name_in_the_codes_order() -> None:
    assert doc_table("Token shapes") == [shape.name for shape in SHAPES]
    assert doc_table("Rules") == list(RULES)
    assert doc_table("Secret-like names") == list(SECRET_SUFFIXES)
    assert list(SHAPE_CASES) == [shape.name for shape in SHAPES]  # a case for every shape
    assert list(RULE_CASES) == list(RULES)  # and for every rule


@pytest.mark.parametrize(("text", "expected"), SHAPE_CASES.values(), ids=list(SHAPE_CASES))
def test_every_token_shape_is_redacted_in_any_string(text: str, expected: str) -> None:
    message = rpc("session/prompt", {"prompt": [{"type": "text", "text": text}]})
    assert redacted(message)["params"]["prompt"][0]["text"] == expected
    assert redact_text(text, POLICY)[0] == expected  # free text (raw lines, stderr) too


@pytest.mark.parametrize(("extra", "value", "expected"), RULE_CASES.values(), ids=list(RULE_CASES))
def test_every_rule_is_applied(extra: dict[str, Any], value: Any, expected: Any) -> None:
    assert redact_document(value, RedactionPolicy.build(**extra))[0] == expected


@pytest.mark.parametrize("suffix", SECRET_SUFFIXES)
def test_every_secret_like_name_is_redacted(suffix: str) -> None:
    for name in (suffix, f"my_{suffix}", f"X-My-{suffix.capitalize()}"):
        assert redacted({"result": {name: "v4lue", "n": name}}) == {
            "result": {name: REDACTED, "n": name}
        }, name


def test_redact_marks_the_transcript_it_redacted(tmp_path: Path) -> None:
    opened = {"ts": "2026-12-02T10:00:00Z", "mono_ns": 1, "dir": "meta", "event": "open",
              "argv": ["agent"], "redacted": False}  # fmt: skip
    clean = {"ts": "2026-12-02T10:00:01Z", "mono_ns": 2, "dir": "c2a", "msg": {"id": 1}}
    source = tmp_path / "plain.jsonl"
    source.write_bytes(orjson.dumps(opened) + b"\n" + orjson.dumps(clean) + b"\n")
    result = runner.invoke(app, ["redact", str(source)])
    assert result.exit_code == 0, result.output
    first, second = map(orjson.loads, result.stdout.encode().splitlines())
    assert first == {**opened, "redacted": True}
    assert second == clean
    # the summary is true: nothing replaced, yet line 1 rewritten (issue #24.7)
    assert result.stderr == (
        "acptrace: 0 values redacted in 0 of 2 lines;"
        ' the open record rewritten to say "redacted": true\n'
    )


def test_redact_keeps_a_package_version_and_counts_in_the_singular(tmp_path: Path) -> None:
    """Issue #37.12: `"jsonwebtoken": "^8.5.1"` in a package.json an Agent read ends in a
    secret-like word yet holds a version, not a secret; one value is `1 value`."""
    package = '{\n  "dependencies": {\n    "jsonwebtoken": "^8.5.1"\n  },\n  "token": "t0k3n"\n}\n'
    line = {"ts": "2026-12-02T10:00:00Z", "mono_ns": 1, "dir": "c2a",
            "msg": {"jsonrpc": "2.0", "id": 1, "result": {"content": package}}}  # fmt: skip
    source = tmp_path / "read.jsonl"
    source.write_bytes(orjson.dumps(line) + b"\n")
    result = runner.invoke(app, ["redact", str(source)])
    assert result.exit_code == 0, result.output
    content = orjson.loads(result.stdout)["msg"]["result"]["content"]
    assert content == package.replace("t0k3n", REDACTED)
    assert result.stderr == "acptrace: 1 value redacted in 1 of 1 line\n"


@pytest.mark.shared
def test_real_recordings_hold_no_secret_so_nothing_in_them_is_redacted() -> None:
    """The recordings of ../shared/real-world hold no secret (those made by acptrace were
    redacted when recorded): a value redacted there is a look-alike taken for a secret, as
    `"jsonwebtoken": "^8.5.1"` (acp-inspector's demo session) and qwen-code's instructions
    `--openai-api-key=sk-…` were."""
    files = sorted(p for p in REAL_WORLD.rglob("*") if p.suffix in (".jsonl", ".json"))
    assert len(files) > 50
    for path in files:
        with path.open("rb") as source:
            stats = redact_transcript(source, io.BytesIO(), POLICY)
        assert stats.redactions == 0, path


def test_redact_of_a_redacted_transcript_rewrites_nothing_and_says_so_plainly(
    tmp_path: Path,
) -> None:
    opened = {"ts": "2026-12-02T10:00:00Z", "mono_ns": 1, "dir": "meta", "event": "open",
              "argv": ["agent"], "redacted": True}  # fmt: skip
    source = tmp_path / "redacted.jsonl"
    source.write_bytes(orjson.dumps(opened) + b"\n")
    result = runner.invoke(app, ["redact", str(source)])
    assert result.stdout.encode() == source.read_bytes()
    assert result.stderr == "acptrace: 0 values redacted in 0 of 1 line\n"


@pytest.mark.parametrize("depth", [250, 255, 488, 1000, 1025, 100_000])
def test_redact_handles_any_depth(tmp_path: Path, depth: int) -> None:
    deep = b"[" * depth + b'{"token":"S3CR3T"}' + b"]" * depth
    source = tmp_path / "deep.jsonl"
    source.write_bytes(deep + b"\n" + deep)
    result = runner.invoke(app, ["redact", str(source)])
    assert result.exit_code == 0, result.output
    out = result.stdout.encode()
    assert MARK not in out
    assert out.count(b"\n") == 1
    assert out.startswith(b"[" * depth + b'{"token":')
    assert "2 values redacted in 2 of 2 lines" in result.stderr


def test_secrets_in_every_place_a_recording_writes_are_redacted() -> None:
    url = "postgres://admin:S3CR3T@db:5432/prod"
    items = [
        Captured(Stream.C2A, Line(orjson.dumps(rpc("x", {"DATABASE_URL": url}))), 1, 1),
        Captured(Stream.A2C, Line(f"not json {url} api_key=S3CR3T".encode()), 2, 2),
        Captured(Stream.STDERR, Line(f"connecting to {url}".encode()), 3, 3),
        Captured(Stream.STDERR, Line(b"\xff Authorization: Bearer S3CR3T"), 4, 4),
        Captured(Stream.C2A, Line(b"[" * 300 + f'"{url}"'.encode() + b"]" * 300), 5, 5),
    ]
    written = b"".join(encode(item, POLICY) for item in items)
    assert written.count(REDACTED.encode()) == 5  # the base64 one is counted below
    assert MARK not in written
    assert MARK not in base64.b64decode(orjson.loads(written.splitlines()[3])["text"])


def test_names_that_end_in_token_but_name_no_secret_are_kept() -> None:
    """MCP's `progressToken` (as a conductor trace carries a `tools/call` through ACP proxies)
    and paging tokens end in `token` yet hold nothing secret; a real token beside them goes."""
    call = rpc(
        "tools/call",
        {"_meta": {"progressToken": 0}, "name": "echo", "nextPageToken": "p2", "token": "t0p"},
    )
    assert redacted(call)["params"] == {
        "_meta": {"progressToken": 0},
        "name": "echo",
        "nextPageToken": "p2",
        "token": REDACTED,
    }
    asked = RedactionPolicy.build(keys=["progressToken"])
    assert redacted(call, asked)["params"]["_meta"] == {"progressToken": REDACTED}


# -- what real traffic carries (issue #39.1) -------------------------------------------------

PGP = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBGV\n=Ab3x\n-----END PGP PRIVATE KEY BLOCK-----"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (  # a file read through fs/read_text_file ends in a newline
            {"content": '{"apiKey": "k1",\n "port": 1}\n'},
            {"content": f'{{\n  "apiKey": "{REDACTED}",\n  "port": 1\n}}\n'},
        ),
        ({"command": "run --api-key=abc123 now"}, {"command": f"run --api-key={REDACTED} now"}),
        ({"text": 'export DB_PASSWORD="a b c"'}, {"text": f'export DB_PASSWORD="{REDACTED}"'}),
        ({"text": "MY_SECRET='x y'"}, {"text": f"MY_SECRET='{REDACTED}'"}),
        (
            {"text": "//npm.pkg.github.com/:_authToken=0a1b-2c3d\n"},
            {"text": f"//npm.pkg.github.com/:_authToken={REDACTED}\n"},
        ),
        ({"text": f"key:\n{PGP}\n"}, {"text": f"key:\n{REDACTED}\n"}),
        (  # cut before its END line (a file read in part)
            {"content": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA"},
            {"content": REDACTED},
        ),
        (
            {"dir": "stderr", "text": "cfg {'api_key': 'abc', 'password': 'p w', 'n': 3}"},
            {
                "dir": "stderr",
                "text": f"cfg {{'api_key': '{REDACTED}', 'password': '{REDACTED}', 'n': 3}}",
            },
        ),
        (  # YAML, INI and curl's headers: `name: value` / `name = value` starting a line
            {"output": "db:\n  password: S3cret!\n[smtp]\nsmtp_password = Hunter22\n"},
            {"output": f"db:\n  password: {REDACTED}\n[smtp]\nsmtp_password = {REDACTED}\n"},
        ),
        (
            {"output": "> X-Api-Key: abc123XYZ\n< set-cookie: sid=9f8e7d; Path=/\n"},
            {"output": f"> X-Api-Key: {REDACTED}\n< set-cookie: {REDACTED}; Path=/\n"},
        ),
        (  # the names of issue #39
            {"text": "SECRET_KEY_BASE=ab12\nAPP_KEY=base64:cd34=\nENCRYPTION_KEY=ef56\n"},
            {
                "text": f"SECRET_KEY_BASE={REDACTED}\nAPP_KEY={REDACTED}\n"
                f"ENCRYPTION_KEY={REDACTED}\n"
            },
        ),
        (
            {"client-key-data": "LS0tLS1C", "client-certificate-data": "LS0tLS1D"},
            {"client-key-data": REDACTED, "client-certificate-data": "LS0tLS1D"},
        ),
        (
            {"OPENAI_KEY": "k", "STRIPE_PUBLISHABLE_KEY": "pk", "primaryKey": "id"},
            {"OPENAI_KEY": REDACTED, "STRIPE_PUBLISHABLE_KEY": "pk", "primaryKey": "id"},
        ),
        (  # terminal/create's args: a flag's value and curl's user:password
            {"args": ["-u", "bob:pw1", "--token", "t0k", "-u", "1000:1000"]},
            {"args": ["-u", f"bob:{REDACTED}", "--token", REDACTED, "-u", "1000:1000"]},
        ),
    ],
)
def test_secrets_where_real_traffic_carries_them(value: Any, expected: Any) -> None:
    assert redacted(value) == expected


def test_prose_and_look_alikes_at_the_start_of_a_line_stay() -> None:
    text = "Token: the limit\npassword: see below\nkey: value\ncommit 3f2a9c1\n"
    assert redacted({"output": text}) == {"output": text}


def test_a_zed_dump_pasted_twice_keeps_every_structural_rule(tmp_path: Path) -> None:
    servers = [{"name": "s", "command": "c", "env": [{"name": "X_TENANT", "value": "S3CR3T-1"}]}]
    zed = [
        {"_direction": "outgoing", "_type": "request", "id": 1, "method": "session/new",
         "params": {"cwd": "/p", "mcpServers": servers}},
        {"_direction": "outgoing", "_type": "request", "id": 2, "method": "authenticate",
         "params": {"methodId": "m", "pin": "S3CR3T-2"}},
        chunk("use gh"), chunk("p_S3CR3T" + FAKE[:30]), chunk(" now"),
    ]  # fmt: skip
    dump = orjson.dumps(zed, option=orjson.OPT_INDENT_2)
    source = tmp_path / "zed.json"
    source.write_bytes(dump + b"\n" + dump + b"\n")
    result = runner.invoke(app, ["redact", str(source)])
    assert result.exit_code == 0, result.output
    assert MARK not in result.stdout.encode()
    first, second = _documents(result.stdout.encode())
    assert first[2] == second[2]
    assert first[0]["params"]["mcpServers"][0]["env"][0] == {"name": "X_TENANT", "value": REDACTED}
    assert first[1]["params"] == {"methodId": "m", "pin": REDACTED}


def _documents(data: bytes) -> list[Any]:
    decoder = json.JSONDecoder()
    text, at, out = data.decode(), 0, []
    while text[at:].strip():
        value, at = decoder.raw_decode(text, len(text) - len(text[at:].lstrip()))
        out.append(value)
    return out


def test_chunks_of_a_streamed_message_are_redacted_together_line_by_line() -> None:
    """`acptrace redact` of a canonical transcript: each chunk keeps its place, the secret its
    chunks hold is replaced in each; a line between them from another direction does not end
    the message."""
    pieces = ["the key is sk-ant-", "api03-", FAKE[:12], FAKE[12:30], ". Rotate it."]
    records = [
        {"dir": "a2c", "msg": rpc("session/update", {"sessionId": "s", "update": {
            "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": p}}})}
        for p in pieces
    ]  # fmt: skip
    records.insert(2, {"dir": "stderr", "text": "log line"})
    source = b"".join(orjson.dumps(record) + b"\n" for record in records)
    sink = io.BytesIO()
    redact_transcript(io.BytesIO(source), sink, POLICY)
    lines = [orjson.loads(line) for line in sink.getvalue().splitlines()]
    assert lines[2] == {"dir": "stderr", "text": "log line"}
    texts = [r["msg"]["params"]["update"]["content"]["text"] for r in lines if "msg" in r]
    assert texts == ["the key is [REDACTED]", REDACTED, REDACTED, REDACTED, ". Rotate it."]
