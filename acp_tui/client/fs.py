"""The v1 client file-system methods: `fs/read_text_file` and `fs/write_text_file`.

Spec: https://agentclientprotocol.com/protocol/file-system

`FileSystemAccess` serves them for one session, confined to the session's roots: its
`cwd` and its additional directories.

Confinement rule: the path must be absolute. After every symlink and `..` is
resolved (for a file that does not exist yet, as far as the path exists), it must lie
inside one of the roots, themselves resolved. A symlink inside a root that points
outside is therefore refused, and so is a path that climbs out with `..`. The rule
guards against agent mistakes; it is not a security boundary against a concurrent
local process that swaps directories for symlinks between the check and the use
(only the last path component is opened without following symlinks).

Errors are `RpcError`s, per the client checklist: `-32002` (resource not found) for a
missing file, `-32602` (invalid params) for a relative path, a path ending with a
slash, a path outside the roots, a directory or other non-regular file, and `-32603`
(internal error) for I/O failures and files too large to read. Messages and data name
the path, never file contents.

Request params: `line` and `limit` are never refused. The schema marks them
`x-deserialize-default-on-error` (checklist §4.14.4), so a negative, fractional, too
large (beyond uint32) or mistyped value reads as omitted: from the first line, every
line. The session layer logs each such fallback (`client._wire.log_defaulted`); a
negative value reaching `read_text_file` from Python is a `ValueError`.

Reads come from disk (a terminal client has no unsaved editor state), decoded as
UTF-8 with undecodable bytes replaced by U+FFFD, so a stray binary byte never fails a
read. Writes are atomic: a temporary file in the same directory, fsynced, then
`os.replace`d onto the target, which keeps its permission bits. All disk work runs in
a worker thread (`anyio.to_thread.run_sync`), never on the event loop.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path, PurePath
from typing import Any, Final, NoReturn, TypeVar

import anyio.to_thread

from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    RpcError,
)

__all__ = ["MAX_READ_BYTES", "FileSystemAccess"]

MAX_READ_BYTES: Final = 50 * 1024 * 1024
"""Files larger than this (50 MiB) are refused by `read_text_file`."""

_T = TypeVar("_T")

_O_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)


class FileSystemAccess:
    """Reads and writes text files for one session, inside the session's roots.

    Args:
        cwd: The session's working directory (absolute).
        additional_directories: Further directories the session may use (absolute).

    Raises:
        ValueError: A root is not absolute.
    """

    def __init__(self, cwd: Path, additional_directories: Sequence[Path] = ()) -> None:
        roots = (Path(cwd), *(Path(d) for d in additional_directories))
        for root in roots:
            if not root.is_absolute():
                raise ValueError(f"session directories must be absolute: {root}")
        self._roots: tuple[Path, ...] = roots

    @property
    def roots(self) -> tuple[Path, ...]:
        """The directories files must lie in, `cwd` first, as given."""
        return self._roots

    async def read_text_file(
        self, path: str, line: int | None = None, limit: int | None = None
    ) -> str:
        r"""Read a text file, or some of its lines.

        Lines end at `\n` and keep their line endings (`\r\n` stays intact). A start
        line past the end gives "". Bytes that are not UTF-8 read as U+FFFD.

        Args:
            path: Absolute path of the file.
            line: First line to return, 1-based (0 is read as 1); None for the start.
            limit: Most lines to return; None for all of them.

        Returns:
            The file's content, or the selected lines.

        Raises:
            RpcError: See the module docstring for the codes.
            ValueError: `line` or `limit` is negative (the wire never sends one:
                see "Request params" in the module docstring).
        """
        if (line is not None and line < 0) or (limit is not None and limit < 0):
            raise ValueError(f"line and limit must not be negative: {line}, {limit}")
        return await self._in_thread(self._read, path, line, limit)

    async def write_text_file(self, path: str, content: str) -> None:
        """Write a text file atomically, creating it and its parent directories.

        An existing file keeps its permission bits; a new one gets the usual mode
        (0o666 less the umask). The content is written as UTF-8, exactly as given.

        Args:
            path: Absolute path of the file.
            content: The whole new content.

        Raises:
            RpcError: See the module docstring for the codes.
        """
        await self._in_thread(self._write, path, content)

    # -- worker-thread side -------------------------------------------------------

    async def _in_thread(self, func: Callable[..., _T], *args: Any) -> _T:
        return await anyio.to_thread.run_sync(func, *args)

    def _read(self, path: str, line: int | None, limit: int | None) -> str:
        real = self.confine(_file_path(path))
        try:
            fd = os.open(real, os.O_RDONLY | _O_CLOEXEC | _O_NOFOLLOW | _O_NONBLOCK)
        except OSError as exc:
            _raise_os_error(exc, path, reading=True)
        try:
            try:
                info = os.fstat(fd)
                _require_regular_file(info.st_mode, path)
                if info.st_size > MAX_READ_BYTES:
                    _raise_too_large(path, info.st_size)
                with os.fdopen(fd, "rb", closefd=False) as file:
                    data = file.read(MAX_READ_BYTES + 1)
            finally:
                os.close(fd)
        except OSError as exc:
            _raise_os_error(exc, path, reading=True)
        if len(data) > MAX_READ_BYTES:  # It grew after the size check.
            _raise_too_large(path, len(data))
        return _select_lines(data, line, limit).decode("utf-8", errors="replace")

    def _write(self, path: str, content: str) -> None:
        real = self.confine(_file_path(path))
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            raise RpcError(
                INVALID_PARAMS,
                "Content is not valid Unicode (it has a lone surrogate)",
                path,
            ) from None
        directory, name = os.path.split(real)
        try:
            os.makedirs(directory, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise RpcError(
                INVALID_PARAMS, "A parent of the path is not a directory", path
            ) from None
        except OSError as exc:
            _raise_os_error(exc, path, reading=False)
        try:
            info: os.stat_result | None = os.stat(real, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        except OSError as exc:
            _raise_os_error(exc, path, reading=False)
        if info is not None:
            _require_regular_file(info.st_mode, path)
        try:
            _replace_atomically(directory, name, data, info)
        except OSError as exc:
            _raise_os_error(exc, path, reading=False)

    def confine(self, path: str) -> str:
        """The resolved path, checked against the roots (resolved now, too)."""
        if "\0" in path:
            raise RpcError(INVALID_PARAMS, "Path contains a NUL character", path)
        if not os.path.isabs(path):
            raise RpcError(INVALID_PARAMS, "Path must be absolute", path)
        real = os.path.realpath(path)
        roots = [os.path.realpath(root) for root in self._roots]
        if not any(PurePath(real).is_relative_to(root) for root in roots):
            raise RpcError(
                INVALID_PARAMS,
                "Path is outside the session's directories",
                {"path": path, "resolvedPath": real, "allowedRoots": roots},
            )
        return real


def _file_path(path: str) -> str:
    """`path`, unless a trailing slash makes it name a directory."""
    if path.endswith("/") or (os.altsep is not None and path.endswith(os.altsep)):
        raise RpcError(
            INVALID_PARAMS, "Path ends with a slash: it names a directory", path
        )
    return path


def _select_lines(data: bytes, line: int | None, limit: int | None) -> bytes:
    r"""Lines `line` (1-based) to `line + limit - 1` of `data`, endings kept.

    Works on bytes: `\n` never occurs inside a UTF-8 sequence, so every cut falls
    between characters.
    """
    start = 0
    for _ in range((line or 1) - 1):
        newline = data.find(b"\n", start)
        if newline < 0:
            return b""
        start = newline + 1
    if limit is None:
        return data[start:]
    end = start
    for _ in range(limit):
        newline = data.find(b"\n", end)
        if newline < 0:
            return data[start:]
        end = newline + 1
    return data[start:end]


def _replace_atomically(
    directory: str, name: str, data: bytes, existing: os.stat_result | None
) -> None:
    """Write `data` to a new file beside the target, fsync it, rename it over."""
    temp_fd, temp_path = _create_temp(directory, name)
    try:
        with os.fdopen(temp_fd, "wb") as file:
            if existing is not None:
                os.fchmod(file.fileno(), stat.S_IMODE(existing.st_mode))
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp_path, os.path.join(directory, name))
    except BaseException:
        with suppress(OSError):
            os.unlink(temp_path)
        raise
    _fsync_directory(directory)


def _create_temp(directory: str, name: str) -> tuple[int, str]:
    """Create a fresh hidden file in `directory`, mode 0o666 less the umask.

    Unlike `tempfile.mkstemp` (0o600), a new target ends up with the mode any
    editor would give it.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_NOFOLLOW
    while True:
        temp_path = os.path.join(
            directory, f".{name[:200]}.{secrets.token_hex(4)}.acp-tui.tmp"
        )
        try:
            return os.open(temp_path, flags, 0o666), temp_path
        except FileExistsError:
            continue


