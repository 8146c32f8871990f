"""Messages posted by the agent worker and the store bridge to their session's tab.

Each tab (`acp_tui.ui.session_pane.SessionPane`) runs its own agent, and these
messages are posted straight to it. None of them bubbles: a batch, a failure or a
notice of one session must never reach the app or another tab.

(`bubble=False` is a class keyword: Textual's `Message.__init_subclass__` sets
`bubble` from it, True by default, over a `bubble = False` in the class body.
Written so, every batch went on up through the screen's and the app's queues,
ahead of the keys typed after it.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.message import Message

from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore

if TYPE_CHECKING:
    from acp_tui.client.connection import AgentIdentity
    from acp_tui.client.reconnect import Reconnecting
    from acp_tui.protocol.transport import AgentCommand
    from acp_tui.ui.agent_runner import SessionRequest

__all__ = [
    "AgentConnected",
    "AgentFailed",
    "AgentNotice",
    "AgentReconnecting",
    "PromptEnded",
    "PromptStarted",
    "SessionStarted",
    "SessionUpdated",
    "TerminalLoginRequested",
]


class AgentConnected(Message, bubble=False):
    """`initialize` succeeded: the agent and the negotiated protocol version."""

    def __init__(
        self,
        agent: AgentIdentity,
        protocol_version: int,
        fallbacks: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self.agent = agent
        self.protocol_version = protocol_version
        self.fallbacks = tuple(fallbacks)
        """Why earlier protocol offers were abandoned (v2 -> v1 fallback)."""


class SessionStarted(Message, bubble=False):
    """A session is open; its store is ready to render."""

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store


class SessionUpdated(Message, bubble=False):
    """The store changed: every change since the last refresh, in order."""

    def __init__(self, store: SessionStore, changes: Sequence[Change]) -> None:
        super().__init__()
        self.store = store
        self.changes = tuple(changes)


class PromptStarted(Message, bubble=False):
    """A queued prompt was taken from the queue and sent to the agent."""

    def __init__(self, prompt_id: int, text: str) -> None:
        super().__init__()
        self.prompt_id = prompt_id
        self.text = text


class PromptEnded(Message, bubble=False):
    """A prompt's turn ended normally: the prompt is no longer being sent.

    (A v2 agent shows a prompt back with `user_message`; one that did not, and a
    turn whose last change was handled before it ended, must not leave the prompt
    shown as "sending".)
    """

    def __init__(self, prompt_id: int) -> None:
        super().__init__()
        self.prompt_id = prompt_id


class AgentFailed(Message, bubble=False):
    """The agent could not be used (or a prompt failed): show a banner."""

    def __init__(
        self,
        text: str,
        details: Sequence[str] = (),
        *,
        restartable: bool = False,
        retry: bool = True,
        prompt_id: int | None = None,
    ) -> None:
        super().__init__()
        self.text = text
        self.details = tuple(details)
        self.restartable = restartable
        """The connection is gone: the agent stopped."""
        self.retry = retry
        """A restart may help (`client.runner.restart_may_help`): offer one."""
        self.prompt_id = prompt_id
        """The prompt that failed (the agent refused it), if that is the failure."""


class AgentNotice(Message, bubble=False):
    """Something the user should know that is not a failure of the agent."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class AgentReconnecting(Message, bubble=False):
    """A remote agent's connection dropped: the next attempt, when, and why."""

    def __init__(self, attempt: Reconnecting) -> None:
        super().__init__()
        self.attempt = attempt


class TerminalLoginRequested(Message, bubble=False):
    """Run the agent's login command in the terminal, then reconnect."""

    def __init__(
        self, command: AgentCommand, method_name: str, request: SessionRequest
    ) -> None:
        super().__init__()
        self.command = command
        self.method_name = method_name
        self.request = request
        """The session to open once logged in."""
