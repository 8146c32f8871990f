"""The Textual app: wiring of the conversation, prompt, status bar and agent worker.

`make_app` builds it for the CLI and tests. The agent runs in one long-lived worker
(`AgentRunner.run`); the UI only reacts to the messages it and the store bridge post.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType

from acp_tui.protocol.transport import AgentCommand
from acp_tui.protocol.version import ProtocolChoice
from acp_tui.store.store import SessionStore
from acp_tui.ui.agent_runner import AgentRunner, AgentSettings
from acp_tui.ui.messages import (
    AgentConnected,
    AgentFailed,
    PromptStarted,
    SessionStarted,
    SessionUpdated,
)
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.status_bar import StatusBar

__all__ = ["AcpTuiApp", "make_app"]


class AcpTuiApp(App[None]):
    """The acp-tui terminal client."""

    CSS_PATH = "app.tcss"
    TITLE = "acp-tui"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(self, settings: AgentSettings) -> None:
        super().__init__()
        self.settings = settings
        self.runner = AgentRunner(self, settings)
        self._prompt_ids = itertools.count(1)

    @property
    def store(self) -> SessionStore | None:
        """The session's store, once the session is open."""
        return self.runner.store

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        yield Conversation(id="conversation")
        yield PromptInput(id="prompt")
        yield StatusBar(id="status")

    def on_mount(self) -> None:
        """Start the agent."""
        self.query_one(PromptInput).focus()
        self.run_agent()

    @work(
        exclusive=True,
        group="agent",
        exit_on_error=False,
        description="Agent connection",
    )
    async def run_agent(self) -> None:
        """The long-lived agent worker."""
        await self.runner.run()

    @property
    def _status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def _conversation(self) -> Conversation:
        return self.query_one(Conversation)

    def on_agent_connected(self, message: AgentConnected) -> None:
        """Show who we talk to."""
        self._status.agent = message.agent
        self._status.protocol_version = message.protocol_version
        self._status.phase = "opening session"
        self._status.refresh_status()

    def on_session_started(self, message: SessionStarted) -> None:
        """The store is ready."""
        self._status.store = message.store
        self._status.refresh_status()

    async def on_session_updated(self, message: SessionUpdated) -> None:
        """Apply one coalesced batch of store changes."""
        await self._conversation.apply_changes(message.store, message.changes)
        self._status.queued = self.runner.prompts.qsize()
        self._status.refresh_status()

    async def on_agent_failed(self, message: AgentFailed) -> None:
        """Show a banner; the app keeps running."""
        await self._conversation.add_banner(message.text, message.details)
        self._status.phase = "agent unavailable"
        self._status.refresh_status()

    async def on_prompt_started(self, message: PromptStarted) -> None:
        """A queued prompt went out."""
        await self._conversation.remove_queued(message.prompt_id)
        self._status.queued = self.runner.prompts.qsize()
        self._status.refresh_status()

    @on(PromptInput.Submitted)
    async def send_prompt(self, message: PromptInput.Submitted) -> None:
        """Queue the prompt; it is shown as queued unless it goes out at once."""
        prompt_id = next(self._prompt_ids)
        busy = (
            self.runner.in_turn or self.store is None or not self.runner.prompts.empty()
        )
        self.runner.prompts.put_nowait((prompt_id, message.text))
        if busy:
            await self._conversation.add_queued(prompt_id, message.text)
        self._status.queued = self.runner.prompts.qsize()
        self._status.refresh_status()

    def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn."""
        if self.runner.in_turn:
            self.run_worker(self.runner.cancel(), group="cancel", exit_on_error=False)


def make_app(
    command: AgentCommand,
    name: str,
    *,
    cwd: Path,
    choice: ProtocolChoice = "auto",
    init_timeout: float = 60.0,
) -> AcpTuiApp:
    """Build the app for an agent command (used by the CLI and tests)."""
    return AcpTuiApp(
        AgentSettings(
            command=command,
            name=name,
            cwd=cwd,
            choice=choice,
            init_timeout=init_timeout,
        )
    )
