"""The review's file list: a turn's changed files as a tree.

Folders are branches; each file is a leaf with its status letter (`A` added,
`M` modified, `D` deleted, `R` renamed, `T` type changed), its name, its
`+`/`-` line counts and a check mark once kept. Paths come from the tree on
disk (an agent may have named them): labels are rich `Text` of printable
characters, never markup. Several directories (the session's and its added
ones) each get a top branch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import PurePosixPath

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from acp_tui.changes import FileChange
from acp_tui.safe_text import printable

__all__ = ["ReviewFiles", "status_letter"]

_LETTERS = {
    "added": "A",
    "modified": "M",
    "deleted": "D",
    "renamed": "R",
    "type_changed": "T",
}
_STYLES = {"A": "green", "M": "yellow", "D": "red", "R": "cyan", "T": "magenta"}


def status_letter(change: FileChange) -> str:
    """The one-letter status of a changed file."""
    return _LETTERS.get(change.status, "?")


def file_label(change: FileChange, name: str, kept: bool) -> Text:
    """A file's row: status letter, name, +/- counts, kept mark (no markup)."""
    letter = status_letter(change)
    label = Text()
    label.append(letter, style=f"bold {_STYLES.get(letter, '')}")
    label.append(" ")
    label.append(printable(name))
    if change.old_path is not None:
        label.append(f" ← {printable(change.old_path)}", style="dim")
    patch = change.patch
    if change.binary:
        label.append(" binary", style="dim")
    elif patch is not None and (patch.added or patch.removed):
        label.append(f" +{patch.added}", style="green")
        label.append(f" -{patch.removed}", style="red")
    if kept:
        label.append(" ✓", style="bold green")
    return label


class ReviewFiles(Tree[int]):
    """The changed files (leaf data: the file's index in the change set)."""

    DEFAULT_CSS = """
    ReviewFiles {
        width: 1fr;
        max-width: 48;
        min-width: 24;
        height: 1fr;
        border-right: solid $panel-lighten-2;
        background: $surface;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("changes"), id=id)
        self.show_root = False
        self.guide_depth = 2

    def show_files(
        self,
        files: Sequence[FileChange],
        kept: Callable[[FileChange], bool],
        select: int = 0,
    ) -> None:
        """List `files` (`kept` says which to mark); the cursor on `select`."""
        self.clear()
        roots = list(dict.fromkeys(str(f.directory) for f in files))
        leaves: dict[int, TreeNode[int]] = {}
        for directory in roots:
            top: TreeNode[int] = self.root
            if len(roots) > 1:
                top = self.root.add(Text(printable(directory)), expand=True)
            folders: dict[str, TreeNode[int]] = {}
            for index, change in enumerate(files):
                if str(change.directory) != directory:
                    continue
                parts = PurePosixPath(change.path).parts
                parent = top
                for depth in range(1, len(parts)):
                    folder = "/".join(parts[:depth])
                    node = folders.get(folder)
                    if node is None:
                        node = parent.add(
                            Text(printable(parts[depth - 1] + "/"), style="bold"),
                            expand=True,
                        )
                        folders[folder] = node
                    parent = node
                label = file_label(change, parts[-1] if parts else "?", kept(change))
                leaves[index] = parent.add_leaf(label, data=index)
        self.root.expand()
        target = leaves.get(select) or next(iter(leaves.values()), None)
        if target is not None:
            self.move_cursor(target)

    def relabel(
        self, files: Sequence[FileChange], kept: Callable[[FileChange], bool]
    ) -> None:
        """Refresh the kept marks (the list is the same)."""
        stack = list(self.root.children)
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if node.data is not None and 0 <= node.data < len(files):
                change = files[node.data]
                name = PurePosixPath(change.path).name
                node.set_label(file_label(change, name, kept(change)))

    @property
    def selected_index(self) -> int | None:
        """The change-set index of the file under the cursor, if a file."""
        node = self.cursor_node
        return None if node is None else node.data
