"""`ServeGuard`: which requests `acp-tui serve` lets through, redirects or refuses.

Pure decisions, no server: the Host header (DNS rebinding), the Origin (a page
on another origin, even holding the token), the token in the query or the
cookie, the redirect that trades the token for the cookie, and the addresses a
bind and a public URL allow. tests/serve/test_server.py checks the same against
the real server process.
"""

from __future__ import annotations

import pytest

from acp_tui.ui.serve_guard import (
    Allow,
    Asked,
    Redirect,
    Refuse,
    ServeGuard,
    is_loopback,
    new_token,
)

TOKEN = "T0ken-of-this-launch_0123456789abcdefghijklmn"
HOST = "127.0.0.1:8000"
PAGE_ORIGIN = "http://127.0.0.1:8000"


@pytest.fixture
def guard() -> ServeGuard:
    return ServeGuard.create("127.0.0.1", 8000, token=TOKEN)


def ws(
    *,
    host: str | None = HOST,
    origin: str | None = PAGE_ORIGIN,
    query: tuple[tuple[str, str], ...] = (("token", TOKEN),),
    cookie: str | None = None,
) -> Asked:
    return Asked("GET", "/ws", query=query, host=host, origin=origin, cookie=cookie)


def refused_why(verdict: object) -> str:
    assert isinstance(verdict, Refuse), verdict
    assert TOKEN not in verdict.reason
    return verdict.why


# --- the launch ------------------------------------------------------------------


def test_a_loopback_launch(guard: ServeGuard) -> None:
    assert guard.public_url == "http://127.0.0.1:8000"
    assert guard.url == f"http://127.0.0.1:8000/?token={TOKEN}"
    assert guard.hosts == {
        ("127.0.0.1", 8000),
        ("localhost", 8000),
        ("::1", 8000),
    }
    assert guard.cookie_name == "acp_tui_serve_8000"
    assert not guard.secure_cookie
    assert guard.canonical


def test_each_launch_has_a_new_unguessable_token() -> None:
    tokens = {ServeGuard.create("127.0.0.1", 8000).token for _ in range(20)}
    assert len(tokens) == 20
    for token in tokens:
        assert len(token) >= 43  # 32 random bytes
        assert token.replace("-", "").replace("_", "").isalnum()
    assert new_token() not in tokens


# --- Host: DNS rebinding and other names -----------------------------------------


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000", "[::1]:8000"]
)
def test_the_served_host_is_allowed(guard: ServeGuard, host: str) -> None:
    assert guard.check(ws(host=host, origin=None)) == Allow()


@pytest.mark.parametrize(
    "host",
    [
        None,
        "",
        "rebind.evil.example:8000",  # DNS rebinding: the attacker's name, our address
        "127.0.0.1.nip.io:8000",
        "localhost.:8000",
        "127.0.0.1",  # port 80
        "127.0.0.1:8001",
        "127.0.0.1:99999",
        "127.0.0.1:80x",
        "user@127.0.0.1:8000",
        "127.0.0.1:8000/ws",
        "127.0.0.1:80\t00",
        "127.0.0.1:8000, evil.example:8000",  # two Host headers
        "[::1:8000",
        "10.0.0.5:8000",
    ],
)
def test_any_other_host_is_refused_even_with_the_token(
    guard: ServeGuard, host: str | None
) -> None:
    assert refused_why(guard.check(ws(host=host, origin=None))) == "host"
    page = Asked("GET", "/", query=(("token", TOKEN),), host=host)
    assert refused_why(guard.check(page)) == "host"


# --- Origin ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example",
        "http://evil.example:8000",
        "http://127.0.0.1:8001",  # same site (it has the cookie), another origin
        "https://127.0.0.1:8000",
        "http://localhost:8000",  # not the host this request came to
        "null",
        "",
        "file://",
        "http://127.0.0.1:8000/path",
        "http://127.0.0.1:8000, https://evil.example",  # two Origin headers
    ],
)
@pytest.mark.parametrize("carrier", ["query", "cookie"])
def test_a_foreign_origin_is_refused_even_with_the_token(
    guard: ServeGuard, origin: str, carrier: str
) -> None:
    if carrier == "query":
        asked = ws(origin=origin)
    else:
        asked = ws(origin=origin, query=(), cookie=TOKEN)
    assert refused_why(guard.check(asked)) == "origin"


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("127.0.0.1:8000", "HTTP://127.0.0.1:8000"),
        ("localhost:8000", "http://localhost:8000"),
        ("[::1]:8000", "http://[::1]:8000"),
        ("[::1]:8000", "http://[0:0:0:0:0:0:0:1]:8000"),
    ],
)
def test_the_page_origin_is_allowed(guard: ServeGuard, host: str, origin: str) -> None:
    assert guard.check(ws(host=host, origin=origin)) == Allow()
    assert guard.check(ws(host=host, origin=origin, query=(), cookie=TOKEN)) == Allow()


def test_a_program_without_origin_still_needs_the_token(guard: ServeGuard) -> None:
    assert guard.check(ws(origin=None)) == Allow()
    assert refused_why(guard.check(ws(origin=None, query=()))) == "no token"


