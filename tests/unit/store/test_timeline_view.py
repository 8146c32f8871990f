"""`SessionStore.timeline()` after each op: what filtering the whole list gives.

The view is kept as entries are added, so reading it after each new entry of a
long session copies it rather than filtering every entry again; terminals a tool
call shows (left out) and removed plans still change it exactly as before.
"""

from __future__ import annotations

import random
from typing import Any

from acp_tui.store import ops
from acp_tui.store.store import SessionStore


def filtered(store: SessionStore) -> tuple[tuple[str, str], ...]:
    """The timeline as defined: every entry but the terminals a tool call shows."""
    refs = store._terminal_refs
    return tuple(
        entry
        for entry in store._timeline
        if entry[0] != "terminal" or entry[1] not in refs
    )


def random_op(rng: random.Random, n: int) -> ops.Op:
    terminal = f"t{rng.randrange(6)}"
    tool = f"c{rng.randrange(6)}"
    choice = rng.randrange(7)
    if choice == 0:
        return ops.AppendMessageChunk(f"m{n}", "agent", {"type": "text", "text": "x"})
    if choice == 1:
        return ops.PatchTerminal(terminal, command="ls")
    if choice == 2:
        content = [{"type": "terminal", "terminalId": terminal}]
        return ops.PatchToolCall(tool, content=content)
    if choice == 3:
        return ops.PatchToolCall(tool, content=[])  # lets its terminal go
    if choice == 4:
        entries: list[Any] = [{"content": "a", "status": "pending"}]
        return ops.ReplacePlan(f"p{rng.randrange(3)}", "items", entries, {})
    if choice == 5:
        return ops.RemovePlan(f"p{rng.randrange(3)}")
    return ops.AppendTerminalOutput(terminal, b"out")


class CountingList(list[Any]):
    """A list that counts how often it is walked."""

    walks = 0

    def __iter__(self) -> Any:
        CountingList.walks += 1
        return super().__iter__()


def test_the_view_is_kept_as_entries_come_and_is_the_filtered_timeline() -> None:
    rng = random.Random(7)
    for _ in range(30):
        store = SessionStore("s")
        for n in range(120):
            store.apply(random_op(rng, n))
            if rng.random() < 0.6:  # read now and then, as the UI does
                assert store.timeline() == filtered(store)
        assert store.timeline() == filtered(store)
    # A new entry (no terminal shown or let go, no plan removed) is added to
    # the view kept, without filtering the whole timeline again.
    store = SessionStore("s")
    for n in range(2_000):
        store.apply(ops.PatchToolCall(f"c{n}", title="t"))
    store.timeline()
    store._timeline = CountingList(store._timeline)
    CountingList.walks = 0
    for n in range(100):
        store.apply(ops.AppendMessageChunk(f"m{n}", "agent", {"type": "text"}))
        assert store.timeline()[-1] == ("message", store.messages()[-1].key)
    assert CountingList.walks == 0
    assert len(store.timeline()) == 2_100
