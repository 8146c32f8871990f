"""Lines that name paths, each shortened from the left to the widget's width.

`PathLines` shows lines such as `↳ src/greeting.py:12` or `$ make  (in .)`: the
words around each path are kept whole and the path takes the cells left
(`acp_tui.display_paths`: relative to the session's directory, `~`, then
`…/src/greeting.py`). It is re-fitted whenever its width changes. The tooltip
lists the full paths (as sent, made printable), and `full_paths` gives them to
whoever shows them on a key.

`session_paths(store)` is how every widget of a session shows paths: relative
to the store's `cwd`, with the user's home as `~`, measured as Rich draws.

Agent text is data: the lines and the tooltip are `Content` built from
printable text, never markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.safe_text import printable
from acp_tui.store.store import SessionStore

__all__ = [
    "PathLine",
    "PathLines",
    "copy_full_paths",
    "full_paths_text",
    "session_paths",
]


def session_paths(store: SessionStore | None) -> PathDisplay:
    """How a session's widgets show paths: from its directory, `~`, Rich cells."""
    return PathDisplay.for_session(
        store.cwd if store is not None else None, measure=cell_len
    )


def full_paths_text(paths: PathDisplay, names: Iterable[str]) -> str:
    """The full paths, one a line, each once, in order (printable)."""
    return "\n".join(dict.fromkeys(paths.full(name) for name in names if name))


@dataclass(frozen=True, slots=True)
class PathLine:
    """One line: words before the path, the path (None: no path), words after."""

    before: str = ""
    path: str | None = None
    after: str = ""


def copy_full_paths(
    widget: Widget, text: str, *, none: str, title: str = "Full paths (copied)"
) -> None:
    """Show full paths and copy them (the `p` key), or say `none` if there are none."""
    if not text:
        widget.notify(none, severity="warning")
        return
    widget.app.copy_to_clipboard(text)
    widget.notify(text, title=title, markup=False)


class PathLines(Widget):
    """Lines naming paths, fitted to the width (see the module docstring).

    Args:
        classes: CSS classes.
        id: The widget's id.
    """

    DEFAULT_CSS = """
    PathLines { height: auto; }
    """

    def __init__(self, *, classes: str | None = None, id: str | None = None) -> None:
        super().__init__(classes=classes, id=id)
        self._lines: tuple[PathLine, ...] = ()
        self._paths = AS_SENT

    def show_lines(self, lines: Sequence[PathLine], paths: PathDisplay) -> None:
        """Show `lines`, their paths as `paths` shows them."""
        lines = tuple(lines)
        if lines == self._lines and paths == self._paths:
            return
        self._lines = lines
        self._paths = paths
        full = full_paths_text(paths, (line.path or "" for line in lines))
        self.tooltip = Content(full) if full else None
        self.refresh(layout=True)

    @property
    def full_paths(self) -> list[str]:
        """The paths named, as sent (printable), each once."""
        text = full_paths_text(self._paths, (line.path or "" for line in self._lines))
        return text.split("\n") if text else []

    @property
    def text(self) -> str:
        """The lines as plain text, at the current width (unfitted before layout)."""
        return self.fitted(self.size.width or None)

    def fitted(self, width: int | None) -> str:
        """The lines as plain text, each path fitted into `width` cells per line."""
        return "\n".join(self._line(line, width) for line in self._lines)

    def _line(self, line: PathLine, width: int | None) -> str:
        before, after = printable(line.before), printable(line.after)
        if line.path is None:
            return before + after
        room = None if width is None else width - cell_len(before) - cell_len(after)
        return before + self._paths.show(line.path, room) + after

    def render(self) -> Content:
        """The lines at the widget's width."""
        return Content(self.text)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Lines at `width` (words around a path may still wrap)."""
        if not self._lines or not width:
            return 0
        return len(Content(self.fitted(width)).wrap(width))
