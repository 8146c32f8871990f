"""The prompts waiting to be sent, in a small list above the prompt.

A prompt sent while the agent is busy (a turn runs, the session is not open
yet, or the agent stopped) waits in the tab's queue; `PromptQueue` shows those
prompts, oldest first, one line each, and lets the user take one back:

* Up in the empty prompt selects the newest queued prompt (the pane binds it,
  see `acp_tui.ui.session_pane`); Up and Down move, Down past the last entry or
  Esc goes back to the prompt.
* Enter (or a click) on an entry posts `Edit`: the pane takes the prompt out of
  the queue and puts its text back into the prompt, to be edited and sent again.
* Delete, Backspace or `x` on an entry posts `Remove`: the pane takes it out of
  the queue.
* alt+up / alt+down (or ctrl+up / ctrl+down) on an entry post `Move`: the pane
  moves it one place earlier or later in the queue (the order it is sent in).
* `s` on an entry posts `SendNow`: the pane sends it into the running turn
  where the agent takes prompts there (steering; the title says so while it
  can: `show(..., steering=True)`), see `acp_tui.ui.pane_steering`.

The list holds no state of its own beyond what it shows: the pane owns the queue
and calls `show` whenever it changes. Prompt text is the user's, shown as plain
`Content` (printable, never markup); a long or multi-line prompt is cut to one
line here and shown whole once it is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.safe_text import printable

__all__ = ["ENTRY_WIDTH", "PromptQueue"]

ENTRY_WIDTH: Final = 200
"""Characters of a queued prompt shown on its line (the rest is cut)."""

_KEYS_HINT: Final = "↑ in the empty prompt selects · enter edits · del removes"
_MOVE_HINT: Final = "alt+↑↓ moves"
_STEER_HINT: Final = "s sends now"


def entry_text(text: str) -> str:
    """A queued prompt as one printable line (its first line, cut)."""
    lines = text.strip().splitlines() or [""]
    line = printable(lines[0])
    more = len(lines) > 1 or len(line) > ENTRY_WIDTH
    return line[:ENTRY_WIDTH] + (" …" if more else "")


class PromptQueue(OptionList):
    """The tab's queued prompts, oldest first (hidden while there are none)."""

    DEFAULT_CSS = """
    PromptQueue {
        height: auto;
        max-height: 6;
        border: none;
        border-top: solid $secondary;
        border-title-color: $text-muted;
        padding: 0 1;
        background: transparent;
        color: $text-muted;
        &:focus {
            border: none;
            border-top: solid $primary;
            background-tint: transparent;
        }
        & > .option-list--option-highlighted {
            color: $text;
            text-style: none;
        }
        &:focus > .option-list--option-highlighted {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("delete,backspace,x", "remove", "Remove", show=False),
        Binding("escape", "leave", "Back to the prompt", show=False),
        Binding("down", "down_or_leave", "Down", show=False),
        Binding("up", "up", "Up", show=False),
        Binding("alt+up,ctrl+up", "move(-1)", "Move up", show=False),
        Binding("alt+down,ctrl+down", "move(1)", "Move down", show=False),
        Binding("s", "send_now", "Send now", show=False),
    ]

    @dataclass
    class Edit(Message):
        """Take this prompt out of the queue and back into the prompt."""

        prompt_id: int

    @dataclass
    class Remove(Message):
        """Take this prompt out of the queue."""

        prompt_id: int

    @dataclass
    class Move(Message):
        """Move this prompt `by` places (negative: earlier) in the queue."""

        prompt_id: int
        by: int

    @dataclass
    class SendNow(Message):
        """Send this prompt into the running turn (steering)."""

        prompt_id: int

    @dataclass
    class Leave(Message):
        """Give the focus back to the prompt."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: tuple[tuple[int, str], ...] = ()
        """What the list shows: (prompt id, text), oldest first."""
        self._note = ""
        self.steering = False
        """Whether `s` sends the highlighted prompt now (see `show`)."""

    def on_mount(self) -> None:
        """Nothing is queued yet: hidden."""
        self.display = False

    def show(
        self,
        entries: Sequence[tuple[int, str]],
        *,
        note: str = "",
        steering: bool = False,
    ) -> None:
        """Show these queued prompts (hidden when there are none).

        Args:
            entries: (prompt id, text), oldest first.
            note: What the title adds (say, that they go out after a restart).
            steering: Whether a queued prompt can be sent into the running
                turn now (`s`).
        """
        entries = tuple(entries)
        if entries == self.entries and (note, steering) == (self._note, self.steering):
            return
        highlighted = self.highlighted_id
        self.entries, self._note, self.steering = entries, note, steering
        self.clear_options()
        self.add_options(
            Option(Content(entry_text(text)), id=str(prompt_id))
            for prompt_id, text in entries
        )
        count = f"{len(entries)} queued"
        hints = (_KEYS_HINT, _MOVE_HINT, _STEER_HINT if steering else "")
        self.border_title = " · ".join(part for part in (count, note, *hints) if part)
        self.display = bool(entries)
        if not entries:
            if self.has_focus:
                self.post_message(self.Leave())
            return
        ids = [prompt_id for prompt_id, _ in entries]
        self.highlighted = ids.index(highlighted) if highlighted in ids else None
        if self.has_focus and self.highlighted is None:
            self.highlighted = len(entries) - 1

    @property
    def highlighted_id(self) -> int | None:
        """The prompt under the cursor (None: none highlighted)."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self.entries):
            return None
        return self.entries[index][0]

    def select_newest(self) -> None:
        """Focus the list on its newest entry (Up in the empty prompt)."""
        if not self.entries:
            return
        self.highlighted = len(self.entries) - 1
        self.focus()

    def on_blur(self) -> None:
        """No highlight while the prompt has the focus."""
        self.highlighted = None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click on an entry: edit it."""
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Edit(int(event.option.id)))

    def action_remove(self) -> None:
        """Remove the highlighted prompt from the queue."""
        prompt_id = self.highlighted_id
        if prompt_id is not None:
            self.post_message(self.Remove(prompt_id))

    def action_move(self, by: int) -> None:
        """Move the highlighted prompt earlier (negative) or later in the queue."""
        prompt_id = self.highlighted_id
        if prompt_id is not None:
            self.post_message(self.Move(prompt_id, by))

    def action_send_now(self) -> None:
        """Send the highlighted prompt into the running turn, where possible."""
        prompt_id = self.highlighted_id
        if prompt_id is not None:
            self.post_message(self.SendNow(prompt_id))

    def action_leave(self) -> None:
        """Back to the prompt."""
        self.post_message(self.Leave())

    def action_up(self) -> None:
        """Up; it stops at the oldest entry (no wrapping)."""
        index = self.highlighted
        if index is None:
            self.highlighted = len(self.entries) - 1 if self.entries else None
        elif index > 0:
            self.highlighted = index - 1

    def action_down_or_leave(self) -> None:
        """Down; past the last entry, back to the prompt."""
        index = self.highlighted
        if index is None or index >= len(self.entries) - 1:
            self.post_message(self.Leave())
            return
        self.action_cursor_down()