def _fsync_directory(directory: str) -> None:
    """Make the rename durable (best effort: not every file system allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY | _O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _require_regular_file(mode: int, path: str) -> None:
    if stat.S_ISDIR(mode):
        raise RpcError(INVALID_PARAMS, "Path is a directory, not a file", path)
    if not stat.S_ISREG(mode):
        raise RpcError(INVALID_PARAMS, "Path is not a regular file", path)


def _raise_too_large(path: str, size: int) -> NoReturn:
    raise RpcError(
        INTERNAL_ERROR,
        f"File too large to read: {size} bytes, the limit is {MAX_READ_BYTES}",
        path,
    )


def _raise_os_error(exc: OSError, path: str, *, reading: bool) -> NoReturn:
    """Map an `OSError` to the checklist's codes, with a short reason."""
    if isinstance(exc, FileNotFoundError) or (
        reading and isinstance(exc, NotADirectoryError)
    ):
        raise RpcError(RESOURCE_NOT_FOUND, "Resource not found", path) from None
    if isinstance(exc, IsADirectoryError):
        raise RpcError(
            INVALID_PARAMS, "Path is a directory, not a file", path
        ) from None
    if isinstance(exc, NotADirectoryError):
        raise RpcError(
            INVALID_PARAMS, "A parent of the path is not a directory", path
        ) from None
    if exc.errno == errno.ELOOP:
        raise RpcError(
            INVALID_PARAMS,
            "Path is a symlink loop, or became a symlink while in use",
            path,
        ) from None
    if isinstance(exc, PermissionError):
        raise RpcError(INTERNAL_ERROR, "Permission denied", path) from None
    reason = exc.strerror or type(exc).__name__
    raise RpcError(INTERNAL_ERROR, f"I/O error: {reason}", path) from None
