"""Streamed markdown lays the screen out again only when its height changes.

A layout is of the whole screen; while the agent streams most appends lengthen
the last line, and each held up the frame (and a key typed meanwhile). An append
that keeps the height is only repainted, and shows.
"""

from __future__ import annotations

from typing import Any

from acp_tui.ui.widgets.markdown_view import MarkdownView
from tests.ui.test_long_messages import SIZE, MarkdownApp


def note_layouts(view: MarkdownView) -> list[bool]:
    """Each refresh the view asks for from now on: whether it asked for a layout."""
    layouts: list[bool] = []
    refresh = view.refresh

    def noted(*regions: Any, layout: bool = False, **kwargs: Any) -> MarkdownView:
        layouts.append(layout)
        return refresh(*regions, layout=layout, **kwargs)

    view.refresh = noted  # type: ignore[method-assign]
    return layouts


def line(view: MarkdownView, y: int) -> str:
    return view.render_line(y).text.rstrip()


async def test_an_append_lays_out_again_only_when_the_height_changes() -> None:
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        view = MarkdownView()
        layouts = note_layouts(view)
        view.append("Hello")  # not laid out yet: its height is not known
        assert layouts == [True]
        await app.mount(view)
        await pilot.pause()
        assert view.size.height == 1

        layouts.clear()
        view.append(" world")  # the same line, longer
        assert layouts == [False]
        await pilot.pause()
        assert view.size.height == 1
        assert line(view, 0) == "Hello world"

        layouts.clear()
        view.append("\n\nA second paragraph")
        assert layouts == [True]
        await pilot.pause()
        assert view.size.height == 3
        assert [line(view, y) for y in range(3)] == [
            "Hello world",
            "",
            "A second paragraph",
        ]

        layouts.clear()
        view.append(" " + "word " * 40)  # wraps: more lines
        assert layouts == [True]
        await pilot.pause()
        assert view.size.height > 3
        assert line(view, 2).startswith("A second paragraph word word")
