"""Where a remote agent is and how to reach it; the errors of reaching it.

Standard library only: the CLI and the agent catalogue build a `RemoteTarget`
without importing `websockets` or `httpx` (those come with the optional
`acp-tui[remote]` extra and are imported when a connection opens, see
`acp_tui.protocol.remote.open`).

A remote agent is named by a URL: `ws://` or `wss://` (WebSocket only), or
`http://` / `https://` (usually ending in `/acp`: WebSocket first, then
Streamable HTTP; `transport` pins one). Plain `ws://` and `http://` are refused
to anything but loopback unless `insecure` is set (`--insecure`); TLS is always
verified, against `cacert` (`--cacert`) when given, else the system's CAs.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final, Literal, TypeAlias
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "REMOTE_EXTRA_HINT",
    "FailureKind",
    "Profile",
    "RemoteConnectError",
    "RemoteTarget",
    "failure_from",
    "is_loopback",
    "is_remote_url",
    "missing_extra",
    "status_failure",
]

Profile: TypeAlias = Literal["auto", "websocket", "http"]
"""Which profile to use: `auto` tries WebSocket, then Streamable HTTP."""

PROFILES: Final = ("auto", "websocket", "http")

_SCHEMES: Final = ("ws://", "wss://", "http://", "https://")

REMOTE_EXTRA_HINT: Final = (
    "remote agents need the optional dependencies of acp-tui[remote]: "
    "install acp-tui[remote] (e.g. `pip install 'acp-tui[remote]'` or "
    "`uv tool install 'acp-tui[remote]'`)"
)

FailureKind: TypeAlias = Literal[
    "refused",
    "unreachable",
    "tls",
    "auth",
    "not_found",
    "http",
    "protocol",
    "timeout",
    "config",
    "missing_extra",
]


class RemoteConnectError(Exception):
    """A remote agent could not be reached; the message says why and what to do."""

    def __init__(
        self,
        url: str,
        kind: FailureKind,
        detail: str,
        *,
        status: int | None = None,
    ) -> None:
        super().__init__(_explain(url, kind, detail, status))
        self.url = url
        """The URL as shown (no user name or password)."""
        self.kind: FailureKind = kind
        """What failed: `refused`, `tls`, `auth` (401/403), `not_found` (404), ..."""
        self.detail = detail
        """The underlying error, as text."""
        self.status = status
        """The HTTP status, when the server answered one."""


def _explain(url: str, kind: FailureKind, detail: str, status: int | None) -> str:
    where = f"cannot connect to the remote agent at {url}"
    if kind == "refused":
        return (
            f"{where}: connection refused ({detail}). Is the agent's server running "
            "and listening on that host and port?"
        )
    if kind == "unreachable":
        return f"{where}: {detail}. Check the host name and the network"
    if kind == "tls" and "mismatch" in detail:
        return (
            f"{where}: TLS failed ({detail}). The server's certificate is for "
            "another host name: connect by a name the certificate lists"
        )
    if kind == "tls":
        return (
            f"{where}: TLS failed ({detail}). The server's certificate is not "
            "trusted: for a private CA, give its certificate with --cacert PATH"
        )
    if kind == "auth":
        return (
            f"{where}: the server refused the credentials (HTTP {status}). Check "
            "the token: the agent's `headers` or the variable its `token_env` "
            "names in config.toml"
        )
    if kind == "not_found":
        return (
            f"{where}: nothing there (HTTP 404). Check the URL's path: ACP servers "
            "usually serve /acp"
        )
    if kind == "http":
        return f"{where}: the server answered HTTP {status} ({detail})"
    if kind == "timeout":
        return f"{where}: {detail}"
    if kind == "missing_extra":
        return f"{where}: {REMOTE_EXTRA_HINT} ({detail})"
    return f"{where}: {detail}"


def missing_extra(url: str, error: ImportError) -> RemoteConnectError:
    """The error for a missing `acp-tui[remote]` dependency."""
    return RemoteConnectError(url, "missing_extra", f"{error.name or error} is missing")


def is_remote_url(value: str) -> bool:
    """Whether an `--agent` value is a URL (ws, wss, http, https)."""
    return value.strip().lower().startswith(_SCHEMES)


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine (localhost, 127.0.0.0/8, ::1)."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class RemoteTarget:
    """A remote agent: its URL and how to connect to it."""

    url: str
    """`ws://`, `wss://`, `http://` or `https://` (user info is not allowed)."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Sent on every request (and the WebSocket upgrade); may hold secrets."""
    token_env: str | None = None
    """An environment variable whose value is sent as `Authorization: Bearer`."""
    transport: Profile = "auto"
    """`auto` (WebSocket, then Streamable HTTP for http(s) URLs), or one pinned."""
    cacert: Path | None = None
    """A CA bundle (PEM) to verify the server's certificate against."""
    insecure: bool = False
    """Allow plain `ws://` / `http://` to a host other than loopback."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))

    @property
    def scheme(self) -> str:
        """The URL's scheme, lower case."""
        return urlsplit(self.url).scheme.lower()

    @property
    def host(self) -> str:
        """The URL's host name."""
        return urlsplit(self.url).hostname or ""

    @property
    def encrypted(self) -> bool:
        """TLS: `wss://` or `https://`."""
        return self.scheme in ("wss", "https")

    def name(self) -> str:
        """A short name for logs: `host:port`."""
        return urlsplit(self.url).netloc or self.url

    def problem(self) -> str | None:
        """Why this target must not be used as given (None: it may)."""
        parts = urlsplit(self.url)
        if parts.scheme.lower() not in ("ws", "wss", "http", "https"):
            return f"{self.url!r} is not a ws://, wss://, http:// or https:// URL"
        if not parts.hostname:
            return f"{self.url!r} has no host"
        if parts.username is not None or parts.password is not None:
            return (
                "put no user name or password in the agent's URL: give a token "
                "in the config's `headers` or `token_env` instead"
            )
        if self.transport not in PROFILES:
            return f"transport must be one of {', '.join(PROFILES)}"
        if self.scheme in ("ws", "wss") and self.transport == "http":
            return f"{self.url}: transport = 'http' needs an http:// or https:// URL"
        if not self.encrypted and not self.insecure and not is_loopback(self.host):
            secure = "wss" if self.scheme == "ws" else "https"
            return (
                f"refusing plain {self.scheme}:// to {self.host}, which is not this "
                f"machine: the traffic (and any token) would cross the network "
                f"unencrypted. Use {secure}://, or pass --insecure if you accept that"
            )
        return None

    def websocket_url(self) -> str:
        """The URL of the WebSocket upgrade (http -> ws, https -> wss)."""
        parts = urlsplit(self.url)
        scheme = {"http": "ws", "https": "wss"}.get(parts.scheme.lower(), parts.scheme)
        return urlunsplit(parts._replace(scheme=scheme))

    def http_url(self) -> str:
        """The URL of Streamable HTTP (ws -> http, wss -> https)."""
        parts = urlsplit(self.url)
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme.lower(), parts.scheme)
        return urlunsplit(parts._replace(scheme=scheme))

    def request_headers(
        self, environ: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """The headers of every request, the token from `token_env` included.

        Raises:
            RemoteConnectError: `token_env` names a variable that is not set.
        """
        headers = dict(self.headers)
        if self.token_env:
            env = os.environ if environ is None else environ
            token = env.get(self.token_env, "")
            if not token:
                raise RemoteConnectError(
                    self.url,
                    "config",
                    f"the environment variable {self.token_env} (the agent's "
                    "token_env) is not set",
                )
            headers["Authorization"] = f"Bearer {token}"
        return headers


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def failure_from(url: str, error: BaseException) -> RemoteConnectError:
    """Classify an exception raised while connecting (through its causes)."""
    import socket
    import ssl

    for cause in _chain(error):
        if isinstance(cause, RemoteConnectError):
            return cause
        if isinstance(cause, ssl.SSLCertVerificationError):
            return RemoteConnectError(url, "tls", cause.verify_message or str(cause))
        if isinstance(cause, ssl.SSLError):
            return RemoteConnectError(url, "tls", cause.reason or str(cause))
        if isinstance(cause, ConnectionRefusedError):
            return RemoteConnectError(url, "refused", cause.strerror or str(cause))
        if isinstance(cause, socket.gaierror):
            return RemoteConnectError(
                url, "unreachable", f"cannot resolve the host ({cause.strerror})"
            )
        if isinstance(cause, TimeoutError):
            return RemoteConnectError(url, "timeout", "no answer in time")
    for cause in _chain(error):
        if isinstance(cause, OSError) and cause.strerror:
            return RemoteConnectError(url, "unreachable", cause.strerror)
    return RemoteConnectError(url, "protocol", str(error) or type(error).__name__)


def status_failure(url: str, status: int, detail: str = "") -> RemoteConnectError:
    """The error for an HTTP status that refuses the connection."""
    if status in (401, 403):
        return RemoteConnectError(url, "auth", detail, status=status)
    if status == 404:
        return RemoteConnectError(url, "not_found", detail, status=status)
    return RemoteConnectError(url, "http", detail or "unexpected", status=status)
