"""Paging through a long conversation leaves (almost) nothing to the collector.

The cards the window drops, with everything they hold, are freed by reference
counting when they are removed (`widget_cycles`), and the compositor's
arrangements and strips are no cycles (`compositor_cycles`, `strip_cycles`):
with the app's collector policy installed (`tune_garbage_collector`, as a real
run does), a collection after paging finds little. Before, every page left
thousands of objects in cycles (cards, their styles, the compositor's maps), and
those alive when the policy froze them became garbage only a collection of the
whole heap frees (the longest pauses scrolling a long session).

Counted with the collector off while paging: `gc.collect()` returns how many
unreachable objects it found.
"""

from __future__ import annotations

import gc
import math
import weakref
from typing import ClassVar

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.store import ops
from acp_tui.ui import gc_policy
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.diff_view import DiffSegment
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.ui.helpers import screen_settled, wait_for
from tests.ui.test_cards import PATCH
from tests.ui.test_conversation import (
    SIZE,
    text,
    tuned_gc,  # noqa: F401  (a fixture)
)
from tests.ui.test_conversation_window import WindowApp

TURNS = 60
"""Turns of a user message, an agent's markdown and a tool call with a diff."""
PAGES = 12
FOUND_PER_PAGE = 400
"""The most unreachable objects a page may leave. Measured: about 120 a page,
all of them the cycle each arrangement leaves (`compositor_cycles`: 17 objects,
about 7 arrangements a page); 6,250 before, cards and the compositor's maps
included."""


def turn(n: int) -> list[ops.Op]:
    answer = f"## Step {n}\n\n- one\n- two\n\n```python\nx = {n}\n```\n\nDone {n}."
    return [
        ops.UpsertMessage(f"u{n}", "user", content=[text(f"question number {n}")]),
        ops.AppendMessageChunk(f"a{n}", "agent", text(answer)),
        ops.PatchToolCall(f"c{n}", title=f"Edit {n}", kind="edit", status="completed"),
        ops.AppendToolCallContent(
            f"c{n}",
            {
                "type": "diff",
                "path": "/p/app.py",
                "patch": {"format": "git_patch", "text": PATCH},
            },
        ),
    ]


NEWEST = ("tool_call", f"c{TURNS - 1}")


async def long_history(pilot: Pilot[None], app: WindowApp) -> Conversation:
    """The turns shown, the newest card mounted and the view scrollable."""
    conversation = app.conversation
    changes = app.store.apply_many([op for n in range(TURNS) for op in turn(n)])
    await conversation.apply_changes(app.store, changes)
    await wait_for(pilot, lambda: NEWEST in conversation.entries)
    await wait_for(pilot, lambda: conversation.max_scroll_y > 0)
    return conversation


async def page_up(pilot: Pilot[None], conversation: Conversation, pages: int) -> None:
    for _ in range(pages):
        conversation.page(-1)
        await pilot.pause()
    await screen_settled(pilot)


