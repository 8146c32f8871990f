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

Styles come from component classes filled in with theme variables (no literal
colours). They live on one hidden `MarkdownStyles` per conversation, not on every
`MarkdownView`: Textual resolves each component class of a widget against the
whole stylesheet when it mounts, and 35 of them cost about 10 ms per agent message
(bench/ui.py: a tenth of a paced turn's time went into mounting them). Every view
in the conversation shares the `MarkdownTheme` its `MarkdownStyles` builds. Text can be
selected with the mouse and copied, as in the rest of the app.
"""

from __future__ import annotations

from time import perf_counter
from typing import ClassVar, Final

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.render.diff import SYNTAX_ROLES
from acp_tui.render.markdown import (
    Block,
    MarkdownDocument,
    MarkdownTheme,
    line_text,
    render_block,
)
from acp_tui.ui.widgets._paint import PaintStyle

__all__ = ["MarkdownStyles", "MarkdownView"]

_HEADINGS: Final = tuple(f"markdown-view--h{level}" for level in range(1, 7))
_ROLES: Final = (
    *SYNTAX_ROLES,
    "Generic.Inserted",
    "Generic.Deleted",
    "Generic.Subheading",
)
"""The diff roles plus those of `diff` code fences."""
_SYNTAX: Final = {
    role: "markdown-view--" + role.lower().replace(".", "-") for role in _ROLES
}


_DEFAULT_THEME: Final = MarkdownTheme()
"""For a view whose `MarkdownStyles` is not mounted yet (uncoloured)."""


class MarkdownStyles(Widget):
    """The markdown component styles shared by the `MarkdownView`s below its parent.

    Hidden; `theme` is the `MarkdownTheme` its component classes make, built once
    per stylesheet or theme change (see the module docstring).
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *_HEADINGS,
        "markdown-view--strong",
        "markdown-view--em",
        "markdown-view--strike",
        "markdown-view--code-inline",
        "markdown-view--link",
        "markdown-view--bullet",
        "markdown-view--quote",
        "markdown-view--quote-mark",
        "markdown-view--code-block",
        "markdown-view--table-border",
        "markdown-view--table-header",
        "markdown-view--rule",
        *_SYNTAX.values(),
    }

    DEFAULT_CSS = """
    MarkdownStyles {
        display: none;
        & > .markdown-view--h1 {
            color: $markdown-h1-color;
            text-style: bold underline;
        }
        & > .markdown-view--h2 { color: $markdown-h2-color; text-style: bold; }
        & > .markdown-view--h3 { color: $markdown-h3-color; text-style: bold; }
        & > .markdown-view--h4 { color: $markdown-h4-color; text-style: bold italic; }
        & > .markdown-view--h5 { color: $markdown-h5-color; text-style: italic; }
        & > .markdown-view--h6 { color: $markdown-h6-color; text-style: italic dim; }
        & > .markdown-view--strong { text-style: bold; }
        & > .markdown-view--em { text-style: italic; }
        & > .markdown-view--strike { text-style: strike; }
        & > .markdown-view--code-inline {
            color: $warning;
            background: $warning-muted;
        }
        & > .markdown-view--link { color: $text-accent; text-style: underline; }
        & > .markdown-view--bullet { color: $text-primary; text-style: bold; }
        & > .markdown-view--quote { color: $text-muted; text-style: italic; }
        & > .markdown-view--quote-mark { color: $primary; }
        & > .markdown-view--code-block { background: $surface; }
        & > .markdown-view--table-border { color: $primary-muted; }
        & > .markdown-view--table-header { color: $text-primary; text-style: bold; }
        & > .markdown-view--rule { color: $primary-muted; }
        & > .markdown-view--comment { color: $text-muted; text-style: italic; }
        & > .markdown-view--keyword { color: $accent; text-style: bold; }
        & > .markdown-view--name-builtin { color: $secondary; }
        & > .markdown-view--name-class { color: $warning; text-style: bold; }
        & > .markdown-view--name-decorator { color: $secondary; }
        & > .markdown-view--name-function { color: $primary; }
        & > .markdown-view--name-tag { color: $primary; }
        & > .markdown-view--name-attribute { color: $secondary; }
        & > .markdown-view--string { color: $success; }
        & > .markdown-view--number { color: $warning; }
        & > .markdown-view--operator { color: $foreground; }
        & > .markdown-view--literal { color: $warning; }
        & > .markdown-view--generic-error { color: $error; }
        & > .markdown-view--generic-inserted { color: $success; }
        & > .markdown-view--generic-deleted { color: $error; }
        & > .markdown-view--generic-subheading { color: $primary; }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._theme: MarkdownTheme | None = None

    def notify_style_update(self) -> None:
        """The theme or CSS changed: build the markdown theme again."""
        super().notify_style_update()
        self._theme = None

    @property
    def theme(self) -> MarkdownTheme:
        """The markdown styles, from the component classes."""
        if self._theme is None:
            style = self.get_component_rich_style

            def plain(name: str) -> Style:
                # Component styles carry the widget's background; the lines get
                # it from the view, so only keep what the part changes.
                return style(name, partial=True)

            self._theme = MarkdownTheme(
                text=Style.null(),
                headings=tuple(plain(name) for name in _HEADINGS),
                strong=plain("markdown-view--strong"),
                emphasis=plain("markdown-view--em"),
                strike=plain("markdown-view--strike"),
                code_inline=plain("markdown-view--code-inline"),
                link=plain("markdown-view--link"),
                bullet=plain("markdown-view--bullet"),
                quote=plain("markdown-view--quote"),
                quote_mark=plain("markdown-view--quote-mark"),
                code_block=plain("markdown-view--code-block"),
                table_border=plain("markdown-view--table-border"),
                table_header=plain("markdown-view--table-header"),
                rule=plain("markdown-view--rule"),
                syntax={role: plain(name) for role, name in _SYNTAX.items()},
            )
        return self._theme


class MarkdownView(PaintStyle, Widget, can_focus=False):
    """Markdown that grows at the end, rendered one cached block at a time.

    Args:
        markdown: The document to show first.
        id: The widget id.
        classes: CSS classes.
    """

    ALLOW_SELECT = True

    DEFAULT_CSS = """
    MarkdownView {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(
        self, markdown: str = "", *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.document = MarkdownDocument(markdown)
        self._theme: MarkdownTheme | None = None
        self._styles: MarkdownStyles | None = None
        """Where the theme comes from (the nearest one up the tree, found on mount)."""
        self._cache: dict[int, tuple[int, list[Strip], list[str]]] = {}
        """Rendered lines by block key: (width, strips, plain text lines)."""
        self._layout_width = -1
        """The first line of each block in `_layout_blocks`."""
        self._lines: list[tuple[Strip, str]] = []
        self.renders = 0
        """How many blocks were rendered (tests check that appends stay local)."""
        self.render_seconds = 0.0
        """Time spent drawing blocks so far (the message's flush throttle)."""

    # ------------------------------------------------------------------ content

    @property
    def source(self) -> str:
        """The markdown shown."""
        return self.document.source

    def append(self, fragment: str) -> None:
        """Add markdown at the end; only the last block is parsed and drawn again."""
        if not fragment:
            return
        self.document.append(fragment)
        self._layout_width = -1
        self.refresh(layout=True)

    def update(self, markdown: str) -> None:
        """Replace the whole document."""
        self.document.replace(markdown)
        self._cache.clear()
        self._layout_width = -1
        self.refresh(layout=True)

    def rendered_tail_text(self) -> str | None:
        """The last block's text as drawn at the current layout width, if drawn."""
        blocks = self.document.blocks
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
                return _DEFAULT_THEME
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
        blocks = self.document.blocks
        keys = {block.key for block in blocks}
        for key in [key for key in self._cache if key not in keys]:
            del self._cache[key]
        lines: list[tuple[Strip, str]] = []
        blank = Strip([])
        for index, block in enumerate(blocks):
            strips, texts = self._block_lines(block, width)
            if index:
                lines.append((blank, ""))
            lines.extend(zip(strips, texts, strict=True))
        self._lines = lines
        self._layout_width = width

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """As wide as the container allows (markdown wraps to it)."""
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The lines of all blocks at `width`."""
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
