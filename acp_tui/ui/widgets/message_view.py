"""One message of the conversation: user, agent (streamed markdown) or thought.

Agent text is markdown, shown by `MarkdownView` (one Line-API widget per message,
see `acp_tui.ui.widgets.markdown_view`) and appended to as chunks arrive.

**Adaptive flushes.** Appending re-parses the document's last block and the next
frame re-wraps it, so while one long paragraph grows every flush costs in
proportion to its length. Flushing on every batch (or, as Textual's
`MarkdownStream` does, as soon as the previous append returned) makes a paragraph
of N chunks cost O(N²). Here one flush is shown per frame, and the next one waits
as long as the last cost (parsing the tail, and drawing its lines for the frame:
`FLUSH_SPACING` times that, at most `MAX_FLUSH_DELAY`, at least
`MIN_FLUSH_INTERVAL` between starts): rendering takes at most about half the time
whatever the paragraph's length, so N chunks cost O(N).

**Long messages.** The markdown draws a long text as a window (its head, a
notice, its tail: see `markdown_view`); user and thought text is cut the same way
(`HEAD_CHARS` and `TAIL_CHARS`). A message the store capped (`Message.capped`) is
followed by position (`Message.text_after`), so each batch costs what is new,
never a join of what the store keeps. So is any message that grows by more than
`REBASE_CHARS` at once (a huge chunk): the window is drawn anew from the store's
head and last characters (`MarkdownView.rebase`), and the megabytes between are
never joined, made printable or scanned for fences on the event loop. The
notice, a click on a cut user or thought message, or Enter on it, opens
`MessagePager`: all the text the store keeps, and what it no longer does.

Thoughts are collapsed by default. Agent text is never markup: the markdown is
drawn from plain strings, and control characters are stripped first.

**A user message the agent wrote is never shown as the user's.** A `user`
message marked as the agent's (`Message.from_agent`: it answered no prompt sent
from here and replayed no history, see `acp_tui.client.message_origins`) loses
the user's style (`-user`) for its own (`-from-agent`: a warning border) under a
label saying the agent sent it. A mark that comes after the message was shown
restyles it at once.
"""

from __future__ import annotations

import time
from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message as UIMessage
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.safe_text import printable
from acp_tui.store.model import Message
from acp_tui.ui.textual_private import set_timer_once
from acp_tui.ui.widgets.markdown_view import (
    HEAD_CHARS,
    TAIL_CHARS,
    MarkdownView,
    cut_notice,
)

__all__ = ["FROM_AGENT_LABEL", "REBASE_CHARS", "MessageView"]

REBASE_CHARS: Final = 4 * (HEAD_CHARS + 2 * TAIL_CHARS)
"""Growth at once past which the window is drawn anew rather than appended to:
appending costs in proportion to the text given, a rebase to the window."""

FROM_AGENT_LABEL: Final = "⚠ from the agent, not typed by you"
"""The label over a user message the agent wrote."""


def _safe(text: str) -> str:
    return printable(text, keep="\n\t")


def _window(message: Message) -> tuple[str, int, str]:
    """A long message's first and last characters, and how many are between."""
    size = message.text_size
    head = message.head_text[:HEAD_CHARS]
    tail = message.text_after(max(size - TAIL_CHARS, len(head)))
    if tail is None:  # the store keeps less than TAIL_CHARS past the cut
        tail = (message.tail or "")[-TAIL_CHARS:]
    return head, size - len(head) - len(tail), tail


def _is_long(message: Message) -> bool:
    return message.capped or message.text_size > HEAD_CHARS + TAIL_CHARS


def _plain_text(message: Message) -> str:
    """User or thought text to show: all of it, or a long one's window."""
    if not _is_long(message):
        return message.text
    head, hidden, tail = _window(message)
    notice = cut_notice(
        hidden,
        kept=message.text_size - message.cut_chars,
        total=message.text_size,
        action="click the message or press Enter on it to see it all",
    )
    return f"{head}\n\n{notice}\n\n{tail}"


