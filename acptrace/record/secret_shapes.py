"""What redaction looks for: secret-like names and the token shapes found in any string.

Declared as data, in the order they are applied; docs/redaction.md lists every entry (a test
keeps the two in step) and tests/test_redact.py has a case for each.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

SECRET_SUFFIXES = (
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "apikey",
    "apikeys",
    "accesskey",
    "secretkey",
    "privatekey",
    "sshkey",
    "credential",
    "credentials",
    "authorization",
    "auth",
    "cookie",
    "signature",
)
"""A member, header, variable or `name=` whose name (normalised: lower case without `-`, `_`,
`.`, spaces and zero-width characters) ends in one of these holds a secret."""

NOT_SECRET_NAMES = frozenset(
    {
        "progresstoken",
        "pagetoken",
        "nextpagetoken",
        "nexttoken",
        "continuationtoken",
        "cancellationtoken",
    }
)
"""Normalised names that end in a secret-like suffix yet name no secret: MCP's `progressToken`
(a number or string the Client picks to match progress notifications, carried through ACP
proxies), and the pagination and cancellation tokens of common APIs, which an analyst reads."""

URL_SIGNING_NAMES = frozenset(
    {
        "sig",
        "signature",
        "x-amz-signature",
        "x-amz-credential",
        "x-amz-security-token",
        "x-goog-signature",
        "x-goog-credential",
        "token",
        "access_token",
        "code",
        "key",
    }
)
"""URL parameters that sign or carry a credential (in lower case): their value is replaced in
`?name=`, `&name=`, `#name=` and `;name=` (`?sv=2022&sig=…&se=2025`). `sig`, `code` and `key`
are too common as member names to be secret-like names everywhere."""

DESCRIPTIVE_NAMES = frozenset(
    {
        "id",
        "name",
        "type",
        "kind",
        "provider",
        "description",
        "title",
        "label",
        "scheme",
        "in",
        "format",
        "envvar",
        "url",
        "docsurl",
        "link",
    }
)
"""Members (normalised names) that describe a secret rather than hold it: under a member with a
secret-like name (`"api-key": {"provider": "google"}`), these are walked as usual, every
other string or number is replaced."""

CREDENTIAL_METHODS = ("authenticate", "providers/set")
"""Methods (besides `auth/*`) whose params carry credentials."""

CREDENTIAL_IDENTIFIERS = frozenset({"methodid", "providerid", "apitype", "baseurl", "sessionid"})
"""Members of credential-bearing params that name things and are kept."""

ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
"""Invisible characters that can split a secret so no pattern sees it: a string holding one is
also searched without them (and, if something is found, written without them)."""

_CREDENTIAL_SYMBOLS = frozenset("0123456789._~+/=-")


def looks_like_credential(token: str) -> bool:
    """A word after `Bearer`/`Basic` that is a credential, not prose (`bearer of`, `Basic
    idea`): a digit or symbol, a capital after the first letter, or 16 characters or more."""
    return (
        len(token) >= 16
        or any(c in _CREDENTIAL_SYMBOLS for c in token)
        or any(c.isupper() for c in token[1:])
    )


@dataclass(frozen=True, slots=True)
class Shape:
    """A secret recognisable by its form, wherever it appears in a string."""

    name: str
    """Its name in docs/redaction.md."""
    starts: tuple[str, ...]
    """Literals one of which any match contains (a fast check before the regex runs)."""
    pattern: re.Pattern[str]
    """What it looks like; with a group, only the group is replaced."""
    check: Callable[[str], bool] | None = None
    """A further test of the replaced text (the group, or the match)."""


def _shape(
    name: str,
    starts: str | tuple[str, ...],
    pattern: str,
    check: Callable[[str], bool] | None = None,
) -> Shape:
    return Shape(name, (starts,) if isinstance(starts, str) else starts, re.compile(pattern), check)


_TOKEN = r"[A-Za-z0-9._~+/-]*[A-Za-z0-9_~+/-]=*"
_SCHEMES = r"(?:Bearer|bearer|BEARER|Basic|basic|Token|token|Digest|Negotiate)"

SHAPES = (
    _shape(
        "url-credentials",
        "://",
        r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:\"'<>]*:([^\s/?#\"'<>]*[^\s/?#\"'<>@])@",
    ),
    _shape(
        "bearer",
        ("earer", "EARER"),
        rf"(?<![\w-])(?:Bearer|bearer|BEARER)\s+({_TOKEN})",
        looks_like_credential,
    ),
    _shape(
        "authorization",
        ("uthorization", "UTHORIZATION"),
        rf"(?i:authorization)[\"']?\s*[:=]\s*[\"']?((?:{_SCHEMES}\s+)?[^\s\"',;]+)",
    ),
    _shape("basic", "asic", rf"(?<![\w-])(?:Basic|basic)\s+({_TOKEN})", looks_like_credential),
    _shape("jwt", "eyJ", r"eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"),
    _shape("openai-anthropic", "sk-", r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"),
    _shape("stripe-secret", ("sk_live_", "sk_test_"), r"sk_(?:live|test)_[A-Za-z0-9]{10,}"),
    _shape("stripe-restricted", ("rk_live_", "rk_test_"), r"rk_(?:live|test)_[A-Za-z0-9]{10,}"),
    *(
        _shape(f"github-gh{kind}", f"gh{kind}_", rf"gh{kind}_[A-Za-z0-9]{{30,}}")
        for kind in "pousr"
    ),
    _shape("github-pat", "github_pat_", r"github_pat_[A-Za-z0-9_]{30,}"),
    _shape("gitlab", "glpat-", r"glpat-[A-Za-z0-9_-]{20,}"),
    _shape("slack", "xox", r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    _shape("aws-access-key", "AKIA", r"AKIA[0-9A-Z]{16}"),
    _shape("aws-temporary-key", "ASIA", r"ASIA[0-9A-Z]{16}"),
    _shape("google-api-key", "AIza", r"AIza[0-9A-Za-z_-]{35}"),
    _shape("npm", "npm_", r"npm_[A-Za-z0-9]{30,}"),
    _shape("huggingface", "hf_", r"hf_[A-Za-z0-9]{30,}"),
    _shape(
        "private-key",
        "-----BEGIN",
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    ),
)
"""Token shapes redacted by default, applied in this order, each where it does not start
inside a word."""

RULES = (
    "secret-names",
    "name-value-pairs",
    "mcp-server-env-headers",
    "mcp-server-args",
    "credential-params",
    "name=value",
    "url-signing",
    "name: value",
    "json-in-strings",
    "zero-width",
    "argv",
    "user-keys",
    "user-patterns",
)
"""The rules besides the shapes, by their names in docs/redaction.md (see `redact`)."""
