"""Revert what a turn changed: one hunk, one file, or the whole turn.

No Textual. Every revert is planned as checked steps (`acp_tui.changes.edits`)
and refuses (`RevertRefused`, a sentence for the user) rather than clobber:

* **A hunk** changes only its own lines: its "after" lines (context and added)
  are looked for in the file now, at the hunk's place or at the nearest offset
  where they are exactly (like patch(1), never fuzz), and replaced by its
  "before" lines (context and removed). If they are not there, the file
  changed at that place since: "src/x.py changed since this turn at lines
  10-14; not reverted". Lines edited elsewhere in the file stay.
* **A text file** reverts all its hunks at once (every one must match), and its
  mode. An added file is deleted (its content must be the patch's), a deleted
  one restored from the snapshot (git blob or plain snapshot), a renamed one
  moved back (its hunks reverted on the way).
* **A binary file** (or one without a patch) reverts whole, from the snapshot,
  if its content is still what the change set saw (`Baseline`, by hash).
* **The whole turn** plans every file first; if any refuses, nothing changes.

Each revert returns an `Undo`; `undo()` re-applies the change (refusing if the
files changed again). Nothing here touches the git index, stash or refs: the
snapshot's content is read with `git cat-file` only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from acp_tui.changes._git import GitError, run_git
from acp_tui.changes.edits import (
    FileWrite,
    LineEdit,
    RevertRefused,
    Step,
    apply_steps,
    digest,
    read_state,
)
from acp_tui.changes.model import ChangeSet, FileChange
from acp_tui.changes.plain import PlainSnapshot
from acp_tui.changes.snapshot import GitSnapshot, Snapshot
from acp_tui.diff.model import DiffLine, Hunk

__all__ = [
    "Baseline",
    "RevertRefused",
    "Undo",
    "capture",
    "revert_file",
    "revert_hunk",
    "revert_turn",
    "undo",
]

Baseline = dict[Path, str | None]
"""The digest of each changed file's content when the change set was taken
(`None`: no file), by absolute path: how a whole-file revert knows whether
the file changed since."""


@dataclass(frozen=True, slots=True)
class Undo:
    """What undoes a revert.

    Attributes:
        description: What was reverted ("hunk 2 of src/x.py").
        steps: The inverse steps, applied in order by `undo`.
    """

    description: str
    steps: tuple[Step, ...]


def capture(changes: ChangeSet) -> Baseline:
    """The digest of every changed file as it is now (right after the diff)."""
    baseline: Baseline = {}
    for change in changes.files:
        try:
            data = read_state(change.absolute)
        except RevertRefused:
            continue
        baseline[change.absolute] = None if data is None else digest(data)
    return baseline


def _raw(line: DiffLine) -> bytes:
    ending = b"" if line.no_newline else (b"\r\n" if line.crlf else b"\n")
    return line.text.encode("utf-8") + ending


def _sides(hunk: Hunk) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """(before lines, after lines) of a hunk, with their endings."""
    before = tuple(_raw(line) for line in hunk.lines if line.kind != "added")
    after = tuple(_raw(line) for line in hunk.lines if line.kind != "removed")
    return before, after


def _hunk_edit(change: FileChange, hunk: Hunk, path: Path) -> LineEdit:
    before, after = _sides(hunk)
    at = hunk.new_start - 1 if hunk.new_count else hunk.new_start
    return LineEdit(path, change.path, max(at, 0), after, before)


def _text_hunks(change: FileChange) -> tuple[Hunk, ...]:
    patch = change.patch
    if patch is None or change.binary or patch.error is not None:
        raise RevertRefused(
            f"{change.path} has no text patch ({change.note or 'binary'}); "
            "revert the whole file"
        )
    return patch.hunks


def revert_hunk(change: FileChange, index: int) -> Undo:
    """Revert hunk `index` of a modified (or renamed) text file.

    Raises:
        RevertRefused: The file changed at that place since, or has no hunks.
    """
    hunks = _text_hunks(change)
    if change.status not in ("modified", "renamed") or not 0 <= index < len(hunks):
        raise RevertRefused(
            f"{change.path} is {change.status}: revert the whole file instead"
        )
    step = _hunk_edit(change, hunks[index], change.absolute)
    description = f"hunk {index + 1} of {change.path}"
    return Undo(description, apply_steps([step]))


def _revert_lines(change: FileChange, data: bytes) -> bytes:
    """`data` with every hunk of the change reverted (all must match)."""
    lines = data.splitlines(keepends=True)
    for hunk in sorted(_text_hunks(change), key=lambda h: -h.new_start):
        edit = _hunk_edit(change, hunk, change.absolute)
        start = edit.locate(lines)
        lines[start : start + len(edit.expect)] = edit.replace
    return b"".join(lines)


def _before(change: FileChange, snap: Snapshot) -> bytes:
    """The file's content in the snapshot (its old path for a rename)."""
    path = change.old_path or change.path
    for root in snap.roots:
        if root.directory != change.directory:
            continue
        if isinstance(root, GitSnapshot):
            spec = f"{root.tree}:{root.root.prefix}{path}"
            try:
                return run_git(root.directory, ["cat-file", "blob", spec])
            except GitError as exc:
                raise RevertRefused(
                    f"{path}: its content at the turn's start could not be read "
                    f"({exc}); not reverted"
                ) from exc
        return _plain_before(root, path)
    raise RevertRefused(f"{path}: not in the turn's snapshot; not reverted")


