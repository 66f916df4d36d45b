"""What redaction looks for: secret-like names and the token shapes found in any string.

Declared as data, in the order they are applied; docs/redaction.md lists every entry (a test
keeps the two in step) and tests/test_redact.py has a case for each.

The shapes follow the token formats that the maintained secret scanners (gitleaks' rule set,
detect-secrets' plugins) document, written here as patterns that stay linear in Python's
`re`: each shape is tried only where one of its keywords is (one search of the whole string
for all of them, as gitleaks' keyword prefilter), each match starts at that keyword (or a
few characters before it), and every repeat in a pattern is either bounded or possessive
over a class that cannot run into the next keyword's match. tests/test_redact_speed.py
times the worst inputs for each.
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
    "secretkeybase",
    "appkey",
    "encryptionkey",
    "signingkey",
    "masterkey",
    "hmackey",
    "accountkey",
    "clientkeydata",
)
"""A member, header, variable or `name=` whose name (normalised: lower case without `-`, `_`,
`.`, spaces and zero-width characters) ends in one of these holds a secret."""

ENV_KEY_NAME = re.compile(r"[A-Z][A-Z0-9_]*_KEY")
"""An environment variable's name (capitals, `_`) that ends in `_KEY` holds a secret too
(`OPENAI_KEY`, `STRIPE_KEY`), unless `PUBLIC_NAMES` says it is public."""

PUBLIC_NAMES = ("publickey", "publishablekey", "pubkey")
"""Normalised name endings of keys that are public (`STRIPE_PUBLISHABLE_KEY`)."""

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

USER_FLAGS = frozenset({"-u", "--user", "--proxy-user"})
"""Command-line flags whose value is `name:password` (curl's): the password is replaced."""

ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
"""Invisible characters that can split a secret so no pattern sees it: a string holding one is
also searched without them (and, if something is found, written without them)."""

PLACEHOLDER = re.compile(
    r"\$\{?(?:[A-Z_][A-Z0-9_]{0,80}|[a-z_][a-z0-9_]{0,80})\}?"  # $VAR, ${VAR}
    r"|\{\{[^{}\n]{1,100}\}\}|\$\{\{[^{}\n]{1,100}\}\}"  # {{ var }}, ${{ secrets.X }}
    r"|%[A-Za-z_][A-Za-z0-9_]{0,80}%"  # %VAR%
    r"|<[^<>\n]{1,60}>"  # <your-token>
    r"|([*xX.•])\1{2,200}|…"  # ****, xxxx, ...
)
"""A value that stands for a secret without being one (a variable, a template, `<your-key>`,
`****`): kept by the name rules, so an analyst still sees where a secret goes."""

_VERSION = (
    r"(?:(?:[~^]|[<>!=~]=?|~>|===)[ \t]?v?\d{1,9}(?:\.(?:\d{1,9}|[xX*])){0,3}"  # ^8, >=1.2, ~=3.1
    r"|v?\d{1,9}(?:\.(?:\d{1,9}|[xX*])){1,3})"  # 8.5.1, v2.0, 1.x
    r"(?:-[0-9A-Za-z.-]{1,40})?(?:\+[0-9A-Za-z.-]{1,40})?"  # -beta.1, +build.5
)
_BETWEEN_VERSIONS = r"(?:[ \t]{0,4}\|\|[ \t]{0,4}|[ \t]{1,4}-[ \t]{1,4}|,[ \t]{0,4}|[ \t]{1,4})"
VERSION = re.compile(rf"{_VERSION}(?:{_BETWEEN_VERSIONS}{_VERSION}){{0,3}}", re.ASCII)
"""A package's version or version range (`^8.5.1`, `>=1.2 <2`, `~=3.1`, `1.x || 2.x`): what
`"jsonwebtoken": "^8.5.1"` in a `package.json`, or `oauth-token = "1.2"` in a Cargo.toml,
holds under a name that ends in a secret-like word. No credential looks like one."""


def kept_by_name_rules(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether the value `text[start:end]` is kept by the name rules although its name is
    secret-like: a placeholder, a version, or a value already cut short with `…` (docs that
    write `--openai-api-key=sk-…`; the token shapes still find a key's visible part)."""
    stop = len(text) if end is None else end
    return (
        PLACEHOLDER.fullmatch(text, start, stop) is not None
        or VERSION.fullmatch(text, start, stop) is not None
        or text.find("\u2026", start, stop) >= 0
    )


_CREDENTIAL_SYMBOLS = frozenset("0123456789._~+/=-!#$%&*@^")


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
    keywords: tuple[str, ...]
    """Literals (in lower case) one of which every match holds: the shape is tried only where
    one is found (compared in lower case)."""
    pattern: re.Pattern[str]
    """What it looks like, matched where a keyword starts (`offsets` before it); with a
    group, only the group is replaced."""
    check: Callable[[str], bool] | None = None
    """A further test of the replaced text (the group, or the match)."""
    offsets: tuple[int, ...] = (0,)
    """How many characters before its keyword a match may start (longest first)."""


def _shape(
    name: str,
    keywords: str | tuple[str, ...],
    pattern: str,
    check: Callable[[str], bool] | None = None,
    offsets: tuple[int, ...] = (0,),
) -> Shape:
    words = (keywords,) if isinstance(keywords, str) else keywords
    return Shape(name, words, re.compile(pattern, re.ASCII), check, offsets)


_TOKEN = r"[A-Za-z0-9._~+/-]{0,8192}[A-Za-z0-9_~+/-]=*+"
"""A credential after a scheme word: may not end in `.` (the end of a sentence)."""
_SCHEMES = r"(?:Bearer|bearer|BEARER|Basic|basic|Token|token|Digest|Negotiate)"
_END = r"(?![A-Za-z0-9])"

SHAPES = (
    _shape(
        "private-key",
        "-----begin",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[^-]*+(?:-(?!----)[^-]*+)*+"
        r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
    ),
    _shape(
        "url-credentials",
        "://",
        r"://[^\s/?#@:\"'<>]{0,256}+:([^\s/\"'<>]{0,512}[^\s/\"'<>@])@",
    ),
    _shape(
        "bearer",
        "bearer",
        rf"(?:Bearer|bearer|BEARER)\s{{1,16}}+({_TOKEN})",
        looks_like_credential,
    ),
    _shape(
        "authorization",
        "authorization",
        rf"(?i:authorization)[\"']?[ \t]{{0,16}}+[:=][ \t]{{0,16}}+[\"']?"
        rf"((?:{_SCHEMES}[ \t]{{1,16}}+)?[^\s\"',;]{{1,8192}}+)",
    ),
    _shape("basic", "basic", rf"(?:Basic|basic)\s{{1,16}}+({_TOKEN})", looks_like_credential),
    _shape(
        "jwt",
        "eyj",
        r"eyJ[A-Za-z0-9_-]{4,512}+\.eyJ[A-Za-z0-9_-]{4,16384}+\.[A-Za-z0-9_-]{0,4096}+",
    ),
    _shape("openai-anthropic", "sk-", r"sk-(?:ant-|proj-|svcacct-|admin-)?[\w-]{20,}+"),
    _shape("stripe-secret", ("sk_live_", "sk_test_"), r"sk_(?:live|test)_[A-Za-z0-9]{10,}+"),
    _shape("stripe-restricted", ("rk_live_", "rk_test_"), r"rk_(?:live|test)_[A-Za-z0-9]{10,}+"),
    _shape("webhook-secret", "whsec_", r"whsec_[A-Za-z0-9+/=]{20,}+"),
    *(
        _shape(f"github-gh{kind}", f"gh{kind}_", rf"gh{kind}_[A-Za-z0-9]{{30,}}+")
        for kind in "pousr"
    ),
    _shape("github-pat", "github_pat_", r"github_pat_[A-Za-z0-9_]{30,}+"),
    _shape("gitlab", "glpat-", r"glpat-[\w-]{20,}+"),
    _shape(
        "gitlab-other",
        ("glrt-", "gldt-", "glft-", "glsoat-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-"),
        r"gl(?:rt|dt|ft|soat|cbt|imt|ptt|agent|oas)-[\w-]{20,}+",
    ),
    _shape("slack", "xox", r"xox[abposre]-[A-Za-z0-9-]{10,}+"),
    _shape("slack-app", "xapp-", r"xapp-\d-[A-Za-z0-9-]{10,}+"),
    _shape(
        "slack-webhook",
        "hooks.slack.com/",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,}+)",
    ),
    _shape(
        "discord-webhook",
        ("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
        r"discord(?:app)?\.com/api/webhooks/\d{5,30}/([\w-]{20,}+)",
    ),
    _shape("aws-access-key", "akia", rf"AKIA[0-9A-Z]{{16}}{_END}"),
    _shape("aws-temporary-key", "asia", rf"ASIA[0-9A-Z]{{16}}{_END}"),
    _shape("google-api-key", "aiza", r"AIza[\w-]{35}"),
    _shape("google-oauth-secret", "gocspx-", r"GOCSPX-[\w-]{20,}+"),
    _shape("google-oauth-token", "ya29.", r"ya29\.[\w-]{20,}+"),
    _shape(
        "azure-storage-key",
        ("accountkey=", "sharedaccesskey="),
        r"(?i:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,200}+={0,2})",
    ),
    _shape("npm", "npm_", r"npm_[A-Za-z0-9]{30,}+"),
    _shape("pypi", "pypi-ageichlwas5vcmc", r"pypi-AgEIcHlwaS5vcmc[\w-]{20,}+"),
    _shape("huggingface", "hf_", r"hf_[A-Za-z0-9]{30,}+"),
    _shape("xai", "xai-", r"xai-[A-Za-z0-9]{20,}+"),
    _shape("groq", "gsk_", r"gsk_[A-Za-z0-9]{20,}+"),
    _shape("perplexity", "pplx-", r"pplx-[A-Za-z0-9]{20,}+"),
    _shape("replicate", "r8_", r"r8_[A-Za-z0-9]{20,}+"),
    _shape(
        "shopify", ("shpat_", "shpss_", "shpca_", "shppa_"), r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
    ),
    _shape("digitalocean", ("dop_v1_", "doo_v1_", "dor_v1_"), r"do[por]_v1_[a-f0-9]{64}"),
    _shape("vault", ("hvs.", "hvb."), r"hv[sb]\.[\w-]{20,}+"),
    _shape("sendgrid", "sg.", r"SG\.[\w-]{16,32}\.[\w-]{16,64}"),
    _shape("linear", "lin_api_", r"lin_api_[A-Za-z0-9]{30,}+"),
    _shape("databricks", "dapi", rf"dapi[a-f0-9]{{32}}(?:-\d)?{_END}"),
    _shape("docker-hub", "dckr_pat_", r"dckr_pat_[\w-]{20,}+"),
    _shape("age", "age-secret-key-1", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _shape(
        "netrc",
        "login",
        r"login[ \t\r\n]{1,16}+\S{1,256}+[ \t\r\n]{1,16}+password[ \t]{1,16}+(\S{1,1024}+)",
        looks_like_credential,
    ),
    _shape(
        "telegram-bot",
        ":aa",
        r"\d{8,10}:AA[\w-]{33}(?![\w-])",
        offsets=(10, 9, 8),
    ),
)
"""Token shapes redacted by default, applied in this order (a match that overlaps an earlier
one is left to it), each where it does not start inside a word."""

RULES = (
    "secret-names",
    "name-value-pairs",
    "mcp-server-env-headers",
    "mcp-server-args",
    "credential-params",
    "name=value",
    "url-signing",
    "name: value",
    "lines",
    "flags",
    "json-in-strings",
    "zero-width",
    "argv",
    "streamed-chunks",
    "placeholders",
    "versions",
    "user-keys",
    "user-patterns",
)
"""The rules besides the shapes, by their names in docs/redaction.md (see `redact`)."""
