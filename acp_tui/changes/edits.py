"""Checked file edits: the steps a revert (and its undo) is made of.

A step says what it expects to find and what it puts there, so it refuses
instead of clobbering:

* `LineEdit` replaces a run of lines (`expect`) by others (`replace`), found at
  `at` or, like patch(1), at the nearest offset where the run is exactly there
  (never fuzz). Lines elsewhere in the file stay as they are.
* `FileWrite` replaces a whole file whose content has the digest `expect`
  (`None`: the file must not exist) by `content` (`None`: delete it).

`apply_steps` checks every step first, then applies them in order, each
returning its inverse; a failure half-way rolls back what was applied. The
inverses, applied, undo the whole (and refuse likewise if the files changed
again). Writes go through a temporary file and `os.replace`, keeping the mode.
Symbolic links are never written through.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

__all__ = [
    "FileWrite",
    "LineEdit",
    "RevertRefused",
    "Step",
    "apply_steps",
    "digest",
    "read_state",
]


class RevertRefused(Exception):
    """A revert (or undo) would overwrite something that changed: not done.

    The message says what and why, for the user.
    """


def digest(data: bytes) -> str:
    """The SHA-256 of `data` (how a whole file is recognised)."""
    return hashlib.sha256(data).hexdigest()


def read_state(path: Path) -> bytes | None:
    """The file's bytes, or `None` when it does not exist.

    Raises:
        RevertRefused: It is a symbolic link, not a regular file, or unreadable.
    """
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RevertRefused(f"{path}: cannot be read ({exc.strerror})") from exc
    if stat.S_ISLNK(info.st_mode):
        raise RevertRefused(f"{path} is a symbolic link now; not reverted")
    if not stat.S_ISREG(info.st_mode):
        raise RevertRefused(f"{path} is not a regular file now; not reverted")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise RevertRefused(f"{path}: cannot be read ({exc.strerror})") from exc


def _write(path: Path, data: bytes, mode: int | None) -> None:
    """Replace `path` by `data` atomically (`mode`: the permission bits)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(path.lstat().st_mode)
        except FileNotFoundError:
            mode = 0o644
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _mode_of(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.lstat().st_mode)
    except FileNotFoundError:
        return None


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Replace the lines `expect` (found at `at` or nearby) by `replace`.

    Attributes:
        path: The file.
        name: The file as the user reads it (in messages).
        at: Where `expect` should start (0-based line index).
        expect: The lines there now, each with its line ending.
        replace: The lines put instead.
    """

    path: Path
    name: str
    at: int
    expect: tuple[bytes, ...]
    replace: tuple[bytes, ...]

    def _where(self) -> str:
        if not self.expect:
            return f"line {self.at + 1}"
        return f"lines {self.at + 1}-{self.at + len(self.expect)}"

    def locate(self, lines: Sequence[bytes]) -> int:
        """Where `expect` is in `lines`: at `at`, else at the nearest offset.

        Raises:
            RevertRefused: It is nowhere exactly (the file changed there).
        """
        size = len(self.expect)
        if size == 0:
            if 0 <= self.at <= len(lines):
                return self.at
            raise RevertRefused(self._changed())
        last = len(lines) - size
        for offset in range(max(self.at, last - self.at, 0) + 1):
            for start in (self.at - offset, self.at + offset) if offset else (self.at,):
                if 0 <= start <= last and tuple(lines[start : start + size]) == (
                    self.expect
                ):
                    return start
        raise RevertRefused(self._changed())

    def _changed(self) -> str:
        return f"{self.name} changed since this turn at {self._where()}; not reverted"

    def check(self) -> None:
        """Refuse now if the edit cannot apply."""
        data = read_state(self.path)
        if data is None:
            raise RevertRefused(f"{self.name} no longer exists; not reverted")
        self.locate(data.splitlines(keepends=True))

    def apply(self) -> Step:
        """Make the edit; its inverse."""
        data = read_state(self.path)
        if data is None:
            raise RevertRefused(f"{self.name} no longer exists; not reverted")
        lines = data.splitlines(keepends=True)
        start = self.locate(lines)
        lines[start : start + len(self.expect)] = self.replace
        _write(self.path, b"".join(lines), None)
        return LineEdit(self.path, self.name, start, self.replace, self.expect)


@dataclass(frozen=True, slots=True)
class FileWrite:
    """Replace a whole file whose digest is `expect` by `content`.

    Attributes:
        path: The file.
        name: The file as the user reads it (in messages).
        expect: The digest of the content there now (`None`: no file there).
        content: The content written (`None`: the file is deleted).
        mode: The permission bits written (`None`: kept, or 0644 when new).
    """

    path: Path
    name: str
    expect: str | None
    content: bytes | None
    mode: int | None = None

    def check(self) -> bytes | None:
        """Refuse now if the write cannot apply; the current content."""
        data = read_state(self.path)
        if self.expect is None and data is not None:
            raise RevertRefused(f"{self.name} exists now; not overwritten")
        if self.expect is not None and data is None:
            raise RevertRefused(f"{self.name} no longer exists; not reverted")
        if data is not None and digest(data) != self.expect:
            raise RevertRefused(f"{self.name} changed since this turn; not reverted")
        return data

    def apply(self) -> Step:
        """Write (or delete) the file; its inverse."""
        data = self.check()
        mode = _mode_of(self.path)
        if self.content is None:
            self.path.unlink()
        else:
            _write(self.path, self.content, self.mode)
        after = None if self.content is None else digest(self.content)
        return FileWrite(self.path, self.name, after, data, mode)


Step: TypeAlias = LineEdit | FileWrite
"""One checked edit."""


def apply_steps(steps: Sequence[Step]) -> tuple[Step, ...]:
    """Check every step, then apply them in order; the inverses, to undo.

    Raises:
        RevertRefused: A step cannot apply (nothing was changed), or one failed
            half-way (what was applied is rolled back).
    """
    problems: list[str] = []
    for step in steps:
        try:
            step.check()
        except RevertRefused as refused:
            problems.append(str(refused))
    if problems:
        raise RevertRefused("; ".join(problems))
    inverses: list[Step] = []
    try:
        for step in steps:
            inverses.append(step.apply())
    except (RevertRefused, OSError) as exc:
        for inverse in reversed(inverses):
            with contextlib.suppress(RevertRefused, OSError):
                inverse.apply()
        raise RevertRefused(f"not reverted: {exc}") from exc
    return tuple(reversed(inverses))
