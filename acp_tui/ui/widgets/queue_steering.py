"""What the conversation shows of a prompt sent now (steering).

`SteerNote` is the agent's answer, a dim line under the steered prompt, in its
card (the conversation shows it as the user's message where it was sent): say,
"sent now: injected into the running turn". `acp_tui.ui.pane_steering` places
it. Plain text, never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from acp_tui.safe_text import printable

__all__ = ["SteerNote"]


class SteerNote(Static):
    """The agent's answer to a prompt sent into its running turn."""

    DEFAULT_CSS = """
    SteerNote {
        height: auto;
        color: $text-muted;
        text-style: italic;
    }
    """

    def __init__(self, words: str) -> None:
        super().__init__(Text(f"↳ {printable(words)}"))
        self.words = words
