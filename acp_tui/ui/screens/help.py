"""The key help: a two-column table of the app's keys. Esc, `q` or `?` closes it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["KEYS_BEYOND_ACTIONS", "KeyHelpScreen"]


KEYS_BEYOND_ACTIONS: Final[tuple[tuple[str, str], ...]] = (
    ("alt+1 … alt+9", "Show tab 1 to 9 (terminals with the kitty protocol)"),
    ("ctrl+pgdn / ctrl+pgup", "Next / previous tab (also alt+→ / alt+←)"),
    ("pgup / pgdn", "Scroll the conversation a page (from the prompt)"),
    ("ctrl+home / ctrl+end", "Conversation top / end (end: follow output)"),
    ("tab", "Focus the next card (typing goes back to the prompt)"),
    ("esc", "Cancel the turn; with none, back to the prompt"),
    ("ctrl+c", "Cancel the turn, or clear the prompt (copies a selection)"),
    ("end (on a card)", "Back to the end of the conversation, following"),
    ("ctrl+p", "Command palette"),
    ("enter", "Send the prompt"),
    ("shift+enter / ctrl+j", "New line in the prompt"),
    ("up / down", "Prompt history; up in an empty prompt: queued prompts"),
    ("alt+up / alt+down", "Move the selected queued prompt (also ctrl+up/down)"),
    ("s", "Send the selected queued prompt now, into the running turn"),
    ("/", "Slash commands"),
    ("@", "Attach a file"),
    ("p", "Full paths of the card, diff or terminal in focus (or hover)"),
    ("r", "Raw input/output JSON of the tool card in focus"),
    ("ctrl+f", "Search the conversation (enter or ↓ / ↑: next / previous match)"),
    ("f (on a message)", "Fork the session at that message, in a new tab (if offered)"),
    ("x", "Cancel the tool call (or terminal) in focus alone, if the agent offers"),
    ("enter / f (on a subagent)", "Open or close the subagent's lane / full screen"),
    (
        "r / R / T / u (review)",
        "Revert the hunk / file / whole turn, undo the last revert",
    ),
    ("k / c / ctrl+s (review)", "Keep the hunk, comment on it, send the review"),
)
"""Key help rows for keys that are not app actions (tabs, scrolling, focus, the
prompt, cards), after the actions' own."""


class KeyHelpScreen(ModalScreen[None]):
    """Show the keys and what they do.

    Args:
        bindings: (key display, description) rows, in order.
    """

    DEFAULT_CSS = """
    KeyHelpScreen {
        align: center middle;
        & > #help-dialog {
            width: 40;
            max-width: 90%;
            overflow-y: auto;
            height: auto;
            max-height: 90%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        & #help-title { text-style: bold; padding: 0 1; }
        & #help-table { width: auto; height: auto; padding: 0 1; margin: 1 0; }
        & #help-hint { color: $text-muted; padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close"),
    ]

    def __init__(self, bindings: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.bindings = list(bindings)
        """The (key display, description) rows, in order."""

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        table = Table.grid(padding=(0, 3))
        table.add_column(no_wrap=True, style="bold")
        table.add_column()
        for key, description in self.bindings:
            table.add_row(Text(key), Text(description))
        with VerticalScroll(id="help-dialog"):
            yield Static(Content("Keys"), id="help-title")
            yield Static(table, id="help-table")
            yield Static(Content("esc, q or ? closes"), id="help-hint")

    def on_mount(self) -> None:
        """Size the dialog to the table (the CSS caps it at 90% of the screen)."""
        keys = max((cell_len(key) for key, _ in self.bindings), default=0)
        texts = max((cell_len(text) for _, text in self.bindings), default=0)
        # columns + column gap + table padding + dialog padding + border + scrollbar
        width = keys + 3 + texts + 2 + 2 + 2 + 2
        self.query_one("#help-dialog").styles.width = max(width, 40)

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
