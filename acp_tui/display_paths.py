"""Paths as people read them: from the session's directory, `~`, shortened left.

Agents name files by absolute path (ACP requires it), so a card would read
`/home/ann/code/proj/src/greeting.py` where `src/greeting.py` says it all.
`display_path` turns a path into the form people read:

* **relative to the session's directory** when it lies inside it
  (`src/greeting.py`); the directory itself reads `.`, as in a shell;
* else **from the home directory** as `~` (`~/notes/todo.md`);
* else **exactly as sent** (absolute, or relative already): a path that is none
  of the above keeps its `//`, `.` and `..` (they may be what is odd about it).

Given a width in cells, it is **shortened from the left at component
boundaries** (`…/src/greeting.py`): the file name stays whole unless it alone is
too long, then its end stays (`…eeting.py`); a name that fits only without the
`…/` is shown alone. Wide characters count two cells (`cell_width`; the UI
passes Rich's measure, so what is fitted is what is drawn).

Invariants:

* The path is read with POSIX rules and normalised before it is compared, so
  `/proj/../etc/passwd` never reads as inside `/proj` (it reads as sent). A
  directory or home of `/`, or a relative one, is not used (everything would
  read as inside it).
* Agent text is data: every component passes through `printable`, so the result
  holds no control character, whatever the path holds.
* Only the text changes: keys, the wire and JSON documents keep the exact path
  (`PathDisplay.full` gives it, printable, for tooltips and notifications).

Stdlib only (and `printable`), so the client layer (the permission grant's text)
as well as the render and UI layers use it.
"""

from __future__ import annotations

import os
import posixpath
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from acp_tui.safe_text import printable

__all__ = [
    "AS_SENT",
    "ELLIPSIS",
    "Measure",
    "PathDisplay",
    "cell_width",
    "display_path",
    "user_home",
]

ELLIPSIS: Final = "…"
"""Marks where the left of a shortened path was cut off."""

Measure = Callable[[str], int]
"""Cells a text takes on screen."""


def cell_width(text: str) -> int:
    """Cells `text` takes in a terminal, by `unicodedata` (stdlib).

    East Asian wide and fullwidth characters take two cells, combining marks and
    format characters none, everything else one. Rich's own table is newer and
    differs for some scripts' spacing marks and some symbols; callers that draw
    with Rich pass its `cell_len` as the measure.
    """
    if text.isascii():
        return len(text)
    return sum(_char_width(char) for char in text)


def _char_width(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in _ZERO_WIDTH:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


_ZERO_WIDTH: Final = frozenset({"Mn", "Me", "Cf"})


def user_home() -> str | None:
    """The user's home directory (`$HOME`), or None when it is not known."""
    home = os.path.expanduser("~")
    return home if home != "~" else None


def _directory(path: str | None) -> str | None:
    """`path` normalised, or None if it is no use as a base (relative, or `/`)."""
    if not path or not path.startswith("/"):
        return None
    normal = _normal(path)
    return None if normal == "/" else normal


def _normal(path: str) -> str:
    normal = posixpath.normpath(path)
    if normal.startswith("//"):  # POSIX keeps two leading slashes; one is meant
        normal = "/" + normal.lstrip("/")
    return normal


def _inside(path: str, directory: str) -> str | None:
    """`path` relative to `directory` (`.` for itself), or None if outside."""
    if path == directory:
        return "."
    if path.startswith(directory + "/"):
        return path[len(directory) + 1 :]
    return None


def _form(path: str, cwd: str | None, home: str | None) -> tuple[str, list[str]]:
    """The shown form's prefix (`/`, `~/` or none) and its components."""
    if not path:
        return "", []
    if not path.startswith("/"):  # relative already: as sent
        return "", path.split("/")
    normal = _normal(path)
    base = _directory(cwd)
    relative = _inside(normal, base) if base is not None else None
    if relative is not None:
        # `~x` inside the directory would read as a home path: `./~x`.
        return ("./" if relative.startswith("~") else ""), relative.split("/")
    top = _directory(home)
    relative = _inside(normal, top) if top is not None else None
    if relative == ".":
        return "", ["~"]
    if relative is not None:
        return "~/", relative.split("/")
    return "/", path[1:].split("/") if path != "/" else []


def display_path(
    path: str,
    cwd: str | None = None,
    home: str | None = None,
    width: int | None = None,
    *,
    measure: Measure = cell_width,
) -> str:
    """A path as people read it (see the module docstring).

    Args:
        path: The path as the agent sent it.
        cwd: The session's directory (absolute), or None.
        home: The user's home directory (absolute), or None.
        width: The most cells the result may take (at least 1), or None for no
            limit.
        measure: How many cells a text takes (Rich's `cell_len` where Rich
            draws it).

    Returns:
        The printable display form: `src/a.py`, `.`, `~/notes.md`, `/etc/hosts`,
        `…/src/a.py`.
    """
    prefix, parts = _form(path, cwd, home)
    parts = [_printable_part(part) for part in parts]
    while len(parts) > 1 and not parts[-1]:  # `dir/`: the name is `dir/`
        parts.pop()
        parts[-1] += "/"
    whole = prefix + "/".join(parts)
    if width is None or measure(whole) <= max(width, 1):
        return whole
    width = max(width, 1)
    for keep in range(len(parts) - 1, 0, -1):
        shortened = f"{ELLIPSIS}/" + "/".join(parts[-keep:])
        if measure(shortened) <= width:
            return shortened
    name = parts[-1] if parts else whole
    if measure(name) <= width:
        return name
    return _cut_left(name, width, measure)


def _printable_part(part: str) -> str:
    """A component made printable; never empty (`/a//b` would read otherwise)."""
    shown = printable(part)
    if shown or not part:
        return shown
    return part.encode("unicode_escape").decode("ascii")  # only joiners: `\u200c`


def _cut_left(name: str, width: int, measure: Measure) -> str:
    """`…` and as much of the end of `name` as fits in `width` cells."""
    room = width - measure(ELLIPSIS)
    used = 0
    start = len(name)
    while start > 0:
        cells = measure(name[start - 1])
        if used + cells > room:
            break
        used += cells
        start -= 1
    return ELLIPSIS + name[start:]


@dataclass(frozen=True, slots=True)
class PathDisplay:
    """How one session shows paths: from its directory, and the user's home.

    `PathDisplay()` (no directory, no home, `AS_SENT`) shows paths as sent.
    """

    cwd: str | None = None
    """The session's directory (absolute), or None."""
    home: str | None = None
    """The user's home directory, or None."""
    measure: Measure = cell_width
    """How many cells a text takes (the UI passes Rich's `cell_len`)."""

    @classmethod
    def for_session(cls, cwd: str | None, measure: Measure = cell_width) -> PathDisplay:
        """Paths of a session in `cwd`, with the user's home as `~`."""
        return cls(cwd, user_home(), measure)

    def show(self, path: str, width: int | None = None) -> str:
        """`path` as people read it, in at most `width` cells (see `display_path`)."""
        return display_path(path, self.cwd, self.home, width, measure=self.measure)

    def full(self, path: str) -> str:
        """`path` exactly as sent, made printable (tooltips, notifications)."""
        return printable(path)


AS_SENT: Final = PathDisplay()
"""Paths as the agent sent them (made printable): no directory, no home."""
