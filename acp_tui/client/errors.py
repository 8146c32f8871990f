"""Errors the client layer reports to the user: each says what happened, plainly."""

from __future__ import annotations

from acp_tui.protocol.jsonrpc import describe_error

__all__ = [
    "NOT_AN_AGENT_HINT",
    "AgentError",
    "AgentExited",
    "BrokenInitializeReply",
    "InitializeRejected",
    "InitializeTimeout",
    "NoSuchSession",
    "NotAnAgent",
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


NOT_AN_AGENT_HINT = (
    "an ACP agent speaks JSON-RPC on its stdin and stdout: start the agent in its "
    "ACP mode (for example `gemini --acp` or `opencode acp`), or pick one from "
    "`acp-tui agents`"
)
"""What to do when `--agent` names a program that is not an ACP agent."""


class NotAnAgent(AgentError):
    """The program started, but does not speak ACP (found during `initialize`).

    `AgentLauncher.explain` names the program; `str()` alone says "the agent".
    """

    def __init__(self, *, wrote: str | None, echoed: bool, exited: bool) -> None:
        self.wrote = wrote
        """An excerpt (escaped) of its first line that was not JSON-RPC."""
        self.echoed = echoed
        """It sent acp-tui's own `initialize` request back (it echoes its input)."""
        self.exited = exited
        """It stopped before answering."""
        super().__init__(self.describe("the agent"))

    def describe(self, program: str) -> str:
        """The message, naming the program as given."""
        if self.echoed:
            what = "it sent acp-tui's own initialize request back (it echoes its input)"
        elif self.wrote is not None:
            what = f"it wrote {self.wrote!r} instead of JSON-RPC"
            what += " and exited" if self.exited else ""
        else:
            what = "it exited without answering initialize"
        return f"{program} is not an ACP agent: {what}; {NOT_AN_AGENT_HINT}"


class NoSuchSession(AgentError):
    """The agent has no session by the id asked for."""

    def __init__(self, session_id: str, said: object) -> None:
        super().__init__(
            f"no such session: {session_id} (the agent said: {said}); "
            "`acp-tui sessions` lists the agent's sessions"
        )
        self.session_id = session_id


class UnsupportedOperation(Exception):
    """The agent does not offer this operation (per its capabilities)."""
