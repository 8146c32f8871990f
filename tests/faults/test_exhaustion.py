"""Resource exhaustion through the app: whatever the agent floods, keys are answered.

Each test drives the real app against `tests/fakes/fault_agent.py`'s exhaustion
faults, at a size a test can afford (bench/exhaustion.py runs them full size and
times them): one huge message chunk, thousands of plans, a flood of tiny chunks.
Each checks that a key typed meanwhile reaches the prompt within a bound, that
what the store keeps is bounded with what was cut counted exactly, that the view
draws a window and says what it does not draw, and that nothing outlives the
connection. No wall-clock figure is asserted: the bounds only tell a frozen app
from a responsive one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.store import store as store_module
from acp_tui.ui.screens.pager import MessagePager, TextPager
from acp_tui.ui.widgets.markdown_view import MarkdownView
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.plan_panel import MAX_SHOWN, PlanPanel
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.fakes.fault_agent import AFTER, BEFORE, flood_chunk, huge_text
from tests.faults.conftest import (
    SIZE,
    Pids,
    assert_no_traceback,
    fault_app,
    store_agent_text,
)
from tests.ui.helpers import wait_for
from tests.ui.test_app import turn_ended

pytestmark = pytest.mark.subprocess

KEY_BOUND = 15.0
"""Seconds a key may take to show: far more than a responsive app needs under
load, far less than the freezes these floods caused (tens of seconds)."""


async def key_is_answered(pilot: object, app: object) -> None:
    """Type `x` into the prompt and wait (bounded) until it holds it."""
    from textual.pilot import Pilot

    from acp_tui.ui.app import AcpTuiApp

    assert isinstance(pilot, Pilot)
    assert isinstance(app, AcpTuiApp)
    prompt = app.query_one(PromptInput)
    before = prompt.text
    await pilot.press("x")
    await wait_for(pilot, lambda: prompt.text == before + "x", KEY_BOUND)


async def go_until_the_turn_ends(pilot: object, app: object, bound: float) -> None:
    """Send a prompt, wait (bounded) for the turn to end, then check a key."""
    from textual.pilot import Pilot

    from acp_tui.ui.app import AcpTuiApp

    assert isinstance(pilot, Pilot)
    assert isinstance(app, AcpTuiApp)
    await wait_for(pilot, lambda: app.store is not None)
    await pilot.press(*"go", "enter")
    await wait_for(pilot, lambda: turn_ended(app), bound)
    await key_is_answered(pilot, app)


def agent_view(app: object) -> MessageView:
    from acp_tui.ui.app import AcpTuiApp

    assert isinstance(app, AcpTuiApp)
    (view,) = [v for v in app.query(MessageView) if v.role == "agent"]
    return view


async def test_a_huge_message_is_windowed_and_keys_are_answered(
    app_cwd: Path, pids: Pids
) -> None:
    """3 MB on one line: the store keeps it (under its cap), the view draws a
    window with the exact count it leaves out, and the pager has it all."""
    size = 3_000_000
    app = fault_app("huge-message", app_cwd, "v2", f"size={size}")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go_until_the_turn_ends(pilot, app, 60)
        assert store_agent_text(app) == BEFORE + huge_text(size) + AFTER
        view = agent_view(app)
        markdown = view.query_one(MarkdownView)
        await wait_for(pilot, lambda: not view.pending and markdown.windowed)
        shown = len(markdown.document.source) + len(markdown.tail_source)
        total = len(BEFORE) + size + len(AFTER)
        assert markdown.hidden_chars == total - shown
        markdown._layout(markdown.size.width)
        assert f"⋯ {total - shown:,} characters not shown here" in markdown.plain_text
        view.action_show_all()
        await wait_for(pilot, lambda: bool(app.screen.query(TextPager)))
        pager = app.screen
        assert isinstance(pager, MessagePager)
        assert pager.text == BEFORE + huge_text(size) + AFTER
        assert_no_traceback(app)
    await pids.wait_gone()


async def test_a_message_over_the_store_cap_is_cut_and_says_so(
    app_cwd: Path, pids: Pids, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a cap of 1 Mi characters, a 5 MB chunk keeps its head and its tail;
    the store counts the rest and the view says how much is no longer kept."""
    cap = 2**20
    monkeypatch.setattr(store_module, "DEFAULT_MAX_MESSAGE_CHARS", cap)
    size = 5_000_000
    app = fault_app("huge-message", app_cwd, "v2", f"size={size}")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go_until_the_turn_ends(pilot, app, 60)
        store = app.store
        assert store is not None
        (message,) = [m for m in store.messages() if m.role == "agent"]
        total = len(BEFORE) + size + len(AFTER)
        assert message.text_size == total
        assert message.capped
        assert message.cut_chars == total - len(message.head_text) - cap // 2
        assert (message.tail or "").endswith(huge_text(size)[-100:] + AFTER)
        view = agent_view(app)
        markdown = view.query_one(MarkdownView)
        await wait_for(pilot, lambda: not view.pending)
        markdown._layout(markdown.size.width)
        text = markdown.plain_text.replace("\n", " ")
        assert f"{message.cut_chars:,} of the message's {total:,}" in text
        assert AFTER in text
        assert_no_traceback(app)
    await pids.wait_gone()


