"""Keep Textual's strips out of reference cycles, so refcounting frees them.

Textual's `Strip.divide(cuts)` caches its result in the strip itself, and when
the only cut is the strip's own length that result is `[self]`: the strip then
holds itself, a reference cycle. The compositor divides every line of every
widget it draws at the widget's edges, and a widget as wide as its region
(every message, the prompt) has exactly that one cut, so each line drawn became
cyclic garbage: the strip, its seven caches, its segments. Only the cyclic
collector frees such garbage, and with the app's collector policy (see
`gc_policy.tune_garbage_collector`) most of it was frozen while still on screen,
so a flood of a million chunks piled it up until a forced full collection,
pauses of 0.25-0.35 s without a frame (bench/exhaustion.py, chunks-1M: 4,377
strips and 30,643 of their caches in one collection of 62,147 objects).

`break_strip_cycles` wraps `Strip.divide` so that that one case returns
`[self]` without caching it: the same strips (a new list each time), and no
cycle. Every other division is Textual's own (`Strip.divide.__wrapped__`),
cached as before.

Each strip also made its seven caches (`FIFOCache`s: crops, styles, filters,
offsets...) when it was made, though most strips are drawn once and never ask
one: eight objects for the collector to walk instead of one, in every strip a
widget keeps in its render cache. In bench/ui.py's paced turn of 5,000 chunks
they were 26,609 of the 70,756 objects the session added to the heap, and
7,403 of the 39,304 a forced collection freed: the forced collection walks all
of them, and they brought it on (`gc_policy.TENURED_LIMIT`).
`make_strip_caches_lazy` leaves them unset when a strip is made; the first use
of one makes it (`Strip.__getattr__`, called only while the slot is empty), so
a strip that never crops or restyles has none.

Invariants:
* `Strip.divide(cuts)` returns what Textual's returns, for every `cuts`.
* A strip's cache attributes behave as Textual's: each is a `FIFOCache` of
  Textual's size, made on first use and kept in the strip's slot.
* Installing is idempotent, and process-wide (it patches the class); the lazy
  caches only when `Strip`'s slots are the ones known here
  (`LAZY_CACHE_SIZES`), else Textual's strips are left as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

__all__ = [
    "LAZY_CACHE_SIZES",
    "TEXTUAL_STRIP_INIT",
    "break_strip_cycles",
    "make_strip_caches_lazy",
]

LAZY_CACHE_SIZES: Final = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}
"""`Strip`'s caches, made on first use, with the sizes Textual's `__init__` gives."""

_SLOTS: Final = frozenset(
    {
        "_segments",
        "_cell_length",
        "_render_cache",
        "_link_ids",
        "_cell_count",
        *LAZY_CACHE_SIZES,
    }
)
"""`Strip.__slots__` as `_strip_init` knows them (Textual 8.2)."""

TEXTUAL_STRIP_INIT: Final = Strip.__init__
"""Textual's own `Strip.__init__` (tests/ui/test_textual_private.py checks that it
makes the caches of `LAZY_CACHE_SIZES`, and nothing else that `_strip_init` misses)."""

_MARK: Final = "_acp_tui_no_self_cycle"

Divide = Callable[[Strip, Iterable[int]], Sequence[Strip]]


def break_strip_cycles() -> None:
    """Make `Strip.divide` at a strip's own length not cache the strip in itself."""
    original: Divide = Strip.divide
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        length = self.cell_length
        kept = [cut for cut in cuts if cut <= length]
        if kept == [length]:
            return [self]  # Textual caches this list in `self`: a cycle
        return original(self, kept)

    setattr(divide, _MARK, True)
    Strip.divide = divide  # type: ignore[method-assign]
    _break_crop_extend_cycle()


CropExtend = Callable[[Strip, int, int, "Style | None"], Strip]


def _break_crop_extend_cycle() -> None:
    """`Strip.crop_extend` to the strip's own extent returns it uncached.

    Textual caches the result in the strip, and over its own extent (from 0 to
    its length: every line the compositor crops to a widget as wide as it) the
    result is the strip itself: a cycle, with the strip's segments.
    """
    original: CropExtend = Strip.crop_extend
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def crop_extend(self: Strip, start: int, end: int, style: Style | None) -> Strip:
        if start <= 0 and end == self.cell_length:
            return self  # Textual caches this in `self`: a cycle
        return original(self, start, end, style)

    setattr(crop_extend, _MARK, True)
    Strip.crop_extend = crop_extend  # type: ignore[method-assign]


def _strip_init(
    self: Strip, segments: Iterable[Segment], cell_length: int | None = None
) -> None:
    """`Strip.__init__` without the caches (they are made on first use)."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _make_cache(self: Strip, name: str) -> Any:
    """`Strip.__getattr__`: asked only for a slot not set, so a cache not made yet."""
    size = LAZY_CACHE_SIZES.get(name)
    if size is None:
        raise AttributeError(name)
    cache: FIFOCache[Any, Any] = FIFOCache(size)
    object.__setattr__(self, name, cache)
    return cache


def make_strip_caches_lazy() -> bool:
    """Make a strip's caches on first use rather than with the strip; once.

    Returns:
        Whether strips make them lazily now (False: `Strip`'s slots are not
        the ones this knows, and Textual's `__init__` is kept).
    """
    if Strip.__init__ is _strip_init:
        return True
    if set(Strip.__slots__) != _SLOTS or "__getattr__" in vars(Strip):
        return False
    Strip.__init__ = _strip_init  # type: ignore[method-assign]
    Strip.__getattr__ = _make_cache  # type: ignore[attr-defined]
    return True
