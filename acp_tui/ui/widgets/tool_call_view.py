"""A tool-call card: kind icon, title, status, locations and readable content."""

from __future__ import annotations

from typing import Final

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.export import terminal_text
from acp_tui.protocol.framing import printable
from acp_tui.store.model import ToolCall, block_text
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

__all__ = ["ToolCallView", "tool_call_body"]

KIND_ICONS: Final = {
    "read": "📖",
    "edit": "✏️",
    "delete": "🗑",
    "move": "📦",
    "search": "🔍",
    "execute": "▶",
    "think": "💭",
    "fetch": "🌐",
    "switch_mode": "⇄",
}
STATUS_ICONS: Final = {
    "pending": "…",
    "in_progress": "⟳",
    "completed": "✓",
    "failed": "✗",
    "cancelled": "⊘",
}


def _change_line(change: JSONObject) -> str:
    operation = change.get("operation", "change")
    path = change.get("path") or f"{change.get('oldPath')} -> {change.get('newPath')}"
    return f"{operation} {path}"


def _item_text(store: SessionStore, item: JSONObject) -> str:
    kind = item.get("type")
    if kind == "content":
        block = item.get("content")
        if isinstance(block, dict):
            text = block_text(block)
            return text if text is not None else f"[{block.get('type')} content]"
        return ""
    if kind == "diff":
        patch = item.get("patch")
        if isinstance(patch, dict) and isinstance(patch.get("text"), str):
            return str(patch["text"])
        changes = item.get("changes")
        if isinstance(changes, list):
            return "\n".join(_change_line(c) for c in changes if isinstance(c, dict))
        path = item.get("path", "")
        old = item.get("oldText")
        new = item.get("newText", "")
        header = f"--- {path}\n+++ {path}\n"
        old_lines = [f"-{line}" for line in str(old or "").splitlines()]
        new_lines = [f"+{line}" for line in str(new).splitlines()]
        return header + "\n".join(old_lines + new_lines)
    if kind == "terminal":
        terminal_id = item.get("terminalId")
        terminal = store.terminal(terminal_id) if isinstance(terminal_id, str) else None
        if terminal is None:
            return "[terminal]"
        header = f"$ {terminal.command}\n" if terminal.command else ""
        return header + terminal_text(terminal)
    return f"[{kind} content]"


def tool_call_body(store: SessionStore, tool_call: ToolCall) -> str:
    """The tool call's locations and content as plain text."""
    parts: list[str] = []
    for location in tool_call.locations:
        path = location.get("path", "")
        line = location.get("line")
        parts.append(f"@ {path}:{line}" if line is not None else f"@ {path}")
    parts.extend(_item_text(store, item) for item in tool_call.content)
    return printable("\n".join(p for p in parts if p), keep="\n\t")


class ToolCallView(Widget):
    """Renders a `ToolCall` (re-rendered whenever it or its terminals change).

    Args:
        store: The session store (for terminals).
        tool_call: The snapshot to show first.
    """

    DEFAULT_CSS = """
    ToolCallView {
        height: auto;
        border: round $panel;
        padding: 0 1;
        margin: 0 0 1 0;
        & > .header { text-style: bold; }
        & > .body { color: $text-muted; }
        &.-completed { border: round $success; }
        &.-failed { border: round $error; }
        &.-cancelled { border: round $warning; }
        &.-in_progress { border: round $accent; }
    }
    """

    def __init__(self, store: SessionStore, tool_call: ToolCall) -> None:
        super().__init__()
        self.store = store
        self.tool_call = tool_call

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        yield Static(classes="header")
        yield Static(classes="body")

    def on_mount(self) -> None:
        """Render the first snapshot."""
        self.update_tool_call(self.tool_call)

    @property
    def status(self) -> str:
        """The status shown."""
        return self.tool_call.status

    def update_tool_call(self, tool_call: ToolCall) -> None:
        """Show a newer snapshot."""
        self.tool_call = tool_call
        for status in STATUS_ICONS:
            self.set_class(tool_call.status == status, f"-{status}")
        icon = KIND_ICONS.get(tool_call.kind, "⚙")
        status_icon = STATUS_ICONS.get(tool_call.status, "?")
        title = printable(tool_call.title or tool_call.tool_call_id)
        header = Text(f"{icon} {title}  ")
        header.append(f"{status_icon} {printable(tool_call.status)}", style="italic")
        self.query_one(".header", Static).update(header)
        body = tool_call_body(self.store, tool_call)
        body_widget = self.query_one(".body", Static)
        body_widget.update(Text(body))
        body_widget.display = bool(body)