async def test_thousands_of_plans_keep_the_panel_small(
    app_cwd: Path, pids: Pids
) -> None:
    count = 2_000
    app = fault_app("plan-flood", app_cwd, "v2", f"count={count}", "entries=20")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go_until_the_turn_ends(pilot, app, 120)
        store = app.store
        assert store is not None
        assert len(store.plans()) == count
        await pilot.press("f4")
        panel = app.query_one(PlanPanel)
        await wait_for(pilot, lambda: len(panel.query(PlanView)) == MAX_SHOWN)
        newest = [p.plan_id for p in store.plans()[-MAX_SHOWN:]]
        assert panel.plan_ids == newest
        assert panel.earlier_count == count - MAX_SHOWN
        await key_is_answered(pilot, app)
        assert_no_traceback(app)
    await pids.wait_gone()


def agent_text_size(app: object) -> int:
    """The characters the agent's messages were given, cut ones included."""
    from acp_tui.ui.app import AcpTuiApp

    assert isinstance(app, AcpTuiApp)
    store = app.store
    assert store is not None
    return sum(m.text_size for m in store.messages() if m.role == "agent")


async def test_a_flood_of_tiny_chunks_is_bounded_and_keys_are_answered(
    app_cwd: Path, pids: Pids, monkeypatch: pytest.MonkeyPatch
) -> None:
    """200,000 chunks, unpaced, over a cap of 200,000 characters: a key typed
    during the flood is answered, the store keeps a bounded head of blocks and
    the last characters, and every character is accounted for."""
    cap = 200_000
    monkeypatch.setattr(store_module, "DEFAULT_MAX_MESSAGE_CHARS", cap)
    count = 200_000
    app = fault_app("tiny-flood", app_cwd, "v2", f"count={count}")
    flood = "".join(flood_chunk(index) for index in range(count))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        # Under way: a thousand chunks given. (Not "w1000 " in the kept text: the
        # head keeps ~300 one-chunk blocks, and the tail's window moves past
        # chunk 1,000 faster than a poll can see it when the app keeps up.)
        started = len(BEFORE) + len("".join(flood_chunk(i) for i in range(1_000)))
        await wait_for(pilot, lambda: agent_text_size(app) >= started, 30)
        await key_is_answered(pilot, app)
        await wait_for(pilot, lambda: turn_ended(app), 180)
        store = app.store
        assert store is not None
        (message,) = [m for m in store.messages() if m.role == "agent"]
        total = len(BEFORE) + len(flood) + len(AFTER)
        assert message.text_size == total
        assert len(message.content) < cap // 2 // 300  # the head's blocks
        assert message.cut_chars == total - len(message.head_text) - cap // 2
        assert (message.tail or "").endswith(flood[-1000:] + AFTER)
        view = agent_view(app)
        await wait_for(pilot, lambda: not view.pending)
        assert view.truncated
        assert_no_traceback(app)
    await pids.wait_gone()
