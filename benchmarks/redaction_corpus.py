"""A planted corpus for redaction (issue #39): realistic secrets where ACP traffic carries them,
and look-alikes that must survive.

`build(seed)` returns the lines of one recording (each Client -> Agent, Agent -> Client or
stderr line as the peers would send it), the Agent's command line, and every plant: a secret
(`Plant.secret`) or a look-alike, with the place it sits in, the shape or name it has, and its
needle (the part that must go, or stay). Every token is built here from seeded random
characters, so no file holds a whole one.

Places follow what real traffic carries: `mcpServers` env, headers and args, `authenticate`,
`_meta`, files returned by `fs/read_text_file` (`.env`, `config.json`, `~/.aws/credentials`,
`.npmrc`, `.pypirc`, `.netrc`, kubeconfig, `id_rsa`, a GCP service account, a PGP key),
terminal output (`curl -v`, `git remote -v`, `printenv`, a deploy log holding tokens of
services only gitleaks' rules know), `terminal/create` args and env,
tool-call inputs, outputs and diffs, streamed message chunks (a secret split across them), error
messages, stderr, the prompt and the Agent's command line.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"


@dataclass(frozen=True, slots=True)
class Plant:
    """One planted value."""

    place: str
    """Where it sits (`mcp-env`, `file:.env`, `terminal:curl`, `chunks`, ...)."""
    kind: str
    """Its shape or the name that holds it (`github-ghp`, `name:SECRET_KEY_BASE`, ...)."""
    needle: str
    """What must be gone from the redacted transcript (a secret) or still in it (a look-alike)."""
    secret: bool
    """A secret (True) or a look-alike (False)."""


@dataclass(slots=True)
class Corpus:
    """The lines of a recording and what was planted in them."""

    lines: list[tuple[str, bytes]] = field(default_factory=list)
    """(`c2a` | `a2c` | `stderr`, the line without its newline), in order."""
    argv: list[str] = field(default_factory=list)
    """The Agent's command line (after the Agent's program)."""
    plants: list[Plant] = field(default_factory=list)
    """Every secret and look-alike."""

    @property
    def secrets(self) -> list[Plant]:
        return [plant for plant in self.plants if plant.secret]

    @property
    def lookalikes(self) -> list[Plant]:
        return [plant for plant in self.plants if not plant.secret]


class _Tokens:
    """Random tokens of every shape, from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def password(self) -> str:
        """A password a person picks: words, digits and a symbol."""
        words = ["river", "Orange", "tiger", "Castle", "maple", "Nova", "pixel", "Quartz"]
        return (
            self.rng.choice(words)
            + self.chars(string.digits, 3)
            + self.rng.choice("!#%*")
            + (self.rng.choice(words))
        )

    def pem_body(self, lines: int = 6) -> str:
        return "\n".join(self.chars(B64, 64) for _ in range(lines)) + "\n" + self.chars(B64, 40)

    def jwt(self) -> str:
        head = base64.urlsafe_b64encode(b'{"alg":"RS256","typ":"JWT"}').decode().rstrip("=")
        claims = '{"sub":"' + self.chars(LOWER_ALNUM, 12) + '","iat":1765000000}'
        body = base64.urlsafe_b64encode(claims.encode()).decode().rstrip("=")
        return f"{head}.{body}.{self.chars(URLSAFE, 43)}"


