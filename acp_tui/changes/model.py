"""The change set model: which files a turn changed, and how (plain data)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from acp_tui.diff.model import FilePatch, ParsedPatch
from acp_tui.diff.parse import parse_patch

__all__ = ["ChangeSet", "ChangeStatus", "FileChange"]

ChangeStatus: TypeAlias = Literal[
    "added", "modified", "deleted", "renamed", "type_changed"
]
"""What happened to a file (`type_changed`: a file became a link, or back)."""


@dataclass(frozen=True, slots=True)
class FileChange:
    """One changed file.

    Attributes:
        directory: The snapshotted directory the file is under.
        path: The file's path under `directory` (`/`-separated), after the
            change (the old path for a deleted file).
        status: What happened to it.
        old_path: The path before a rename, else `None`.
        old_mode: The git mode before (`None` when added).
        new_mode: The git mode after (`None` when deleted).
        binary: The content is binary: listed, with no text patch.
        patch: The file's git patch parsed by `acp_tui.diff` (its `raw` is the
            text), or `None` when there is none to show (see `note`).
        note: Why the patch is missing or partial, else `None`.
    """

    directory: Path
    path: str
    status: ChangeStatus
    old_path: str | None = None
    old_mode: str | None = None
    new_mode: str | None = None
    binary: bool = False
    patch: FilePatch | None = None
    note: str | None = None

    @property
    def absolute(self) -> Path:
        """The file's absolute path."""
        return self.directory / self.path

    @property
    def mode_changed(self) -> bool:
        """Whether the mode changed (the executable bit, or file/link)."""
        return None not in (self.old_mode, self.new_mode) and (
            self.old_mode != self.new_mode
        )


@dataclass(frozen=True, slots=True)
class ChangeSet:
    """Every file changed between a snapshot and the tree now.

    Attributes:
        files: The changes, by directory then path.
        notices: What could not be compared in full (from the snapshot and
            from the diff), one sentence each.
    """

    files: tuple[FileChange, ...]
    notices: tuple[str, ...] = ()

    @property
    def patch_text(self) -> str:
        """The text patches of all files, one git patch (paths per directory)."""
        return "".join(f.patch.raw for f in self.files if f.patch is not None)

    def parsed(self) -> ParsedPatch:
        """All patches as one `ParsedPatch`, for the existing diff views."""
        patches = tuple(f.patch for f in self.files if f.patch is not None)
        if not patches:
            return parse_patch("")
        return ParsedPatch(patches, self.patch_text)

    def by_path(self, path: str) -> FileChange | None:
        """The change of the file at `path` (under its directory), if any."""
        return next((f for f in self.files if f.path == path), None)
