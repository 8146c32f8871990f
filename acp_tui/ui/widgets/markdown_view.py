"""One widget per agent message: streamed markdown drawn with the Line API.

Textual's `Markdown` builds a widget per block (four per list item), and a frame
costs in proportion to the widgets on screen; while an agent streams, every
frame re-lays out and repaints the followed tail, so bench/ui.py measured about
30 ms per frame and 100-160 ms between frames. `MarkdownView` is a single widget
over an `acp_tui.render.markdown.MarkdownDocument`:

* each top-level block is rendered once per width and theme, to `Strip`s that are
  cached by the block's key: appending re-parses and re-renders only the last
  block;
* the widget's height is the sum of its blocks' lines (plus one blank line
  between blocks), computed from the cache;
* `render_line` returns a cached strip: a frame that only scrolls repaints from
  the cache.

**Long messages are shown as a window.** Rendering costs in proportion to what
is drawn: a 5 MB paragraph took tens of seconds to wrap, and every flush of a
message of a million chunks laid out all of its lines again (bench/exhaustion.py).
Past `HEAD_CHARS + TAIL_CHARS` characters the view draws its first `HEAD_CHARS`
(the *head*, drawn once), a notice saying exactly how many characters are not
shown (and, for a message the store cut, how many it keeps: `note_kept`), and
its last
`TAIL_CHARS` to `2 * TAIL_CHARS` (the *tail*, which slides forward as text
arrives: by whole blocks, whose drawn lines stay cached, or, inside one block
longer than that, from a line start, and inside a code fence with the fence's
opening line: `FenceTracker`). The notice is a way in: clicking it, or Enter on
the focused view, posts `ShowAll` (the message view opens the whole text). So
whatever arrives, one flush parses and draws at most about `2 * TAIL_CHARS`.

Styles come from the one hidden `MarkdownStyles` per conversation
(`markdown_styles`): every view in it shares the `MarkdownTheme` that builds.
Text can be selected with the mouse and copied, as in the rest of the app.
"""

from __future__ import annotations

from time import perf_counter
from typing import ClassVar, Final

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.render.markdown import (
    Block,
    FenceTracker,
    MarkdownDocument,
    MarkdownTheme,
    line_text,
    render_block,
    render_notice,
)
from acp_tui.ui.widgets._paint import PaintStyle
from acp_tui.ui.widgets.markdown_styles import DEFAULT_THEME, MarkdownStyles

__all__ = [
    "HEAD_CHARS",
    "HOLD_CHARS",
    "TAIL_CHARS",
    "MarkdownView",
    "cut_notice",
]

HEAD_CHARS: Final = 32 * 1024
"""Characters of a long message drawn from its start (once): some 300 lines at
the usual width. Drawing costs in proportion to the characters of a block, and
one unbroken paragraph is one block: at 64 Ki a 500 KB line held the first frame
for 180 ms, the head and the tail drawn in one layout."""

TAIL_CHARS: Final = 16 * 1024
"""Characters of a long message drawn from its end, at least (at most twice as
many: the tail is cut back to this when it has grown to twice it)."""

HOLD_CHARS: Final = 4 * 2**20
"""The most text a view keeps beyond what it draws (`source`)."""


def cut_notice(hidden: int, *, kept: int = 0, total: int = 0, action: str = "") -> str:
    """What a window says about the characters between its head and its tail.

    Args:
        hidden: Characters not shown here.
        kept: With `total`: the message was cut by the store, which keeps this
            many of its characters.
        total: The message's characters, cut ones included.
        action: How to see the rest (e.g. "click here or press Enter ...").
    """
    noun = "character" if hidden == 1 else "characters"
    text = f"⋯ {hidden:,} {noun} not shown here"
    if total > kept:
        text += (
            f"; {total - kept:,} of the message's {total:,} are no longer kept "
            "(the app keeps the start and the end of a very long message)"
        )
    return text + (f" · {action}" if action else "")


