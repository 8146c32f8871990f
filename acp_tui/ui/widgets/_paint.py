"""Painting mixins: fewer lookups and repaints per frame, the same cells.

`PaintStyle`: the base style of a Line API widget, looked up once per paint.
`DOMNode.rich_style` is not cached: every call walks all the widget's ancestors
(about ten here) and blends their backgrounds and colours. A Line API widget
that takes it in `render_line` pays that for every line it paints, every frame:
in bench/terminal.py the card's terminal lines spent about a third of their
painting time there. `PaintStyle` takes it once per `render_lines` call (one
paint of one region); styles cannot change in the middle of one.

`PlainBackground`: a container's own rows, all alike, painted once and repeated
while nothing they depend on changes (the conversation's, every frame of a
stream).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.ui.textual_private import has_border_titles

# The mixins are plain classes at run time: Textual takes a widget's CSS (its
# DEFAULT_CSS and the type names selectors match) from the first DOM class among
# its bases only (`DOMNode._css_bases`, a reliance named in
# `acp_tui.ui.textual_private`), so a mixin that were a `Widget`, listed first,
# would hide the real base's CSS. The type checker sees `Widget`.
if TYPE_CHECKING:
    _Mixin = Widget
else:
    _Mixin = object


class PaintStyle(_Mixin):
    """Mixin for a Line API widget: `paint_style` is `rich_style`, once per paint.

    List it before the widget's Textual base class:
    `class TerminalLines(PaintStyle, ScrollView)`.
    """

    _paint_style: Style | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """Paint `crop` with the base style looked up once."""
        self._paint_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._paint_style = None

    @property
    def paint_style(self) -> Style:
        """The widget's `rich_style`: the one taken for this paint, if painting."""
        style = self._paint_style
        return self.rich_style if style is None else style


class PlainBackground(_Mixin):
    """Mixin for a container whose own rows are all alike, painted once.

    Such a container shows only its background, padding and a left or right
    border, with children painted over them. Textual repaints a widget from
    scratch after every `refresh()`, and a container gets one whenever its
    virtual size changes or a child mounts: for the conversation, every frame of
    a stream. Each of its own lines then costs Textual's full line pipeline
    (border and padding checks, filters, a new `Strip`): about 35 lines a frame,
    under children that hide most of them. This keeps the last line painted
    and repeats it while nothing it depends on changed (the crop's columns,
    the size, the content size and gutter (scrollbars shown or not), colours
    (the background behind it and its own `visual_style`), filters, opacity
    and theme, and the widget's styles, through `notify_style_update`).

    Only a line that every row of a paint agreed on is kept, and never for a
    widget with a top or bottom border or a border title (those rows differ).

    Used by the conversation only. Message views and tool-call cards, also
    containers of this kind, were tried: their kept rows sometimes differed
    from a fresh paint in the foreground colour of blank cells (invisible, but
    not what Textual paints, and a snapshot test saw it), from an input not
    found among those above. tests/ui/test_paint.py checks the conversation's
    rows against Textual's own paint.
    """

    _plain_line: tuple[tuple[object, ...], Strip] | None = None
    _style_epoch: int = 0

    def notify_style_update(self) -> None:
        """Styles changed (CSS, a class, a pseudo-class, the theme): repaint."""
        self._style_epoch += 1
        self._plain_line = None
        super().notify_style_update()

    def _plain_key(self, crop: Region) -> tuple[object, ...] | None:
        """What the line depends on; None if rows may differ."""
        styles = self.styles
        if (
            styles.border_top[0] not in ("", "none", "hidden")
            or styles.border_bottom[0] not in ("", "none", "hidden")
            or has_border_titles(self)
        ):
            return None
        app = self.app
        return (
            crop.x,
            crop.width,
            self.region.size,
            self.content_size,  # the padding moves with the scrollbars
            self.gutter,
            *self.background_colors,
            self.visual_style,  # the content's colours (kept while styles stay)
            self.opacity,
            tuple(self.get_line_filters()),
            id(app.ansi_theme),
            app.native_ansi_color,
            self._style_epoch,
        )

    def render_lines(self, crop: Region) -> list[Strip]:
        """The kept line for every row of `crop`, when it still holds."""
        key = self._plain_key(crop)
        kept = self._plain_line
        if key is not None and kept is not None and kept[0] == key:
            return [kept[1]] * crop.height
        lines = super().render_lines(crop)
        first = lines[0] if lines else None
        if (
            key is not None
            and first is not None
            and len(lines) > 1
            and all(line == first for line in lines)
        ):
            self._plain_line = (key, first)
        else:
            self._plain_line = None
        return lines
