"""textual-serve's web server with `serve_guard` in front of every request.

textual-serve (1.1.x, aiohttp) serves the page at `/`, its scripts, styles and
fonts under `/static`, files the app delivers at `/download/{key}`, and at `/ws`
the WebSocket that starts one app process per connection. It checks no secret,
no Origin and no Host. `GuardedServer` subclasses its `Server` and keeps its
handlers, template and app processes, but builds the aiohttp application with
`ServeGuard` as the outermost middleware, so every request, on any route (one a
later textual-serve adds too), is judged before a handler runs: a refused
WebSocket never reaches the handler that starts an app.

Why a subclass around `Server._make_app` and not aiohttp middleware added from
outside or a server of our own: `Server.serve` builds its application inside,
with no hook to add middleware, and rewriting the page, the static files, the
download relay and the app-process protocol would copy textual-serve. So
`GuardedServer.serve` runs aiohttp itself on `await self._make_app()` plus the
guard: if `_make_app` ever went away, serving fails loudly with AttributeError
instead of running unguarded. pyproject caps textual-serve below 1.2, and
tests/serve/test_guarded_server.py fails if `_make_app`'s routes or the page's
WebSocket URL change.

Also here:

* the URL with the token is printed only once the socket listens, on its own
  line; textual-serve's banner (the URL without the token) is not printed;
* the access log names method, path (never the query, which may hold the
  token) and status, through `printable`, since request lines and headers come
  from anyone who can connect and must not reach the terminal as control codes;
* every response says `Referrer-Policy: no-referrer` (the page links a web
  font: the page URL must not travel with it), `X-Content-Type-Options:
  nosniff`, and must not be framed; all but static files are `no-store`.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import TextIO

from aiohttp import hdrs, web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.typedefs import Handler
from textual_serve.server import Server

from acp_tui.safe_text import printable
from acp_tui.ui.serve_guard import Allow, Asked, Redirect, Refuse, ServeGuard

__all__ = ["GuardedServer", "asked_of"]

log = logging.getLogger("acp_tui.serve")

SECURITY_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
}


def _one(request: web.BaseRequest, name: str) -> str | None:
    """A header's value; several values joined by commas, so they match nothing."""
    values = request.headers.getall(name, [])
    return ", ".join(values) if values else None


def asked_of(request: web.BaseRequest, cookie_name: str) -> Asked:
    """What the guard needs to know about `request`."""
    return Asked(
        method=request.method,
        path=request.path,
        query=tuple(request.query.items()),
        host=_one(request, hdrs.HOST),
        origin=_one(request, hdrs.ORIGIN),
        cookie=request.cookies.get(cookie_name),
    )


class _AccessLog(AbstractAccessLogger):
    """One line per request: client, method, path (no query), status."""

    def log(
        self, request: web.BaseRequest, response: web.StreamResponse, time: float
    ) -> None:
        self.logger.info(
            "%s %s %s %s",
            printable(request.remote or "-"),
            printable(request.method),
            printable(request.path),
            response.status,
        )


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if not request.path.startswith("/static/"):
        response.headers.setdefault(hdrs.CACHE_CONTROL, "no-store")


class GuardedServer(Server):
    """textual-serve's `Server`, refusing whatever `guard` does not allow."""

    def __init__(
        self,
        command: str,
        *,
        guard: ServeGuard,
        title: str,
        out: TextIO | None = None,
    ) -> None:
        super().__init__(
            command,
            host=guard.bind_host,
            port=guard.port,
            title=title,
            public_url=guard.public_url,
        )
        self.guard = guard
        self._out = out

    @web.middleware
    async def _judge(
        self, request: web.Request, handler: Handler
    ) -> web.StreamResponse:
        verdict = self.guard.check(asked_of(request, self.guard.cookie_name))
        if isinstance(verdict, Allow):
            return await handler(request)
        if isinstance(verdict, Refuse):
            log.warning(
                "refused %s %s (Host %s, Origin %s): %s",
                printable(request.method),
                printable(request.path),
                printable(_one(request, hdrs.HOST) or "-"),
                printable(_one(request, hdrs.ORIGIN) or "-"),
                verdict.why,
            )
            return web.Response(status=403, text=verdict.reason + "\n")
        return self._redirect(verdict)

    def _redirect(self, verdict: Redirect) -> web.StreamResponse:
        response = web.Response(status=303, headers={hdrs.LOCATION: verdict.location})
        if verdict.set_cookie:
            response.set_cookie(
                self.guard.cookie_name,
                self.guard.token,
                path="/",
                httponly=True,
                samesite="Strict",
                secure=self.guard.secure_cookie,
            )
        return response

    async def guarded_app(self) -> web.Application:
        """textual-serve's application with the guard in front of every route."""
        app = await self._make_app()
        app.middlewares.insert(0, self._judge)
        app.on_response_prepare.append(_security_headers)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Print nothing yet: `announce` prints the URL once the socket listens."""

    def announce(self, *_: object) -> None:
        """Print the URL to open (with the token), once the server listens."""
        out = self._out if self._out is not None else sys.stdout
        print(
            f"acp-tui serve: listening on {self.guard.public_url}\n"
            "Open this URL (the token in it is new each run; whoever has it gets "
            "an agent session as you):\n"
            f"  {self.guard.url}\n"
            "Press Ctrl+C to quit.",
            file=out,
            flush=True,
        )

    def serve(self, debug: bool = False) -> None:
        """Serve until SIGINT or SIGTERM.

        Raises:
            OSError: The address cannot be listened on.
        """
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self.request_exit)
        web.run_app(
            self.guarded_app(),
            host=self.host,
            port=self.port,
            handle_signals=False,
            loop=loop,
            print=self.announce,
            access_log_class=_AccessLog,
        )
