"""Compare two plain (non-git) snapshots of a directory, with git-style patches."""

from __future__ import annotations

from acp_tui.changes.model import ChangeStatus, FileChange
from acp_tui.changes.plain import FileState, PlainSnapshot
from acp_tui.diff.model import DEV_NULL
from acp_tui.diff.parse import _diff_path as quoted
from acp_tui.diff.parse import parse_patch, patch_from_texts

__all__ = ["compare"]

_SNIFF = 8000
"""Bytes looked at for a NUL, as git does, to call a file binary."""


def _text(state: FileState | None) -> str | None:
    """The content as text; `None` when missing, raises `ValueError` if binary."""
    if state is None or state.content is None:
        return None
    if b"\0" in state.content[:_SNIFF]:
        raise ValueError("binary")
    return state.content.decode("utf-8")  # UnicodeDecodeError is a ValueError


def _header(
    path: str,
    old_path: str | None,
    before: FileState | None,
    after: FileState | None,
) -> list[str]:
    source = old_path or path
    lines = [f"diff --git {quoted('a/' + source)} {quoted('b/' + path)}\n"]
    if before is None and after is not None:
        lines.append(f"new file mode {after.mode}\n")
    elif after is None and before is not None:
        lines.append(f"deleted file mode {before.mode}\n")
    elif before is not None and after is not None and before.mode != after.mode:
        lines += [f"old mode {before.mode}\n", f"new mode {after.mode}\n"]
    if old_path is not None:
        lines += [
            "similarity index 100%\n",
            f"rename from {quoted(old_path)}\n",
            f"rename to {quoted(path)}\n",
        ]
    return lines


def _change(
    snap: PlainSnapshot,
    path: str,
    status: ChangeStatus,
    before: FileState | None,
    after: FileState | None,
    old_path: str | None = None,
) -> FileChange:
    head = _header(path, old_path, before, after)
    binary = False
    note: str | None = None
    body = ""
    same = before is not None and after is not None and before.digest == after.digest
    if not same:
        missing = (before is not None and before.content is None) or (
            after is not None and after.content is None
        )
        try:
            old_text, new_text = _text(before), _text(after)
        except ValueError:
            binary, note = True, "binary file"
            minus = DEV_NULL if before is None else quoted("a/" + (old_path or path))
            plus = DEV_NULL if after is None else quoted("b/" + path)
            body = f"Binary files {minus} and {plus} differ\n"
        else:
            if missing:
                note = "content not kept by the snapshot's caps: no patch"
            else:
                body = _hunks(path, old_text, new_text, before, after, old_path)
    patch = None
    if note is None or binary:
        patch = parse_patch("".join(head) + body).files[0]
    return FileChange(
        directory=snap.directory,
        path=path,
        status=status,
        old_path=old_path,
        old_mode=None if before is None else before.mode,
        new_mode=None if after is None else after.mode,
        binary=binary,
        patch=patch,
        note=note,
    )


def _hunks(
    path: str,
    old_text: str | None,
    new_text: str | None,
    before: FileState | None,
    after: FileState | None,
    old_path: str | None,
) -> str:
    """`---`/`+++` lines and hunks, from `patch_from_texts`'s body."""
    text = patch_from_texts(path, old_text, new_text)
    start = text.find("\n@@")
    if start < 0:
        return ""
    minus = DEV_NULL if before is None else quoted("a/" + (old_path or path))
    plus = DEV_NULL if after is None else quoted("b/" + path)
    return f"--- {minus}\n+++ {plus}\n" + text[start + 1 :]


def compare(before: PlainSnapshot, now: PlainSnapshot) -> list[FileChange]:
    """The changes from `before` to `now` (renames: identical content moved).

    Files past `before`'s file cap are not reported as added (they may only
    have been left out of it).
    """
    changes: list[FileChange] = []
    added = [p for p in now.files if p not in before.files]
    deleted = [p for p in before.files if p not in now.files]
    if not before.complete:
        added = []
    if not now.complete:
        deleted = []
    moved_from: dict[str, str] = {}
    by_digest = {before.files[p].digest: p for p in deleted}
    for path in added:
        source = by_digest.pop(now.files[path].digest, None)
        if source is not None:
            moved_from[path] = source
    for path in sorted({*now.files, *before.files}):
        old, new = before.files.get(path), now.files.get(path)
        if path in moved_from:
            source = moved_from[path]
            changes.append(
                _change(now, path, "renamed", before.files[source], new, source)
            )
        elif path in moved_from.values():
            continue
        elif new is not None and old is None and path in added:
            changes.append(_change(now, path, "added", None, new))
        elif old is not None and new is None and path in deleted:
            changes.append(_change(now, path, "deleted", old, None))
        elif (
            old is not None
            and new is not None
            and (old.digest != new.digest or old.mode != new.mode)
        ):
            kind: ChangeStatus = (
                "type_changed"
                if "120000" in (old.mode, new.mode) and old.mode != new.mode
                else "modified"
            )
            changes.append(_change(now, path, kind, old, new))
    return changes
