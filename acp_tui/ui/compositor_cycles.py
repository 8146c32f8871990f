"""Keep the compositor's arrangements out of reference cycles.

`Compositor._arrange_root` places the widgets with a nested function,
`add_widget`, that calls itself: the function holds itself through its closure,
a reference cycle, and the closure holds the map and the set of widgets the
arrangement returns. So every arrangement (each reflow, each scroll of a
container) left its whole map to the cyclic collector: a `MapGeometry` with its
regions and sizes for every widget placed, and the widgets themselves, cards
already removed included, until a collection freed them. Paging through a long
session made about 1,200 such objects a page, most of the garbage the collector
had to find (see `gc_policy`), and a card removed stayed alive with them.

`break_arrangement_cycles` wraps the method: it returns copies of the map and
the set and empties Textual's own, so the cycle left behind holds an empty dict
and set, and what the compositor keeps is freed by reference counting once it
moves on to the next arrangement.

Invariants:
* `Compositor._arrange_root` returns what Textual's returns (equal map, equal
  set), for every call.
* Installing is idempotent and process-wide (it patches the class).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

from textual._compositor import Compositor, CompositorMap
from textual.geometry import Size
from textual.widget import Widget

__all__ = ["break_arrangement_cycles"]

_MARK: Final = "_acp_tui_no_arrangement_cycle"

Arrange = Callable[[Compositor, Widget, Size, bool], tuple[CompositorMap, set[Widget]]]


def break_arrangement_cycles() -> None:
    """Make `Compositor._arrange_root` leave only empty containers in its cycle."""
    original: Arrange = Compositor._arrange_root
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def arrange_root(
        self: Compositor, root: Widget, size: Size, visible_only: bool = True
    ) -> tuple[CompositorMap, set[Widget]]:
        placed, widgets = original(self, root, size, visible_only)
        kept_map, kept_widgets = dict(placed), set(widgets)
        placed.clear()  # the recursive `add_widget` still holds these two
        widgets.clear()
        return kept_map, kept_widgets

    setattr(arrange_root, _MARK, True)
    Compositor._arrange_root = arrange_root  # type: ignore[method-assign]
