"""Who may use `acp-tui serve`: the per-launch token, the Host and the Origin.

Each WebSocket that textual-serve accepts starts an app, and so an agent, that
acts on this machine with the user's rights: whoever opens one can type prompts
and approve permission requests. Left open, a page on any origin (the browser
lets it open a WebSocket to 127.0.0.1), a DNS-rebound name, or another local
user would get exactly that. This module decides, for every request, whether it
is the user's own browser (or program) on the served address. It is pure and
stdlib only; `serve_server` applies it to every request before any handler runs.

Every request must pass, in this order (the first failure refuses it, 403):

1. Host: exactly one Host header naming one of the served addresses: the public
   URL's host and port; for a loopback or wildcard bind also 127.0.0.1,
   localhost and [::1] at the bound port; for another bind, that host. A
   DNS-rebinding page reaches us under its own name, so it is refused here.
2. Origin, when present: the public URL's origin, or `http://` plus this very
   Host (the page as served). `null` and any other origin are refused, even
   with the token. Browsers always send Origin on a WebSocket handshake, so a
   missing Origin means a program, not a web page: the cross-origin threat does
   not apply to it, and it must show the token like anyone else.
3. Token: a `token` query parameter, when given, must be the token (one value,
   compared with `hmac.compare_digest`); without one, the cookie must hold it.

A page load (`GET /`) with the right token in the query is answered with a
redirect to the same URL without it, setting an HttpOnly, SameSite=Strict,
Path=/ cookie (Secure for an https public URL): the token leaves the address
bar and history, reloads work, and the page's own script, which builds the
WebSocket URL itself, authenticates by the cookie. SameSite=Strict keeps the
cookie off every cross-site request; a page on another port of the same host
is same-site and would send it, which is why the Origin check holds even with
the token. The cookie's name carries the bound port, so two servers on one
host do not overwrite each other's. Without `--public-url`, a page load on a
loopback alias (localhost for 127.0.0.1, say) is first redirected to the public
URL, since the page's WebSocket URL names that host and a cookie is per host.

Invariants: the token is never logged, never put in the page, and never given
to the app process (it lives only in this process); everything that is not
allowed is refused, whatever the path (new textual-serve routes included).
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode, urlsplit

__all__ = [
    "TOKEN_PARAMETER",
    "Allow",
    "Asked",
    "Origin",
    "Redirect",
    "Refuse",
    "ServeGuard",
    "Verdict",
    "is_loopback",
    "new_token",
    "split_host",
]

TOKEN_PARAMETER: Final = "token"
"""The query parameter that carries the token."""

COOKIE_PREFIX: Final = "acp_tui_serve_"

LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "::1")
WILDCARDS: Final = frozenset({"", "0.0.0.0", "::"})

_HOST_CHARACTERS: Final = re.compile(r"[A-Za-z0-9._~\-:\[\]]+")

REFUSED_HOST: Final = (
    "acp-tui serve refused this request: its Host header is not this server's "
    "address. Open the URL that `acp-tui serve` printed."
)
REFUSED_ORIGIN: Final = (
    "acp-tui serve refused this request: a page on another origin may not use "
    "this server."
)
REFUSED_NO_TOKEN: Final = (
    "acp-tui serve refused this request: it needs the server's token. Open the "
    "URL with ?token=... that `acp-tui serve` printed."
)
REFUSED_WRONG_TOKEN: Final = (
    "acp-tui serve refused this request: wrong token. Open the URL that this "
    "run of `acp-tui serve` printed (each run has a new token)."
)


def new_token() -> str:
    """A fresh secret for one launch: 32 random bytes, URL-safe base64."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class Asked:
    """What the guard looks at in one HTTP request (a WebSocket handshake too).

    Header values are None when absent; a header given more than once arrives
    joined by commas, which never matches a served address or origin.
    """

    method: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    host: str | None = None
    origin: str | None = None
    cookie: str | None = None
    """The guard's own cookie (`ServeGuard.cookie_name`), if sent."""


@dataclass(frozen=True, slots=True)
class Allow:
    """Let the request through to textual-serve."""


@dataclass(frozen=True, slots=True)
class Refuse:
    """Answer 403 with `reason` (plain text, no secret in it)."""

    why: str
    """A few words for the server's log: `host`, `origin`, `no token`..."""
    reason: str


@dataclass(frozen=True, slots=True)
class Redirect:
    """Answer 303 to `location`, setting the token cookie if `set_cookie`."""

    location: str
    set_cookie: bool


Verdict = Allow | Refuse | Redirect


def _normal_host(host: str) -> str:
    """A host name lowercased, an IP address in its canonical spelling."""
    host = host.lower()
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host


def split_host(value: str, default_port: int) -> tuple[str, int] | None:
    """A Host header (`name`, `name:port`, `[v6]:port`) as (host, port).

    Returns:
        None for anything else: user info, a path, stray characters, a bad port.
    """
    if not _HOST_CHARACTERS.fullmatch(value):
        return None
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not host or parts.path or parts.username is not None:
        return None
    return _normal_host(host), default_port if port is None else port


@dataclass(frozen=True, slots=True)
class Origin:
    """A web origin: scheme, host and port (the default port filled in)."""

    scheme: str
    host: str
    port: int

    @classmethod
    def parse(cls, value: str) -> Origin | None:
        """An http(s) `Origin` header (`scheme://host[:port]`, no path), or None."""
        scheme, _, rest = value.partition("://")
        scheme = scheme.lower()
        if scheme not in ("http", "https"):
            return None
        address = split_host(rest, 443 if scheme == "https" else 80)
        if address is None:
            return None
        return cls(scheme, *address)


