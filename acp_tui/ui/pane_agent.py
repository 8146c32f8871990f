"""A session pane's agent: starting, stopping and restarting it, and where it stands.

`PaneAgent` is a part of `acp_tui.ui.session_pane.SessionPane` (a mixin, see
`acp_tui.ui.pane_part.PanePart`). Each pane runs its own agent in a long-lived
worker (`run_agent`); this part starts it (once the app's first frame is up, or
on ctrl+r, which resumes the session), shows who answered, takes its failures
(a banner in the conversation; one that stopped the agent offers a restart only
where a restart may help), and stops it, bounded, when the tab closes.

Where the agent stands is state, `Standing`, kept on the pane (`standing`) and
set in one place (`_stand`) together with the status line's text for it: the
tab label's activity and the queue's note read the state, never the text.
"""

from __future__ import annotations

import asyncio
import logging
from enum import Enum
from typing import TYPE_CHECKING, Final

import anyio
from textual import work

from acp_tui.ui.attention_hook import AttentionEvent
from acp_tui.ui.messages import AgentConnected, AgentFailed, AgentReconnecting
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.start_view import StartView

if TYPE_CHECKING:
    from acp_tui.ui.agent_runner import SessionRequest

__all__ = ["SHUTDOWN_WAIT", "PaneAgent", "Standing"]

log = logging.getLogger(__name__)

SHUTDOWN_WAIT: Final = 15.0
"""Seconds a tab waits for its agent worker to shut the agent down (its own
steps are bounded too: close stdin, wait, SIGTERM, SIGKILL)."""


class Standing(Enum):
    """Where a pane's agent stands; the value is what the status line says then.

    The status line shows the session's own state only while `CONNECTED`.
    """

    STARTING = "starting"
    """The agent is being started (or restarted)."""
    OPENING = "opening session"
    """The agent answered; its session is being opened."""
    CONNECTED = "connected"
    """A session is open."""
    STOPPED = "agent stopped"
    """The agent stopped, and starting it again would fail the same way (a
    command not found, a program that is not an ACP agent)."""
    STOPPED_RESTARTABLE = "agent stopped (ctrl+r restarts)"
    """The agent stopped, and a restart may help
    (`acp_tui.client.runner.restart_may_help`)."""
    RECONNECTING = "reconnecting…"
    """A remote agent's connection dropped; it is being connected again (the
    status line says which attempt, and when)."""
    TRANSCRIPT = "saved transcript (read only)"
    """A saved transcript is shown instead of a session."""

    @property
    def stopped(self) -> bool:
        """The agent stopped (with or without a restart that may help)."""
        return self in (Standing.STOPPED, Standing.STOPPED_RESTARTABLE)


class PaneAgent(PanePart):
    """The agent of a `SessionPane` (see the module docstring)."""

    if TYPE_CHECKING:  # what the pane provides besides `PanePart`'s
        closing: bool
        standing: Standing
        _connection_lock: asyncio.Lock
        _connection_task: asyncio.Future[None] | None
        _resuming: str | None

    @property
    def connection_task(self) -> asyncio.Future[None] | None:
        """The running connection (awaited, bounded, when the app quits)."""
        return self._connection_task

    def _stand(self, standing: Standing) -> None:
        """Where the agent stands now; the status line says so."""
        self.standing = standing
        self._status.phase = standing.value

    def _start_agent(self, request: SessionRequest, phase: str) -> None:
        if self.closing:
            return
        self._resuming = request.session_id if request.action == "resume" else None
        self.query_one(StartView).starting(
            self.settings.name, self.settings.command.display(), phase
        )
        self._stand(Standing.STARTING)
        self._refresh_status()
        self.run_agent(request)

    @work(
        exclusive=True,
        group="agent",
        exit_on_error=False,
        description="Agent connection",
    )
    async def run_agent(self, request: SessionRequest) -> None:
        """The long-lived agent worker (one connection).

        The connection runs in a task of its own, shielded from this worker:
        Textual cancels workers with a bare `Task.cancel()` (a restart replacing
        this exclusive worker, the tab closed or the app's loop ending), which
        would cut the transport's shielded shutdown short and could leave the
        agent running. A cancelled worker instead asks the runner to stop (an
        anyio cancellation, which that shutdown honours) and waits for it,
        bounded. The lock keeps one connection at a time: a restart's new
        connection starts only once the old one is down.
        """
        async with self._connection_lock:
            if self.closing:
                return
            task = asyncio.ensure_future(self.runner.run(request))
            self._connection_task = task
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                self.runner.request_stop()
                await asyncio.wait({task}, timeout=SHUTDOWN_WAIT)
                raise

    async def close(self) -> None:
        """The tab closes: close its session where the agent can, then stop it.

        Both steps are bounded (`agent_runner.CLOSE_TIMEOUT`, `SHUTDOWN_WAIT`).
        """
        self.closing = True
        await self.runner.leave_session()
        await self.stop_agent()

    async def stop_agent(self) -> None:
        """Stop the agent for good (the tab closes), bounded by `SHUTDOWN_WAIT`."""
        self.closing = True
        with anyio.move_on_after(SHUTDOWN_WAIT):
            await self.runner.stop()
        task = self._connection_task
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=SHUTDOWN_WAIT)

    def on_agent_connected(self, message: AgentConnected) -> None:
        """Show who we talk to."""
        status = self._status
        status.agent = message.agent
        status.protocol_version = message.protocol_version
        self._stand(Standing.OPENING)
        self._refresh_status()
        self.query_one(StartView).starting(
            message.agent.display_name,
            self.settings.command.display(),
            "Opening a session with",
        )
        for reason in message.fallbacks:
            log.info("protocol fallback: %s", reason)

    async def on_agent_failed(self, message: AgentFailed) -> None:
        """Show a banner; the conversation stays and the app keeps running."""
        await self._updates_applied()  # the batches before it first
        if message.restartable or message.prompt_id is not None:
            self.post_message(AttentionEvent(self, "failed"))  # no turn runs on
        if not self._live:
            return
        if message.restartable or message.prompt_id is not None:
            # Not delivered: the agent stopped, or refused this prompt.
            for pending in self._conversation.pending_prompts():
                if pending.state == "sending" and message.prompt_id in (
                    None,
                    pending.prompt_id,
                ):
                    pending.mark("lost")
        if message.restartable:
            self.query_one(StartView).finished()
            banner = CrashBanner(
                message.text, message.details, can_restart=message.retry
            )
            await self._conversation.mount(banner)
            if not self._live:
                return  # shut down while mounting: the widgets are gone
            self._conversation.scroll_end(animate=False)
            self._stand(
                Standing.STOPPED_RESTARTABLE if message.retry else Standing.STOPPED
            )
        else:
            await self._conversation.add_banner(message.text, message.details)
            if not self._live:
                return
        self._refresh_status()

    def on_agent_reconnecting(self, message: AgentReconnecting) -> None:
        """The connection dropped: say which attempt comes, and when."""
        if not self._live:
            return
        self._stand(Standing.RECONNECTING)
        self._status.phase = message.attempt.status()
        self._refresh_status()

    def on_crash_banner_restart_pressed(
        self, message: CrashBanner.RestartPressed
    ) -> None:
        """The crash banner's restart button: as ctrl+r."""
        message.stop()
        self.action_restart_agent()

    def action_restart_agent(self) -> None:
        """Restart the agent and resume the current session.

        While a dropped remote connection waits for its next attempt, that
        attempt is made now instead.
        """
        if self.standing is Standing.RECONNECTING and self.runner.retry_now():
            return
        self._start_agent(self.runner.restart_request(), "Restarting")
