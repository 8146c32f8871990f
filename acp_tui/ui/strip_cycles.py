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

Invariants:
* `Strip.divide(cuts)` returns what Textual's returns, for every `cuts`.
* Installing is idempotent, and process-wide (it patches the class).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from textual.strip import Strip

__all__ = ["break_strip_cycles"]

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
