"""`break_strip_cycles`: strips are freed by refcounting, not the collector."""

from __future__ import annotations

import gc
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

from acp_tui.ui.strip_cycles import (
    LAZY_CACHE_SIZES,
    TEXTUAL_STRIP_INIT,
    break_strip_cycles,
    make_strip_caches_lazy,
)

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


def tracked_objects_per_strip(count: int = 2_000) -> float:
    """gc-tracked objects that each of `count` strips kept alive adds to the heap."""
    style = Style(bold=True)
    gc.collect()
    before = len(gc.get_objects())
    kept = [
        Strip([Segment("hello "), Segment("world", style)], 11) for _ in range(count)
    ]
    gc.collect()  # tuples of untracked items are untracked here, as in the app
    added = len(gc.get_objects()) - before
    del kept
    return added / count


def test_a_strip_kept_in_a_render_cache_is_few_objects_for_the_collector() -> None:
    """A widget keeps the strips it drew; each made its seven caches up front,
    eight objects for every collection to walk instead of one (bench/ui.py's
    paced turn: 26,609 of the 70,756 objects a stream left alive). Made on first
    use, a strip never cropped or restyled is four: itself, its list and its two
    segments (a `Segment` is a named tuple, which the collector never untracks);
    eleven before."""
    assert make_strip_caches_lazy()
    assert tracked_objects_per_strip() <= 4.1


def test_a_cache_is_made_on_first_use_with_textuals_size_and_kept() -> None:
    assert make_strip_caches_lazy()
    line = strip()
    assert not any(isinstance(found, FIFOCache) for found in gc.get_referents(line))
    cropped = line.crop(0, 5)
    assert cropped.text == "hello"
    assert line.crop(0, 5) is cropped  # cached, as Textual caches it
    for name, size in LAZY_CACHE_SIZES.items():
        cache = getattr(line, name)
        assert isinstance(cache, FIFOCache)
        assert cache._maxsize == size
        assert getattr(line, name) is cache
    with pytest.raises(AttributeError):
        getattr(line, "no_such_attribute")  # noqa: B009


def test_making_caches_lazy_twice_patches_once() -> None:
    assert make_strip_caches_lazy()
    init = Strip.__init__
    assert make_strip_caches_lazy()
    assert Strip.__init__ is init


@given(
    st.lists(st.integers(min_value=0, max_value=14), min_size=2, max_size=2),
    st.booleans(),
)
def test_a_lazy_strip_draws_what_textuals_draws(span: list[int], bold: bool) -> None:
    assert make_strip_caches_lazy()
    start, end = sorted(span)
    style = Style(bold=bold)
    ours = strip()
    textuals = Strip.__new__(Strip)
    TEXTUAL_STRIP_INIT(textuals, list(ours), 11)
    makers: list[Callable[[Strip], Strip]] = [
        lambda s: s.crop(start, end),
        lambda s: s.crop_extend(start, end + 3, style),
        lambda s: s.adjust_cell_length(end, style),
        lambda s: s.apply_style(style),
        lambda s: s.apply_offsets(start, end),
        lambda s: s.text_align(20, "center"),
    ]
    for make in makers:
        assert list(make(ours)) == list(make(textuals))
