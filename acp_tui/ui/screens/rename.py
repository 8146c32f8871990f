"""Ask for a session's new title (`session/set_title`, where the agent takes one).

`RenameScreen` dismisses with the title typed (stripped; Enter), or None (Esc, or
nothing typed). The current title is shown in the field to edit, as data: the
field holds plain text, never markup.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from acp_tui.safe_text import printable

__all__ = ["RenameScreen"]


class RenameScreen(ModalScreen[str | None]):
    """Ask for a session title.

    Args:
        current: The title now (empty: none), to edit.
        heading: What the dialog says above the field.
    """

    DEFAULT_CSS = """
    RenameScreen {
        align: center middle;
        & > #rename-box {
            width: 70;
            height: auto;
            border: thick $primary;
            background: $surface;
            padding: 1 2;
        }
        & #rename-hint { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: str = "", heading: str = "Rename session") -> None:
        super().__init__()
        self.current = printable(current)
        self.heading = heading

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        with Vertical(id="rename-box"):
            yield Static(Content(self.heading), id="rename-heading")
            yield Input(self.current, placeholder="New title", id="rename-title")
            yield Static(Content("enter rename · esc cancel"), id="rename-hint")

    def on_mount(self) -> None:
        """Focus the title field."""
        self.query_one("#rename-title", Input).focus()

    @on(Input.Submitted, "#rename-title")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        title = event.value.strip()
        self.dismiss(title or None)

    def action_cancel(self) -> None:
        """Close without renaming."""
        self.dismiss(None)
