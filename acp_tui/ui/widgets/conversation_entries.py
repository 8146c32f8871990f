"""The conversation's entries that are not a store entity's own card.

* `Banner`: an error or notice (plain text, never markup);
* `QueuedPrompt`: a prompt the agent has not shown back yet (queued, sending,
  or not delivered: nothing the user typed disappears);
* `StandaloneTerminal`: a terminal no tool call shows, drawn as an `execute`
  card that holds only the terminal (titled `STANDALONE_TERMINAL_TITLE`).

`acp_tui.ui.widgets.conversation` mounts them and re-exports these names.
Agent and user text passes through `printable` and is never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.text import Text
from textual.widgets import Static

from acp_tui.client.cancel_one import CancelKind
from acp_tui.safe_text import printable
from acp_tui.store.model import ToolCall, terminal_item
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from acp_tui.ui.widgets.tool_call_view import ToolCallView

__all__ = ["STANDALONE_TERMINAL_TITLE", "Banner", "QueuedPrompt", "StandaloneTerminal"]

STANDALONE_TERMINAL_TITLE: Final = "The agent ran a command without a tool call"
"""The title of a terminal that no tool call shows."""


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
    """A prompt the agent has not shown back yet: queued, then sending.

    It waits for the agent to become idle (queued), then for the agent to
    acknowledge it (v2 `user_message`). If the agent dies first, it stays, marked
    as not delivered, so nothing the user typed disappears.
    """

    DEFAULT_CSS = """
    QueuedPrompt {
        height: auto;
        color: $text-muted;
        border-left: thick $secondary;
        padding: 0 1;
        margin: 0 0 1 0;
        &.-lost { border-left: thick $error; }
    }
    """

    def __init__(self, prompt_id: int, text: str, *, sending: bool = False) -> None:
        super().__init__()
        self.prompt_id = prompt_id
        self.text = text
        self.state = "sending" if sending else "queued"
        """`queued`, `sending` or `lost` (the agent stopped before answering)."""

    def on_mount(self) -> None:
        """Render the first state."""
        self._render_state()

    def _render_state(self) -> None:
        label = {"queued": "queued", "sending": "sending", "lost": "not delivered"}
        body = printable(self.text, keep=chr(10))
        self.update(Text(f"{label[self.state]}: {body}"))
        self.set_class(self.state == "lost", "-lost")

    def mark(self, state: str) -> None:
        """Move to `sending` or `lost`."""
        self.state = state
        if self.is_mounted:
            self._render_state()


class StandaloneTerminal(ToolCallView):
    """A terminal that no tool call shows, as a card of its own.

    It is drawn as an `execute` tool call that only holds the terminal (the
    command, its output and exit badge come from `TerminalSegment`): running
    while it runs, then completed (exit 0, or no code) or failed.

    Args:
        store: The session store.
        terminal_id: The terminal.
    """

    def __init__(self, store: SessionStore, terminal_id: str) -> None:
        self.terminal_id = terminal_id
        self._item: JSONObject = terminal_item(terminal_id)
        super().__init__(store, self._snapshot(store))

    def _snapshot(self, store: SessionStore) -> ToolCall:
        terminal = store.terminal(self.terminal_id)
        exit_status = terminal.exit_status if terminal is not None else None
        if exit_status is None:
            status = "in_progress"
        elif exit_status.get("exitCode") in (0, None) and not exit_status.get("signal"):
            status = "completed"
        else:
            status = "failed"
        return ToolCall(
            f"terminal {self.terminal_id}",
            STANDALONE_TERMINAL_TITLE,
            "execute",
            status,
            (self._item,),
        )

    def cancel_target(self) -> tuple[CancelKind, str]:
        """`x` asks to cancel this terminal alone."""
        return "terminal", self.terminal_id

    def refresh_terminal(self) -> None:
        """Show the terminal's newest state."""
        self.update_tool_call(self._snapshot(self.store))
