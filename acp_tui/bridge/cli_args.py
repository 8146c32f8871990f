"""`acp-tui bridge`'s parsed arguments as `BridgeOptions` (the CLI parses them)."""

from __future__ import annotations

import argparse

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
    grace = DEFAULT_GRACE if args.grace is None else args.grace
    connections = (
        DEFAULT_MAX_CONNECTIONS
        if args.max_connections is None
        else args.max_connections
    )
    size = (
        DEFAULT_MAX_MESSAGE_BYTES
        if args.max_message_bytes is None
        else args.max_message_bytes
    )
    if grace < 0:
        return "--grace must not be negative"
    if connections < 1:
        return "--max-connections must be at least 1"
    if size < 1024:
        return "--max-message-bytes must be at least 1024"
    origins = frozenset(origin.rstrip("/") for origin in args.allow_origin)
    options = BridgeOptions(
        command=AgentCommand(tuple(argv)),
        host=host,
        port=port,
        token=token,
        allowed_origins=origins,
        grace=grace,
        max_connections=connections,
        max_message_bytes=size,
    )
    return options, generated
