"""`diff`: what changed between a snapshot and the tree now.

In git, the tree now is written the same way as the snapshot (a temporary
index), and the two trees are compared with `git diff-tree -r -M` (renames
found, binaries detected, paths read from `-z` output). Outside git, the files
are walked again and compared by hash; a file whose content was not kept gets
no patch, only its status (`FileChange.note` says why).
"""

from __future__ import annotations

import os
from typing import TypeAlias

from acp_tui.changes._git import GitError, run_git, write_tree
from acp_tui.changes.model import ChangeSet, ChangeStatus, FileChange
from acp_tui.changes.plain import PlainSnapshot, read_directory
from acp_tui.changes.plain_diff import compare
from acp_tui.changes.snapshot import GitSnapshot, Snapshot
from acp_tui.diff.model import FilePatch
from acp_tui.diff.parse import parse_patch

__all__ = ["diff"]

_STATUS: dict[str, ChangeStatus] = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "added",
    "T": "type_changed",
}

_DIFF_OPTIONS = ("-r", "-M", "--no-ext-diff", "--no-textconv", "--no-color")


_Row: TypeAlias = tuple[str, str, str, str, str | None]
"""(status letter, old mode, new mode, path, old path) of one changed file."""


def _raw_changes(snap: GitSnapshot, tree: str, relative: list[str]) -> list[_Row]:
    """(status letter, old mode, new mode, path, old path) per changed file."""
    out = run_git(
        snap.directory,
        ["diff-tree", "-z", *_DIFF_OPTIONS, *relative, snap.tree, tree],
    )
    fields = out.split(b"\0")
    rows: list[_Row] = []
    index = 0
    while index < len(fields) and fields[index].startswith(b":"):
        old_mode, new_mode, _old, _new, status = fields[index][1:].decode().split()
        letter = status[0]
        if letter in "RC":
            old = os.fsdecode(fields[index + 1])
            path = os.fsdecode(fields[index + 2])
            index += 3
            rows.append((letter, old_mode, new_mode, path, old))
        else:
            path = os.fsdecode(fields[index + 1])
            index += 2
            rows.append((letter, old_mode, new_mode, path, None))
    return rows


def _mode(mode: str) -> str | None:
    return None if mode == "000000" else mode


def _patch_text(snap: GitSnapshot, tree: str, relative: list[str], *paths: str) -> str:
    """`git diff-tree -p` between the snapshot and `tree`, for `paths` or all."""
    top = [f":(top,literal){snap.root.prefix}{path}" for path in paths]
    spec = ["--", *top] if top else []
    out = run_git(
        snap.directory,
        ["diff-tree", "-p", *_DIFF_OPTIONS, *relative, snap.tree, tree, *spec],
    )
    return out.decode("utf-8", "replace")


def _patches(
    snap: GitSnapshot, tree: str, relative: list[str], rows: list[_Row]
) -> dict[str, FilePatch]:
    """Each changed file's parsed patch by path (one git call, per file if huge)."""
    parsed = parse_patch(_patch_text(snap, tree, relative))
    if not parsed.error:
        return {f.path: f for f in parsed.files}
    # The whole patch is too large to read: take the files one by one, so one
    # huge file loses its patch and the others keep theirs.
    patches: dict[str, FilePatch] = {}
    for _letter, _old_mode, _new_mode, path, old in rows:
        paths = (path,) if old is None else (old, path)
        one = parse_patch(_patch_text(snap, tree, relative, *paths))
        patches.update((f.path, f) for f in one.files if not one.error)
    return patches


def _git_diff(snap: GitSnapshot, include_ignored: bool) -> list[FileChange]:
    tree = write_tree(snap.root, include_ignored=include_ignored)
    if tree == snap.tree:
        return []
    relative = [f"--relative={snap.root.prefix}"] if snap.root.prefix else []
    rows = _raw_changes(snap, tree, relative)
    patches = _patches(snap, tree, relative, rows)
    changes = []
    for letter, old_mode, new_mode, path, old in rows:
        patch = patches.get(path)
        binary = patch is not None and patch.binary
        note = None
        if patch is None:
            note = "no patch: it is too large to show"
        elif binary:
            note = "binary file"
        changes.append(
            FileChange(
                directory=snap.directory,
                path=path,
                status=_STATUS.get(letter, "modified"),
                old_path=old if letter == "R" else None,
                old_mode=None if letter == "C" else _mode(old_mode),
                new_mode=_mode(new_mode),
                binary=binary,
                patch=patch,
                note=note,
            )
        )
    return changes


def diff(snap: Snapshot) -> ChangeSet:
    """Compare `snap` with the directories as they are now.

    Args:
        snap: A snapshot from `snapshot`.

    Returns:
        Every file added, modified, deleted, renamed or changed in type or mode
        since, with its patch; the snapshot's notices and this diff's own.
    """
    files: list[FileChange] = []
    notices = list(snap.notices)
    for root in snap.roots:
        if isinstance(root, GitSnapshot):
            try:
                files.extend(_git_diff(root, snap.include_ignored))
            except GitError as exc:
                notices.append(f"{root.directory}: git could not compare it ({exc})")
        else:
            now = _read_again(root)
            files.extend(compare(root, now))
    return ChangeSet(tuple(files), tuple(dict.fromkeys(notices)))


def _read_again(before: PlainSnapshot) -> PlainSnapshot:
    return read_directory(before.directory)
