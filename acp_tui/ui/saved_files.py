"""Writing a file the user asked for (`/export`, the pager's save), and saying so.

Invariants: the file's directory is created if missing; a failure to write is an
error toast naming the path and the reason, never an exception out of the action;
what the toast shows (a path, an OS error) passes through `printable` and is
never read as markup, since a path can hold anything.
"""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from acp_tui.safe_text import printable

__all__ = ["save_text"]


def save_text(
    widget: Widget, path: Path, text: str, *, saved: str, failed: str
) -> bool:
    r"""Write `text` to `path` and notify where (title `saved`) or why not (`failed`).

    Lone surrogates (raw text an agent sent as `\ud800` escapes) are written as
    they are (`surrogatepass`), not refused.

    Returns:
        Whether the file was written.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    except OSError as error:
        widget.notify(
            printable(f"cannot write {path}: {error}"),
            title=failed,
            severity="error",
            markup=False,
        )
        return False
    widget.notify(printable(str(path)), title=saved, markup=False)
    return True