# --- the token ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "cookie", "why"),
    [
        ((), None, "no token"),
        ((("token", ""),), None, "wrong token"),
        ((("token", TOKEN[:-1]),), None, "wrong token"),
        ((("token", TOKEN + "x"),), None, "wrong token"),
        ((("token", "été"),), None, "wrong token"),  # not ASCII: no TypeError
        ((("token", TOKEN), ("token", TOKEN)), None, "wrong token"),
        ((("token", "wrong"),), TOKEN, "wrong token"),  # a wrong query is not saved
        ((), "wrong", "wrong token"),
        ((), "", "wrong token"),
        ((("tok", TOKEN),), None, "no token"),
    ],
)
def test_without_the_right_token_everything_is_refused(
    guard: ServeGuard,
    query: tuple[tuple[str, str], ...],
    cookie: str | None,
    why: str,
) -> None:
    for path in ("/", "/ws", "/static/js/textual.js", "/download/k", "/other"):
        asked = Asked("GET", path, query=query, host=HOST, cookie=cookie)
        assert refused_why(guard.check(asked)) == why, path


@pytest.mark.parametrize("path", ["/ws", "/static/js/textual.js", "/download/k"])
def test_the_token_or_the_cookie_lets_a_request_through(
    guard: ServeGuard, path: str
) -> None:
    assert guard.check(Asked("GET", path, query=(("token", TOKEN),), host=HOST)) == (
        Allow()
    )
    assert guard.check(Asked("GET", path, host=HOST, cookie=TOKEN)) == Allow()


def test_the_page_trades_the_token_for_the_cookie(guard: ServeGuard) -> None:
    query = (("fontsize", "18"), ("token", TOKEN), ("delay", "1"))
    assert guard.check(Asked("GET", "/", query=query, host=HOST)) == Redirect(
        "./?fontsize=18&delay=1", set_cookie=True
    )
    assert guard.check(Asked("GET", "/", query=(("token", TOKEN),), host=HOST)) == (
        Redirect("./", set_cookie=True)
    )
    assert guard.check(Asked("GET", "/", host=HOST, cookie=TOKEN)) == Allow()


def test_a_page_load_on_a_loopback_alias_goes_to_the_printed_address(
    guard: ServeGuard,
) -> None:
    """The page's WebSocket URL names 127.0.0.1, and a cookie is per host."""
    asked = Asked(
        "GET", "/", query=(("token", TOKEN), ("a", "b c")), host="localhost:8000"
    )
    assert guard.check(asked) == Redirect(
        f"http://127.0.0.1:8000/?token={TOKEN}&a=b+c", set_cookie=False
    )
    # Only a page load; a program's WebSocket there is fine.
    assert guard.check(ws(host="localhost:8000", origin=None)) == Allow()


# --- binds and public URLs -----------------------------------------------------------


def test_behind_a_proxy_the_public_origin_is_the_page(guard: ServeGuard) -> None:
    proxied = ServeGuard.create(
        "127.0.0.1", 8000, "https://tui.example/acp/", token=TOKEN
    )
    assert proxied.public_url == "https://tui.example/acp"
    assert proxied.url == f"https://tui.example/acp/?token={TOKEN}"
    assert proxied.secure_cookie
    assert not proxied.canonical
    origin = "https://tui.example"
    # The proxy kept the Host, or rewrote it to the bound address.
    for host in ("tui.example", "127.0.0.1:8000"):
        assert proxied.check(ws(host=host, origin=origin)) == Allow()
        page = Asked("GET", "/", query=(("token", TOKEN),), host=host)
        assert proxied.check(page) == Redirect("./", set_cookie=True)
    assert refused_why(proxied.check(ws(host="tui.example:8443", origin=None))) == (
        "host"
    )
    assert refused_why(proxied.check(ws(origin="http://tui.example"))) == "origin"


@pytest.mark.parametrize("bind", ["0.0.0.0", "::"])
def test_a_wildcard_bind_serves_loopback_until_given_a_public_url(bind: str) -> None:
    guard = ServeGuard.create(bind, 8000, token=TOKEN)
    assert guard.public_url == (
        "http://[::1]:8000" if bind == "::" else "http://127.0.0.1:8000"
    )
    assert refused_why(guard.check(ws(host="192.168.1.5:8000", origin=None))) == (
        "host"
    )
    lan = ServeGuard.create(bind, 8000, "http://192.168.1.5:8000", token=TOKEN)
    assert lan.check(ws(host="192.168.1.5:8000", origin="http://192.168.1.5:8000")) == (
        Allow()
    )
    assert lan.check(ws(origin=None)) == Allow()


def test_a_bind_to_one_address_serves_that_address() -> None:
    guard = ServeGuard.create("192.168.1.5", 9000, token=TOKEN)
    assert guard.public_url == "http://192.168.1.5:9000"
    assert guard.hosts == {("192.168.1.5", 9000)}
    v6 = ServeGuard.create("::1", 9000, token=TOKEN)
    assert v6.public_url == "http://[::1]:9000"
    assert ("127.0.0.1", 9000) in v6.hosts


@pytest.mark.parametrize(
    "url",
    [
        "tui.example",
        "ftp://tui.example",
        "https://",
        "https://tui.example/?a=1",
        "https://tui.example/#top",
        "https://user@tui.example",
        "https://tui.example:http",
        "https://[::1",
    ],
)
def test_a_bad_public_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="--public-url"):
        ServeGuard.create("127.0.0.1", 8000, url)


@pytest.mark.parametrize("host", ["bad host", "a/b", "user@host", "h:1"])
def test_a_bad_bind_host_is_refused(host: str) -> None:
    with pytest.raises(ValueError, match="--host"):
        ServeGuard.create(host, 8000)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.org", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
