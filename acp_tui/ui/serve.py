"""`acp-tui serve`: the app in a web browser, through textual-serve (an optional extra).

textual-serve is a small web server: each browser that opens the page gets a
websocket and a fresh app process of its own, started from a shell command line
with Textual's web driver, and xterm.js in the page draws what the app paints.
This module builds that command line (`served_argv`: the same `acp-tui` app, run
by the same Python as this process, with the connection options passed through)
and runs the server (`serve`).

Invariants:

* `textual_serve` (through `serve_server`) is imported only inside `serve`, so
  the rest of acp-tui works without the extra; without it, `serve` prints how to
  install it and returns 2.
* The command line is built with `shlex.join`, so paths and agent command lines
  with spaces or quotes reach the app unchanged.
* Every browser connection runs its own app and so its own agent process, in the
  server's environment: it acts on this machine with the user's rights. So every
  request must carry a token made for this launch and come from the served
  address, whatever the host (`serve_guard`, applied by `serve_server`); the
  token is printed in the URL to open and never given to the app process. The
  host defaults to 127.0.0.1; any other host gets a warning.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from acp_tui.ui.serve_defaults import DEFAULT_HOST, DEFAULT_PORT
from acp_tui.ui.serve_guard import ServeGuard, is_loopback

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "EXIT_SERVE_FAILED",
    "INSTALL_HINT",
    "ServedApp",
    "serve",
    "served_argv",
    "served_command",
]

EXIT_SERVE_FAILED: Final = 2
"""The exit status when the extra is missing or the server cannot start."""

INSTALL_HINT: Final = (
    "acp-tui serve needs the optional extra `serve` (textual-serve): install it "
    "with `uv sync --extra serve` in a checkout, or `pip install 'acp-tui[serve]'`"
)


@dataclass(frozen=True, slots=True)
class ServedApp:
    """The options each served app process starts with (None: not passed)."""

    agent: str | None = None
    protocol: str | None = None
    cwd: Path | None = None
    init_timeout: float | None = None
    session: str | None = None
    sessions: bool = False
    theme: str | None = None
    record: Path | None = None
    additional_directories: tuple[Path, ...] = ()


def served_argv(app: ServedApp, python: str | None = None) -> list[str]:
    """The argument vector of one served app: `python -m acp_tui` and its options.

    Args:
        app: The options to pass through.
        python: The interpreter (default: this one, `sys.executable`).

    Returns:
        The argument vector; paths are made absolute, since the app process
        starts in the server's working directory.
    """
    sessions = ["--sessions"] if app.sessions else _option("--session", app.session)
    return [
        python or sys.executable,
        "-m",
        "acp_tui",
        *_option("--agent", app.agent),
        *_option("--protocol", app.protocol),
        *_option("--cwd", _absolute(app.cwd)),
        *(
            word
            for directory in app.additional_directories
            for word in ("--add-dir", str(directory.absolute()))
        ),
        *_option("--init-timeout", _repr(app.init_timeout)),
        *sessions,
        *_option("--theme", app.theme),
        *_option("--record", _absolute(app.record)),
    ]


def _option(name: str, value: str | None) -> list[str]:
    """`name value`, or nothing when the value is not given (None)."""
    return [] if value is None else [name, value]


def _absolute(path: Path | None) -> str | None:
    return None if path is None else str(path.absolute())


def _repr(value: float | None) -> str | None:
    return None if value is None else repr(value)


def served_command(app: ServedApp, python: str | None = None) -> str:
    """`served_argv` as the shell command line textual-serve runs."""
    return shlex.join(served_argv(app, python))


def serve(
    command: str,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    public_url: str | None = None,
    title: str = "acp-tui",
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Serve the app that `command` starts until interrupted (Ctrl+C or SIGTERM).

    Every request must carry this launch's token and come from the served
    address (`serve_guard`); the URL to open, with the token, goes to `stdout`
    once the server listens.

    Args:
        command: The shell command line of one app process (`served_command`).
        host: The address to listen on.
        port: The TCP port to listen on.
        public_url: The URL browsers reach the server at, when it differs from
            `http://host:port` (behind a proxy, say).
        title: The page's title.
        stdout: Where the URL goes (default: `sys.stdout`).
        stderr: Where messages go (default: `sys.stderr`).

    Returns:
        0 once the server stops, or `EXIT_SERVE_FAILED` if textual-serve is not
        installed, `public_url` is not a usable URL, or the server cannot listen.
    """
    err = stderr if stderr is not None else sys.stderr
    try:
        guard = ServeGuard.create(host, port, public_url)
    except ValueError as error:
        print(f"acp-tui: {error}", file=err)
        return EXIT_SERVE_FAILED
    try:
        from acp_tui.ui.serve_server import GuardedServer
    except ImportError:
        print(f"acp-tui: {INSTALL_HINT}", file=err)
        return EXIT_SERVE_FAILED
    if not is_loopback(guard.bind_host.strip("[]")):
        print(
            f"acp-tui: warning: serving on {host}: anyone who can reach it and has "
            "the URL with its token gets an agent session on this machine, with "
            "your rights; plain http shows the token to anyone on the way "
            "(put TLS in front, and pass --public-url)",
            file=err,
        )
    server = GuardedServer(command, guard=guard, title=title, out=stdout)
    try:
        server.serve()
    except OSError as error:
        print(f"acp-tui: cannot serve on {host}:{port}: {error}", file=err)
        return EXIT_SERVE_FAILED
    return 0
