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
* **Blocks updated in place.** The block that grew (a paragraph, a code block,
  a bullet list whose items are paragraphs) is updated on its widget: no block
  widget is built only to copy its content, and a growing list mounts only its
  new items instead of being rebuilt on every flush. Widgets are costly to
  build and mount and become cyclic garbage, whose collection stalls frames.
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
from markdown_it.token import Token
from rich.text import Text
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.containers import Horizontal
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


def _first_block(tokens: list[Token]) -> list[Token]:
    """The tokens of the first top-level block (empty if there are none)."""
    if not tokens:
        return []
    if tokens[0].nesting <= 0:
        return tokens[:1]
    for index, token in enumerate(tokens):
        if token.level == 0 and token.nesting < 0:
            return tokens[: index + 1]
    return tokens


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
            old = existing[len(existing) - self._tail_blocks :]
            rest = tokens
            kept = False
            if not replace and len(old) == 1:
                # The old tail block usually just grew: update its widget.
                head = _first_block(tokens)
                kept = self._update_in_place(old[0], head) or (
                    await self._update_list_in_place(old[0], head)
                )
                if kept:
                    old = []
                    rest = tokens[len(head) :]
            blocks = list(self._parse_markdown(rest))
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
            self._tail_blocks = 1 if blocks or kept else 0
            if len(old) == 1 and blocks:
                with suppress(IndexError):  # a block that cannot take the new one
                    await old[0]._update_from_block(blocks[0])
                    blocks = blocks[1:]
                    old = []
            if old:
                await self.remove_children(old)
            if blocks:
                await self.mount_all(blocks)

    async def _update_list_in_place(
        self, block: MarkdownBlock, tokens: list[Token]
    ) -> bool:
        """Grow a bullet list of one-paragraph items without rebuilding it.

        Textual replaces a list block whole; while a list streams that
        re-mounts every item (four widgets each) on every flush. Here the
        items' paragraphs are updated in place and only new items are mounted.

        Args:
            block: The widget that renders the tail.
            tokens: The tail's tokens.

        Returns:
            Whether the list was updated (False: rebuild it).
        """
        if (
            len(tokens) < 4
            or tokens[0].type != "bullet_list_open"
            or tokens[-1].type != "bullet_list_close"
            or type(block) is not self.get_block_class("bullet_list_open")
        ):
            return False
        # The items, as (first token index, paragraph_open, inline) or, for an
        # item with no text yet, (first token index, None, None).
        items: list[tuple[int, Token | None, Token | None]] = []
        index, end = 1, len(tokens) - 1
        item = ["list_item_open", "paragraph_open", "inline", "paragraph_close"]
        while index < end:
            if [t.type for t in tokens[index : index + 2]] == [
                "list_item_open",
                "list_item_close",
            ]:
                items.append((index, None, None))
                index += 2
            elif [t.type for t in tokens[index : index + 5]] == [
                *item,
                "list_item_close",
            ]:
                items.append((index, tokens[index + 1], tokens[index + 2]))
                index += 5
            else:
                return False
        paragraph_class = self.get_block_class("paragraph_open")
        columns: list[tuple[Widget, MarkdownBlock | None]] = []
        for row in block.children:
            cells = row.children
            if not isinstance(row, Horizontal) or len(cells) != 2:
                return False
            shown = cells[1].children
            if len(shown) > 1 or (shown and type(shown[0]) is not paragraph_class):
                return False
            paragraph = shown[0] if shown else None
            assert paragraph is None or isinstance(paragraph, MarkdownBlock)
            columns.append((cells[1], paragraph))
        if not columns or len(items) < len(columns):
            return False
        for (column, paragraph), (_, opening, inline) in zip(
            columns, items, strict=False
        ):
            if inline is None or opening is None:
                if paragraph is not None:
                    return False  # text went away: not an append
                continue
            if paragraph is None:
                paragraph = paragraph_class(self, opening)
                paragraph.build_from_token(inline)
                await column.mount(paragraph)
                continue
            rendered = paragraph._inline_token
            if rendered is None or rendered.content != inline.content:
                paragraph.build_from_token(inline)
        if len(items) > len(columns):
            # Textual builds the new items' rows (bullet and paragraph) as
            # it would for the whole list; only they are mounted.
            new = tokens[items[len(columns)][0] : -1]
            rows: list[Widget] = []
            for built in self._parse_markdown([tokens[0], *new, tokens[-1]]):
                rows.extend(built.compose())
            await block.mount_all(rows)
        first = tokens[0]
        if first.map is not None:
            begin, end = first.map
            block.source_range = (begin + self._tail_line, end + self._tail_line)
        block._token = first
        return True

    def _update_in_place(self, block: MarkdownBlock, tokens: list[Token]) -> bool:
        """Bring the last block up to date without building a new widget.

        The common streaming case, a paragraph or a code block that grew, is
        updated on the existing widget: no block widget is built only to copy
        its content and become garbage (a widget is a few hundred objects with
        reference cycles, freed only by the cyclic garbage collector).

        Args:
            block: The widget that renders the tail.
            tokens: The tail's tokens.

        Returns:
            Whether the block was updated (False: rebuild it).
        """
        first = tokens[0] if tokens else None
        if first is None or first.map is None or first.level:
            return False
        begin, end = first.map
        if (
            len(tokens) == 3
            and first.type == "paragraph_open"
            and tokens[1].type == "inline"
            and type(block) is self.get_block_class("paragraph_open")
        ):
            block.build_from_token(tokens[1])
        elif (
            len(tokens) == 1
            and first.type in ("fence", "code_block")
            and isinstance(block, _Fence)
            and block.lexer == first.info
        ):
            block.code = first.content.rstrip()
            block._highlighted_code = block.highlight(
                block.code,
                block.lexer,
                ansi=self.app.native_ansi_color,
                dark=self.app.current_theme.dark,
            )
            block.set_content(block._highlighted_code)
        else:
            return False
        block._token = first
        block.source_range = (begin + self._tail_line, end + self._tail_line)
        return True


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