@pytest.mark.usefixtures("tuned_gc")
async def test_paging_leaves_little_for_the_collector() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        await page_up(pilot, conversation, 3)  # first-time costs (styles, caches)
        gc.collect()
        gc.disable()
        try:
            await page_up(pilot, conversation, PAGES)
            gc.set_debug(gc.DEBUG_SAVEALL)  # keep what it finds, to look at
            found = gc.collect()
            nodes = [type(o).__name__ for o in gc.garbage if isinstance(o, DOMNode)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        # The window moved: the newest cards were dropped on the way up.
        assert NEWEST not in conversation.entries
        assert conversation.earlier_count > 0
    assert nodes == [], f"nodes left to the collector: {nodes[:10]}"
    assert found < FOUND_PER_PAGE * PAGES, f"{found} objects for the collector"


FROZEN_PER_PAGE = 50
"""The most objects frozen while paging that a collection of the whole heap
frees afterwards. Measured: none here; about 4 a page in bench/scroll_trace.py's
paging through the resumed long session (9,224 in 2,300 pages). With the cards'
cycles left (no `widget_cycles.release_nodes`), every card dropped."""


@pytest.mark.usefixtures("tuned_gc")
async def test_what_paging_freezes_is_alive_or_freed_by_reference_counting() -> None:
    """While nothing streams, the policy freezes what survives each full
    collection, the cards on screen among it, so that the next one walks only
    what is new (`gc_policy.QUIET_FULL_COLLECTION_THRESHOLD`). That is only
    safe while a dropped card leaves no cycle: frozen garbage is freed only by
    a collection of the whole heap (a pause of 0.1-0.5 s in a long session)."""
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        await page_up(pilot, conversation, 3)  # first-time costs (styles, caches)
        gc_policy._collector.collect()  # the whole heap, frozen after
        gc_policy._collector.last_batch = -math.inf  # nothing streams
        for _ in range(PAGES):
            conversation.page(-1)
            await pilot.pause()
            gc.collect(2)  # what survives the page is frozen
            assert len(gc.get_objects(generation=2)) == 0
        await screen_settled(pilot)
        assert NEWEST not in conversation.entries  # dropped after it was frozen
        gc.collect(2)
        gc.unfreeze()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            found = gc.collect()
            nodes = [type(o).__name__ for o in gc.garbage if isinstance(o, DOMNode)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.freeze()
    assert nodes == [], f"nodes frozen, then dropped: {nodes[:10]}"
    assert found < FROZEN_PER_PAGE * PAGES, f"{found} frozen objects were garbage"


@pytest.mark.usefixtures("tuned_gc")
async def test_a_dropped_card_is_freed_by_reference_counting() -> None:
    app = WindowApp()
    async with app.run_test(size=SIZE) as pilot:
        conversation = await long_history(pilot, app)
        card = conversation.entries[NEWEST]
        assert isinstance(card, ToolCallView)
        await wait_for(pilot, lambda: bool(conversation.query(DiffSegment)))
        parts = [weakref.ref(node) for node in card.walk_children(with_self=True)]
        assert any(isinstance(ref(), DiffSegment) for ref in parts)
        del card
        gc.collect()
        gc.disable()
        try:
            await page_up(pilot, conversation, PAGES)
            assert NEWEST not in conversation.entries
            await screen_settled(pilot)
            alive = [ref() for ref in parts if ref() is not None]
            assert alive == [], f"kept for the collector: {alive[:5]}"
        finally:
            gc.enable()


class Restyled(Widget):
    """A widget with component classes, styled again when a class changes."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"restyled--part"}
    DEFAULT_CSS = """
    Restyled { height: 1; }
    Restyled .restyled--part { color: red; }
    Restyled.-on .restyled--part { color: green; }
    """

    def render(self) -> str:
        return "x"


class RestyledApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Restyled()


@pytest.mark.usefixtures("tuned_gc")
async def test_restyling_component_classes_leaves_no_cycles() -> None:
    app = RestyledApp()
    async with app.run_test(size=(20, 4)) as pilot:
        widget = app.query_one(Restyled)
        await pilot.pause()
        gc.collect()
        gc.disable()
        try:
            for n in range(20):
                widget.set_class(n % 2 == 0, "-on")
                await pilot.pause()
            found = gc.collect()
        finally:
            gc.enable()
        # Styled as ever: the last change took the class off, then on again.
        assert widget.get_component_styles("restyled--part").color.rgb == (255, 0, 0)
        widget.set_class(True, "-on")
        await pilot.pause()
        assert widget.get_component_styles("restyled--part").color.rgb == (0, 128, 0)
    # Each restyle made a virtual node (about 15 objects) in a cycle; the
    # frames themselves leave some young garbage.
    assert found < 20 * 8, f"{found} objects for the collector"


@pytest.mark.usefixtures("tuned_gc")
def test_a_strip_cropped_to_its_own_extent_holds_no_cycle() -> None:
    original = getattr(Strip.crop_extend, "__wrapped__", Strip.crop_extend)
    style = Style(color="red")
    strip = Strip([Segment("abc"), Segment("de", style)])
    assert strip.crop_extend(0, 5, None) is strip
    for start, end in ((0, 3), (1, 5), (0, 8), (2, 9), (-1, 5)):
        fresh = Strip([Segment("abc"), Segment("de", style)])
        assert list(strip.crop_extend(start, end, style)) == list(
            original(fresh, start, end, style)
        )
    gc.collect()
    gc.disable()
    try:
        for _ in range(10):
            Strip([Segment("abc"), Segment("de", style)]).crop_extend(0, 5, None)
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0
