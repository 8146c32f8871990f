"""The painting mixins (acp_tui/ui/widgets/_paint.py): fewer lookups, same pixels.

`PaintStyle` takes a Line API widget's `rich_style` once per paint;
`PlainBackground` repeats a container's last painted row while nothing it
depends on changed. Each test compares what the mixin paints with what Textual's
own pipeline (`Widget.render_lines`) paints at that moment.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.ui.themes import register_themes
from acp_tui.ui.widgets._paint import PaintStyle, PlainBackground
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.markdown_view import MarkdownView
from acp_tui.ui.widgets.terminal_view import TerminalLines

SIZE = (60, 16)


class Box(PlainBackground, Vertical):
    """A container painting only its background and padding."""

    DEFAULT_CSS = """
    Box { height: 10; padding: 0 2; background: $boost; }
    Box.-alert { background: $error; }
    Box.-boxed { border: round $primary; }
    """


class Lines(PaintStyle, Widget):
    """A Line API widget painting its rows in its base style."""

    DEFAULT_CSS = "Lines { height: 10; color: $text; background: $surface; }"

    def render_line(self, y: int) -> Strip:
        return Strip([Segment(f"row {y}".ljust(self.size.width), self.paint_style)])


class PaintApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        register_themes(self)

    def compose(self) -> ComposeResult:
        with Box():
            yield Static("a child over some of the rows")
        yield Lines()


def pipeline_calls(monkeypatch: pytest.MonkeyPatch, kind: type[Widget]) -> list[Region]:
    """The crops Textual's own line pipeline paints for widgets of `kind`."""
    calls: list[Region] = []
    original = Widget.render_lines

    def render_lines(self: Widget, crop: Region) -> list[Strip]:
        if isinstance(self, kind):
            calls.append(crop)
        return original(self, crop)

    monkeypatch.setattr(Widget, "render_lines", render_lines)
    return calls


def textual_lines(widget: Widget, crop: Region) -> list[Strip]:
    """What Textual paints for `crop` now, without the mixin."""
    widget._styles_cache.clear()
    return Widget.render_lines(widget, crop)


def whole(widget: Widget) -> Region:
    """All of the widget's rows and columns, padding and border included."""
    return Region(0, 0, *widget.region.size)


async def test_a_plain_container_repeats_its_row_after_a_refresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = PaintApp()
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(Box)
        await pilot.pause()
        expected = textual_lines(box, whole(box))
        calls = pipeline_calls(monkeypatch, Box)

        box.refresh()  # what a child mount or a virtual-size change does
        first = box.render_lines(whole(box))
        box.refresh()
        again = box.render_lines(whole(box))

        # Both took the row kept from the app's own last frame.
        assert calls == []
        assert first == expected
        assert again == expected
        assert len(expected) == 10


async def test_a_class_that_changes_the_background_repaints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = PaintApp()
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(Box)
        await pilot.pause()
        before = box.render_lines(whole(box))

        box.add_class("-alert")
        await pilot.pause()
        after = box.render_lines(whole(box))

        assert after == textual_lines(box, whole(box))
        assert after != before
        assert box.rich_style.bgcolor != Style.parse("").bgcolor
        assert {segment.style for segment in after[0]} == {
            segment.style for segment in textual_lines(box, whole(box))[0]
        }


async def test_a_theme_change_repaints() -> None:
    app = PaintApp()
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(Box)
        await pilot.pause()
        dark = box.render_lines(whole(box))

        app.theme = "textual-light"
        await pilot.pause()
        light = box.render_lines(whole(box))

        assert light == textual_lines(box, whole(box))
        assert light != dark


async def test_a_resize_or_another_crop_repaints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = PaintApp()
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(Box)
        await pilot.pause()
        box.render_lines(whole(box))
        before = box.region.width
        calls = pipeline_calls(monkeypatch, Box)

        narrow = Region(3, 0, 20, 10)
        lines = box.render_lines(narrow)
        assert calls == [narrow]
        assert lines == textual_lines(box, narrow)

        await pilot.resize_terminal(80, 16)
        await pilot.pause()
        wide = box.render_lines(whole(box))
        assert wide == textual_lines(box, whole(box))
        assert wide[0].cell_length == box.region.width == before + 20


