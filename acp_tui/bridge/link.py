"""One client connection and the agent process behind it.

A `Link` is what `Acp-Connection-Id` names: the client's side (its outbound
mailboxes, the routes of its requests, whether a client is attached). An
`AgentProcess` is the agent it talks to: a `StdioTransport` and the pump that
reads its stdout. They are apart so that a reconnecting client's new link can
take over the agent of a dropped one (`Registry.adopt`).

Routing, the only reading done: a response goes where its request came from
(`pending`: the session stream of the request's `Acp-Session-Id`, or the
connection stream for `session/new`, `session/load` and requests outside a
session); a request or notification of the agent goes to the session stream of
its `params.sessionId`, else to the connection stream. Over WebSocket there is
one stream. Session ids in results (new, load, resume, fork) are remembered, so a
dropped link's sessions can be found when a client resumes one.

While no client is attached after one was (`dropped`), the agent's output is
discarded (the RFD's v1: in-flight messages are not replayed; a resume replays
the session), and a request of the agent is answered with an error at once, so
the agent is never left waiting on a client that is gone.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import TYPE_CHECKING, Final, Literal

import anyio
from anyio.abc import TaskStatus

from acp_tui.bridge.mailbox import Mailbox
from acp_tui.bridge.peek import Peek, one_line, peek_soon
from acp_tui.protocol.framing import OversizedLine
from acp_tui.protocol.transport import AgentCommand, StdioTransport

if TYPE_CHECKING:
    from acp_tui.bridge.registry import Registry

__all__ = ["DISCONNECTED_ERROR", "AgentProcess", "Link", "Profile"]

log = logging.getLogger(__name__)

Profile = Literal["websocket", "http"]

DISCONNECTED_ERROR: Final = -32603
"""The JSON-RPC error code of the answer to an agent's request while no client
is attached (an internal error: the request was not handled)."""


class AgentProcess:
    """An agent process and the pump that hands its lines to its current owner."""

    def __init__(
        self, command: AgentCommand, *, name: str, max_line_bytes: int
    ) -> None:
        self.command = command
        self.name = name
        self._max_line_bytes = max_line_bytes
        self.owner: Link | None = None
        self.transport: StdioTransport | None = None
        self.stale: set[str] = set()
        """Ids of requests a previous client sent: their responses are dropped."""
        self._stop = anyio.Event()
        self.ended = anyio.Event()

    @property
    def pid(self) -> int | None:
        """The agent's process id, once started."""
        return None if self.transport is None else self.transport.pid

    async def run(
        self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Start the agent, report it started, and pump until `stop()` or its end.

        Leaving runs the transport's bounded, shielded shutdown of the whole
        process group.
        """
        try:
            async with StdioTransport(
                self.command, name=self.name, max_line_bytes=self._max_line_bytes
            ) as transport:
                self.transport = transport
                task_status.started()
                async with anyio.create_task_group() as group:
                    group.start_soon(self._pump, transport)
                    await self._stop.wait()
                    group.cancel_scope.cancel()
        finally:
            self.ended.set()
            owner, self.owner = self.owner, None
            if owner is not None:
                owner.agent_ended(self, self.describe_end())

    def describe_end(self) -> str:
        """How the agent ended, for the log and the client."""
        if self.transport is None:
            return f"agent {self.name!r} not started"
        return f"agent {self.name!r} {self.transport.exit_description()}"

    def stop(self) -> None:
        """End the agent (asynchronously, through `run`'s shutdown)."""
        self._stop.set()

    async def send(self, line: bytes) -> None:
        """Write one message (without its newline) to the agent's stdin.

        Raises:
            ConnectionClosed: The agent no longer reads.
        """
        assert self.transport is not None
        await self.transport.send(one_line(line) + b"\n")

    async def _pump(self, transport: StdioTransport) -> None:
        try:
            while True:
                try:
                    line = await transport.receive()
                except anyio.EndOfStream:
                    break
                if isinstance(line, OversizedLine):
                    log.warning(
                        "agent %s: a message of %d bytes is over the limit (%d), "
                        "dropped",
                        self.name,
                        line.size,
                        line.limit,
                    )
                    continue
                owner = self.owner
                if owner is not None:
                    await owner.from_agent(self, bytes(line))
        finally:
            self._stop.set()


class Link:
    """One connection (`Acp-Connection-Id`) of a client to an agent process."""

    def __init__(
        self,
        registry: Registry,
        connection_id: str,
        agent: AgentProcess,
        profile: Profile,
    ) -> None:
        self.registry = registry
        self.connection_id = connection_id
        self.agent: AgentProcess | None = agent
        self.profile: Profile = profile
        self.connection_box = Mailbox()
        self.session_boxes: dict[str, Mailbox] = {}
        self.pending: dict[str, str | None] = {}
        """Client request id -> the session stream of its response (None: the
        connection stream)."""
        self.sessions: set[str] = set()
        """Sessions this connection opened (from new/load/resume/fork results)."""
        self._waiters: dict[str, tuple[anyio.Event, list[bytes]]] = {}
        self.streams = 0
        """Open SSE streams (Streamable HTTP)."""
        self.attached = profile == "websocket"
        self.dropped = False
        """A client was attached and is gone: output is discarded until one is."""
        self.grace_deadline: float | None = None
        self.ended = False
        self.end_reason = ""

    # -- boxes -------------------------------------------------------------------

    def box_for(self, session_id: str | None) -> Mailbox:
        """The mailbox of a session's stream (made on demand), or the connection's."""
        if self.profile == "websocket" or session_id is None:
            return self.connection_box
        box = self.session_boxes.get(session_id)
        if box is None:
            box = self.session_boxes[session_id] = Mailbox()
        return box

    def _all_boxes(self) -> list[Mailbox]:
        return [self.connection_box, *self.session_boxes.values()]

    # -- attachment ----------------------------------------------------------------

    def attach(self, profile: Profile) -> None:
        """A client is (again) reading this connection."""
        self.profile = profile
        self.attached = True
        self.grace_deadline = None
        if self.dropped:
            self.dropped = False
            for box in self._all_boxes():
                box.clear()

    def drop(self) -> None:
        """The client is gone: discard output, and start the grace period."""
        if self.ended:
            return
        self.attached = False
        self.dropped = True
        for box in self._all_boxes():
            box.clear()
        self.grace_deadline = anyio.current_time() + self.registry.options.grace
        log.info("connection %s: client gone, grace period", self.connection_id)

    def stream_opened(self) -> None:
        """An SSE stream of this connection started."""
        self.streams += 1
        self.attach("http")

    def stream_closed(self) -> None:
        """An SSE stream ended; with none left, the client is gone."""
        self.streams -= 1
        if self.streams <= 0 and not self.ended:
            self.drop()

    # -- messages ------------------------------------------------------------------

    def expect(self, key: str) -> tuple[anyio.Event, list[bytes]]:
        """Catch the response with id `key` (initialize over HTTP): not routed."""
        waiter: tuple[anyio.Event, list[bytes]] = (anyio.Event(), [])
        self._waiters[key] = waiter
        return waiter

    async def from_client(
        self, line: bytes, facts: Peek, session_route: str | None
    ) -> None:
        """Relay a client's message to the agent.

        Raises:
            ConnectionClosed: The agent no longer reads (or this link has none).
        """
        from acp_tui.protocol.transport import ConnectionClosed

        agent = self.agent
        if agent is None or self.ended:
            raise ConnectionClosed(self.end_reason or "the connection has ended")
        key = facts.key
        if facts.kind == "request" and key is not None:
            self.pending[key] = session_route
        await agent.send(line)

    async def from_agent(self, agent: AgentProcess, line: bytes) -> None:
        """Route one line of the agent (called by its pump)."""
        if agent is not self.agent or self.ended:
            return
        facts = await peek_soon(line)
        route: str | None = None
        key = facts.key
        if facts.kind == "response":
            if key is not None and key in agent.stale:
                agent.stale.discard(key)
                return
            if facts.result_session_id is not None:
                self.sessions.add(facts.result_session_id)
            route = self.pending.pop(key, None) if key is not None else None
            waiter = self._waiters.pop(key, None) if key is not None else None
            if waiter is not None:
                waiter[1].append(line)
                waiter[0].set()
                return
        elif facts.kind in ("request", "notification"):
            route = facts.session_id
        if self.dropped:
            if facts.kind == "request":
                await self._refuse(agent, facts)
            return
        await self.box_for(route).put(one_line(line))

    async def _refuse(self, agent: AgentProcess, facts: Peek) -> None:
        from acp_tui.protocol.transport import ConnectionClosed

        answer = {
            "jsonrpc": "2.0",
            "id": facts.id,
            "error": {
                "code": DISCONNECTED_ERROR,
                "message": "acp-tui bridge: the client is disconnected",
            },
        }
        with contextlib.suppress(ConnectionClosed):
            await agent.send(json.dumps(answer, separators=(",", ":")).encode())

    # -- the end -------------------------------------------------------------------

    def agent_ended(self, agent: AgentProcess, reason: str) -> None:
        """The agent process ended: so does the connection, if it is ours."""
        if agent is self.agent:
            self.registry.end(self, reason)

    def close(self, reason: str) -> None:
        """Mark ended, end the streams, stop the agent (called by the registry)."""
        if self.ended:
            return
        self.ended = True
        self.end_reason = reason
        for box in self._all_boxes():
            box.close()
        for event, _ in self._waiters.values():
            event.set()
        self._waiters.clear()
        agent, self.agent = self.agent, None
        if agent is not None:
            agent.owner = None
            agent.stop()
