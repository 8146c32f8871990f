"""The prompt editor: Enter sends, Shift+Enter or ctrl+j starts a new line.

* Enter posts `Submitted` with the text exactly as typed (not when blank) and adds
  it to the project's history. Enter first brings the completion dropdown up to
  date with the text (keys typed fast may be ahead of it), so it does the same
  whatever the timing: a slash command typed out in full is sent; otherwise, with
  the dropdown open, the highlighted entry is completed. A dropdown closed with
  Esc stays closed: Enter sends the text. While the dropdown is
  open, Tab, Up, Down and Esc belong to it.
* The prompt keeps the focus while the conversation scrolls: PageUp/PageDown page
  it, ctrl+home goes to its top and ctrl+end to its end (following again), posted
  as `ScrollRequested`. ctrl+c copies a selection; without one it posts
  `Interrupted` (the pane cancels the running turn, or clears the prompt).
* Shift+Enter inserts a newline where the terminal reports it (kitty keyboard
  protocol); ctrl+j does everywhere.
* Up on the first line and Down on the last line browse the history. The draft
  typed before browsing comes back past the newest entry, and edits to recalled
  entries are kept while browsing.
* `/` at the start completes the agent's commands and `@` completes files under
  the working directory (`PromptCompletion`). While the first word is a known
  command that takes input, its hint shows in the bottom border.
* With a `DraftStore`, the text survives a restart: it is saved `DRAFT_DELAY`
  seconds after the last change and when the prompt goes away, restored (after
  any prompts that were still queued) when it mounts, and cleared when sent. An
  unedited history entry shown by Up/Down is not saved as the draft.
* `set_read_only(reason)` (a saved transcript is shown): the reason shows in the
  top border and Enter only repeats it; the text stays.

The completion dropdown lives in a screen overlay, so the prompt mounts it into its
screen when it is mounted and removes it when it goes; the app composes only the
`PromptInput`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Final, Literal, TypeAlias

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea

from acp_tui.client.prompt_content import PromptCapabilities
from acp_tui.storage.drafts import Draft, DraftStore
from acp_tui.storage.history import PromptHistory
from acp_tui.store.values import JSONObject
from acp_tui.ui.textual_private import set_timer_once
from acp_tui.ui.widgets.prompt_completion import PromptCompletion, SlashCommand

__all__ = ["DRAFT_DELAY", "PLACEHOLDER", "READ_ONLY_PLACEHOLDER", "PromptInput"]

PLACEHOLDER: Final = "Message the agent — / for commands, @ for files"

READ_ONLY_PLACEHOLDER: Final = "ctrl+n starts a new session · f2 picks another"

DRAFT_DELAY: Final = 0.5
"""Seconds after the last change before the draft is saved."""

_NEWLINE_KEYS: Final = frozenset({"shift+enter", "ctrl+j"})

_DROPDOWN_KEYS: Final = frozenset({"up", "down", "tab", "escape", "enter"})
"""Keys the completion dropdown may take after the prompt's own handlers ran (see
`PromptCompletion`): their bindings run the usual way, once the key has bubbled
up to the app."""

Scroll: TypeAlias = Literal["page_up", "page_down", "top", "end"]
"""How the prompt asks the conversation to scroll."""


class PromptInput(TextArea):
    """A multi-line prompt with history and `/` `@` completion.

    Args:
        id: The widget id.
        history: Where sent prompts go and Up/Down browse (None: no history).
        cwd: The working directory `@` completes files from (None: no files).
        drafts: Where the draft is saved and restored from (None: not saved).
    """

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 10;
        border: tall $border-blurred;
        border-subtitle-color: $text-muted;
        border-subtitle-align: left;
        &:focus { border: tall $primary; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pageup", "scroll_conversation('page_up')", "Page up", show=False),
        Binding(
            "pagedown", "scroll_conversation('page_down')", "Page down", show=False
        ),
        Binding("ctrl+home", "scroll_conversation('top')", "Top", show=False),
        Binding("ctrl+end", "scroll_conversation('end')", "Follow", show=False),
        Binding("ctrl+c", "interrupt", "Cancel or clear", show=False),
    ]

    @dataclass
    class ScrollRequested(Message):
        """Scroll the conversation (the prompt keeps the focus)."""

        prompt_input: PromptInput
        how: Scroll

    @dataclass
    class Interrupted(Message):
        """ctrl+c without a selection: cancel the turn, or clear the prompt."""

        prompt_input: PromptInput

    @dataclass
    class Submitted(Message):
        """The user sent a prompt."""

        prompt_input: PromptInput
        text: str

        @property
        def control(self) -> PromptInput:
            """The prompt input that sent it."""
            return self.prompt_input

    def __init__(
        self,
        *,
        id: str | None = None,
        history: PromptHistory | None = None,
        cwd: Path | None = None,
        drafts: DraftStore | None = None,
    ) -> None:
        super().__init__(
            id=id, soft_wrap=True, show_line_numbers=False, placeholder=PLACEHOLDER
        )
        self._history = history
        self._drafts = drafts
        self._draft_timer: Timer | None = None
        self._refusal: str | None = None
        self._recalled: str | None = None
        self._commands: tuple[SlashCommand, ...] = ()
        self._dismissed: str | None = None
        """The text when Esc last closed the dropdown (Enter does not reopen it)."""
        self._hint_shown: str | None = None
        """The command hint in the border now (`_show_hint`)."""
        self.completion = PromptCompletion(
            self, cwd=cwd, suppressed=self._showing_recalled_entry
        )
        """The dropdown (mounted in this widget's screen while this is mounted)."""

    # -- public API ---------------------------------------------------------------

    @property
    def prompt_history(self) -> PromptHistory | None:
        """The history Up/Down browse and Enter adds to (`history` is undo's)."""
        return self._history

    @property
    def command_hint(self) -> str | None:
        """The input hint of the command being typed, if it has one."""
        first_line = self.document.lines[0] if self.document.line_count else ""
        word = first_line.split(maxsplit=1)[0] if first_line.strip() else ""
        if not word.startswith("/"):
            return None
        for command in self._commands:
            if "/" + command.name == word:
                return command.hint
        return None

    def set_commands(self, commands: Sequence[JSONObject]) -> None:
        """Replace the agent's commands offered after `/`.

        Args:
            commands: Wire `AvailableCommand` objects (`name`, `description`,
                `input.hint`), as `available_commands_update` carries them.
        """
        self.completion.set_commands(commands)
        self._commands = self.completion.commands
        self._show_hint()

    def set_capabilities(self, caps: PromptCapabilities) -> None:
        """Say what the agent accepts (images are offered after `@` only if so).

        Args:
            caps: The agent's prompt capabilities.
        """
        self.completion.capabilities = caps

    @property
    def read_only_reason(self) -> str | None:
        """Why prompts cannot be sent now (None: they can)."""
        return self._refusal

    def set_read_only(self, reason: str | None) -> None:
        """Refuse to send (showing `reason`), or accept again with None."""
        self._refusal = reason
        self.border_title = Content(reason) if reason else None
        self.placeholder = READ_ONLY_PLACEHOLDER if reason else PLACEHOLDER

    def action_submit(self) -> None:
        """Send the prompt (blank prompts are ignored)."""
        text = self.text
        if not text.strip():
            return
        if self._refusal is not None:
            self.notify(
                f"{self._refusal}: {READ_ONLY_PLACEHOLDER}",
                severity="warning",
                markup=False,
            )
            return
        if self._history is not None:
            self._history.add(text)
        self._recalled = None
        self.clear()
        self.save_draft()  # at once: a sent prompt must not come back as a draft
        self.post_message(self.Submitted(self, text))

    def action_scroll_conversation(self, how: Scroll) -> None:
        """Ask for the conversation to scroll; the focus stays here."""
        self.post_message(self.ScrollRequested(self, how))

    def action_interrupt(self) -> None:
        """ctrl+c: copy the selection, or else ask to cancel the turn or clear."""
        if self.selected_text:
            self.action_copy()
            return
        self.post_message(self.Interrupted(self))

    def clear_prompt(self) -> None:
        """Empty the prompt (undo brings the text back) and save the empty draft."""
        self._recalled = None
        self.clear()
        self.save_draft()

    def _typed_command(self) -> bool:
        """The text is one of the agent's slash commands typed out in full."""
        text = self.text
        if not text.startswith("/"):
            return False
        word = text.split(maxsplit=1)[0]
        return any("/" + command.name == word for command in self._commands)

    def save_draft(self) -> None:
        """Save the text as the draft now (an unedited history entry is not)."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        if self._drafts is not None and not self._showing_recalled_entry():
            self._drafts.save_text(self.text)

    # -- lifecycle ----------------------------------------------------------------

    def on_mount(self) -> None:
        """Put the completion dropdown in this screen's overlay; restore the draft."""
        self.screen.mount(self.completion)
        if self._drafts is not None:
            saved = self._drafts.draft
            if not saved.empty and not self.text:
                text = saved.combined()
                self.load_text(text)
                self.move_cursor(self.document.end)
                # Queued prompts are in the text now: saved as the draft only.
                self._drafts.save(Draft(text))

    def on_unmount(self) -> None:
        """Take the dropdown away with the prompt; save the draft."""
        self.save_draft()
        if self.completion.is_attached:
            self.completion.remove()

    # -- keys ---------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            completion = self.completion
            if completion.is_attached and self.text != self._dismissed:
                completion.catch_up()  # keys typed fast may be ahead of it
            if self._typed_command() or not completion.is_open:
                completion.action_hide()  # it sees this key after us
                self.action_submit()
            # Otherwise the dropdown completes: it sees this key after us.
            return
        if event.key == "escape" and self.completion.is_open:
            self._dismissed = self.text  # closed by the user: Enter sends this
        if event.key in _NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)
        if await self._run_own_binding(event):
            event.stop()
            event.prevent_default()
        if event._stop_propagation:
            self._paint_now()

    def _paint_now(self) -> None:
        """Paint the key just handled now, not at the screen's next update.

        Textual hands a repaint to the screen as a message once this widget's
        queue is empty, and the screen paints once its own queue is empty, at
        its update timer's next tick: three turns of the event loop, and while
        the agent streams a turn of the loop holds a batch of changes, the
        layout and the mounts of new cards (20-50 ms from the edit to its
        frame). When the key only needs the prompt repainted (no layout, no
        scroll), this does what that message would (`Screen._on_update`) and
        paints at once; the frame takes the place of the timer's next one.
        """
        if not self._repaint_required or not self.is_attached:
            return
        if self._layout_required or self._scroll_required:
            return  # the usual way: the screen lays out first
        screen = self.screen
        if not screen.is_current or self not in screen._compositor:
            return
        self._repaint_required = False
        screen._dirty_widgets.add(self)
        screen.check_idle()  # as `Screen._on_update`: the timer, if not painted now
        screen._on_timer_update()

    async def _run_own_binding(self, event: events.Key) -> bool:
        """Run the prompt's own binding for `event` here; whether one ran.

        Textual runs a focused widget's bindings only once the key has bubbled
        up to the app, through the message queue of every container on the way:
        while the session pane awaited the mounts of a batch of streamed
        changes, Backspace, Delete and the arrows waited with it (100-200 ms
        while the agent streamed). The prompt's bindings come first in that
        search anyway (the app's priority bindings ran before the key got
        here), so running them now changes nothing but when.
        """
        if event.key in _DROPDOWN_KEYS or event.is_printable:
            return False
        if event._stop_propagation or event._no_default_action:
            return False  # a handler (ours, the base's) took the key
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def action_cursor_up(self, select: bool = False) -> None:
        """Move up; on the first line, recall the previous history entry."""
        if (
            not select
            and self._history is not None
            and self.navigator.is_first_wrapped_line(self.cursor_location)
        ):
            text = self._history.previous(self.text)
            if text is not None:
                self._recall(text, from_history=True)
                return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        """Move down; on the last line while browsing, recall the next entry."""
        if (
            not select
            and self._history is not None
            and self._history.browsing
            and self.navigator.is_last_wrapped_line(self.cursor_location)
        ):
            text = self._history.next(self.text)
            if text is not None:
                self._recall(text, from_history=self._history.browsing)
                return
        super().action_cursor_down(select)

    # -- internals ----------------------------------------------------------------

    def _recall(self, text: str, *, from_history: bool) -> None:
        """Show a history entry, or (`from_history=False`) the restored draft."""
        self._recalled = text if from_history else None
        self.replace(text, (0, 0), self.document.end, maintain_selection_offset=False)
        self.move_cursor(self.document.end)

    def _showing_recalled_entry(self) -> bool:
        """Completion stays closed on an unedited history entry (Up/Down browse)."""
        return self._recalled is not None and self.text == self._recalled

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Keep the command hint in step with the text; save the draft soon."""
        if event.text_area is self:
            self._show_hint()
            if self._drafts is not None:
                if self._draft_timer is not None:
                    self._draft_timer.stop()
                self._draft_timer = set_timer_once(
                    self, DRAFT_DELAY, self.save_draft, name="save-draft"
                )

    def _show_hint(self) -> None:
        """Show the command's hint in the border, if it changed.

        Setting the border's subtitle repaints the prompt even when it stays the
        same: a second paint for every key typed (the first is `_paint_now`'s).
        """
        hint = self.command_hint or None
        if hint == self._hint_shown:
            return
        self._hint_shown = hint
        self.border_subtitle = Content(hint) if hint else None