class MarkdownView(PaintStyle, Widget, can_focus=False):
    """Markdown that grows at the end, rendered one cached block at a time.

    A long text is shown as a window (see the module docstring): its head, a
    notice, its tail. While it is, the view can take the focus (Enter posts
    `ShowAll`), as can a click on the notice.

    Args:
        markdown: The document to show first.
        id: The widget id.
        classes: CSS classes.
    """

    ALLOW_SELECT = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "show_all", "Show all", show=False),
    ]

    DEFAULT_CSS = """
    MarkdownView {
        height: auto;
        padding: 0 1;
        &:focus { background-tint: $foreground 5%; }
    }
    """

    class ShowAll(Message):
        """The user asked for the whole text of a windowed view."""

        def __init__(self, view: MarkdownView) -> None:
            super().__init__()
            self.view = view

    def __init__(
        self, markdown: str = "", *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.document = MarkdownDocument()
        """The text drawn from the start (all of it until the view windows)."""
        self.tail_document: MarkdownDocument | None = None
        """The text drawn from the end, once the view windows."""
        self._tail_start = 0
        """Where in the text given the tail's source starts (after its fence line)."""
        self._tail_prefix = 0
        """Characters the tail's source starts with that were not given (a fence's
        opening line, so code cut in the middle is still drawn as code)."""
        self.given_chars = 0
        """Characters given so far (`append`)."""
        self.missing_chars = 0
        """Characters of the text never given here (`note_gap`)."""
        self.kept = (0, 0)
        """(kept, total) characters, for a message the store cut (`note_kept`)."""
        self._held: list[str] | None = []
        """What was given, while it is at most `HOLD_CHARS` (see `source`)."""
        self._fences = FenceTracker()
        self._theme: MarkdownTheme | None = None
        self._styles: MarkdownStyles | None = None
        """Where the theme comes from (the nearest one up the tree, found on mount)."""
        self._cache: dict[int, tuple[int, list[Strip], list[str]]] = {}
        """Rendered lines by block key: (width, strips, plain text lines)."""
        self._layout_width = -1
        """The first line of each block in `_layout_blocks`."""
        self._lines: list[tuple[Strip, str]] = []
        self._relayout_asked = True
        """An append asked for a layout that has not run yet (`_relaid_out`)."""
        self._notice_rows = range(0)
        """The rows of `_lines` that hold the notice."""
        self.renders = 0
        """How many blocks were rendered (tests check that appends stay local)."""
        self.render_seconds = 0.0
        """Time spent drawing blocks so far (the message's flush throttle)."""
        if markdown:
            self.append(markdown)

    # ------------------------------------------------------------------ content

    @property
    def source(self) -> str:
        """The markdown given, or once more than `HOLD_CHARS` was, what is drawn.

        (A window's head and tail; the text between them is the store's to keep.)
        """
        held = self._held
        if held is not None:
            if len(held) > 1:
                held[:] = ["".join(held)]
            return held[0] if held else ""
        return self.document.source + self.tail_source

    @property
    def tail_source(self) -> str:
        """The text given that the tail draws (empty while not windowed)."""
        tail = self.tail_document
        return "" if tail is None else tail.source[self._tail_prefix :]

    @property
    def windowed(self) -> bool:
        """Whether the text is shown as a head, a notice and a tail."""
        return self.tail_document is not None

    @property
    def hidden_chars(self) -> int:
        """Characters of the text not drawn (between the head and the tail)."""
        if self.tail_document is None:
            return 0
        return self.missing_chars + self._tail_start - len(self.document.source)

    def notice_text(self) -> str:
        """The notice between the head and the tail (empty while not windowed)."""
        if self.tail_document is None:
            return ""
        kept, total = self.kept
        return cut_notice(
            self.hidden_chars,
            kept=kept,
            total=total,
            action="click here or press Enter on the message to see it all",
        )

    def append(self, fragment: str) -> None:
        """Add markdown at the end; only the last block is parsed and drawn again."""
        if not fragment:
            return
        self._hold(fragment)
        self._fences.feed(fragment)
        self.given_chars += len(fragment)
        tail = self.tail_document
        if tail is not None:
            self._feed_tail(fragment)
        elif len(self.document.source) + len(fragment) <= HEAD_CHARS + TAIL_CHARS:
            self.document.append(fragment)
        else:
            self._open_window(fragment)
        self._relaid_out()

    def _relaid_out(self) -> None:
        """Lay out again after an append: a repaint only, if the height stays.

        The view's height is all the layout needs of it, and a layout is of the
        whole screen: while an agent streams, most appends lengthen the last
        line, and laying the screen out again for each held up every frame
        (and a key typed meanwhile). The lines are drawn now, at the width laid
        out last (what `get_content_height` or `render_line` would do), unless
        a layout is asked for already: appends before the next frame then cost
        no more than they did.
        """
        width = self._layout_width
        rows = len(self._lines)
        self._layout_width = -1
        if (
            not self._relayout_asked
            and width > 0
            and width == self.size.width
            and self.is_attached
        ):
            self._layout(width)
            if len(self._lines) == rows:
                self.refresh()
                return
        self._relayout_asked = True
        self.refresh(layout=True)

    def note_gap(self, chars: int) -> None:
        """`chars` characters of the text come here that are not given.

        Ends the head where the text given so far ends, if it has not ended: what
        follows is drawn as the tail, and the notice counts the missing ones.
        """
        if chars <= 0:
            return
        if self.tail_document is None:
            self._start_tail(self.given_chars, "")
        self.missing_chars += chars
        self._held = None  # what was given no longer adds up to the text
        self._layout_width = -1
        self.refresh(layout=True)

    def note_kept(self, kept: int, total: int) -> None:
        """The store keeps `kept` of the message's `total` characters: say so."""
        if (kept, total) != self.kept:
            self.kept = (kept, total)
            self._layout_width = -1
            self.refresh(layout=True)

    def rebase(self, head: str, hidden: int, tail: str) -> None:
        """Show `head`, a notice of `hidden` characters not given, then `tail`.

        As `update(head)`, `note_gap(hidden)` and `append(tail)`, but a head the
        view already shows keeps its drawn lines: a capped message that grows by
        more than the store keeps at once is shown anew from its unchanged head,
        and drawing 32 Ki characters of one paragraph again took 50-90 ms.
        """
        if hidden <= 0 or self.tail_document is None or self.document.source != head:
            self.update(head)
            self.note_gap(hidden)
            self.append(tail)
            return
        self.given_chars = len(head)
        self.missing_chars = hidden
        self.kept = (0, 0)
        self._held = None
        self._fences = FenceTracker()
        self._fences.feed(head)
        self._start_tail(self.given_chars, "")
        self._fences.feed(tail)
        self.given_chars += len(tail)
        if tail:
            self._feed_tail(tail)
        self._layout_width = -1
        self.refresh(layout=True)

    def update(self, markdown: str) -> None:
        """Replace the whole document."""
        self.document.replace("")
        self.tail_document = None
        self._tail_start = self._tail_prefix = 0
        self.given_chars = self.missing_chars = 0
        self.kept = (0, 0)
        self._held = []
        self._fences = FenceTracker()
        self._cache.clear()
        self._layout_width = -1
        self.can_focus = False
        self.append(markdown)
        self.refresh(layout=True)

    def _hold(self, fragment: str) -> None:
        held = self._held
        if held is None:
            return
        if self.given_chars + len(fragment) > HOLD_CHARS:
            self._held = None
        else:
            held.append(fragment)

    def _open_window(self, fragment: str) -> None:
        """The text outgrew one screenful of drawing: keep the head, start a tail."""
        document = self.document
        given = self.given_chars - len(fragment)  # before this fragment
        if len(document.source) > HEAD_CHARS:
            # The head is longer than it will stay: cut it back once.
            source = document.source
            cut = _line_cut(source, HEAD_CHARS)
            document.replace(source[:cut])
            self._cache.clear()
            self._start_tail(cut, source[cut:] + fragment)
            return
        cut = _line_cut(fragment, HEAD_CHARS - len(document.source))
        document.append(fragment[:cut])
        self._start_tail(given + cut, fragment[cut:])

    def _start_tail(self, position: int, text: str) -> None:
        """Draw the text from `position` (what was given) on as the tail."""
        self.tail_document = MarkdownDocument()
        self._tail_start = position
        self._tail_prefix = 0
        self.can_focus = True
        self._restart_tail(position, "")
        if text:
            self._feed_tail(text)

    def _feed_tail(self, text: str) -> None:
        tail = self.tail_document
        assert tail is not None
        size = len(tail.source) - self._tail_prefix
        if size + len(text) <= 2 * TAIL_CHARS:
            tail.append(text)
            return
        if len(text) <= TAIL_CHARS:
            # Slide by whole blocks: the ones kept keep their drawn lines.
            tail.append(text)
            cut = tail.drop_before(len(tail.source) - TAIL_CHARS)
            if cut:
                self._tail_start += cut - self._tail_prefix
                self._tail_prefix = 0
                self._fences.forget_before(self._tail_start)
                return
            # One block longer than the tail: cut inside it, at a line start.
            given = tail.source[self._tail_prefix :]
            kept = given[len(given) - TAIL_CHARS :]
            end = self._tail_start + len(given)
        else:
            end = self._tail_start + size + len(text)
            kept = text[len(text) - TAIL_CHARS :]
        newline = kept.find("\n", 0, TAIL_CHARS // 2)
        if newline >= 0:
            kept = kept[newline + 1 :]
        self._restart_tail(end - len(kept), kept)

    def _restart_tail(self, position: int, kept: str) -> None:
        """The tail is `kept`, given from `position` on (a line start)."""
        tail = self.tail_document
        assert tail is not None
        opener = self._fences.opener_at(position)
        prefix = f"{opener}\n" if opener is not None else ""
        self._fences.forget_before(position)
        self._tail_start = position
        self._tail_prefix = len(prefix)
        tail.replace(prefix + kept)

    def rendered_tail_text(self) -> str | None:
        """The last block's text as drawn at the current layout width, if drawn."""
        document = self.document
        if self.tail_document is not None and self.tail_document.blocks:
            document = self.tail_document
        blocks = document.blocks
        if not blocks:
            return ""
        cached = self._cache.get(blocks[-1].key)
        if cached is None or cached[0] != self._layout_width:
            return None
        return "\n".join(cached[2])

    @property
    def plain_text(self) -> str:
        """The text as laid out at the current width (what a selection copies)."""
        return "\n".join(text for _, text in self._lines)

    def action_show_all(self) -> None:
        """Ask for the whole text (a windowed view only)."""
        if self.tail_document is not None:
            self.post_message(self.ShowAll(self))

    def on_click(self, event: events.Click) -> None:
        """A click on the notice asks for the whole text."""
        offset = event.get_content_offset(self)
        if offset is not None and offset.y in self._notice_rows:
            event.stop()
            self.action_show_all()

    # ------------------------------------------------------------------- styles

    def notify_style_update(self) -> None:
        """The theme or CSS changed: draw everything again."""
        super().notify_style_update()
        self._restyle()

    def on_mount(self) -> None:
        """Find the `MarkdownStyles` to draw with (add one if there is none)."""
        self._styles = self._find_styles()
        if self._styles is not None:
            return
        # No container of this view holds one (a test app): put one on the
        # screen, and draw again once its styles are known (default markdown
        # styles until then).
        self._styles = MarkdownStyles()
        self.screen.mount(self._styles)
        self.call_after_refresh(self._restyle)

    def _find_styles(self) -> MarkdownStyles | None:
        """The `MarkdownStyles` of the nearest container that holds one.

        The nearest, not any on the screen: each tab's conversation has its own,
        and a closed tab's must not be used by another (it no longer follows
        theme changes); and a walk up the tree costs the same however long the
        conversation on screen is.
        """
        for ancestor in self.ancestors:
            for styles in ancestor.query_children(MarkdownStyles):
                return styles
        return None

    def _restyle(self) -> None:
        self._theme = None
        self._cache.clear()
        self._layout_width = -1
        self.refresh(layout=True)

    def _markdown_theme(self) -> MarkdownTheme:
        if self._theme is None:
            styles = self._styles
            if styles is None or not styles.is_attached:
                return DEFAULT_THEME
            self._theme = styles.theme
        return self._theme

    # ------------------------------------------------------------------- layout

    def _block_lines(self, block: Block, width: int) -> tuple[list[Strip], list[str]]:
        cached = self._cache.get(block.key)
        if cached is not None and cached[0] == width:
            return cached[1], cached[2]
        started = perf_counter()
        lines = render_block(block, width, self._markdown_theme())
        strips = [Strip(line) for line in lines]
        texts = [line_text(line) for line in lines]
        self._cache[block.key] = (width, strips, texts)
        self.renders += 1
        self.render_seconds += perf_counter() - started
        return strips, texts

    def _layout(self, width: int) -> None:
        if width == self._layout_width:
            return
        head = self.document.blocks
        tail = self.tail_document.blocks if self.tail_document is not None else []
        keys = {block.key for block in head} | {block.key for block in tail}
        for key in [key for key in self._cache if key not in keys]:
            del self._cache[key]
        lines: list[tuple[Strip, str]] = []
        blank = Strip([])
        for index, block in enumerate(head):
            strips, texts = self._block_lines(block, width)
            if index:
                lines.append((blank, ""))
            lines.extend(zip(strips, texts, strict=True))
        self._notice_rows = range(0)
        if self.tail_document is not None:
            if lines:
                lines.append((blank, ""))
            notice = render_notice(self.notice_text(), width, self._markdown_theme())
            first = len(lines)
            lines.extend((Strip(line), line_text(line)) for line in notice)
            self._notice_rows = range(first, len(lines))
            for block in tail:
                lines.append((blank, ""))
                strips, texts = self._block_lines(block, width)
                lines.extend(zip(strips, texts, strict=True))
        self._lines = lines
        self._layout_width = width

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """As wide as the container allows (markdown wraps to it)."""
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The lines of all blocks at `width`."""
        self._relayout_asked = False
        self._layout(width)
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        """One line: a cached strip, cropped or padded to the width."""
        width = self.size.width
        self._layout(width)
        base = self.paint_style
        if not 0 <= y < len(self._lines):
            return Strip.blank(width, base)
        strip, text = self._lines[y]
        selection = self.text_selection
        if selection is not None:
            span = selection.get_span(y)
            if span is not None:
                start, end = span
                styled = Text.assemble(
                    *((s.text, s.style or Style.null()) for s in strip)
                )
                styled.stylize(
                    self.screen.get_component_rich_style("screen--selection"),
                    start,
                    len(text) if end == -1 else end,
                )
                strip = Strip(list(styled.render(self.app.console)))
        return strip.apply_style(base).crop_extend(0, width, base).apply_offsets(0, y)

    # ---------------------------------------------------------------- selection

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, as laid out."""
        return selection.extract(self.plain_text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        """Repaint with the new selection."""
        self.refresh()


def _line_cut(text: str, limit: int) -> int:
    """Where to cut `text` near `limit` characters.

    After a line, if one ends in the second half of that, else at `limit` (one
    long line).
    """
    if limit <= 0:
        return 0
    if len(text) <= limit:
        return len(text)
    newline = text.rfind("\n", limit // 2, limit)
    return newline + 1 if newline >= 0 else limit
