"""A layout pass after a scroll arranges the screen once (`compositor_map`).

Textual's full layout pass (`Compositor.reflow`) stores the map of every widget
but left it marked out of date after a scroll, so the pass's own questions about
off-screen widgets (their size, as it hands out sizes) arranged the whole screen
a second time in the same frame.
"""

from __future__ import annotations

from typing import Any

from textual._compositor import CompositorMap
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.ui.compositor_map import keep_full_map_after_reflow
from tests.ui.helpers import wait_for

ROWS = 60


class Rows(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="rows"):
            for n in range(ROWS):
                yield Static(f"row {n}", id=f"r{n}")


def counting(screen: Screen[Any]) -> tuple[list[str], list[str]]:
    """Note the screen's layout passes, and its arrangements of every widget
    made during a frame's layout (from the pass to the frame's paint)."""
    passes: list[str] = []
    full: list[str] = []
    compositor = screen._compositor
    reflow, arrange_root = compositor.reflow, compositor._arrange_root
    refresh_layout = screen._refresh_layout
    framing = False

    def counted_refresh_layout(*args: Any, **kwargs: Any) -> None:
        nonlocal framing
        framing = True
        try:
            refresh_layout(*args, **kwargs)
        finally:
            framing = False

    def counted_reflow(parent: Widget, size: Size) -> Any:
        passes.append("reflow")
        return reflow(parent, size)

    def counted_arrange_root(
        root: Widget, size: Size, visible_only: bool = True
    ) -> tuple[CompositorMap, set[Widget]]:
        if framing and not visible_only:  # (visible only: a scroll's)
            full.append("arranged")
        return arrange_root(root, size, visible_only)

    screen._refresh_layout = counted_refresh_layout  # type: ignore[method-assign]
    compositor.reflow = counted_reflow  # type: ignore[method-assign]
    compositor._arrange_root = counted_arrange_root  # type: ignore[method-assign]
    return passes, full


async def test_a_layout_after_a_scroll_arranges_the_screen_once() -> None:
    keep_full_map_after_reflow()  # as the app and tests/conftest.py install it
    app = Rows()
    async with app.run_test(size=(40, 10)) as pilot:
        rows = app.query_one("#rows", VerticalScroll)
        first = app.query_one("#r0", Static)
        await wait_for(pilot, lambda: rows.max_scroll_y > 0)
        compositor = app.screen._compositor
        passes, full = counting(app.screen)
        rows.scroll_to(y=20, animate=False)
        await wait_for(pilot, lambda: rows.scroll_y == 20)
        passes.clear()
        full.clear()
        # A taller first row, off screen: a layout pass that resizes it.
        first.update("row 0\nand more")
        await wait_for(pilot, lambda: len(passes) >= 1)
        await wait_for(pilot, lambda: first.size.height == 2)
        assert [app.query_one(f"#r{n}").region.height for n in range(3)] == [2, 1, 1]
        # One arrangement per layout pass, the pass's questions about off-screen
        # widgets included (Textual's own: two after a scroll, the second for
        # the map the pass had just made).
        assert len(full) == len(passes)
        # And the map kept is the one arranging again would make.
        arranged, _ = compositor._arrange_root(
            app.screen, compositor.size, visible_only=False
        )
        assert compositor.full_map == arranged
