"""`GuardedServer` in process: textual-serve's own routes, behind the guard.

`GuardedServer` relies on three details of textual-serve 1.1 (pyproject caps it
below 1.2): `Server._make_app()` builds the aiohttp application with the routes
listed here; the page's WebSocket URL is built from the `public_url` given to
`Server`; each accepted WebSocket makes a `textual_serve.server.AppService`,
which starts the app process. The first tests fail loudly if any of that
changes. The app process is replaced by a recorder here (the real one is
started in test_server.py), so a refused WebSocket can be seen never to reach
it. The access log and the refusal log are checked for the token and for
control codes.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any, ClassVar, Final

import aiohttp
import anyio
import pytest
import textual_serve.server
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer, make_mocked_request
from textual_serve.server import Server

from acp_tui.ui import serve_server
from acp_tui.ui.serve_guard import ServeGuard
from acp_tui.ui.serve_server import GuardedServer
from tests.serve.running import free_port

TOKEN: Final = "T0ken-of-this-launch_0123456789abcdefghijklmn"
BOUND: Final = 10.0


class RecordedApp:
    """Stands in for `textual_serve.app_service.AppService`: paints one frame."""

    made: ClassVar[list[RecordedApp]] = []

    def __init__(
        self,
        command: str,
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        **_: Any,
    ) -> None:
        self.command = command
        self.write_bytes = write_bytes
        self.started: tuple[int, int] | None = None
        RecordedApp.made.append(self)

    async def start(self, width: int, height: int) -> None:
        self.started = (width, height)
        await self.write_bytes(b"painted")

    async def stop(self) -> None:
        pass

    async def send_bytes(self, data: bytes) -> bool:
        return True

    async def set_terminal_size(self, width: int, height: int) -> None:
        pass


@dataclass
class Running:
    client: TestClient[web.Request, web.Application]
    guard: ServeGuard

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.guard.port}"


@pytest.fixture
async def running(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Running]:
    RecordedApp.made = []
    monkeypatch.setattr(textual_serve.server, "AppService", RecordedApp)
    port = free_port()
    guard = ServeGuard.create("127.0.0.1", port, token=TOKEN)
    server = GuardedServer("the app command", guard=guard, title="acp-tui: test")
    app = await server.guarded_app()
    async with TestClient(TestServer(app, port=port)) as client:
        yield Running(client, guard)


async def handshake(
    running: Running, query: str = "", headers: dict[str, str] | None = None
) -> int | bytes:
    """The refused handshake's status, or the first bytes of the accepted app."""
    with anyio.fail_after(BOUND):
        try:
            async with running.client.ws_connect(
                f"/ws{query}", headers=headers or {}
            ) as socket:
                message = await socket.receive()
                assert message.type == aiohttp.WSMsgType.BINARY
                data: bytes = message.data
                return data
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status


# --- what is relied upon in textual-serve ------------------------------------------


async def test_textual_serve_is_the_version_the_guard_was_written_for() -> None:
    major, minor = (int(part) for part in version("textual-serve").split(".")[:2])
    assert (major, minor) == (1, 1), "review serve_server.py for this textual-serve"


async def test_make_app_builds_the_routes_the_guard_covers() -> None:
    app = await Server("cmd", port=1)._make_app()
    routes = {
        (route.method, route.resource.canonical)
        for route in app.router.routes()
        if route.resource is not None
    }
    assert routes == {
        (method, path)
        for method in ("GET", "HEAD")
        for path in ("/", "/ws", "/download/{key}", "/static")
    }
    assert list(app.middlewares) == []


async def test_the_guard_is_in_front_of_every_route(running: Running) -> None:
    app = running.client.app
    assert app is not None
    [judge] = app.middlewares
    assert judge.__self__.guard is running.guard  # type: ignore[attr-defined]


async def test_the_page_websocket_url_is_the_public_url(running: Running) -> None:
    cookie = {"Cookie": f"{running.guard.cookie_name}={TOKEN}"}
    response = await running.client.get("/", headers=cookie)
    assert response.status == 200
    page = await response.text()
    port = running.guard.port
    assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
    assert TOKEN not in page


