"""Every connection of the bridge: limits, grace periods, adoption, reaping.

Reconnecting, what is supported:

* **The same connection id.** A client that lost its WebSocket (closed with any
  code but 1000) or all its SSE streams has `grace` seconds to come back with the
  same `Acp-Connection-Id`: a WebSocket upgrade carrying that header, or new SSE
  GETs (its POSTs keep working meanwhile). It finds the same agent process; what
  the agent sent in between was discarded.
* **A new connection that resumes a session.** A new connection (its own
  initialize, answered by its own fresh agent) whose first session request is
  `session/load` or `session/resume` of a session opened through a dropped
  connection still in its grace period takes over that connection's agent
  process: the fresh one is ended, the old connection too, and the request goes
  to the agent that holds the session (with a running turn, if any). Responses
  to requests the old client left pending are dropped.
* A WebSocket closed with 1000 (normal closure), a DELETE, or the end of the
  grace period ends the connection and its agent process group at once.
"""

from __future__ import annotations

import logging
import secrets
import shlex
from typing import Final

import anyio
from anyio.abc import TaskGroup

from acp_tui.bridge.link import AgentProcess, Link, Profile
from acp_tui.bridge.options import BridgeOptions
from acp_tui.bridge.peek import Peek

__all__ = ["REAP_INTERVAL", "RESUMING_METHODS", "Full", "Registry"]

log = logging.getLogger(__name__)

REAP_INTERVAL: Final = 0.2
"""Seconds between looks for connections whose grace period is over."""

RESUMING_METHODS: Final = frozenset({"session/load", "session/resume"})


class Full(Exception):
    """As many connections as `--max-connections` are open."""


class Registry:
    """The bridge's connections, their agents running in `task_group`."""

    def __init__(self, options: BridgeOptions, task_group: TaskGroup) -> None:
        self.options = options
        self._group = task_group
        self.links: dict[str, Link] = {}
        self._opening = 0
        self.agent_name = _agent_name(options)

    def get(self, connection_id: str) -> Link | None:
        """The live connection with this id."""
        link = self.links.get(connection_id)
        return None if link is None or link.ended else link

    async def open(self, profile: Profile) -> Link:
        """A new connection with its own agent process, started.

        Raises:
            Full: At the connection limit (no agent is started).
            AgentStartError: The agent could not be started.
        """
        if len(self.links) + self._opening >= self.options.max_connections:
            raise Full(
                f"the bridge serves at most {self.options.max_connections} "
                "connections at once"
            )
        self._opening += 1
        try:
            agent = AgentProcess(
                self.options.command,
                name=self.agent_name,
                max_line_bytes=self.options.max_message_bytes,
            )
            await self._group.start(agent.run)
        finally:
            self._opening -= 1
        connection_id = secrets.token_urlsafe(18)
        link = Link(self, connection_id, agent, profile)
        if profile == "http":
            link.grace_deadline = anyio.current_time() + self.options.grace
        agent.owner = link
        self.links[connection_id] = link
        log.info("connection %s (%s): agent pid %s", connection_id, profile, agent.pid)
        return link

    def end(self, link: Link, reason: str) -> None:
        """End a connection and its agent process group (bounded, shielded)."""
        if link.ended:
            return
        log.info("connection %s ended: %s", link.connection_id, reason)
        self.links.pop(link.connection_id, None)
        link.close(reason)

    def maybe_adopt(self, link: Link, facts: Peek) -> None:
        """Give `link` the agent of a dropped connection whose session it resumes.

        Only for a connection that has opened no session yet, on `session/load`
        or `session/resume` of a session a dropped connection (still in its
        grace period) opened.
        """
        if (
            facts.kind != "request"
            or facts.method not in RESUMING_METHODS
            or facts.session_id is None
            or link.sessions
            or link.agent is None
        ):
            return
        old = next(
            (
                other
                for other in self.links.values()
                if other is not link
                and other.dropped
                and not other.ended
                and other.agent is not None
                and facts.session_id in other.sessions
            ),
            None,
        )
        if old is None:
            return
        moved, fresh = old.agent, link.agent
        assert moved is not None
        moved.stale.update(old.pending)
        old.pending.clear()
        old.agent = None
        link.sessions.update(old.sessions)
        link.agent = moved
        moved.owner = link
        fresh.owner = None
        fresh.stop()
        self.end(old, f"its agent was taken over by connection {link.connection_id}")
        log.info(
            "connection %s took over agent pid %s (session %s)",
            link.connection_id,
            moved.pid,
            facts.session_id,
        )

    async def reap(self) -> None:
        """End connections whose grace period is over, forever (run in a task)."""
        while True:
            now = anyio.current_time()
            for link in list(self.links.values()):
                deadline = link.grace_deadline
                if deadline is not None and now >= deadline and not link.attached:
                    self.end(link, "no client came back within the grace period")
            await anyio.sleep(REAP_INTERVAL)

    def close_all(self, reason: str) -> None:
        """End every connection (the bridge is stopping)."""
        for link in list(self.links.values()):
            self.end(link, reason)


def _agent_name(options: BridgeOptions) -> str:
    argv = options.command.argv
    program = argv[0].rsplit("/", 1)[-1] if argv else "agent"
    if program.startswith("python") and len(argv) > 2 and argv[1] == "-m":
        program = argv[2]
    return f"bridge-{program}" if program else f"bridge-{shlex.join(argv)[:20]}"
