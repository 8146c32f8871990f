"""`snapshot`: record the session's directories as they are when a turn starts.

In a git work tree the snapshot is a tree object written through a temporary
index (`acp_tui.changes._git.write_tree`): the user's index, stash, refs and
work tree are never written. Outside git it is `plain.read_directory`: hashes of
every file, and the content of the text it can keep under its caps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from acp_tui.changes._git import GitError, GitRoot, find_root, write_tree
from acp_tui.changes.plain import PlainSnapshot, read_directory

__all__ = ["GitSnapshot", "RootSnapshot", "Snapshot", "snapshot"]


@dataclass(frozen=True, slots=True)
class GitSnapshot:
    """A directory inside a git work tree, as a tree object.

    Attributes:
        root: Where the directory sits in its work tree.
        tree: The object id of the whole work tree's tree at snapshot time
            (only `root.directory` is compared later).
    """

    root: GitRoot
    tree: str

    @property
    def directory(self) -> Path:
        """The directory snapshotted."""
        return self.root.directory


RootSnapshot: TypeAlias = GitSnapshot | PlainSnapshot
"""One directory's snapshot: through git, or by walking the files."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The session's directories at one moment, to diff against later.

    Attributes:
        roots: One snapshot per directory (nested directories folded into
            the one holding them).
        include_ignored: Whether files git ignores were taken too.
        notices: What the snapshot could not do in full (caps reached, a
            directory missing or unreadable), one sentence each.
    """

    roots: tuple[RootSnapshot, ...]
    include_ignored: bool
    notices: tuple[str, ...] = ()


def _distinct(directories: Iterable[str | Path]) -> list[Path]:
    """The directories resolved, without duplicates or ones inside another."""
    resolved = list(dict.fromkeys(Path(d).resolve() for d in directories))
    return [
        d
        for d in resolved
        if not any(other != d and d.is_relative_to(other) for other in resolved)
    ]


def snapshot(
    directories: Iterable[str | Path], *, include_ignored: bool = False
) -> Snapshot:
    """Record `directories` as they are now (see the package's invariants).

    Args:
        directories: The session's working directory and its additional ones.
        include_ignored: Take files that `.gitignore` excludes too (git only;
            outside git every file is taken).

    Returns:
        The snapshot; what it could not record is in `notices`.
    """
    roots: list[RootSnapshot] = []
    notices: list[str] = []
    for directory in _distinct(directories):
        if not directory.is_dir():
            notices.append(f"{directory}: not a directory, not compared")
            continue
        root = find_root(directory)
        if root is not None:
            try:
                tree = write_tree(root, include_ignored=include_ignored)
            except GitError as exc:
                notices.append(f"{directory}: git could not snapshot it ({exc})")
                continue
            roots.append(GitSnapshot(root, tree))
            continue
        plain = read_directory(directory)
        roots.append(plain)
        if plain.notice is not None:
            notices.append(plain.notice)
    return Snapshot(tuple(roots), include_ignored, tuple(notices))
