"""The real `acp-tui serve` against hostile and honest HTTP and WebSocket clients.

One server (the built-in demo agent) serves the whole module. A page on another
origin, which a browser lets open a WebSocket to 127.0.0.1, must get nothing: no
handshake, and no app process (textual-serve starts one per accepted WebSocket,
each with an agent acting as the user). The same holds without the per-launch
token, with a wrong one, and for a Host header that is not the server's (DNS
rebinding). The printed URL's token, on the page's origin, opens an app that
answers on the socket. Every wait is bounded.

aiohttp (textual-serve's own dependency) is the client: it sets any Origin and
Host header, as a hostile page's browser or a local program would.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.cookies import SimpleCookie
from typing import Final

import aiohttp
import anyio
import pytest

from tests.serve.running import (
    Served,
    isolated_environment,
    start_serve,
    stop_group,
)

pytestmark = pytest.mark.subprocess

APP_BOUND: Final = 60.0
"""Seconds for a served app to start and paint (it imports Textual, then the demo)."""
HTTP_BOUND: Final = 10.0

EVIL: Final = "https://evil.example"
WRONG_TOKEN: Final = "x" * 43


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("serve")
    server = start_serve(root / "project", isolated_environment(root))
    try:
        yield server
    finally:
        stop_group(server.process)


async def handshake_status(
    served: Served, *, query: str = "", headers: dict[str, str] | None = None
) -> int:
    """The HTTP status of a WebSocket handshake.

    101 once it opened and its app sent its first output (so the app process has
    started before the next test counts the server's children); then it closes.
    """
    with anyio.fail_after(APP_BOUND):
        async with aiohttp.ClientSession() as http:
            try:
                async with http.ws_connect(
                    served.ws_url + query, headers=headers or {}
                ) as socket:
                    message = await socket.receive()
                    assert message.type == aiohttp.WSMsgType.BINARY, served.log_tail()
                    return 101
            except aiohttp.WSServerHandshakeError as refused:
                return refused.status


async def get(
    served: Served, target: str, headers: dict[str, str] | None = None
) -> tuple[int, str, aiohttp.ClientResponse]:
    """GET `target` without following redirects: status, body, response."""
    with anyio.fail_after(HTTP_BOUND):
        async with (
            aiohttp.ClientSession() as http,
            http.get(
                f"{served.origin}{target}",
                headers=headers or {},
                allow_redirects=False,
            ) as response,
        ):
            return response.status, await response.text(), response


async def page_cookie(served: Served) -> str:
    """The `Cookie` header value the page sets after a load with the token."""
    status, _, response = await get(served, f"/?token={served.token}")
    assert status == 303
    cookie = SimpleCookie()
    for header in response.headers.getall("Set-Cookie"):
        cookie.load(header)
    [(name, morsel)] = cookie.items()
    return f"{name}={morsel.value}"


# --- refused: cross-origin, no token, wrong token, foreign Host ----------------


@pytest.mark.parametrize(
    "origin",
    [
        EVIL,
        "http://127.0.0.1:1",  # same site, another port: it would get the cookie
        "http://localhost.evil.example",
        "null",  # a sandboxed frame or a file:// page
    ],
)
async def test_a_cross_origin_websocket_is_refused(served: Served, origin: str) -> None:
    before = served.children()
    assert await handshake_status(served, headers={"Origin": origin}) == 403
    assert served.children() <= before, "a refused WebSocket started an app"


@pytest.mark.parametrize("carrier", ["query", "cookie"])
async def test_a_cross_origin_websocket_is_refused_even_with_the_token(
    served: Served, carrier: str
) -> None:
    if carrier == "query":
        query, headers = f"?token={served.token}", {"Origin": EVIL}
    else:
        query, headers = "", {"Origin": EVIL, "Cookie": await page_cookie(served)}
    before = served.children()
    assert await handshake_status(served, query=query, headers=headers) == 403
    assert served.children() <= before


@pytest.mark.parametrize(
    ("query", "origin"),
    [
        ("", None),
        ("", "page"),
        (f"?token={WRONG_TOKEN}", "page"),
        (f"?token={WRONG_TOKEN}", None),
        ("?token=", "page"),
        ("?token=%C3%A9t%C3%A9", "page"),  # not ASCII: refused, not a server error
    ],
)
async def test_a_websocket_without_the_right_token_is_refused(
    served: Served, query: str, origin: str | None
) -> None:
    headers = {} if origin is None else {"Origin": served.origin}
    before = served.children()
    assert await handshake_status(served, query=query, headers=headers) == 403
    assert served.children() <= before


async def test_a_foreign_host_is_refused_even_with_the_token(served: Served) -> None:
    """DNS rebinding: evil.example resolved to 127.0.0.1 for the attacker's page."""
    rebound = f"rebind.evil.example:{served.port}"
    status, body, _ = await get(
        served, f"/?token={served.token}", headers={"Host": rebound}
    )
    assert status == 403
    assert "Host" in body
    before = served.children()
    assert (
        await handshake_status(
            served,
            query=f"?token={served.token}",
            headers={"Host": rebound, "Origin": f"http://{rebound}"},
        )
        == 403
    )
    assert served.children() <= before


@pytest.mark.parametrize(
    "target", ["/", "/static/js/textual.js", "/static/", "/download/key", "/nowhere"]
)
async def test_every_path_needs_the_token(served: Served, target: str) -> None:
    status, body, response = await get(served, target)
    assert status == 403
    assert "token" in body
    assert response.content_type == "text/plain"
    assert "textual" not in body.lower()


# --- the honest way in -----------------------------------------------------------


def test_the_printed_url_carries_the_token(served: Served) -> None:
    url, token = served.printed_url()
    assert url == f"http://127.0.0.1:{served.port}/?token={token}"
    assert len(token) >= 43  # secrets.token_urlsafe(32)


async def test_the_page_trades_the_token_for_a_strict_cookie(served: Served) -> None:
    status, _, response = await get(served, f"/?token={served.token}&fontsize=18")
    assert status == 303
    assert response.headers["Location"] == "./?fontsize=18"  # no token in history
    [set_cookie] = response.headers.getall("Set-Cookie")
    attributes = {part.strip().lower() for part in set_cookie.split(";")}
    assert {"httponly", "samesite=strict", "path=/"} <= attributes
    assert response.headers["Referrer-Policy"] == "no-referrer"

    cookie = {"Cookie": await page_cookie(served)}
    status, page, response = await get(served, "/?fontsize=18", headers=cookie)
    assert status == 200
    assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws"' in page
    assert served.token not in page
    assert response.headers["Cache-Control"] == "no-store"
    status, script, _ = await get(served, "/static/js/textual.js", headers=cookie)
    assert status == 200
    assert "WebSocket" in script


async def test_the_token_on_the_page_origin_opens_an_app(served: Served) -> None:
    before = served.children()
    with anyio.fail_after(APP_BOUND):
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(
                f"{served.ws_url}?token={served.token}&width=100&height=30",
                headers={"Origin": served.origin},
            ) as socket,
        ):
            painted = b""
            while b"Message the agent" not in painted:
                message = await socket.receive()
                assert message.type == aiohttp.WSMsgType.BINARY, served.log_tail()
                painted += message.data
            assert served.children() - before, "no app process of its own"


async def test_the_cookie_on_the_page_origin_opens_an_app(served: Served) -> None:
    """What the page's own script does: no token in the URL, the cookie, its Origin."""
    headers = {"Origin": served.origin, "Cookie": await page_cookie(served)}
    assert await handshake_status(served, headers=headers) == 101


async def test_a_program_without_origin_gets_in_with_the_token(
    served: Served,
) -> None:
    """Browsers always send Origin on a WebSocket; a local program shows the token."""
    assert await handshake_status(served, query=f"?token={served.token}") == 101
