"""The bridge's settings, and the checks made before anything listens."""

from __future__ import annotations

import ipaddress
import os
import secrets
from dataclasses import dataclass
from typing import Final

from acp_tui.protocol.transport import AgentCommand

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "TOKEN_ENV",
    "BridgeOptions",
    "is_loopback",
    "parse_listen",
    "resolve_token",
]

DEFAULT_GRACE: Final = 60.0
"""Seconds a connection's agent outlives a dropped client (to be resumed)."""

DEFAULT_MAX_CONNECTIONS: Final = 8
"""Connections (so agent processes) served at once, those in a grace period too."""

DEFAULT_MAX_MESSAGE_BYTES: Final = 64 * 1024 * 1024
"""Largest message either way: a POST body, a WebSocket message, an agent line."""

TOKEN_ENV: Final = "ACP_TUI_BRIDGE_TOKEN"
"""The environment variable that may hold the bearer token."""

MIN_TOKEN_CHARS: Final = 16
"""A token given by the user must be at least this long."""


@dataclass(frozen=True, slots=True)
class BridgeOptions:
    """What `acp-tui bridge` was asked to do."""

    command: AgentCommand
    """The agent each connection starts."""
    host: str
    port: int
    token: str
    """The bearer token every request must carry."""
    allowed_origins: frozenset[str] = frozenset()
    """Browser origins (`scheme://host[:port]`) allowed; any other Origin is 403."""
    grace: float = DEFAULT_GRACE
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES


def parse_listen(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6) as (host, port).

    Raises:
        ValueError: Not HOST:PORT, or the port is not 0-65535.
    """
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit():
        raise ValueError(f"--listen {text!r} is not HOST:PORT")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    port = int(port_text)
    if port > 65535:
        raise ValueError(f"--listen {text!r}: {port} is not a TCP port")
    return host, port


def is_loopback(host: str) -> bool:
    """Whether `host` names only this machine (`localhost`, 127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_token(given: str | None) -> tuple[str, bool]:
    """The token to require: `--token`, else `$ACP_TUI_BRIDGE_TOKEN`, else a new one.

    Returns:
        The token, and whether it was generated (then it is printed at start).

    Raises:
        ValueError: A given token shorter than `MIN_TOKEN_CHARS`.
    """
    token = given if given is not None else os.environ.get(TOKEN_ENV) or None
    if token is None:
        return secrets.token_urlsafe(32), True
    if len(token) < MIN_TOKEN_CHARS:
        raise ValueError(f"the token must have at least {MIN_TOKEN_CHARS} characters")
    return token, False