SHAPES: dict[str, Callable[[_Tokens], str]] = {
    "openai": lambda t: "sk-proj-" + t.chars(URLSAFE, 74) + "T3BlbkFJ" + t.chars(URLSAFE, 74),
    "anthropic": lambda t: "sk-ant-api03-" + t.chars(URLSAFE, 93) + "AA",
    "stripe-secret": lambda t: "sk_live_" + t.chars(ALNUM, 99),
    "stripe-restricted": lambda t: "rk_live_" + t.chars(ALNUM, 99),
    "github-ghp": lambda t: "ghp_" + t.chars(ALNUM, 36),
    "github-gho": lambda t: "gho_" + t.chars(ALNUM, 36),
    "github-ghs": lambda t: "ghs_" + t.chars(ALNUM, 36),
    "github-pat": lambda t: "github_pat_" + t.chars(ALNUM, 22) + "_" + t.chars(ALNUM, 59),
    "gitlab": lambda t: "glpat-" + t.chars(URLSAFE, 20),
    "slack": lambda t: (
        f"xoxb-{t.chars(string.digits, 12)}-{t.chars(string.digits, 13)}-" + t.chars(ALNUM, 24)
    ),
    "aws-access-key": lambda t: "AKIA" + t.chars(string.ascii_uppercase + "234567", 16),
    "google-api-key": lambda t: "AIza" + t.chars(URLSAFE, 35),
    "npm": lambda t: "npm_" + t.chars(ALNUM, 36),
    "huggingface": lambda t: "hf_" + t.chars(ALNUM, 34),
    "jwt": lambda t: t.jwt(),
    "xai": lambda t: "xai-" + t.chars(ALNUM, 80),
    "groq": lambda t: "gsk_" + t.chars(ALNUM, 52),
    "perplexity": lambda t: "pplx-" + t.chars(ALNUM, 48),
    "replicate": lambda t: "r8_" + t.chars(ALNUM, 37),
    "slack-app": lambda t: (
        f"xapp-1-A{t.chars(string.digits + string.ascii_uppercase, 10)}-"
        + t.chars(string.digits, 13)
        + "-"
        + t.chars(HEX, 64)
    ),
    "slack-webhook": lambda t: (
        "https://hooks.slack.com/services/T"
        + t.chars(string.ascii_uppercase + string.digits, 10)
        + "/B"
        + t.chars(string.ascii_uppercase + string.digits, 10)
        + "/"
        + t.chars(ALNUM, 24)
    ),
    "discord-webhook": lambda t: (
        "https://discord.com/api/webhooks/"
        + t.chars(string.digits, 19)
        + "/"
        + t.chars(URLSAFE, 68)
    ),
    "shopify": lambda t: "shpat_" + t.chars(HEX, 32),
    "digitalocean": lambda t: "dop_v1_" + t.chars(HEX, 64),
    "vault": lambda t: "hvs." + t.chars(URLSAFE, 90),
    "webhook-secret": lambda t: "whsec_" + t.chars(ALNUM, 32),
    "google-oauth-secret": lambda t: "GOCSPX-" + t.chars(URLSAFE, 28),
    "google-oauth-token": lambda t: "ya29." + t.chars(URLSAFE, 150),
    "gitlab-runner": lambda t: "glrt-" + t.chars(URLSAFE, 20),
    "telegram-bot": lambda t: t.chars(string.digits, 10) + ":AA" + t.chars(URLSAFE, 33),
    "sendgrid": lambda t: "SG." + t.chars(URLSAFE, 22) + "." + t.chars(URLSAFE, 43),
    "pypi": lambda t: "pypi-AgEIcHlwaS5vcmc" + t.chars(URLSAFE, 70),
    "linear": lambda t: "lin_api_" + t.chars(ALNUM, 40),
    "databricks": lambda t: "dapi" + t.chars(HEX, 32),
    "docker-hub": lambda t: "dckr_pat_" + t.chars(URLSAFE, 27),
    "age": lambda t: "AGE-SECRET-KEY-1" + t.chars("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
    # Formats only gitleaks' rules know (none of redaction's own shapes or names):
    "notion": lambda t: "ntn_" + t.chars(string.digits, 11) + t.chars(ALNUM, 35),
    "pulumi": lambda t: "pul-" + t.chars(HEX, 40),
    "doppler": lambda t: "dp.pt." + t.chars(LOWER_ALNUM, 43),
    "dynatrace": lambda t: (
        "dt0c01." + t.chars(LOWER_ALNUM.upper(), 24) + "." + t.chars(LOWER_ALNUM.upper(), 64)
    ),
    "postman": lambda t: "PMAK-" + t.chars(HEX, 24) + "-" + t.chars(HEX, 34),
    "planetscale": lambda t: "pscale_tkn_" + t.chars(URLSAFE, 43),
    "heroku": lambda t: "HRKU-AA" + t.chars(URLSAFE, 58),
    "grafana-service-account": lambda t: "glsa_" + t.chars(ALNUM, 32) + "_" + t.chars(HEX, 8),
    "sentry-user": lambda t: "sntryu_" + t.chars(HEX, 64),
    "prefect": lambda t: "pnu_" + t.chars(ALNUM, 36),
    "twilio": lambda t: "SK" + t.chars(HEX, 32),
    "mailgun": lambda t: "key-" + t.chars(HEX, 32),
}
"""Every token shape the corpus plants, with how to make one."""


def _rpc(method: str, params: Any, ident: int | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        message["id"] = ident
    return orjson.dumps(message)


def _result(ident: int, result: Any) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": ident, "result": result})


def _update(session: str, update: dict[str, Any]) -> bytes:
    return _rpc("session/update", {"sessionId": session, "update": update})


class _Builder:
    """Adds lines and plants to a corpus."""

    def __init__(self, seed: int) -> None:
        self.t = _Tokens(seed)
        self.corpus = Corpus()
        self.ident = 0
        self.session = "sess_" + self.t.chars(LOWER_ALNUM, 20)

    def token(self, shape: str) -> str:
        return SHAPES[shape](self.t)

    def secret(self, place: str, kind: str, needle: str) -> str:
        self.corpus.plants.append(Plant(place, kind, needle, secret=True))
        return needle

    def keep(self, place: str, kind: str, needle: str) -> str:
        self.corpus.plants.append(Plant(place, kind, needle, secret=False))
        return needle

    def shaped(self, place: str, shape: str) -> str:
        return self.secret(place, shape, self.token(shape))

    def line(self, direction: str, data: bytes) -> None:
        self.corpus.lines.append((direction, data))

    def request(self, method: str, params: Any) -> int:
        self.ident += 1
        self.line("c2a", _rpc(method, params, self.ident))
        return self.ident

    def agent_request(self, method: str, params: Any) -> int:
        self.ident += 1
        self.line("a2c", _rpc(method, params, self.ident))
        return self.ident

    def answer(self, direction: str, ident: int, result: Any) -> None:
        self.line(direction, _result(ident, result))

    def read_file(self, path: str, content: str) -> None:
        """The Agent reads a file through the Client: the content comes back as a result."""
        ident = self.agent_request("fs/read_text_file", {"sessionId": self.session, "path": path})
        self.answer("c2a", ident, {"content": content})

    def terminal_output(self, command: str, output: str, *, truncated: bool = False) -> None:
        ident = self.agent_request(
            "terminal/output", {"sessionId": self.session, "terminalId": "term_" + command[:4]}
        )
        self.answer("c2a", ident, {"output": output, "truncated": truncated})


def build(seed: int = 39) -> Corpus:
    """The corpus for this seed (the same bytes for the same seed)."""
    b = _Builder(seed)
    _initialize(b)
    _session_new(b)
    _prompt_and_meta(b)
    _files(b)
    _terminals(b)
    _other_formats(b)
    _tool_calls(b)
    _chunks(b)
    _errors_and_stderr(b)
    _more_places(b)
    _lookalikes(b)
    _argv(b)
    return b.corpus


def _initialize(b: _Builder) -> None:
    ident = b.request(
        "initialize",
        {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}},
    )
    b.answer(
        "a2c",
        ident,
        {"protocolVersion": 1, "authMethods": [{"id": "api-key", "name": "API key"}]},
    )
    key = b.shaped("authenticate", "anthropic")
    ident = b.request("authenticate", {"methodId": "api-key", "_meta": {"apiKey": key}})
    b.answer("a2c", ident, {})
    password = b.secret("authenticate", "password", b.t.password())
    ident = b.request(
        "authenticate", {"methodId": "login", "username": "dev@example.com", "pin": password}
    )
    b.answer("a2c", ident, {})


def _session_new(b: _Builder) -> None:
    place = "mcp-env"
    stdio = {
        "name": "github",
        "command": "docker",
        "args": [
            "run",
            "-i",
            "--rm",
            "-e",
            "GITHUB_PERSONAL_ACCESS_TOKEN=" + b.shaped("mcp-args", "github-pat"),
            "ghcr.io/github/github-mcp-server",
        ],
        "env": [
            {"name": "GITHUB_PERSONAL_ACCESS_TOKEN", "value": b.shaped(place, "github-ghp")},
            {"name": "X_TENANT", "value": b.secret(place, "any-name", b.t.chars(ALNUM, 18))},
        ],
    }
    postgres = {
        "name": "postgres",
        "command": "npx",
        "args": [
            "-y",
            "@modelcontextprotocol/server-postgres",
            "postgresql://app:"
            + b.secret("mcp-args", "url-credentials", b.t.password())
            + "@db.internal:5432/prod",
            "--password",
            b.secret("mcp-args", "flag:--password", b.t.password()),
            "--api-key=" + b.secret("mcp-args", "flag:--api-key", b.t.chars(ALNUM, 32)),
        ],
        "env": {"PGSSLMODE": "require"},
    }
    http = {
        "type": "http",
        "name": "linear",
        "url": "https://mcp.linear.app/sse",
        "headers": [
            {"name": "Authorization", "value": "Bearer " + b.shaped("mcp-headers", "linear")},
            {
                "name": "X-Workspace",
                "value": b.secret("mcp-headers", "any-name", b.t.chars(HEX, 24)),
            },
        ],
    }
    sse = {
        "type": "sse",
        "name": "sentry",
        "url": "https://mcp.example.dev/sse?token="
        + b.secret("mcp-url", "url-signing", b.t.chars(ALNUM, 40)),
        "headers": {"x-api-key": b.shaped("mcp-headers", "groq")},
    }
    ident = b.request(
        "session/new", {"cwd": "/home/dev/shop", "mcpServers": [stdio, postgres, http, sse]}
    )
    b.answer("a2c", ident, {"sessionId": b.session})


def _prompt_and_meta(b: _Builder) -> None:
    text = (
        "Deploy with this key please: "
        + b.shaped("prompt", "openai")
        + " and push using "
        + b.shaped("prompt", "github-gho")
    )
    meta = {
        "zed.dev/provider": {"apiKey": b.shaped("_meta", "xai"), "model": "grok-4"},
        "openrouter": {"headers": {"HTTP-Referer": "https://zed.dev"}},
        "proxy": {"token": b.secret("_meta", "name:token", b.t.chars(ALNUM, 28))},
    }
    ident = b.request(
        "session/prompt",
        {"sessionId": b.session, "prompt": [{"type": "text", "text": text}], "_meta": meta},
    )
    b.line(
        "a2c",
        _update(
            b.session,
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "On it."}},
        ),
    )
    b.answer("a2c", ident, {"stopReason": "end_turn"})