def _plain_before(root: PlainSnapshot, path: str) -> bytes:
    state = root.files.get(path)
    if state is None or state.content is None:
        raise RevertRefused(
            f"{path}: the snapshot did not keep its content (too large); not reverted"
        )
    return state.content


def _mode(git_mode: str | None) -> int | None:
    if git_mode is None:
        return None
    return 0o755 if git_mode == "100755" else 0o644


def _whole(change: FileChange, baseline: Baseline) -> str:
    """The digest the file had when the change set was taken."""
    if change.absolute not in baseline or baseline[change.absolute] is None:
        raise RevertRefused(f"{change.path}: its state is unknown; not reverted")
    current = baseline[change.absolute]
    assert current is not None
    return current


def _file_steps(change: FileChange, snap: Snapshot, baseline: Baseline) -> list[Step]:
    """The steps that revert one file (refusing if it cannot be)."""
    path = change.absolute
    links = {"120000", "160000"}
    if change.status == "type_changed" or {change.old_mode, change.new_mode} & links:
        raise RevertRefused(
            f"{change.path}: links and submodules are not reverted here"
        )
    text = change.patch is not None and not change.binary and change.patch.error is None
    if change.status == "added":
        if text:
            assert change.patch is not None
            content = b"".join(
                _raw(line) for hunk in change.patch.hunks for line in hunk.lines
            )
            expected = digest(content)
        else:
            expected = _whole(change, baseline)
        return [FileWrite(path, change.path, expected, None)]
    old_mode = _mode(change.old_mode)
    if change.status == "deleted":
        return [FileWrite(path, change.path, None, _before(change, snap), old_mode)]
    current = read_state(path)
    if current is None:
        raise RevertRefused(f"{change.path} no longer exists; not reverted")
    if text:
        content = _revert_lines(change, current)
    else:
        if digest(current) != _whole(change, baseline):
            raise RevertRefused(f"{change.path} changed since this turn; not reverted")
        content = _before(change, snap)
    if change.status == "renamed" and change.old_path is not None:
        old = change.directory / change.old_path
        return [
            FileWrite(old, change.old_path, None, content, old_mode),
            FileWrite(path, change.path, digest(current), None),
        ]
    return [FileWrite(path, change.path, digest(current), content, old_mode)]


def revert_file(change: FileChange, snap: Snapshot, baseline: Baseline) -> Undo:
    """Revert one file as a whole (see the module).

    Raises:
        RevertRefused: It changed since, or cannot be restored.
    """
    steps = _file_steps(change, snap, baseline)
    return Undo(change.path, apply_steps(steps))


def revert_turn(
    changes: ChangeSet | Iterable[FileChange], snap: Snapshot, baseline: Baseline
) -> Undo:
    """Revert every file; if any cannot be, nothing is.

    Raises:
        RevertRefused: Naming each file that refused.
    """
    files = changes.files if isinstance(changes, ChangeSet) else tuple(changes)
    steps: list[Step] = []
    problems: list[str] = []
    for change in files:
        try:
            steps.extend(_file_steps(change, snap, baseline))
        except RevertRefused as refused:
            problems.append(str(refused))
    if problems:
        raise RevertRefused("the turn was not reverted: " + "; ".join(problems))
    count = len(files)
    return Undo(
        f"the turn ({count} file{'s' if count != 1 else ''})", apply_steps(steps)
    )


def undo(record: Undo) -> Undo:
    """Undo a revert (re-apply the change); the record that reverts it again.

    Raises:
        RevertRefused: The files changed again since the revert.
    """
    return Undo(record.description, apply_steps(record.steps))
