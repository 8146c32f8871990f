"""Starting an agent, and explaining why it failed.

`AgentLauncher` opens one `StdioTransport` per connection attempt (negotiation may
reconnect) and remembers the latest, so a failure can be explained with how the
agent ended and the last lines it wrote to stderr. Every front end (the app,
`acp-tui print`, `acp-tui sessions`, the probe) reports failures through
`AgentLauncher.explain`, so they all say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.session import UnsupportedOperation
from acp_tui.protocol.dispatcher import RequestTimeout
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import (
    AgentCommand,
    AgentStartError,
    ConnectionClosed,
    StdioTransport,
)
from acp_tui.protocol.version import UnsupportedProtocolVersion

__all__ = ["AGENT_FAILURES", "AgentFailure", "AgentLauncher"]

AGENT_FAILURES: Final = (
    AgentStartError,
    AgentError,
    UnsupportedProtocolVersion,
    UnsupportedOperation,
    RpcError,
    ConnectionClosed,
    RequestTimeout,
    TimeoutError,
)
"""The exceptions that mean "the agent could not be used", as opposed to a bug."""


@dataclass(frozen=True, slots=True)
class AgentFailure:
    """A failure explained for the user."""

    message: str
    stderr_tail: tuple[str, ...]
    """The agent's last stderr lines (raw: escape them before display)."""


class AgentLauncher:
    """Opens transports to one agent command and explains its failures."""

    def __init__(self, command: AgentCommand, name: str) -> None:
        self.command = command
        self.name = name
        self.transport: StdioTransport | None = None
        """The transport of the latest connection attempt."""

    def open_stream(self) -> StdioTransport:
        """A `StreamFactory` for `connect()`: a fresh transport per attempt."""
        self.transport = StdioTransport(self.command, name=self.name)
        return self.transport

    def explain(self, error: BaseException, *, tail_lines: int = 20) -> AgentFailure:
        """Describe one of `AGENT_FAILURES` for the user.

        The message gets the exit status when the agent stopped by itself; the
        last `tail_lines` of its stderr come along.
        """
        exited = isinstance(error, AgentExited | ConnectionClosed)
        if isinstance(error, RpcError):
            message = f"the agent answered with an error: {error}"
        elif isinstance(error, ConnectionClosed):
            message = f"the connection to the agent ended: {error.reason}"
        elif isinstance(error, TimeoutError) and not str(error):
            message = "the agent did not answer in time"
        else:
            message = str(error)
        tail: tuple[str, ...] = ()
        if self.transport is not None:
            if exited:
                message += f"; the agent {self.transport.exit_description()}"
            tail = tuple(self.transport.stderr_tail()[-tail_lines:])
        return AgentFailure(message, tail)