def _files(b: _Builder) -> None:
    dotenv = (
        "# local settings\n"
        f"OPENAI_API_KEY={b.shaped('file:.env', 'openai')}\n"
        f"DATABASE_URL=postgres://shop:{b.secret('file:.env', 'url-credentials', b.t.password())}"
        "@localhost:5432/shop\n"
        f"SECRET_KEY_BASE={b.secret('file:.env', 'name:SECRET_KEY_BASE', b.t.chars(HEX, 128))}\n"
        f"APP_KEY=base64:{b.secret('file:.env', 'name:APP_KEY', b.t.chars(B64, 43))}=\n"
        f'ENCRYPTION_KEY="{b.secret("file:.env", "name:ENCRYPTION_KEY", b.t.chars(HEX, 64))}"\n'
        f"STRIPE_WEBHOOK_SECRET='{b.shaped('file:.env', 'webhook-secret')}'\n"
        f"SLACK_WEBHOOK_URL={b.shaped('file:.env', 'slack-webhook')}\n"
        f"REPLICATE_API_TOKEN={b.shaped('file:.env', 'replicate')}\n"
        "DEBUG=false\n"
    )
    b.read_file("/home/dev/shop/.env", dotenv)
    config = (
        orjson.dumps(
            {
                "server": {"port": 8080},
                "auth": {"clientSecret": b.shaped("file:config.json", "google-oauth-secret")},
                "providers": [
                    {"name": "perplexity", "key": b.shaped("file:config.json", "perplexity")}
                ],
                "webhook": b.shaped("file:config.json", "discord-webhook"),
            },
            option=orjson.OPT_INDENT_2,
        ).decode()
        + "\n"
    )
    b.read_file("/home/dev/shop/config.json", config)
    aws = (
        "[default]\n"
        f"aws_access_key_id = {b.shaped('file:aws-credentials', 'aws-access-key')}\n"
        "aws_secret_access_key = "
        + b.secret("file:aws-credentials", "name:aws_secret_access_key", b.t.chars(B64, 40))
        + "\n\n[prod]\nregion = eu-west-1\naws_session_token = "
        + b.secret("file:aws-credentials", "name:aws_session_token", b.t.chars(B64, 300))
        + "\n"
    )
    b.read_file("/home/dev/.aws/credentials", aws)
    npmrc = (
        f"//registry.npmjs.org/:_authToken={b.shaped('file:.npmrc', 'npm')}\n"
        "//npm.pkg.github.com/:_authToken="
        + b.secret(
            "file:.npmrc",
            "name:_authToken",
            b.t.chars(HEX, 8)
            + "-"
            + b.t.chars(HEX, 4)
            + "-"
            + b.t.chars(HEX, 4)
            + "-"
            + b.t.chars(HEX, 4)
            + "-"
            + b.t.chars(HEX, 12),
        )
        + "\n@shop:registry=https://npm.pkg.github.com\n"
    )
    b.read_file("/home/dev/.npmrc", npmrc)
    pypirc = (
        "[distutils]\nindex-servers =\n    pypi\n    private\n\n[pypi]\nusername = __token__\n"
        f"password = {b.shaped('file:.pypirc', 'pypi')}\n\n[private]\n"
        "repository = https://pypi.internal.example/\nusername = deploy\n"
        f"password = {b.secret('file:.pypirc', 'name:password', b.t.password())}\n"
    )
    b.read_file("/home/dev/.pypirc", pypirc)
    netrc = (
        f"machine api.github.com login dev password {b.shaped('file:.netrc', 'github-ghp')}\n"
        f"machine ftp.example.org\n  login deploy\n  password "
        f"{b.secret('file:.netrc', 'netrc', b.t.password())}\n"
    )
    b.read_file("/home/dev/.netrc", netrc)
    cert = b.keep("file:kubeconfig", "certificate-data", b.t.chars(B64, 120))
    authority = b.keep("file:kubeconfig", "certificate-authority-data", b.t.chars(B64, 120))
    kubeconfig = (
        "apiVersion: v1\nclusters:\n- cluster:\n"
        f"    certificate-authority-data: {authority}\n"
        "    server: https://10.0.0.1:6443\n  name: prod\nusers:\n- name: admin\n  user:\n"
        f"    client-certificate-data: {cert}\n"
        "    client-key-data: "
        + b.secret("file:kubeconfig", "name:client-key-data", b.t.chars(B64, 200))
        + "\n"
        f"- name: ci\n  user:\n    token: {b.shaped('file:kubeconfig', 'jwt')}\n"
    )
    b.read_file("/home/dev/.kube/config", kubeconfig)
    rsa = b.secret("file:id_rsa", "private-key", b.t.pem_body(12))
    b.read_file(
        "/home/dev/.ssh/id_rsa",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{rsa}\n-----END OPENSSH PRIVATE KEY-----\n",
    )
    gcp_key = b.secret("file:gcp-service-account", "private-key", b.t.pem_body(10))
    service_account = (
        orjson.dumps(
            {
                "type": "service_account",
                "project_id": "shop-prod",
                "private_key_id": b.t.chars(HEX, 40),
                "private_key": "-----BEGIN PRIVATE KEY-----\n"
                + gcp_key
                + "\n-----END PRIVATE KEY-----\n",
                "client_email": "deploy@shop-prod.iam.gserviceaccount.com",
                "client_id": b.t.chars(string.digits, 21),
            },
            option=orjson.OPT_INDENT_2,
        ).decode()
        + "\n"
    )
    b.read_file("/home/dev/shop/sa.json", service_account)
    pgp = b.secret("file:pgp", "private-key", b.t.pem_body(8))
    b.read_file(
        "/home/dev/release.asc",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        f"{pgp}\n=Ab3x\n-----END PGP PRIVATE KEY BLOCK-----\n",
    )
    cut = b.secret("file:cut-pem", "private-key", b.t.pem_body(8))
    ident = b.agent_request(
        "fs/read_text_file",
        {"sessionId": b.session, "path": "/home/dev/shop/deploy.pem", "limit": 9},
    )
    b.answer("c2a", ident, {"content": f"-----BEGIN RSA PRIVATE KEY-----\n{cut}"})
    yaml = (
        "production:\n  adapter: postgresql\n  host: db.internal\n"
        f"  password: {b.secret('file:database.yml', 'name:password', b.t.password())}\n"
        "  encryption_key: "
        + b.secret("file:database.yml", "name:encryption_key", b.t.chars(HEX, 48))
        + "\n"
        "azure:\n  connection_string: DefaultEndpointsProtocol=https;AccountName=shopprod;"
        f"AccountKey={b.secret('file:database.yml', 'azure-storage', b.t.chars(B64, 86))}==;"
        "EndpointSuffix=core.windows.net\n"
    )
    b.read_file("/home/dev/shop/config/database.yml", yaml)
    ini = (
        "[mail]\nhost = smtp.example.org\nuser = shop\n"
        f"smtp_password = {b.secret('file:settings.ini', 'name:smtp_password', b.t.password())}\n"
        f"[telegram]\nbot = {b.shaped('file:settings.ini', 'telegram-bot')}\n"
    )
    b.read_file("/home/dev/shop/settings.ini", ini)


