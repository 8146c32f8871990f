"""`break_strip_cycles`: strips are freed by refcounting, not the collector."""

from __future__ import annotations

import gc

from hypothesis import given
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.strip_cycles import break_strip_cycles

break_strip_cycles()


def strip() -> Strip:
    return Strip([Segment("hello "), Segment("world", Style(bold=True))], 11)


def test_a_strip_divided_at_its_own_length_is_freed_without_the_collector() -> None:
    """The compositor divides each line of a full-width widget at its width:
    each such line was cyclic garbage (the strip cached `[self]`).

    The collector's garbage is searched for these strips only: another thread
    left by an earlier test in the same worker may make garbage of its own."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(200):
            line = strip()
            assert line.divide([11]) == [line]
            assert line.divide([11, 20]) == [line]  # cuts past the end are dropped
        del line
        gc.collect()
        ours = [
            found
            for found in gc.garbage
            if isinstance(found, Strip) and found.text == "hello world"
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert ours == []


def test_installing_twice_wraps_once() -> None:
    divide = Strip.divide
    break_strip_cycles()
    assert Strip.divide is divide


@given(st.lists(st.integers(min_value=0, max_value=14), max_size=4))
def test_divide_gives_what_textuals_gives(cuts: list[int]) -> None:
    ours = strip().divide(sorted(cuts))
    textuals = Strip.divide.__wrapped__(strip(), sorted(cuts))  # type: ignore[attr-defined]
    assert [(s.text, s.cell_length) for s in ours] == [
        (s.text, s.cell_length) for s in textuals
    ]
