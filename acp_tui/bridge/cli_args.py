"""`acp-tui bridge`'s parsed arguments as `BridgeOptions` (the CLI parses them)."""

from __future__ import annotations

import argparse
from typing import Any, Final

from acp_tui.bridge.options import (
    DEFAULT_GRACE,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_MESSAGE_BYTES,
    BridgeOptions,
    parse_listen,
    resolve_token,
)
from acp_tui.protocol.transport import AgentCommand

__all__ = ["bridge_options"]

_LIMITS: Final[tuple[tuple[str, float, float, str], ...]] = (
    ("grace", DEFAULT_GRACE, 0, "--grace must not be negative"),
    (
        "max_connections",
        DEFAULT_MAX_CONNECTIONS,
        1,
        "--max-connections must be at least 1",
    ),
    (
        "max_message_bytes",
        DEFAULT_MAX_MESSAGE_BYTES,
        1024,
        "--max-message-bytes must be at least 1024",
    ),
)
"""Each limit's option (as `BridgeOptions` names it), default, least value, and
what is said when it is less."""


def bridge_options(args: argparse.Namespace) -> tuple[BridgeOptions, bool] | str:
    """The options, and whether the token was generated; or what is wrong."""
    argv = list(args.agent_command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        return "no agent command: acp-tui bridge [options] -- AGENT_CMD [ARGS...]"
    try:
        host, port = parse_listen(args.listen)
        token, generated = resolve_token(args.token)
    except ValueError as error:
        return str(error)
    limits: dict[str, Any] = {}
    for name, default, least, problem in _LIMITS:
        value = getattr(args, name)
        limits[name] = default if value is None else value
        if limits[name] < least:
            return problem
    origins = frozenset(origin.rstrip("/") for origin in args.allow_origin)
    options = BridgeOptions(
        command=AgentCommand(tuple(argv)),
        host=host,
        port=port,
        token=token,
        allowed_origins=origins,
        **limits,
    )
    return options, generated