def _other_formats(b: _Builder) -> None:
    """Tokens of services redaction knows only through gitleaks' rules, in a log the Agent
    prints (a string of several lines), under names that are not secret-like."""
    lines = [
        f"12:00:01 wiki sync with {b.shaped('terminal:deploy-log', 'notion')}",
        f"12:00:02 pulumi up as {b.shaped('terminal:deploy-log', 'pulumi')} on prod",
        f"12:00:03 doppler: {b.shaped('terminal:deploy-log', 'doppler')}",
        f"12:00:04 dynatrace ingest via {b.shaped('terminal:deploy-log', 'dynatrace')}",
        f"12:00:05 postman collection run as {b.shaped('terminal:deploy-log', 'postman')}",
        f"12:00:06 db branch opened with {b.shaped('terminal:deploy-log', 'planetscale')}",
        f"12:00:07 heroku release by {b.shaped('terminal:deploy-log', 'heroku')}",
        "12:00:08 dashboards pushed as "
        + b.shaped("terminal:deploy-log", "grafana-service-account"),
        f"12:00:09 sentry release created by {b.shaped('terminal:deploy-log', 'sentry-user')}",
        f"12:00:10 prefect flow deployed by {b.shaped('terminal:deploy-log', 'prefect')}",
        f"12:00:11 sms alerts through {b.shaped('terminal:deploy-log', 'twilio')}",
        f"12:00:12 mailgun: {b.shaped('terminal:deploy-log', 'mailgun')}",
        "12:00:13 deploy finished",
    ]
    b.terminal_output("tail deploy.log", "\n".join(lines) + "\n")


