"""The frames every dialog and full screen share, so they look alike.

* `DialogBox`: the box of a modal dialog (auth, config): most of the screen's
  width, at most 90 cells, as tall as its content up to 90% of the screen, a
  thick border in the theme's primary colour. The screen adds its padding.
* `ScreenTitle`: the one-line title docked at the top of a full screen (diff,
  terminal), a `PathLines`, so its paths read as the session's.

Styles are theme variables only (no literal colours).
"""

from __future__ import annotations

from textual.containers import Vertical

from acp_tui.ui.widgets.path_lines import PathLines

__all__ = ["DialogBox", "ScreenTitle"]


class DialogBox(Vertical):
    """The box of a modal dialog (see the module docstring)."""

    DEFAULT_CSS = """
    DialogBox {
        width: 80%;
        max-width: 90;
        height: auto;
        max-height: 90%;
        border: thick $primary;
        background: $surface;
    }
    """


class ScreenTitle(PathLines):
    """The title bar of a full screen (see the module docstring)."""

    DEFAULT_CSS = """
    ScreenTitle {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
        text-style: bold;
        padding: 0 1;
    }
    """
