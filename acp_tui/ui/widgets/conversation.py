"""The conversation: one widget per timeline entity, in timeline order.

Widgets are keyed by `(kind, id)`. A `SessionUpdated` batch mounts widgets for new
timeline entries and hands each changed entity's newest snapshot to its widget.
Banners (agent errors) and queued prompts are appended at the end.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.protocol.framing import printable
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.tool_call_view import ToolCallView

__all__ = ["Banner", "Conversation", "QueuedPrompt"]

Key = tuple[str, str]


class Banner(Static):
    """An error or notice shown in the conversation (plain text, never markup)."""

    DEFAULT_CSS = """
    Banner {
        height: auto;
        border: heavy $error;
        color: $text-error;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    """

    def __init__(self, text: str, details: Sequence[str] = ()) -> None:
        lines = [printable(text)] + [printable(f"  | {line}") for line in details]
        super().__init__(Text("\n".join(lines)))
        self.text = text


class QueuedPrompt(Static):
    """A prompt waiting for the agent to become idle."""

    DEFAULT_CSS = """
    QueuedPrompt {
        height: auto;
        color: $text-muted;
        border-left: thick $secondary;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    """

    def __init__(self, prompt_id: int, text: str) -> None:
        super().__init__(Text(f"queued: {printable(text, keep=chr(10))}"))
        self.prompt_id = prompt_id


class Conversation(VerticalScroll):
    """Shows a session's timeline; follows the tail unless scrolled up."""

    DEFAULT_CSS = """
    Conversation {
        height: 1fr;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: dict[Key, Widget] = {}
        self._timeline_revision = -1

    def on_mount(self) -> None:
        """Follow the tail while content streams in."""
        self.anchor()

    def _make(self, store: SessionStore, kind: str, entity_id: str) -> Widget | None:
        if kind == "message":
            message = store.message(entity_id)
            return MessageView(message) if message is not None else None
        if kind == "tool_call":
            tool_call = store.tool_call(entity_id)
            return ToolCallView(store, tool_call) if tool_call is not None else None
        if kind == "plan":
            plan = store.plan(entity_id)
            return PlanView(plan) if plan is not None else None
        return None  # permissions, terminals and unknown updates: later

    async def _mount_new(self, store: SessionStore) -> set[Key]:
        mounted: set[Key] = set()
        if store.timeline_revision == self._timeline_revision:
            return mounted
        self._timeline_revision = store.timeline_revision
        previous: Widget | None = None
        for kind, entity_id in store.timeline():
            key = (kind, entity_id)
            widget = self.entries.get(key)
            if widget is None:
                widget = self._make(store, kind, entity_id)
                if widget is None:
                    continue
                self.entries[key] = widget
                mounted.add(key)
                if previous is not None:
                    await self.mount(widget, after=previous)
                elif self.children:
                    await self.mount(widget, before=0)
                else:
                    await self.mount(widget)
            previous = widget
        return mounted

    async def apply_changes(
        self, store: SessionStore, changes: Sequence[Change]
    ) -> None:
        """Bring the widgets up to date with one batch of changes."""
        mounted = await self._mount_new(store)
        replaced: dict[Key, bool] = {}
        for change in changes:
            if change.id is None:
                continue
            key: Key = (change.kind, change.id)
            replaced[key] = replaced.get(key, False) or change.action == "replaced"
            if change.kind == "terminal":
                for owner in store.tool_call_ids_for_terminal(change.id):
                    replaced.setdefault(("tool_call", owner), False)
        for key, was_replaced in replaced.items():
            if key in mounted:
                continue  # just rendered from the newest snapshot
            widget = self.entries.get(key)
            if isinstance(widget, MessageView):
                message = store.message(key[1])
                if message is not None:
                    await widget.update_message(message, replaced=was_replaced)
            elif isinstance(widget, ToolCallView):
                tool_call = store.tool_call(key[1])
                if tool_call is not None:
                    widget.update_tool_call(tool_call)
            elif isinstance(widget, PlanView):
                plan = store.plan(key[1])
                if plan is not None:
                    widget.update_plan(plan)

    async def add_banner(self, text: str, details: Sequence[str] = ()) -> Banner:
        """Append an error banner."""
        banner = Banner(text, details)
        await self.mount(banner)
        return banner

    async def add_queued(self, prompt_id: int, text: str) -> None:
        """Show a queued prompt at the end."""
        await self.mount(QueuedPrompt(prompt_id, text))

    async def remove_queued(self, prompt_id: int) -> None:
        """Remove a queued prompt once it is sent."""
        for widget in self.query(QueuedPrompt):
            if widget.prompt_id == prompt_id:
                await widget.remove()
