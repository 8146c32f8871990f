"""Snapshots of a directory outside git: content hashes, and text kept under caps.

A file's content is kept (for its patch) when it is at most `MAX_FILE_BYTES`
and the snapshot has kept less than `MAX_TOTAL_BYTES` so far; every file below
`MAX_FILES` is hashed, so a change is always noticed, only its patch may be
missing. Past `MAX_FILES` files nothing more is recorded, and the snapshot's
notice says so. Symbolic links are recorded by target, never followed.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "FileState",
    "PlainSnapshot",
    "read_directory",
]

MAX_FILE_BYTES: Final = 512 * 1024
"""Files larger than this are hashed, but their content is not kept."""

MAX_TOTAL_BYTES: Final = 64 * 1024 * 1024
"""Content kept over the whole snapshot."""

MAX_FILES: Final = 50_000
"""Files recorded at most; the rest are left out (with a notice)."""

SKIPPED_DIRECTORIES: Final = frozenset({".git", ".hg", ".svn"})
"""Version-control directories never walked."""


@dataclass(frozen=True, slots=True)
class FileState:
    """One file as the snapshot saw it.

    Attributes:
        digest: SHA-256 of the content (of the target, for a symbolic link).
        mode: Git's spelling: `100644`, `100755` or `120000` (a link).
        content: The bytes, when kept (under the caps), else `None`.
    """

    digest: str
    mode: str
    content: bytes | None


@dataclass(frozen=True, slots=True)
class PlainSnapshot:
    """The files under a directory that is not in a git work tree.

    Attributes:
        directory: The directory.
        files: Each file's state by its `/`-separated path under `directory`.
        complete: Every file was recorded (`MAX_FILES` not reached).
        notice: What the caps left out, or `None` when nothing was.
    """

    directory: Path
    files: dict[str, FileState]
    complete: bool
    notice: str | None


def _state(path: Path, info: os.stat_result, keep: bool) -> FileState | None:
    if stat.S_ISLNK(info.st_mode):
        target = os.fsencode(os.readlink(path))
        return FileState(hashlib.sha256(target).hexdigest(), "120000", target)
    if not stat.S_ISREG(info.st_mode):
        return None
    mode = "100755" if info.st_mode & stat.S_IXUSR else "100644"
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(data).hexdigest()
    return FileState(digest, mode, data if keep else None)


def read_directory(
    directory: Path,
    *,
    max_files: int = MAX_FILES,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> PlainSnapshot:
    """Record every file under `directory` (links not followed), within the caps."""
    files: dict[str, FileState] = {}
    kept = 0
    unkept = 0
    complete = True
    for top, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRECTORIES)
        here = Path(top)
        for name in sorted(names):
            if len(files) >= max_files:
                complete = False
                break
            path = here / name
            try:
                info = path.lstat()
            except OSError:
                continue
            size = info.st_size
            keep = size <= max_file_bytes and kept + size <= max_total_bytes
            state = _state(path, info, keep)
            if state is None:
                continue
            if state.content is not None:
                kept += len(state.content)
            else:
                unkept += 1
            files[path.relative_to(directory).as_posix()] = state
        if not complete:
            break
        # Links to directories are listed in `dirs` and not walked: record them.
        for name in list(dirs):
            path = here / name
            if path.is_symlink() and len(files) < max_files:
                info = path.lstat()
                link = _state(path, info, True)
                if link is not None:
                    files[path.relative_to(directory).as_posix()] = link
    notes = []
    if not complete:
        notes.append(
            f"{directory}: more than {max_files:,} files; only the first "
            f"{max_files:,} are compared"
        )
    if unkept:
        notes.append(
            f"{directory}: the content of {unkept:,} file(s) was not kept "
            f"(over {max_file_bytes:,} bytes each or {max_total_bytes:,} in all): "
            "their changes are listed without a patch"
        )
    return PlainSnapshot(directory, files, complete, "; ".join(notes) or None)