async def test_behind_a_proxy_the_page_names_the_public_websocket_url() -> None:
    port = free_port()
    guard = ServeGuard.create("127.0.0.1", port, "https://tui.example/acp/", TOKEN)
    app = await GuardedServer("cmd", guard=guard, title="t").guarded_app()
    async with TestClient(TestServer(app, port=port)) as client:
        response = await client.get(
            "/",
            headers={"Host": "tui.example", "Cookie": f"{guard.cookie_name}={TOKEN}"},
        )
        assert response.status == 200
        page = await response.text()
    assert 'data-session-websocket-url="wss://tui.example/acp/ws"' in page
    assert 'href="https://tui.example/acp/static/css/xterm.css"' in page


# --- the WebSocket: refused ones never start an app ---------------------------------


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        (f"?token={TOKEN}", {"Origin": "https://evil.example"}),
        ("", {"Origin": "http://127.0.0.1:1", "Cookie": "acp_tui_serve_1=x"}),
        ("", {}),
        ("?token=wrong", {}),
        (f"?token={TOKEN}", {"Host": "rebind.evil.example"}),
    ],
)
async def test_a_refused_websocket_never_starts_an_app(
    running: Running, query: str, headers: dict[str, str]
) -> None:
    if "Cookie" in headers:  # the same-site page has the real cookie
        headers["Cookie"] = f"{running.guard.cookie_name}={TOKEN}"
    assert await handshake(running, query, headers) == 403
    assert RecordedApp.made == []


async def test_an_allowed_websocket_starts_one_app(running: Running) -> None:
    cookie = f"{running.guard.cookie_name}={TOKEN}"
    headers = {"Origin": running.origin, "Cookie": cookie}
    assert await handshake(running, "?width=100&height=30", headers) == b"painted"
    [app] = RecordedApp.made
    assert app.command == "the app command"
    assert app.started == (100, 30)


async def test_responses_say_no_referrer_no_framing_no_store(running: Running) -> None:
    for target in ("/", f"/?token={TOKEN}"):
        response = await running.client.get(target, allow_redirects=False)
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Content-Security-Policy"] == "frame-ancestors 'none'"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Cache-Control"] == "no-store"


async def test_an_https_public_url_makes_a_secure_cookie() -> None:
    port = free_port()
    guard = ServeGuard.create("127.0.0.1", port, "https://tui.example", token=TOKEN)
    app = await GuardedServer("cmd", guard=guard, title="t").guarded_app()
    async with TestClient(TestServer(app, port=port)) as client:
        response = await client.get(
            f"/?token={TOKEN}",
            headers={"Host": "tui.example"},
            allow_redirects=False,
        )
        assert response.status == 303
        [cookie] = response.headers.getall("Set-Cookie")
        assert "Secure" in cookie
        assert f"{guard.cookie_name}={TOKEN}" in cookie


# --- what reaches the terminal ------------------------------------------------------


def test_the_access_log_shows_neither_the_token_nor_control_codes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("test.access")
    request = make_mocked_request("GET", f"/%1B%5D0%3Bpwned%07?token={TOKEN}")
    with caplog.at_level(logging.INFO, logger="test.access"):
        serve_server._AccessLog(logger, "").log(request, web.Response(), 0.0)
    [record] = caplog.records
    line = record.getMessage()
    assert TOKEN not in line
    assert "\x1b" not in line
    assert "\x07" not in line
    assert "GET /\\x1b]0;pwned\\x07 200" in line


async def test_a_refusal_is_logged_without_control_codes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    guard = ServeGuard.create("127.0.0.1", 8000, token=TOKEN)
    server = GuardedServer("cmd", guard=guard, title="t")
    request = make_mocked_request(
        "GET",
        "/ws",
        headers={"Host": "127.0.0.1:8000", "Origin": "http://\x1b[2J\u009b31m"},
    )

    async def unreachable(request: web.Request) -> web.StreamResponse:
        raise AssertionError("a refused request reached the handler")

    with caplog.at_level(logging.WARNING, logger="acp_tui.serve"):
        response = await server._judge(request, unreachable)
    assert response.status == 403
    [record] = caplog.records
    line = record.getMessage()
    assert "\x1b" not in line
    assert "\u009b" not in line
    assert line.endswith(": origin")