@dataclass(frozen=True, slots=True)
class ServeGuard:
    """The served address and the token of one `acp-tui serve` launch.

    Build it with `ServeGuard.create`; `check` judges each request.
    """

    token: str
    bind_host: str
    """The address the server listens on."""
    port: int
    """The port the server listens on."""
    public_url: str
    """The URL browsers reach the server at, without a trailing slash."""
    public: Origin
    """The public URL's origin."""
    hosts: frozenset[tuple[str, int]]
    """The (host, port) pairs a Host header may name."""
    canonical: bool
    """Whether a page load on another served host is sent to the public URL."""

    @classmethod
    def create(
        cls,
        host: str,
        port: int,
        public_url: str | None = None,
        token: str | None = None,
    ) -> ServeGuard:
        """The guard for a server bound to `host:port`.

        Args:
            host: The address to listen on (a wildcard such as 0.0.0.0 too).
            port: The TCP port to listen on.
            public_url: The URL browsers use when it is not the bound address
                (behind a proxy): http or https, a host, maybe a path prefix.
            token: The secret (default: a fresh `new_token()`).

        Raises:
            ValueError: `host` is not a host, or `public_url` is not an http(s)
                URL with a host, or has a query or fragment.
        """
        bind = _normal_host(host.strip("[]"))
        bind_netloc = f"[{bind}]" if ":" in bind else bind
        if bind not in WILDCARDS and split_host(bind_netloc, port) is None:
            raise ValueError(f"--host {host!r} is not a host name or address")
        if public_url is None:
            netloc = bind_netloc
            if bind in WILDCARDS:
                netloc = "[::1]" if bind == "::" else "127.0.0.1"
            url = f"http://{netloc}:{port}"
        else:
            url = public_url.rstrip("/")
        try:
            parts = urlsplit(url)
        except ValueError:
            parts = urlsplit("")
        origin = Origin.parse(f"{parts.scheme}://{parts.netloc}")
        if origin is None or parts.query or parts.fragment:
            raise ValueError(
                f"--public-url {public_url!r} is not an http:// or https:// URL "
                "with a host (and maybe a path), without query or user"
            )
        hosts = {(origin.host, origin.port)}
        if bind in WILDCARDS or is_loopback(bind):
            hosts |= {(_normal_host(name), port) for name in LOOPBACK_NAMES}
        if bind not in WILDCARDS:
            hosts.add((bind, port))
        return cls(
            token=new_token() if token is None else token,
            bind_host=host,
            port=port,
            public_url=url,
            public=origin,
            hosts=frozenset(hosts),
            canonical=public_url is None,
        )

    @property
    def url(self) -> str:
        """The URL to open: the page, with the token."""
        return f"{self.public_url}/?{urlencode({TOKEN_PARAMETER: self.token})}"

    @property
    def cookie_name(self) -> str:
        """The name of the cookie that carries the token (per bound port)."""
        return f"{COOKIE_PREFIX}{self.port}"

    @property
    def secure_cookie(self) -> bool:
        """Whether the cookie is Secure (an https public URL)."""
        return self.public.scheme == "https"

    def matches(self, candidate: str) -> bool:
        """Whether `candidate` is the token, in time independent of where it differs."""
        given = candidate.encode("utf-8", "replace")
        return hmac.compare_digest(given, self.token.encode("utf-8"))

    def check(self, asked: Asked) -> Verdict:
        """Whether and how to answer `asked` (see the module docstring)."""
        # A Host without a port: the public URL's default (the proxy's, say).
        default_port = 443 if self.public.scheme == "https" else 80
        host = None if asked.host is None else split_host(asked.host, default_port)
        if host is None or host not in self.hosts:
            return Refuse("host", REFUSED_HOST)
        if asked.origin is not None and not self._same_origin(asked.origin, host):
            return Refuse("origin", REFUSED_ORIGIN)
        page = asked.method in ("GET", "HEAD") and asked.path == "/"
        public_host = (self.public.host, self.public.port)
        if page and self.canonical and host != public_host:
            query = urlencode(asked.query)
            return Redirect(
                f"{self.public_url}/" + (f"?{query}" if query else ""),
                set_cookie=False,
            )
        given = [value for name, value in asked.query if name == TOKEN_PARAMETER]
        if given:
            if len(given) != 1 or not self.matches(given[0]):
                return Refuse("wrong token", REFUSED_WRONG_TOKEN)
            if page:
                rest = urlencode(
                    [(k, v) for k, v in asked.query if k != TOKEN_PARAMETER]
                )
                return Redirect("./" + (f"?{rest}" if rest else ""), set_cookie=True)
            return Allow()
        if asked.cookie is None:
            return Refuse("no token", REFUSED_NO_TOKEN)
        if not self.matches(asked.cookie):
            return Refuse("wrong token", REFUSED_WRONG_TOKEN)
        return Allow()

    def _same_origin(self, value: str, host: tuple[str, int]) -> bool:
        origin = Origin.parse(value)
        if origin is None:
            return False
        if origin == self.public:
            return True
        return origin.scheme == "http" and (origin.host, origin.port) == host


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address) is this machine's loopback only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