def _terminals(b: _Builder) -> None:
    bearer = b.shaped("terminal:curl", "digitalocean")
    api_key = b.secret("terminal:curl", "header:X-Api-Key", b.t.chars(ALNUM, 32))
    cookie = b.secret("terminal:curl", "header:Set-Cookie", b.t.chars(URLSAFE, 40))
    curl = (
        "*   Trying 104.16.0.1:443...\n* Connected to api.digitalocean.com\n"
        "> GET /v2/account HTTP/2\n> Host: api.digitalocean.com\n"
        f"> Authorization: Bearer {bearer}\n> X-Api-Key: {api_key}\n> Accept: */*\n>\n"
        "< HTTP/2 200\n< content-type: application/json\n"
        f"< set-cookie: _session={cookie}; Path=/; HttpOnly\n<\n"
        '{"account": {"status": "active"}}\n'
    )
    b.terminal_output("curl", curl)
    remote_token = b.shaped("terminal:git-remote", "github-ghs")
    remote_password = b.secret("terminal:git-remote", "url-credentials", b.t.password())
    remote = (
        f"origin\thttps://x-access-token:{remote_token}@github.com/shop/app.git (fetch)\n"
        f"origin\thttps://x-access-token:{remote_token}@github.com/shop/app.git (push)\n"
        f"mirror\thttps://deploy:{remote_password}@git.example.org/shop/app.git (fetch)\n"
    )
    b.terminal_output("git-remote", remote)
    printenv = (
        "HOME=/home/dev\nPATH=/usr/local/bin:/usr/bin\n"
        f"VAULT_TOKEN={b.shaped('terminal:printenv', 'vault')}\n"
        f"SHOPIFY_ACCESS={b.shaped('terminal:printenv', 'shopify')}\n"
        f"GOOGLE_OAUTH={b.shaped('terminal:printenv', 'google-oauth-token')}\n"
        f"SLACK_APP={b.shaped('terminal:printenv', 'slack-app')}\n"
        f"SENDGRID={b.shaped('terminal:printenv', 'sendgrid')}\n"
        f"DOCKER_HUB={b.shaped('terminal:printenv', 'docker-hub')}\n"
        f"MASTER_KEY={b.secret('terminal:printenv', 'name:MASTER_KEY', b.t.chars(HEX, 32))}\n"
        "TERM=xterm-256color\n"
    )
    b.terminal_output("printenv", printenv)
    b.terminal_output(
        "huge-log",
        "x" * 200 + "\nexport HF_TOKEN=" + b.shaped("terminal:log", "huggingface") + "\n",
    )
    # terminal/create: a command with secrets in its arguments and its environment
    ident = b.agent_request(
        "terminal/create",
        {
            "sessionId": b.session,
            "command": "curl",
            "args": [
                "-sS",
                "-H",
                "Authorization: token " + b.shaped("terminal/create", "github-ghp"),
                "--user",
                "deploy:" + b.secret("terminal/create", "curl-user", b.t.password()),
                "--token",
                b.secret("terminal/create", "flag:--token", b.t.chars(ALNUM, 30)),
                "https://api.github.com/user",
            ],
            "env": [
                {"name": "DATABRICKS_TOKEN", "value": b.shaped("terminal/create", "databricks")},
                {"name": "NOTIFY_URL", "value": b.shaped("terminal/create", "slack-webhook")},
                {"name": "AGE_IDENTITY", "value": b.shaped("terminal/create", "age")},
            ],
        },
    )
    b.answer("c2a", ident, {"terminalId": "term_1"})


