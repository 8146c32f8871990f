"""App-wide messages posted by the agent worker and the store bridge."""

from __future__ import annotations

from collections.abc import Sequence

from textual.message import Message

from acp_tui.client.connection import AgentIdentity
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore

__all__ = [
    "AgentConnected",
    "AgentFailed",
    "PromptStarted",
    "SessionStarted",
    "SessionUpdated",
]


class AgentConnected(Message):
    """`initialize` succeeded: the agent and the negotiated protocol version."""

    def __init__(self, agent: AgentIdentity, protocol_version: int) -> None:
        super().__init__()
        self.agent = agent
        self.protocol_version = protocol_version


class SessionStarted(Message):
    """A session is open; its store is ready to render."""

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store


class SessionUpdated(Message):
    """The store changed: every change since the last refresh, in order."""

    def __init__(self, store: SessionStore, changes: Sequence[Change]) -> None:
        super().__init__()
        self.store = store
        self.changes = tuple(changes)


class PromptStarted(Message):
    """A queued prompt was taken from the queue and sent to the agent."""

    def __init__(self, prompt_id: int) -> None:
        super().__init__()
        self.prompt_id = prompt_id


class AgentFailed(Message):
    """The agent could not be used (or a prompt failed): show a banner."""

    def __init__(self, text: str, details: Sequence[str] = ()) -> None:
        super().__init__()
        self.text = text
        self.details = tuple(details)
