"""The review's diff: one changed file in `DiffView`, with a hunk cursor.

`ReviewDiff` shows one `FileChange` of a turn's change set through the
existing diff view (unified or side by side, `s` toggles), and keeps a cursor
on one hunk: `next_hunk` / `previous_hunk` move it and scroll its header to
the top; its header row is painted reversed. `select_lines` marks a run of
the hunk's lines (shift+up/down in the review), painted reversed too, for a
comment on those lines alone. A file without a text patch (binary, too large)
shows why, as a note.
"""

from __future__ import annotations

from dataclasses import replace

from rich.cells import cell_len
from rich.style import Style
from textual.strip import Strip

from acp_tui.changes import FileChange
from acp_tui.diff.model import FilePatch, Hunk, ParsedPatch
from acp_tui.display_paths import PathDisplay
from acp_tui.render.diff import DiffDocument
from acp_tui.ui.widgets.diff_view import DiffView

__all__ = ["ReviewDiff", "file_document"]

_CURSOR = Style(reverse=True, bold=True)


def file_document(change: FileChange) -> DiffDocument:
    """The diff document of one changed file (a note when it has no patch)."""
    patch = change.patch
    notes: list[str] = []
    if change.note is not None and not change.binary:
        notes.append(f"{change.note} (R reverts the whole file)")
    if patch is None:
        if not notes:
            notes.append("no patch to show (R reverts the whole file)")
        return DiffDocument(None, notes=notes, tree=False)
    if change.binary:
        notes.append("binary file: R reverts it whole")
    shown = _absolute(patch, str(change.directory))
    paths = PathDisplay(str(change.directory), None, cell_len)
    return DiffDocument(
        ParsedPatch((shown,), patch.raw), notes=notes, tree=False, paths=paths
    )


def _absolute(patch: FilePatch, directory: str) -> FilePatch:
    """The patch with absolute paths (as ACP diffs have them; shown relative)."""

    def full(path: str | None) -> str | None:
        return None if path is None else f"{directory.rstrip('/')}/{path}"

    return replace(patch, old_path=full(patch.old_path), new_path=full(patch.new_path))


class ReviewDiff(DiffView):
    """One file's diff with a hunk cursor (see the module docstring)."""

    DEFAULT_CSS = """
    ReviewDiff { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.change: FileChange | None = None
        """The file shown."""
        self.hunk = 0
        """The hunk under the cursor (its index in the file)."""
        self.selection: tuple[int, int] | None = None
        """Selected lines of the cursor's hunk: (first, last) indices into its
        lines, or None (the whole hunk)."""

    @property
    def hunks(self) -> tuple[Hunk, ...]:
        """The file's text hunks (none for a binary or a file without a patch)."""
        change = self.change
        if change is None or change.patch is None or change.binary:
            return ()
        return change.patch.hunks

    @property
    def current(self) -> Hunk | None:
        """The hunk under the cursor, if the file has hunks."""
        hunks = self.hunks
        return hunks[self.hunk] if 0 <= self.hunk < len(hunks) else None

    def show_change(self, change: FileChange | None, hunk: int = 0) -> None:
        """Show another file (or none), the cursor on `hunk` (kept in range)."""
        self.change = change
        self.show_document(None if change is None else file_document(change))
        count = len(self.hunks)
        self.hunk = min(max(hunk, 0), max(count - 1, 0))
        self.selection = None
        self._scroll_to_hunk()

    def move_hunk(self, step: int) -> bool:
        """Move the cursor `step` hunks; False at either end."""
        target = self.hunk + step
        if not 0 <= target < len(self.hunks):
            return False
        self.hunk = target
        self.selection = None
        self._scroll_to_hunk()
        return True

    def select_lines(self, step: int) -> bool:
        """Grow (`step` 1) or shrink (-1) the selection of the hunk's lines.

        The first step selects the hunk's first changed line; False when the
        file has no hunk.
        """
        hunk = self.current
        if hunk is None:
            return False
        last = len(hunk.lines) - 1
        if self.selection is None:
            first = next(
                (i for i, line in enumerate(hunk.lines) if line.kind != "context"), 0
            )
            self.selection = (first, first)
        else:
            first, end = self.selection
            self.selection = (first, min(max(end + step, first), last))
        self._cache.clear()
        self.refresh()
        return True

    def _hunk_row(self) -> int | None:
        for index, row in enumerate(self.rows):
            if row.kind == "hunk" and row.hunk == self.hunk:
                return index
        return None

    def _scroll_to_hunk(self) -> None:
        row = self._hunk_row()
        self._cache.clear()
        self.scroll_to(y=max((row or 0) - 1, 0), animate=False, immediate=True)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        """Paint a row; the cursor hunk's header and selected lines reversed."""
        strip = super().render_line(y)
        index = self.scroll_offset.y + y
        rows = self.rows
        if 0 <= index < len(rows) and self.hunks:
            row = rows[index]
            if row.hunk != self.hunk:
                return strip
            if row.kind == "hunk":
                return strip.apply_style(_CURSOR)
            selection = self.selection
            if selection is not None and row.kind in ("line", "pair"):
                first, last = selection
                if any(first <= i <= last for i in (row.old, row.new) if i >= 0):
                    return strip.apply_style(_CURSOR)
        return strip