def _tool_calls(b: _Builder) -> None:
    command = (
        "curl -H 'Authorization: Bearer "
        + b.shaped("tool-input", "stripe-secret")
        + "' https://api.stripe.com/v1/charges"
    )
    b.line(
        "a2c",
        _update(
            b.session,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "call_1",
                "title": "Run curl",
                "kind": "execute",
                "status": "pending",
                "rawInput": {
                    "command": command,
                    "env": {"GITLAB_TOKEN": b.shaped("tool-input", "gitlab")},
                },
            },
        ),
    )
    output = (
        "Connected.\nUsing key "
        + b.shaped("tool-output", "stripe-restricted")
        + " for restricted access\n"
    )
    b.line(
        "a2c",
        _update(
            b.session,
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "call_1",
                "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": output}}],
                "rawOutput": {
                    "stdout": "token: " + b.shaped("tool-output", "gitlab-runner") + "\n",
                    "exitCode": 0,
                },
            },
        ),
    )
    b.line(
        "a2c",
        _update(
            b.session,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "call_2",
                "title": "Edit .env",
                "kind": "edit",
                "status": "completed",
                "content": [
                    {
                        "type": "diff",
                        "path": "/home/dev/shop/.env",
                        "oldText": "GOOGLE_API_KEY=\n",
                        "newText": "GOOGLE_API_KEY="
                        + b.shaped("tool-diff", "google-api-key")
                        + "\n"
                        "SLACK_BOT_TOKEN=" + b.shaped("tool-diff", "slack") + "\n",
                    }
                ],
            },
        ),
    )


def _chunks(b: _Builder) -> None:
    """Secrets in messages streamed as chunks, split across them (as a model streams)."""
    for index, shape in enumerate(("anthropic", "github-ghp", "aws-access-key", "openai")):
        secret = b.secret("chunks", f"split:{shape}", b.token(shape))
        text = f"Found it in the logs: {secret} - rotate it now. ({index})"
        cut = len("Found it in the logs: ") + 3
        pieces = [text[:cut]]
        rest = text[cut:]
        while rest:
            step = b.t.rng.randint(3, 12)
            pieces.append(rest[:step])
            rest = rest[step:]
        for piece in pieces:
            update = {"sessionUpdate": "agent_message_chunk",
                      "content": {"type": "text", "text": piece}}  # fmt: skip
            b.line("a2c", _update(b.session, update))
    password = b.secret("chunks", "split:password=", b.t.password())
    for piece in ("Set DB_PASS", "WORD=", password[:5], password[5:], " in the .env file."):
        update = {
            "sessionUpdate": "agent_thought_chunk",
            "content": {"type": "text", "text": piece},
        }
        b.line("a2c", _update(b.session, update))
    whole = b.shaped("chunk", "huggingface")
    b.line(
        "a2c",
        _update(
            b.session,
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": f"use {whole}"},
            },
        ),
    )


def _errors_and_stderr(b: _Builder) -> None:
    ident = b.request(
        "session/prompt", {"sessionId": b.session, "prompt": [{"type": "text", "text": "hi"}]}
    )
    b.line(
        "a2c",
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": ident,
                "error": {
                    "code": -32603,
                    "message": "Incorrect API key provided: " + b.shaped("error", "openai"),
                    "data": {
                        "request": "POST https://api.example.com/v1?api_key="
                        + b.secret("error", "name=value", b.t.chars(ALNUM, 32))
                    },
                },
            }
        ),
    )
    b.line(
        "stderr",
        (
            "2026-12-01T10:00:00Z DEBUG config loaded: {'api_key': '"
            + b.secret("stderr", "python-repr", b.t.chars(ALNUM, 40))
            + "', 'password': '"
            + b.secret("stderr", "python-repr", b.t.password())
            + "', 'retries': 3}"
        ).encode(),
    )
    b.line(
        "stderr",
        (
            "connecting to redis://default:"
            + b.secret("stderr", "url-credentials", b.t.password())
            + "@cache:6379/0"
        ).encode(),
    )
    b.line(
        "stderr",
        (
            "WARN retrying with Authorization: Basic "
            + b.secret(
                "stderr", "basic", base64.b64encode(f"deploy:{b.t.password()}".encode()).decode()
            )
        ).encode(),
    )
    b.line(
        "stderr",
        (
            "telemetry: sentry dsn https://"
            + b.keep("stderr", "sentry-dsn-public-key", b.t.chars(HEX, 32))
            + "@o0.ingest.sentry.io/12345"
        ).encode(),
    )
    b.line(
        "stderr",
        ("env: AZURE_OPENAI_KEY=" + b.secret("stderr", "name=value", b.t.chars(HEX, 32))).encode(),
    )
    b.line(
        "a2c", b"not json: password=" + b.secret("raw-line", "name=value", b.t.password()).encode()
    )


