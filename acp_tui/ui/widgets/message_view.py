"""One message of the conversation: user, agent (streamed markdown) or thought.

Agent text is markdown, shown by `AgentMarkdown` (Textual's `Markdown` widget with
its own incremental append) and appended to as chunks arrive. Three choices keep
streaming cheap (bench/ui.py measures them):

* **Adaptive flushes.** Appending re-parses the document's last block and the next
  frame re-wraps it, so while one long paragraph grows every flush costs in
  proportion to its length. Flushing on every batch (or, as Textual's
  `MarkdownStream` does, as soon as the previous append returned) makes a
  paragraph of N chunks cost O(N²). Here, after a flush the next one waits as long
  as the last took, from the append until the frame that showed it
  (`FLUSH_SPACING` times that, at most `MAX_FLUSH_DELAY`, at least
  `MIN_FLUSH_INTERVAL` between starts): rendering takes at most about half the
  wall-clock time whatever the paragraph's length, so N chunks cost O(N).
* **No batch updates.** Textual's `Markdown.append` and `update` hold the app in a
  batch update (no frame is painted) while they await mounting; with several
  messages streaming those batches overlapped and froze the screen for hundreds
  of milliseconds. `AgentMarkdown` re-parses from the start of the last block
  (an offset it keeps), updates that block in place when it can and mounts the
  rest, without a batch.
* **No language guessing.** A code block without a language is shown plain:
  Textual would ask Pygments to guess the language, which tries every lexer (about
  100 ms per block on a busy machine, on every flush of a streaming block).

Thoughts are collapsed by default. Agent text is never markup: the markdown parser
builds `Content` from its tokens, and control characters are stripped first.
"""

from __future__ import annotations

import time
from contextlib import suppress
from typing import ClassVar

from markdown_it import MarkdownIt
from rich.text import Text
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from acp_tui.protocol.framing import printable
from acp_tui.store.model import Message

__all__ = ["AgentMarkdown", "MessageView"]


def _safe(text: str) -> str:
    return printable(text, keep="\n\t")


class _Fence(MarkdownFence):
    """A code block; highlighted only when its language is given."""

    @classmethod
    def highlight(
        cls, code: str, language: str, ansi: bool = False, dark: bool = False
    ) -> Content:
        """Highlight `code` as `language`; plain text without a language."""
        if not language:
            return Content(code)
        return super().highlight(code, language, ansi=ansi, dark=dark)


def _line_offset(text: str, line: int) -> int:
    """The index in `text` where line number `line` (0-based) starts."""
    offset = 0
    for _ in range(line):
        found = text.find("\n", offset)
        if found < 0:
            return len(text)
        offset = found + 1
    return offset


class AgentMarkdown(Markdown):
    """The markdown of an agent message, appended to by `append_text`.

    Textual's `Markdown.append` keeps the app in a batch update (no frame is
    painted) while it awaits the new blocks' mounting, and splits the whole
    document into lines on every call. With several messages streaming, those
    batches overlap and the screen froze for hundreds of milliseconds
    (bench/ui.py). `append_text` re-parses only the last top-level block (the
    *tail*, tracked as an offset into the source), updates that block's widget in
    place when it can, and mounts the blocks after it, without a batch update.

    Code blocks without a language are not highlighted.

    Args:
        markdown: The markdown to show first.
    """

    def __init__(self, markdown: str | None = None) -> None:
        super().__init__(markdown)
        self._parser: MarkdownIt | None = None
        self._tail_start: int | None = None
        """Where in the source the last block starts (None: re-parse it all)."""
        self._tail_line = 0
        """The line number of `_tail_start`."""
        self._tail_blocks = 0
        """How many block widgets at the end render the tail (0 or 1)."""

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        """The block widget class for a token (our own for code blocks)."""
        if block_name in ("fence", "code_block"):
            return _Fence
        return super().get_block_class(block_name)

    def update(self, markdown: str) -> AwaitComplete:
        """Replace the whole document.

        Args:
            markdown: The new document.

        Returns:
            An awaitable that completes once the blocks are mounted.
        """
        self._markdown = markdown
        return AwaitComplete(self._rebuild_tail(replace=True))

    def append_text(self, fragment: str) -> AwaitComplete:
        """Append markdown to the document, re-rendering only its last block.

        Args:
            fragment: Markdown to add at the end.

        Returns:
            An awaitable that completes once the blocks are mounted.
        """
        self._markdown = self.source + fragment
        return AwaitComplete(self._rebuild_tail(replace=False))

    async def _rebuild_tail(self, *, replace: bool) -> None:
        """Parse the tail of the source and bring the block widgets up to date."""
        async with self.lock:
            source = self.source
            existing = [c for c in self.children if isinstance(c, MarkdownBlock)]
            start = self._tail_start
            if replace or start is None:
                start, self._tail_line, self._tail_blocks = 0, 0, len(existing)
            if self._parser is None:
                self._parser = MarkdownIt("gfm-like")
            tail = source[start:]
            tokens = self._parser.parse(tail)
            blocks = list(self._parse_markdown(tokens))
            first_line = self._tail_line
            for block in blocks:
                begin, end = block.source_range
                block.source_range = (begin + first_line, end + first_line)
            last_line = next(
                (
                    t.map[0]
                    for t in reversed(tokens)
                    if t.map is not None and not t.level
                ),
                None,
            )
            if last_line is not None:
                self._tail_start = start + _line_offset(tail, last_line)
                self._tail_line = first_line + last_line
            else:
                self._tail_start = start
            old = existing[len(existing) - self._tail_blocks :]
            self._tail_blocks = 1 if blocks else 0
            if len(old) == 1 and blocks:
                with suppress(IndexError):  # a block that cannot take the new one
                    await old[0]._update_from_block(blocks[0])
                    blocks = blocks[1:]
                    old = []
            if old:
                await self.remove_children(old)
            if blocks:
                await self.mount_all(blocks)


class MessageView(Widget):
    """Renders a `Message`; agent text is appended to a `Markdown` as it streams.

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
        &.-agent > Markdown { margin: 0; padding: 0 1; }
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
        super().__init__(classes=f"-{message.role}")
        self.message = message
        self.role = message.role
        self._rendered = message.text
        self._pending: list[str] = []
        self._flushing = False
        """A flush is scheduled or under way (it reschedules itself)."""
        self._next_flush = 0.0
        self._flush_started = 0.0
        self.flushes = 0
        """How many appends were made to the markdown (for tests and benchmarks)."""
        self._markdown: AgentMarkdown | None = None

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        text = _safe(self.message.text)
        if self.role == "agent":
            self._markdown = AgentMarkdown(text)
            yield self._markdown
        elif self.role == "thought":
            with Collapsible(title="Thought", collapsed=True):
                yield Static(Text(text), classes="body")
        else:
            yield Static(Text(text), classes="body")

    @property
    def text(self) -> str:
        """The text shown so far (for agent text: what the markdown was given)."""
        markdown = self._markdown
        if markdown is None:
            return self._rendered
        return markdown.source if markdown.is_mounted else ""

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
                await self._markdown.update(_safe(text))
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
        if not markdown.is_mounted:  # its first render is still under way
            self.set_timer(0.01, self._flush, name="markdown-flush")
            return
        if not self._pending:
            self._flushing = False
            return
        text = _safe("".join(self._pending))
        self._pending.clear()
        self._flush_started = time.perf_counter()
        await markdown.append_text(text)
        self.flushes += 1
        self.call_after_refresh(self._flushed)

    def _flushed(self) -> None:
        now = time.perf_counter()
        pause = (now - self._flush_started) * self.FLUSH_SPACING
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
