"""`acp-tui bridge`'s launcher: checks, the listening socket, uvicorn.

Uvicorn handles SIGINT and SIGTERM: it stops accepting, closes the WebSockets,
and the app's lifespan then ends every connection; each agent's process group
gets the transport's bounded shutdown (all at once, so the whole stop is bounded
by one agent's worst case, under ten seconds).
"""

from __future__ import annotations

import logging
import secrets
import shlex
import socket
import sys
from typing import Final, TextIO

from acp_tui.bridge.options import BridgeOptions, is_loopback

__all__ = ["EXIT_OK", "EXIT_USAGE", "run_bridge"]

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2

GRACEFUL_SHUTDOWN_TIMEOUT: Final = 2
"""Seconds uvicorn waits for open requests (SSE streams) before cancelling them."""

WS_PING_INTERVAL: Final = 20.0
"""Seconds between WebSocket pings (a half-open client is found within twice this)."""


def check_listen(options: BridgeOptions, allow_remote: bool) -> str | None:
    """Why the bridge must not listen where asked, or None."""
    if not allow_remote and not is_loopback(options.host):
        return (
            f"--listen {options.host}: not a loopback address; anyone who can reach "
            "it and has the token gets an agent on this machine. Add --allow-remote "
            "if you mean it (and put TLS in front: see the README)"
        )
    return None


def client_command(
    options: BridgeOptions, shown: str, port: int, token_generated: bool
) -> str:
    """A ready-to-paste `acp-tui` command line that connects to this bridge.

    The token goes in `ACP_TUI_REMOTE_TOKEN` (`client.remote_agents`); one the
    user gave is not repeated. A wildcard address is shown as loopback.
    """
    if options.host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    token = shlex.quote(options.token) if token_generated else "<your token>"
    return f"ACP_TUI_REMOTE_TOKEN={token} acp-tui --agent http://{shown}:{port}/acp"


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(False)
    return sock


def run_bridge(
    options: BridgeOptions,
    *,
    allow_remote: bool,
    token_generated: bool,
    out: TextIO | None = None,
) -> int:
    """Serve until stopped; the exit status."""
    out = out if out is not None else sys.stdout
    problem = check_listen(options, allow_remote)
    if problem is not None:
        print(f"acp-tui bridge: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        import uvicorn

        from acp_tui.bridge.asgi import build_app
    except ImportError as error:
        print(
            f"acp-tui bridge: needs the `remote` extra ({error.name} is missing): "
            "pip install 'acp-tui[remote]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        sock = _bind(options.host, options.port)
    except OSError as error:
        print(
            f"acp-tui bridge: cannot listen on {options.host}:{options.port}: "
            f"{error.strerror or error}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("acp-tui bridge: %(message)s"))
    bridge_log = logging.getLogger("acp_tui.bridge")
    bridge_log.addHandler(handler)
    bridge_log.setLevel(logging.INFO)
    bridge_log.propagate = False
    port = sock.getsockname()[1]
    shown = f"[{options.host}]" if ":" in options.host else options.host
    instance = secrets.token_hex(6)
    app = build_app(options, instance)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        ws="websockets-sansio",
        ws_max_size=options.max_message_bytes,
        ws_ping_interval=WS_PING_INTERVAL,
        ws_ping_timeout=WS_PING_INTERVAL,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_TIMEOUT,
        server_header=False,
    )
    server = uvicorn.Server(config)
    print(
        f"acp-tui bridge: serving {options.command.display()} at "
        f"http://{shown}:{port}/acp (WebSocket: ws://{shown}:{port}/acp)",
        file=out,
    )
    if token_generated:
        print(f"acp-tui bridge: token: {options.token}", file=out)
    else:
        print(
            "acp-tui bridge: token: as given (--token or ACP_TUI_BRIDGE_TOKEN)",
            file=out,
        )
    paste = client_command(options, shown, port, token_generated)
    print(f"acp-tui bridge: connect with: {paste}", file=out)
    out.flush()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return EXIT_OK
