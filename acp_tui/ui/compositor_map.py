"""Keep the screen's full map of widgets once a layout pass has made it.

Textual's compositor keeps a map of every widget's place on the screen, on
screen or off (`Compositor.full_map`), and a flag that says it is out of date
(`_full_map_invalidated`), set when the view scrolls (`reflow_visible` places
only the visible widgets) or when a widget off screen asks for a repaint
(`update_widgets`). `Compositor.reflow`, the full layout pass, arranges every
widget and stores that map, but leaves the flag as it was. So after a scroll,
or once an off-screen widget was refreshed, the next question about a widget
off screen (its `region`, its `size`: the layout pass itself asks it of each
widget whose size changed) arranged the whole screen again, in the same frame,
for the map the pass had just made. A conversation paged up or down does both
in every frame: in `tests/ui/test_conversation_window.py`'s paging to the top,
732 arrangements of the screen for 372 layout passes (issue 28).

`keep_full_map_after_reflow` wraps `Compositor.reflow`, process-wide, so that
the map the pass made is the full map until something invalidates it again,
as after a pass that followed no scroll. `AcpTuiApp` installs it, and the tests
for every app they host (tests/conftest.py).

Invariants:
* `Compositor.reflow` returns what Textual's returns, and leaves the same map.
* After it, `Compositor.full_map` is that map (what arranging again would make:
  the same root and size, nothing changed since), until a scroll or a refresh
  off screen invalidates it, as Textual does.
* Installing is idempotent and process-wide (it patches the class).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

from textual._compositor import Compositor, ReflowResult
from textual.geometry import Size
from textual.widget import Widget

__all__ = ["keep_full_map_after_reflow"]

_MARK: Final = "_acp_tui_keeps_full_map"

Reflow = Callable[[Compositor, Widget, Size], ReflowResult]


def keep_full_map_after_reflow() -> None:
    """Make `Compositor.reflow` mark the full map it made as up to date."""
    original: Reflow = Compositor.reflow
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def reflow(self: Compositor, parent: Widget, size: Size) -> ReflowResult:
        result = original(self, parent, size)
        self._full_map_invalidated = False  # `_full_map` is what it just arranged
        return result

    setattr(reflow, _MARK, True)
    Compositor.reflow = reflow  # type: ignore[method-assign]
