"""Errors the client layer reports to the user: each says what happened, plainly."""

from __future__ import annotations

from acp_tui.protocol.jsonrpc import describe_error

__all__ = [
    "AgentError",
    "AgentExited",
    "BrokenInitializeReply",
    "InitializeRejected",
    "InitializeTimeout",
    "UnsupportedOperation",
    "describe_rpc_error",
]

describe_rpc_error = describe_error
"""A JSON-RPC error object as the user reads it (`protocol.jsonrpc.describe_error`)."""


class AgentError(Exception):
    """The agent could not be used. `str()` is a complete message for the user."""

    def __init__(self, message: str, *, stderr_tail: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.stderr_tail = stderr_tail
        """The last lines the agent wrote to stderr, often the real cause."""


class InitializeTimeout(AgentError):
    """The agent did not answer `initialize` in time."""


class AgentExited(AgentError):
    """The agent's output ended (it exited or closed stdout) during `initialize`."""


class InitializeRejected(AgentError):
    """The agent answered `initialize` with an error, and no fallback was left."""


class BrokenInitializeReply(AgentError):
    """The agent's `initialize` result does not match the version it claims."""


class UnsupportedOperation(Exception):
    """The agent does not offer this operation (per its capabilities)."""
