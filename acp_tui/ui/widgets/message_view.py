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
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.protocol.framing import printable
from acp_tui.store.model import Message
from acp_tui.ui.widgets.markdown_view import MarkdownView

__all__ = ["FROM_AGENT_LABEL", "MessageView"]

FROM_AGENT_LABEL: Final = "⚠ from the agent, not typed by you"
"""The label over a user message the agent wrote."""


def _safe(text: str) -> str:
    return printable(text, keep="\n\t")


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
    }
    """

    FLUSH_SPACING: ClassVar[float] = 1.0
    """The pause after a flush, in multiples of what the flush took."""
    MIN_FLUSH_INTERVAL: ClassVar[float] = 1 / 20
    """The shortest time between two flushes' starts (20 a second reads smoothly)."""
    MAX_FLUSH_DELAY: ClassVar[float] = 0.25
    """The longest pause between two flushes, in seconds."""

    def __init__(self, message: Message) -> None:
        super().__init__(classes=self._style_classes(message))
        self.message = message
        self.role = message.role
        self._rendered = message.text
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

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        text = _safe(self.message.text)
        if self.role == "agent":
            self._markdown = MarkdownView(text)
            yield self._markdown
        elif self.role == "thought":
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
        text = message.text
        if text == self._rendered:
            return
        if self.role != "agent":
            self._rendered = text
            self.query_one(".body", Static).update(Text(_safe(text)))
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

    def _schedule_flush(self) -> None:
        if self._flushing or not self._pending:
            return
        self._flushing = True
        delay = self._next_flush - time.perf_counter()
        if delay > 0:
            self.set_timer(delay, self._flush, name="markdown-flush")
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