async def test_rows_that_differ_are_never_repeated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = PaintApp()
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(Box)
        box.add_class("-boxed")
        await pilot.pause()
        calls = pipeline_calls(monkeypatch, Box)

        width = box.region.width
        top = box.render_lines(Region(0, 0, width, 1))
        middle = box.render_lines(Region(0, 1, width, 3))
        rows = box.render_lines(whole(box))
        painted = len(calls)

        assert rows == textual_lines(box, whole(box))
        assert top[0] == rows[0]
        assert middle == rows[1:4]
        assert rows[0] != rows[1]  # the border's top row
        assert painted == 3  # a bordered box is painted every time


async def test_the_base_style_is_looked_up_once_per_paint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = PaintApp()
    async with app.run_test(size=SIZE) as pilot:
        lines = app.query_one(Lines)
        await pilot.pause()
        expected = textual_lines(lines, whole(lines))

        looked_up: list[DOMNode] = []
        original = vars(DOMNode)["rich_style"]
        assert isinstance(original, property)
        getter = original.fget
        assert getter is not None

        def rich_style(self: DOMNode) -> Style:
            looked_up.append(self)
            result: Style = getter(self)
            return result

        monkeypatch.setattr(DOMNode, "rich_style", property(rich_style))
        lines._styles_cache.clear()
        painted = lines.render_lines(whole(lines))

        assert painted == expected
        assert len(painted) == 10
        assert looked_up.count(lines) == 1
        assert lines.paint_style == lines.rich_style  # outside a paint, too


def css_names(widget_type: type[Widget]) -> Iterator[str]:
    return (base.__name__ for base in widget_type._css_bases(widget_type))


@pytest.mark.parametrize(
    ("widget_type", "textual_base"),
    [
        (Conversation, "VerticalScroll"),
        (TerminalLines, "ScrollView"),
        (MarkdownView, "Widget"),
        (Box, "Vertical"),
    ],
)
def test_the_mixins_keep_the_textual_base_css(
    widget_type: type[Widget], textual_base: str
) -> None:
    """Textual takes CSS from the first DOM base only: the mixins are not DOM nodes,
    so each widget still inherits its Textual base's DEFAULT_CSS and type name."""
    names = list(css_names(widget_type))
    assert textual_base in names
    assert "PlainBackground" not in names
    assert "PaintStyle" not in names


class Scroller(PlainBackground, VerticalScroll):
    DEFAULT_CSS = "Scroller { padding: 0 1; background: $boost; }"


class ScrollApp(App[None]):
    def __init__(self, lines: int) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Scroller():
            for n in range(self.lines):
                yield Static(f"line {n}")


async def test_a_scrolling_container_keeps_its_scroll_css() -> None:
    app = ScrollApp(40)
    async with app.run_test(size=SIZE) as pilot:
        scroller = app.query_one(Scroller)
        await pilot.pause()
        assert scroller.styles.overflow_y == "auto"
        assert scroller.show_vertical_scrollbar
        assert app.query("VerticalScroll").first() is scroller


async def test_a_scrollbar_that_appears_leaves_the_row_as_textual_paints_it() -> None:
    """The scrollbar takes the right columns of the same size: the row painted
    then is still Textual's own."""
    app = ScrollApp(3)
    async with app.run_test(size=SIZE) as pilot:
        scroller = app.query_one(Scroller)
        await pilot.pause()
        assert not scroller.show_vertical_scrollbar
        before = scroller.render_lines(whole(scroller))

        await scroller.mount_all(Static(f"more {n}") for n in range(40))
        await pilot.pause()
        assert scroller.show_vertical_scrollbar
        after = scroller.render_lines(whole(scroller))

        assert after == textual_lines(scroller, whole(scroller))
        assert len(after) == len(before) == SIZE[1]
