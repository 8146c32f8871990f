"""Appends are O(1) amortized: per-append work does not grow with the content.

Never timed. Two cheap proxies instead:

* Python-level work: the number of profiler call events per append is the same
  for short and very long content (a per-append loop over the content, or a
  re-join of its text, would add events that grow with it).
* Copies: the peak extra memory while appending to very long content stays far
  below the size of one copy of that content (a per-append `tuple + (block,)`,
  `list(...)` or `bytes + bytes` would need a whole copy alive at once).
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from acp_tui.store import (
    AppendMessageChunk,
    AppendTerminalOutput,
    AppendToolCallContent,
    Op,
    SessionStore,
)
from tests.unit.store.helpers import item, text

LONG = 200_000
WINDOW = 200
UNCAPPED = 2**40
"""A message cap no test reaches (the cap has tests of its own)."""


def _count_profile_events(run: Callable[[], object]) -> int:
    events = 0

    def profiler(frame: FrameType, event: str, arg: object) -> None:
        nonlocal events
        events += 1

    # A collection may run finalizers (profile events) at any allocation, for
    # objects other tests left behind: that is not the appends' work.
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    sys.setprofile(profiler)
    try:
        run()
    finally:
        sys.setprofile(None)
        if enabled:
            gc.enable()
    return events


def _apply_all(store: SessionStore, ops: list[Op]) -> Callable[[], None]:
    def run() -> None:
        for op in ops:
            store.apply(op)
            store.message("m")  # a UI may query per chunk: that must be O(1) too

    return run


def test_appending_200k_chunks_to_one_message_completes() -> None:
    store = SessionStore("s", max_message_chars=UNCAPPED)
    for n in range(LONG):
        store.apply(AppendMessageChunk("m", "agent", text(f"{n} ")))
    message = store.message("m")
    assert message is not None
    assert len(message.content) == LONG
    assert message.text.startswith("0 1 2 ")
    assert message.text.endswith(f" {LONG - 1} ")


def _message_window(prefill: int, cap: int) -> int:
    store = SessionStore("s", max_message_chars=cap)
    for n in range(prefill):
        store.apply(AppendMessageChunk("m", "agent", text(str(n))))
    ops: list[Op] = [AppendMessageChunk("m", "agent", text("x")) for _ in range(WINDOW)]
    return _count_profile_events(_apply_all(store, ops))


def test_message_chunk_work_does_not_grow() -> None:
    assert _message_window(10, UNCAPPED) == _message_window(LONG, UNCAPPED)


def test_capped_message_chunk_work_does_not_grow() -> None:
    """Past its head (a cap of 20,000: the head is full after some 30 chunks,
    the tail after some 2,000 more) the tail drops its oldest text as it goes,
    still without per-append work that grows. The two windows meet the tail's
    joins of small appends and drops of old chunks at different points: a few
    events apart; a per-append join or loop would add at least two per append."""
    early, late = _message_window(5_000, 20_000), _message_window(LONG, 20_000)
    assert abs(late - early) < WINDOW


def test_tool_call_content_work_does_not_grow() -> None:
    def window(prefill: int) -> int:
        store = SessionStore("s")
        for n in range(prefill):
            store.apply(AppendToolCallContent("t", item(str(n))))
        ops = [AppendToolCallContent("t", item("x")) for _ in range(WINDOW)]

        def run() -> None:
            for op in ops:
                store.apply(op)
                store.tool_call("t")

        return _count_profile_events(run)

    assert window(10) == window(LONG)


def test_terminal_append_work_does_not_grow() -> None:
    chunk = b"x" * 1024

    def window(prefill: int) -> int:
        store = SessionStore("s")
        for _ in range(prefill):
            store.apply(AppendTerminalOutput("term", chunk))
        ops = [AppendTerminalOutput("term", chunk) for _ in range(WINDOW)]

        def run() -> None:
            for op in ops:
                store.apply(op)
                store.terminal("term")

        return _count_profile_events(run)

    # Both windows start on the same boundary of the store's 16 KiB tail.
    assert window(16) == window(16 * 1000)


@contextmanager
def _tracing() -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


def _peak_growth(run: Callable[[], object]) -> int:
    tracemalloc.reset_peak()
    before, _ = tracemalloc.get_traced_memory()
    run()
    _, peak = tracemalloc.get_traced_memory()
    return peak - before


def test_message_chunks_do_not_copy_the_content() -> None:
    chunk = text("x" * 16)
    ops: list[Op] = [AppendMessageChunk("m", "agent", chunk)] * (LONG + WINDOW)
    with _tracing():
        store = SessionStore("s")
        for op in ops[:LONG]:
            store.apply(op)
        growth = _peak_growth(_apply_all(store, ops[LONG:]))
    # One copy of the block list takes 8 bytes per block, of the text 16.
    assert growth < LONG


def test_terminal_appends_do_not_copy_the_output() -> None:
    chunk = b"y" * 1024
    ops = [AppendTerminalOutput("term", chunk) for _ in range(8000 + WINDOW)]
    with _tracing():
        store = SessionStore("s")
        for op in ops[:8000]:
            store.apply(op)

        def run() -> None:
            for op in ops[8000:]:
                store.apply(op)
                store.terminal("term")

        growth = _peak_growth(run)
    one_copy = 8000 * len(chunk)
    assert growth < one_copy // 8