def _more_places(b: _Builder) -> None:
    """Resources in a prompt, files an Agent writes, logs and a docker config."""
    pasted = (
        f"ANTHROPIC_API_KEY={b.shaped('prompt-resource', 'anthropic')}\n"
        f"OPENAI_KEY={b.secret('prompt-resource', 'name:OPENAI_KEY', b.t.chars(ALNUM, 48))}\n"
        f"STRIPE_SECRET_KEY={b.shaped('prompt-resource', 'stripe-secret')}\n"
    )
    resource = {"uri": "file:///home/dev/shop/.env.local", "mimeType": "text/plain", "text": pasted}
    b.request(
        "session/prompt",
        {"sessionId": b.session, "prompt": [{"type": "resource", "resource": resource}]},
    )
    toml = (
        "[provider.openai]\n"
        f'api_key = "{b.secret("tool-input", "name:api_key", b.t.chars(ALNUM, 48))}"\n'
        f"[provider.hf]\ntoken = '{b.shaped('tool-input', 'huggingface')}'\n"
    )
    b.line(
        "a2c",
        _update(
            b.session,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "call_3",
                "title": "Write config.toml",
                "kind": "edit",
                "status": "pending",
                "rawInput": {"path": "/home/dev/shop/config.toml", "content": toml},
            },
        ),
    )
    auth = base64.b64encode(f"deploy:{b.t.password()}".encode()).decode()
    docker = orjson.dumps(
        {"auths": {"ghcr.io": {"auth": b.secret("terminal:cat", "name:auth", auth)}}},
        option=orjson.OPT_INDENT_2,
    ).decode()
    b.terminal_output("cat-docker", docker + "\n")
    b.terminal_output("gh-auth", b.shaped("terminal:gh", "github-gho") + "\n")
    b.line(
        "stderr",
        orjson.dumps(
            {
                "level": "debug",
                "msg": "request",
                "headers": {"authorization": "Bearer " + b.shaped("stderr", "google-oauth-token")},
            }
        ),
    )
    b.line(
        "stderr",
        (
            "openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API "
            f"key provided: {b.shaped('stderr', 'openai')}.', 'type': 'invalid_request_error'}}}}"
        ).encode(),
    )
    b.line(
        "a2c",
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": 999,
                "error": {
                    "code": -32000,
                    "message": "tool failed",
                    "data": "sqlalchemy.exc.OperationalError: could not connect to "
                    "postgresql://shop:"
                    + b.secret("error", "url-credentials", b.t.password())
                    + "@db:5432/shop",
                },
            }
        ),
    )
    jwt = b.secret("chunks", "split:jwt", b.token("jwt"))
    for piece in ("Your session token is ", jwt[:9], jwt[9:30], jwt[30:70], jwt[70:], "."):
        update = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": piece},
        }
        b.line("a2c", _update(b.session, update))
    key = b.secret("chunks", "split:private-key", b.t.pem_body(4))
    block = f"-----BEGIN EC PRIVATE KEY-----\n{key}\n-----END EC PRIVATE KEY-----\n"
    for start in range(0, len(block), 40):
        piece = block[start : start + 40]
        update = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": piece},
        }
        b.line("a2c", _update(b.session, update))
    meta = {
        "auth": {"sessionToken": b.secret("_meta", "name:sessionToken", b.t.chars(HEX, 48))},
        "signing": {"hmacKey": b.secret("_meta", "name:hmacKey", b.t.chars(HEX, 64))},
    }
    b.request("session/set_mode", {"sessionId": b.session, "modeId": "code", "_meta": meta})