class MessageView(Widget):
    """Renders a `Message`; agent text is appended to a `MarkdownView` as it streams.

    Args:
        message: The message snapshot to show first.
    """

    DEFAULT_CSS = """
    MessageView {
        height: auto;
        margin: 0 0 1 0;
        &.-user {
            border-left: thick $primary;
            padding: 0 1;
            background: $boost;
        }
        &.-from-agent {
            border-left: outer $warning;
            padding: 0 1;
            background: $warning 10%;
        }
        & > .origin { display: none; color: $text-warning; text-style: bold; }
        &.-from-agent > .origin { display: block; }
        &.-agent > MarkdownView { margin: 0; padding: 0 1; }
        &.-thought { color: $text-muted; }
        & Collapsible { margin: 0; }
        /* A collapsed thought is its one title row: real agents think
           before most answers, and Textual's border and bottom padding
           made each closed thought three rows. */
        & Collapsible.-collapsed { border-top: none; padding-bottom: 0; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "show_all", "Show all", show=False),
        Binding("f", "fork_here", "Fork here", show=False),
    ]

    FORKABLE: ClassVar[str] = "-forkable"
    """The class an ancestor (the pane) has while its agent forks sessions: the
    message cards then take focus, and f on one forks the session there (other
    letters typed on a focused card go to the prompt; ctrl+f searches)."""

    FLUSH_SPACING: ClassVar[float] = 1.0
    """The pause after a flush, in multiples of what the flush took."""
    MIN_FLUSH_INTERVAL: ClassVar[float] = 1 / 60
    """The shortest time between two flushes' starts: one a frame. At 1/20 s (20
    a second) a streamed paragraph showed new words in one frame of three, the
    screen waiting 10-16 ms after each batch for the next flush (bench/ui.py, a
    paragraph at 1,000 words a second). Now a fifth to a third more CPU: 0.53-0.64
    instead of 0.43-0.48 s a second. What a flush costs still spaces the next
    (`FLUSH_SPACING`)."""
    MAX_FLUSH_DELAY: ClassVar[float] = 0.25
    """The longest pause between two flushes, in seconds."""

    def __init__(self, message: Message) -> None:
        super().__init__(classes=self._style_classes(message))
        self.message = message
        self.role = message.role
        self._rendered = "" if message.capped else message.text
        self._pending: list[str] = []
        self._flushing = False
        """A flush is scheduled or under way (it reschedules itself)."""
        self._next_flush = 0.0
        self._flush_started = 0.0
        self._append_cost = 0.0
        self._render_mark = 0.0
        self.flushes = 0
        """How many appends were made to the markdown (for tests and benchmarks)."""
        self._markdown: MarkdownView | None = None
        self._position = message.text_size
        """Characters of the message's text handed to the markdown (or pending)."""
        self._capped = False
        """The message is capped: followed by position (see the module)."""
        if self.role != "agent":
            self._rendered = _plain_text(message)
            self.can_focus = _is_long(message)

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        if self.role == "agent":
            self._markdown = MarkdownView()
            if self.message.capped:
                self._capped = True
                self._rebase(self.message)
            else:
                self._markdown.append(_safe(self.message.text))
            yield self._markdown
            return
        text = _safe(self._rendered)
        if self.role == "thought":
            with Collapsible(title="Thought", collapsed=True):
                yield Static(Text(text), classes="body")
        else:
            yield Static(Text(FROM_AGENT_LABEL), classes="origin")
            yield Static(Text(text), classes="body")

    @staticmethod
    def _style_classes(message: Message) -> str:
        return "-from-agent" if message.from_agent else f"-{message.role}"

    @property
    def text(self) -> str:
        """The text shown so far (for agent text: what the markdown was given)."""
        markdown = self._markdown
        if markdown is None:
            return self._rendered
        return markdown.source

    @property
    def pending(self) -> bool:
        """Whether appended agent text waits for its flush."""
        return bool(self._pending)

    async def update_message(self, message: Message, *, replaced: bool) -> None:
        """Show a newer snapshot; appended text is streamed, `replaced` re-renders.

        Args:
            message: The newer snapshot.
            replaced: The content was replaced (not only appended to).
        """
        if message.from_agent != self.message.from_agent:
            self.set_class(message.from_agent, "-from-agent")
            self.set_class(not message.from_agent, f"-{message.role}")
        self.message = message
        if self.role != "agent":
            shown = _plain_text(message)
            if shown != self._rendered:
                self._rendered = shown
                self.can_focus = _is_long(message)
                self.query_one(".body", Static).update(Text(_safe(shown)))
            return
        huge = message.text_size - self._position > REBASE_CHARS
        if message.capped or self._capped or huge:
            self._update_capped(message, replaced, huge)
            return
        text = message.text
        self._position = len(text)
        if text == self._rendered:
            return
        if replaced or not text.startswith(self._rendered):
            self._rendered = text
            self._pending.clear()
            if self._markdown is not None:
                self._markdown.update(_safe(text))
            return
        self._pending.append(text[len(self._rendered) :])
        self._rendered = text
        self._schedule_flush()

    def _update_capped(self, message: Message, replaced: bool, huge: bool) -> None:
        """Follow a capped message by position: hand over only what is new.

        `huge`: more than `REBASE_CHARS` are new; the window is drawn anew.
        """
        self._capped = True
        fresh = None if replaced or huge else message.text_after(self._position)
        if fresh is None:  # replaced, more than a window, or more than the store keeps
            self._pending.clear()
            self._rebase(message)
            return
        self._position = message.text_size
        if self._markdown is not None:
            self._markdown.note_kept(
                message.text_size - message.cut_chars, self._position
            )
        if fresh:
            self._pending.append(fresh)
            self._schedule_flush()

    def _rebase(self, message: Message) -> None:
        """Show a capped message from scratch: its head, a gap, its tail."""
        markdown = self._markdown
        if markdown is None:
            return
        head, hidden, tail = _window(message)
        markdown.rebase(_safe(head), hidden, _safe(tail))
        markdown.note_kept(message.text_size - message.cut_chars, message.text_size)
        self._position = message.text_size

    @property
    def truncated(self) -> bool:
        """Whether some of the text is not drawn here (the pager shows it all)."""
        if self._markdown is not None:
            return self._markdown.windowed
        return _is_long(self.message)

    class ForkHere(UIMessage):
        """Asks to fork the session at this message (the pane decides how)."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key
            """The message's store key."""

    def _forkable(self) -> bool:
        return any(node.has_class(self.FORKABLE) for node in self.ancestors)

    def allow_focus(self) -> bool:
        """Long messages take focus; every message does where forks are offered."""
        return self.can_focus or self._forkable()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Key f forks only where the agent forks (elsewhere it goes to the prompt)."""
        if action == "fork_here":
            return self._forkable()
        return True

    def action_fork_here(self) -> None:
        """Ask to fork the session at this message."""
        self.post_message(self.ForkHere(self.message.key))

    class OpenPager(UIMessage):
        """Asks for the whole message in a pager (`FullScreenOpener` pushes it)."""

        def __init__(self, message: Message) -> None:
            super().__init__()
            self.message = message

    def action_show_all(self) -> None:
        """Ask for the whole message in a pager (a truncated one only)."""
        if self.truncated:
            self.post_message(self.OpenPager(self.message))

    def on_markdown_view_show_all(self, event: MarkdownView.ShowAll) -> None:
        """The notice of the agent's text was clicked (or Enter pressed)."""
        event.stop()
        self.action_show_all()

    def on_click(self, event: events.Click) -> None:
        """A click on a cut user or thought message opens it whole."""
        if self._markdown is None and self.truncated:
            event.stop()
            self.action_show_all()

    def _schedule_flush(self) -> None:
        if self._flushing or not self._pending:
            return
        self._flushing = True
        delay = self._next_flush - time.perf_counter()
        if delay > 0:
            set_timer_once(self, delay, self._flush, name="markdown-flush")
        else:
            self.call_later(self._flush)

    async def _flush(self) -> None:
        markdown = self._markdown
        if markdown is None:
            self._flushing = False
            return
        if not self._pending:
            self._flushing = False
            return
        text = _safe("".join(self._pending))
        self._pending.clear()
        self._render_mark = markdown.render_seconds
        self._flush_started = time.perf_counter()
        markdown.append(text)
        self._append_cost = time.perf_counter() - self._flush_started
        self.flushes += 1
        self.call_after_refresh(self._flushed)

    def _flushed(self) -> None:
        now = time.perf_counter()
        markdown = self._markdown
        drawn = markdown.render_seconds - self._render_mark if markdown else 0.0
        # What this flush cost: the append (parsing the tail) and drawing the
        # tail's lines for the frame. Not the wall-clock time until the frame,
        # which a flooding agent inflates with reading (the pause then grew with
        # the gap it caused).
        pause = (self._append_cost + drawn) * self.FLUSH_SPACING
        self._next_flush = max(
            now + min(pause, self.MAX_FLUSH_DELAY),
            self._flush_started + self.MIN_FLUSH_INTERVAL,
        )
        self._flushing = False
        self._schedule_flush()

    async def finish(self) -> None:
        """Flush pending text without waiting for the throttle (the turn is over)."""
        self._next_flush = 0.0
        if not self._flushing and self._pending:
            self._flushing = True
            await self._flush()
