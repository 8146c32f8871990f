"""Starting an agent, and explaining why it failed.

`AgentLauncher` opens one `StdioTransport` per connection attempt (negotiation may
reconnect) and remembers the latest, so a failure can be explained with how the
agent ended and the last lines it wrote to stderr. Every front end (the app,
`acp-tui print`, `acp-tui sessions`, the probe) reports failures through
`AgentLauncher.explain`, so they all say the same thing.

A remote agent (`AgentCommand.remote`, a URL) is not started: each attempt
connects (`acp_tui.protocol.remote.open.open_remote`, which imports the
`acp-tui[remote]` libraries only then), and a failure to connect is a
`RemoteConnectError` that says why (refused, TLS, a wrong token, 404).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from acp_tui.client.errors import (
    AgentError,
    AgentExited,
    NotAnAgent,
    UnsupportedOperation,
)
from acp_tui.protocol.jsonrpc import RequestTimeout, RpcError
from acp_tui.protocol.remote.target import RemoteConnectError
from acp_tui.protocol.transport import (
    AgentCommand,
    AgentStartError,
    ConnectionClosed,
    MessageStream,
    StdioTransport,
)
from acp_tui.protocol.version import UnsupportedProtocolVersion

__all__ = ["AGENT_FAILURES", "AgentFailure", "AgentLauncher"]

AGENT_FAILURES: Final = (
    AgentStartError,
    RemoteConnectError,
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
        self._early: StdioTransport | None = None
        """Started by `start_early`, not yet taken by `open_stream`."""
        self.refused: RemoteConnectError | None = None
        """Why the latest remote connection was refused at `initialize`."""

    async def start_early(self) -> None:
        """Start the agent now, ahead of `connect()`; its first stream is this one.

        An agent takes from a tenth of a second to many seconds to boot, and the
        client stack (the pydantic wire models) takes about 0.4 s to import: a
        front end that starts the agent first and imports after overlaps the two.
        Call `discard_early` once `connect()` is done (or was never reached).

        Raises:
            AgentStartError: The agent could not be started.
        """
        await self.discard_early()
        if self.command.remote is not None:
            return  # nothing to start: each attempt connects
        # The latest attempt from now on: a failure to start explains itself
        # with this transport's (empty) stderr, not an earlier run's.
        transport = self.transport = StdioTransport(self.command, name=self.name)
        await transport.__aenter__()
        self._early = transport

    async def discard_early(self) -> None:
        """Stop an agent started early that no `open_stream()` call took."""
        early, self._early = self._early, None
        if early is not None:
            await early.__aexit__(None, None, None)

    def open_stream(self) -> AbstractAsyncContextManager[MessageStream]:
        """A `StreamFactory` for `connect()`: a fresh transport per attempt.

        The first attempt after `start_early` gets the agent already started.
        A remote agent gets a fresh connection.
        """
        if self.command.remote is not None:
            from acp_tui.protocol.remote.open import open_remote

            self.refused = None
            return open_remote(self.command.remote, on_refused=self._refused)
        early, self._early = self._early, None
        if early is not None:
            return _started(early)
        self.transport = StdioTransport(self.command, name=self.name)
        return self.transport

    def explain(self, error: BaseException, *, tail_lines: int = 20) -> AgentFailure:
        """Describe one of `AGENT_FAILURES` for the user.

        The message gets the exit status when the agent stopped by itself; the
        last `tail_lines` of its stderr come along.
        """
        exited = isinstance(error, AgentExited | ConnectionClosed)
        tail: tuple[str, ...] = ()
        if self.transport is not None:
            tail = tuple(self.transport.stderr_tail()[-tail_lines:])
        program = f"`{self._program()}`"
        if isinstance(error, AgentExited) and not tail and self._exited_cleanly():
            # Exit status 0, not a word on stderr, and no answer: a program
            # that did its own job and ended (`true`), not an agent that failed.
            error = NotAnAgent(wrote=None, echoed=False, exited=True)
        if isinstance(error, NotAnAgent):
            return AgentFailure(error.describe(program), tail)
        if isinstance(error, RemoteConnectError):
            return AgentFailure(str(error), ())
        if self.refused is not None and isinstance(
            error, AgentError | ConnectionClosed
        ):
            return AgentFailure(str(self.refused), ())
        if isinstance(error, RpcError):
            message = f"the agent answered with an error: {error}"
        elif isinstance(error, ConnectionClosed):
            message = f"the connection to the agent ended: {error.reason}"
        elif isinstance(error, TimeoutError) and not str(error):
            message = "the agent did not answer in time"
        else:
            message = str(error)
        if self.transport is not None and exited:
            ended = self.transport.exit_description()
            if ended not in message:  # the reason may say it already
                message += f"; the agent {ended}"
        return AgentFailure(message, tail)

    def _refused(self, error: RemoteConnectError) -> None:
        self.refused = error

    def _program(self) -> str:
        """The agent as the user named it: its catalogue name, or its command."""
        if self.command.remote is not None:
            return self.command.remote.url
        if self.name != Path(self.command.argv[0]).name:
            return self.name
        shown = self.command.display()
        return shown if len(shown) <= 60 else shown[:59] + "…"

    def _exited_cleanly(self) -> bool:
        return self.transport is not None and self.transport.returncode == 0


@asynccontextmanager
async def _started(transport: StdioTransport) -> AsyncIterator[StdioTransport]:
    """A transport already started, as the context manager `connect()` enters.

    Entering it does nothing more; leaving it shuts the agent down, as leaving a
    `StdioTransport` that was entered here would.
    """
    try:
        yield transport
    finally:
        await transport.__aexit__(None, None, None)