def _lookalikes(b: _Builder) -> None:
    t = b.t
    sha = b.keep("tool-output", "git-sha", t.chars(HEX, 40))
    digest = b.keep("tool-output", "sha256-digest", "sha256:" + t.chars(HEX, 64))
    integrity = b.keep("file:package-lock", "integrity", "sha512-" + t.chars(B64, 86) + "==")
    uuid = b.keep(
        "tool-output",
        "uuid",
        "-".join((t.chars(HEX, 8), t.chars(HEX, 4), "4" + t.chars(HEX, 3), "a" + t.chars(HEX, 3)))
        + "-"
        + t.chars(HEX, 12),
    )
    png = b.keep("prompt-image", "base64-image", "iVBORw0KGgoAAAANSUhEUgAA" + t.chars(B64, 400))
    public = b.keep(
        "file:id_rsa.pub", "ssh-public-key", "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + t.chars(B64, 300)
    )
    pem_public = b.keep("file:public.pem", "public-key", t.chars(B64, 64))
    certificate = b.keep("file:cert.pem", "certificate", t.chars(B64, 64))
    pgp_public = b.keep("file:pubkey.asc", "pgp-public-key", t.chars(B64, 64))
    publishable = b.keep("file:config.js", "stripe-publishable", "pk_live_" + t.chars(ALNUM, 99))
    placeholder = b.keep("file:.env.example", "placeholder", "${OPENAI_API_KEY}")
    placeholder_2 = b.keep("file:.env.example", "placeholder", "<your-token-here>")
    ssh_remote = b.keep("terminal:git-remote", "ssh-remote", "git@github.com:shop/app.git")
    email = b.keep("prompt", "email", "alice.smith@example.com")
    plain_url = b.keep("prompt", "url", "https://github.com/shop/app/blob/main/README.md")
    go_url = b.keep("prompt", "url-with-at", "https://pkg.go.dev/github.com/shop/app@v1.2.3")
    query = b.keep("prompt", "query", "https://shop.example/search?q=keys&page=2&sort=asc")
    bearer = b.keep("chunk", "prose", "the bearer of bad news")
    basic = b.keep("chunk", "prose", "a Basic idea")
    risky = b.keep("chunk", "inside-word", "risk-assessment-of-the-whole-project-plan")
    tokenizer = b.keep("usage", "name:tokenizer", "cl100k_base")
    arn = b.keep("tool-output", "aws-arn", "arn:aws:iam::123456789012:role/deploy")
    error_code = b.keep("stderr", "prose", "error code=3 at line 7")
    key_member = b.keep("keybinding", "name:key", "ctrl-shift-p-" + t.chars(LOWER_ALNUM, 6))
    token_prose = b.keep("chunk", "prose", "token: the number of tokens counts against your limit")
    hex_blob = b.keep("tool-output", "hex-blob", t.chars(HEX, 128))
    slack_channel = b.keep(
        "tool-output", "slack-id", "C0" + t.chars(string.ascii_uppercase + string.digits, 9)
    )
    b.keep("prompt", "session-id", b.session)
    jsonwebtoken = b.keep("file:package.json", "version", '"jsonwebtoken": "^8.5.1"')
    next_auth = b.keep("file:package.json", "version", '"next-auth": ">=4.24 <5"')

    b.request(
        "session/prompt",
        {
            "sessionId": b.session,
            "prompt": [
                {"type": "image", "mimeType": "image/png", "data": png},
                {"type": "text", "text": f"Mail {email} about {plain_url}, {go_url} and {query}."},
            ],
        },
    )
    listing = (
        f"commit {sha}\nAuthor: Alice <{email}>\n\n    pinned {digest}\n"
        f"session {uuid} role {arn}\nchannel {slack_channel}\nchecksum {hex_blob}\n"
    )
    b.terminal_output("git-log", listing)
    b.terminal_output("git-remote-ssh", f"origin\t{ssh_remote} (fetch)\n")
    b.read_file(
        "/home/dev/shop/package-lock.json",
        '{\n  "packages": {\n    "node_modules/left-pad": {\n      "integrity": "'
        + integrity
        + '"\n    }\n  }\n}\n',
    )
    b.read_file(
        "/home/dev/shop/package.json",
        '{\n  "name": "shop",\n  "dependencies": {\n'
        f"    {jsonwebtoken},\n    {next_auth}\n  }}\n}}\n",
    )
    b.read_file("/home/dev/.ssh/id_rsa.pub", f"ssh-rsa {public} dev@laptop\n")
    b.read_file(
        "/home/dev/public.pem",
        f"-----BEGIN PUBLIC KEY-----\n{pem_public}\n-----END PUBLIC KEY-----\n",
    )
    b.read_file(
        "/home/dev/cert.pem",
        f"-----BEGIN CERTIFICATE-----\n{certificate}\n-----END CERTIFICATE-----\n",
    )
    b.read_file(
        "/home/dev/pubkey.asc",
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
        + pgp_public
        + "\n-----END PGP PUBLIC KEY BLOCK-----\n",
    )
    b.read_file("/home/dev/shop/config.js", f'export const stripeKey = "{publishable}";\n')
    b.read_file(
        "/home/dev/shop/.env.example",
        f"OPENAI_API_KEY={placeholder}\nGITHUB_TOKEN={placeholder_2}\n",
    )
    for text in (
        f"I am {bearer}. ",
        f"That is {basic}. ",
        f"See {risky}. ",
        f"Note: {token_prose}.",
    ):
        b.line(
            "a2c",
            _update(
                b.session,
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
            ),
        )
    b.line(
        "a2c",
        _update(
            b.session,
            {"sessionUpdate": "usage_update", "_meta": {"maxTokens": 4096, "tokenizer": tokenizer}},
        ),
    )
    b.line("c2a", _rpc("_zed/keymap", {"bindings": [{"key": key_member, "action": "palette"}]}))
    b.line("stderr", f"parse failed: {error_code}".encode())


def _argv(b: _Builder) -> None:
    b.corpus.argv = [
        "--acp",
        "--api-key",
        b.shaped("argv", "perplexity"),
        "--header",
        "X-Api-Key: " + b.secret("argv", "header:X-Api-Key", b.t.chars(ALNUM, 32)),
        "--endpoint=https://bot:"
        + b.secret("argv", "url-credentials", b.t.password())
        + "@llm.internal/v1",
    ]
