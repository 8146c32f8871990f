"""Private files: what acp-tui writes about the user's work is readable by them only.

Prompt history, drafts, transcripts and logs hold what the user typed, what agents
answered and what their tools printed (code, paths, sometimes secrets). They live
under the user's data and log directories, but a default umask (022) would make
every file there readable by any local user. So:

* **Files are created with mode 0600** (`open_private`), and a file that already
  exists with looser permissions (written by an older acp-tui, or copied by hand)
  is tightened to 0600 when it is opened for writing. The mode is set on the open
  descriptor (`fchmod`), so there is no window with the wrong mode.
* **Directories acp-tui creates get mode 0700** (`make_private_dir`): each missing
  level from the first one that does not exist. A directory that already exists is
  left as it is (it may be shared on purpose, say `~/.local/share`).
* **Logs do not grow without bound.** The app's own log rotates
  (`PrivateRotatingFileHandler`: `APP_LOG_MAX_BYTES` per file, `APP_LOG_BACKUPS`
  old files), and `prune_files` removes the oldest of a family of files (the
  agents' stderr logs) beyond a count or an age.
* **A whole file is replaced atomically** (`replace_privately`): written to a
  0600 temporary file beside it (`mkstemp`), then renamed over it, so a reader
  sees the old file or the new one, never half of one; the temporary file is
  removed if anything fails.
* Nothing here raises on a failed chmod or prune (the file systems of some mounts
  refuse `chmod`): the caller's write goes on, and the failure is logged.

Standard library only, so any layer may use it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import logging.handlers
import os
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = [
    "APP_LOG_BACKUPS",
    "APP_LOG_MAX_BYTES",
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "PrivateRotatingFileHandler",
    "make_private_dir",
    "open_private",
    "prune_files",
    "replace_privately",
]

_log = logging.getLogger(__name__)

PRIVATE_FILE_MODE: Final = 0o600
"""Read and write for the owner only."""

PRIVATE_DIR_MODE: Final = 0o700
"""Enter, list and create for the owner only."""

APP_LOG_MAX_BYTES: Final = 5 * 1024 * 1024
"""The app's log file rotates when it would grow past this."""

APP_LOG_BACKUPS: Final = 3
"""Rotated app logs kept (`acp-tui.log.1` ... `.3`); older ones are deleted."""

_OPEN_FLAGS: Final = os.O_CREAT | getattr(os, "O_CLOEXEC", 0)


def make_private_dir(directory: Path) -> None:
    """Create `directory` and any missing parents, each new level with mode 0700.

    Existing directories are left alone. Raises `OSError` as `Path.mkdir` does.
    """
    missing: list[Path] = []
    current = directory
    while not current.is_dir():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for level in reversed(missing):
        try:
            level.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:
            if not level.is_dir():
                raise
            continue
        # mkdir's mode is filtered by the umask: a umask of 0o077 or looser keeps
        # it, but set it anyway in case the umask removed owner bits.
        _chmod(level, PRIVATE_DIR_MODE)


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_APPEND) -> int:
    """Open (creating) `path` with mode 0600, its directory made private if missing.

    An existing file whose mode gives the group or others any access is tightened
    to 0600. Returns the file descriptor (close-on-exec). Raises `OSError`.

    Args:
        path: The file.
        flags: `os.open` flags besides `O_CREAT` (default: append for writing).
    """
    try:
        fd = os.open(path, flags | _OPEN_FLAGS, PRIVATE_FILE_MODE)
    except FileNotFoundError:
        make_private_dir(path.parent)
        fd = os.open(path, flags | _OPEN_FLAGS, PRIVATE_FILE_MODE)
    try:
        mode = os.fstat(fd).st_mode
        if mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE_MODE)
    except OSError as error:
        _log.warning("cannot make %s private: %s", path, error)
    return fd


def _chmod(path: Path, mode: int) -> None:
    try:
        path.chmod(mode)
    except OSError as error:
        _log.warning("cannot make %s private: %s", path, error)


def prune_files(
    directory: Path,
    pattern: re.Pattern[str],
    *,
    keep: int,
    max_age: float | None = None,
    now: Callable[[], float] = time.time,
) -> list[Path]:
    """Delete the oldest files whose names match `pattern`, beyond `keep` of them.

    Files older than `max_age` seconds (by modification time) are deleted too,
    however few are left. Errors are logged, never raised.

    Args:
        directory: Where the files are (not searched recursively).
        pattern: Matched against whole file names (`fullmatch`).
        keep: How many of the newest to keep.
        max_age: The oldest a kept file may be, in seconds (None: any age).
        now: The clock, for tests.

    Returns:
        The files deleted.
    """
    found: list[tuple[float, str, Path]] = []
    try:
        entries = list(os.scandir(directory))
    except OSError as error:
        _log.warning("cannot list %s: %s", directory, error)
        return []
    for entry in entries:
        if not pattern.fullmatch(entry.name):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            found.append(
                (
                    entry.stat(follow_symlinks=False).st_mtime,
                    entry.name,
                    Path(entry.path),
                )
            )
        except OSError:
            continue
    found.sort(reverse=True)  # newest first (names break ties: they hold the time)
    cutoff = None if max_age is None else now() - max_age
    deleted: list[Path] = []
    for index, (mtime, _, path) in enumerate(found):
        if index < keep and (cutoff is None or mtime >= cutoff):
            continue
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as error:
            _log.warning("cannot delete old file %s: %s", path, error)
            continue
        deleted.append(path)
    return deleted


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A size-rotated log file created with mode 0600 (see the module docstring).

    Args:
        path: The log file (its directory is created private if missing).
        max_bytes: Rotate when the file would grow past this.
        backups: Rotated files kept.
    """

    def __init__(
        self,
        path: Path,
        *,
        max_bytes: int = APP_LOG_MAX_BYTES,
        backups: int = APP_LOG_BACKUPS,
    ) -> None:
        super().__init__(
            path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8", delay=True
        )

    def _open(self) -> io.TextIOWrapper:
        fd = open_private(Path(self.baseFilename))
        with contextlib.suppress(OSError):
            os.lseek(fd, 0, os.SEEK_END)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)


def replace_privately(path: Path, data: bytes, *, prefix: str) -> None:
    """Replace `path` with `data` atomically, as a file readable by its owner only.

    Args:
        path: The file to create or replace; its directory must exist.
        data: Its whole new content.
        prefix: The temporary file's name prefix (`.draft-`): it says whose it is.

    Raises:
        OSError: The write or the rename failed; `path` is as it was, and the
            temporary file is gone.
    """
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
