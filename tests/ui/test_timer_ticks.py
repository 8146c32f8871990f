"""One-shot timers on the streaming path fire however late their task starts.

Textual's `set_timer` makes a timer that skips its only tick when its task, on
its first look at the clock, is already past `start + delay`: with a delay of
microseconds (or a collection or a wait for a CPU between the two reads of the
clock) the callback never runs. The store bridge's batch timer and the
conversation's deferred mount both take delays that small when a change comes
just before their interval is up; `set_timer_once` does not skip.

Each test puts the clock where the delay comes out at a nanosecond, which
Textual's timer always skipped (bench/long_session.py, under load: a whole turn
left unshown, 10,574 changes pending in the bridge after it ended).
"""

from __future__ import annotations

import ast
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.app import App
from textual.pilot import Pilot

import acp_tui
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui import bridge as bridge_module
from acp_tui.ui.bridge import BATCH_INTERVAL, StoreBridge
from acp_tui.ui.textual_private import set_timer_once
from acp_tui.ui.widgets import conversation as conversation_module
from acp_tui.ui.widgets import message_view as message_view_module
from acp_tui.ui.widgets.conversation import Conversation
from tests.ui.helpers import wait_for
from tests.ui.test_conversation import (
    SIZE,
    ConversationApp,
    shown_through,
    text,
    view,
)


def frozen(name: str) -> tuple[float, SimpleNamespace]:
    """The clock `time.<name>` reads now, and a stand-in for `time` stopped there.

    Taken from the real clock, not a constant: once the stand-in is gone, the
    code under test goes on reading the real clock, and a constant ahead of it
    (a machine up for less than that long) left the app waiting for that moment.
    """
    now: float = getattr(time, name)()
    return now, SimpleNamespace(**{name: lambda: now})


async def test_a_timer_due_at_once_still_calls_back() -> None:
    app: App[None] = App()
    called: list[str] = []
    async with app.run_test() as pilot:
        set_timer_once(app, 1e-9, lambda: called.append("once"), name="test")
        await wait_for(pilot, lambda: called == ["once"])


async def test_a_batch_due_a_nanosecond_later_is_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=SIZE) as pilot:
        now, clock = frozen("monotonic")
        monkeypatch.setattr(bridge_module, "time", clock)
        bridge = StoreBridge(store, app)
        # The last batch went BATCH_INTERVAL ago, less a nanosecond: the next
        # waits for a timer of one nanosecond.
        bridge._last_change = now - BATCH_INTERVAL + 1e-9
        await shown_through(pilot, app, store, bridge)


async def first_message(
    pilot: Pilot[None], app: ConversationApp, store: SessionStore
) -> Conversation:
    """The conversation, showing message a1's "first" (its flush done)."""
    conversation = app.conversation
    changes = store.apply(ops.AppendMessageChunk("a1", "agent", text("first")))
    await conversation.apply_changes(store, changes)
    await wait_for(pilot, lambda: "first" in view(app, "a1").text)
    await wait_for(pilot, lambda: not view(app, "a1")._flushing)
    return conversation


async def test_an_entry_mounted_later_a_nanosecond_on_is_mounted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=SIZE) as pilot:
        conversation = await first_message(pilot, app, store)
        # The last mount was MOUNT_INTERVAL ago, less a nanosecond: the next
        # entry waits for the deferred sync's timer of one nanosecond.
        now, clock = frozen("perf_counter")
        monkeypatch.setattr(conversation_module, "time", clock)
        conversation._last_mount = now - conversation.MOUNT_INTERVAL + 1e-9
        changes = store.apply(ops.AppendMessageChunk("a2", "agent", text("second")))
        await conversation.apply_changes(store, changes)
        monkeypatch.setattr(conversation_module, "time", time)
        await wait_for(pilot, lambda: ("message", "a2") in conversation.entries)


async def test_text_due_a_nanosecond_later_is_flushed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, store = ConversationApp(), SessionStore("s")
    async with app.run_test(size=SIZE) as pilot:
        conversation = await first_message(pilot, app, store)
        # The message's next flush is due a nanosecond from now: a timer of one.
        now, clock = frozen("perf_counter")
        monkeypatch.setattr(message_view_module, "time", clock)
        view(app, "a1")._next_flush = now + 1e-9
        changes = store.apply(ops.AppendMessageChunk("a1", "agent", text(" second")))
        await conversation.apply_changes(store, changes)
        monkeypatch.setattr(message_view_module, "time", time)
        await wait_for(pilot, lambda: "second" in view(app, "a1").text)


def test_every_one_shot_timer_of_the_app_is_one_that_fires() -> None:
    """Not only the streaming path: a lost tick stopped the idle collections
    for good (the bridge's idle timer), a plan's or a terminal's deferred
    redraw, a search step, a draft save. `set_timer_once` everywhere."""
    package = Path(acp_tui.__file__).resolve().parent
    found = [
        f"{path.relative_to(package)}:{node.lineno}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "textual_private.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "set_timer"
    ]
    assert found == []
