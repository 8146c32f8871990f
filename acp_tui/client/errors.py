"""Errors the client layer reports to the user: each says what happened, plainly."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "AgentError",
    "AgentExited",
    "BrokenInitializeReply",
    "InitializeRejected",
    "InitializeTimeout",
    "UnsupportedOperation",
    "describe_rpc_error",
]


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


def describe_rpc_error(error: Mapping[str, object] | None) -> str:
    """A JSON-RPC error object as a user reads it: the agent's message, then the code.

    `{"code": -32603, "message": "Internal error: overloaded"}` reads
    `Internal error: overloaded (-32603)`; the message is the agent's own text,
    never a JSON dump of the object (which escapes every non-ASCII character).
    """
    if not error:
        return "no reason given"
    message = error.get("message")
    reason = message.strip() if isinstance(message, str) else ""
    code = error.get("code")
    numeric = isinstance(code, int) and not isinstance(code, bool)
    suffix = f" ({code})" if numeric else ""
    return f"{reason or 'no reason given'}{suffix}"
