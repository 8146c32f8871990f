"""The v1 client file-system methods: `fs/read_text_file` and `fs/write_text_file`.

Spec: https://agentclientprotocol.com/protocol/file-system

`FileSystemAccess` serves them for one session, confined to the session's roots: the
directories the user chose (the project and `--add-dir`s), never a directory the agent
reports (`client.session` decides them).

What the confinement is: a guard against an agent's mistakes (a wrong path, a `..`
too many, a symlink it did not notice), not a sandbox. A v1 agent that may run
commands (`terminal/create`) can do anything the user can, and even without
terminals the user's other programs share the disk. Within that, a path is refused
unless all of this holds:

* It is absolute, has no NUL, and does not end with a slash (which names a
  directory: "/p/a.txt/" must not read or write "/p/a.txt").
* Resolved (every symlink and `..`; for a file that does not exist yet, as far as
  the path exists), it lies inside one of the roots, themselves resolved at each
  call. A symlink inside a root that points outside is refused, and so is a path
  that climbs out with `..`.
* It is used as resolved, and only so: the resolved path is opened from `/` one
  directory at a time with `O_NOFOLLOW` (`os.open(..., dir_fd=...)`), and the file
  is then opened, created, renamed and unlinked relative to that directory's
  descriptor. A directory that a concurrent process swaps for a symlink after the
  check fails the request (`-32602`, "became a symlink"); it cannot redirect a
  read or a write out of the roots, and cannot make the writer leave a temporary
  file anywhere (the cleanup unlinks through the same descriptor).
* Writes only: no component below its root is named `.git` (compared case-folded,
  as a case-insensitive disk would), in the path as given or as resolved, unless
  the user allowed it (`allow_git`, from `ClientFeatures.git_writes`). A hook,
  or `core.fsmonitor` in `.git/config`, runs code at the user's next git
  command; a worktree's or submodule's `.git` file points git elsewhere. Reads
  under `.git` are fine.
* Writes only: an existing target is a regular file the user may write. A file
  with no write bit set, or that `access(W_OK)` refuses, is read-only and is not
  replaced, even for root (whom the rename would not stop), as an editor would
  not replace it either.

Hard links are not detected: a name inside a root for a file whose other names lie
outside reads that file (a read cannot tell where else a file is linked from). A
write replaces the name with a new file (the rename), so it never changes the
other names' content.

Errors are `RpcError`s, per the client checklist: `-32002` (resource not found) for a
missing file, `-32602` (invalid params) for a relative path, a path ending with a
slash, a path outside the roots or under `.git`, a directory or other non-regular
file, a symlink met while in use, and `-32603` (internal error) for I/O failures,
read-only files and files too large to read. Messages and data name the path,
never file contents.

Request params: `line` and `limit` are never refused. The schema marks them
`x-deserialize-default-on-error` (checklist §4.14.4), so a negative, fractional, too
large (beyond uint32) or mistyped value reads as omitted: from the first line, every
line. The session layer logs each such fallback (`client._wire.log_defaulted`); a
negative value reaching `read_text_file` from Python is a `ValueError`.

Reads come from disk (a terminal client has no unsaved editor state), decoded as
UTF-8 with undecodable bytes replaced by U+FFFD, so a stray binary byte never fails a
read. Writes are atomic: a temporary file in the target's directory (created with
`O_EXCL | O_NOFOLLOW`), written, fsynced, then renamed onto the target, which keeps
its permission bits; the directory is fsynced after. All disk work runs in a worker
thread (`anyio.to_thread.run_sync`), never on the event loop. The descriptor-relative
calls need POSIX `openat` (Linux, macOS, the BSDs); elsewhere requests fail with
`-32603`.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path, PurePath
from typing import Any, Final, NoReturn, TypeVar

import anyio.to_thread

from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    RpcError,
)

__all__ = ["GIT_WRITES_SETTING", "MAX_READ_BYTES", "FileSystemAccess"]

MAX_READ_BYTES: Final = 50 * 1024 * 1024
"""Files larger than this (50 MiB) are refused by `read_text_file`."""

GIT_WRITES_SETTING: Final = "allow_git_writes = true in config.toml"
"""How the user allows writes under `.git`, as the refusal tells the agent."""

_T = TypeVar("_T")

_O_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)

_DIRECTORY_FLAGS: Final = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
"""Opening one directory of a resolved path: never through a symlink."""

_OPENAT: Final = (
    bool(_O_DIRECTORY and _O_NOFOLLOW)
    and {
        os.open,
        os.mkdir,
        os.rename,
        os.stat,
        os.unlink,
        os.access,
    }
    <= os.supports_dir_fd
)
"""Whether this platform has the descriptor-relative calls the confinement uses."""

_GIT: Final = ".git"


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

    async def write_text_file(
        self, path: str, content: str, *, allow_git: bool = False
    ) -> None:
        """Write a text file atomically, creating it and its parent directories.

        An existing file keeps its permission bits; a new one gets the usual mode
        (0o666 less the umask). The content is written as UTF-8, exactly as given.

        Args:
            path: Absolute path of the file.
            content: The whole new content.
            allow_git: Write under `.git` too (the user's choice, never the
                agent's; see the module docstring).

        Raises:
            RpcError: See the module docstring for the codes.
        """
        await self._in_thread(self._write, path, content, allow_git)

    # -- worker-thread side -------------------------------------------------------

    async def _in_thread(self, func: Callable[..., _T], *args: Any) -> _T:
        return await anyio.to_thread.run_sync(func, *args)

    def _read(self, path: str, line: int | None, limit: int | None) -> str:
        real, _ = self._resolve(_file_path(path))
        directory, name = os.path.split(real)
        try:
            with _opened_directory(directory, create=False) as parent:
                fd = os.open(
                    name,
                    os.O_RDONLY | _O_CLOEXEC | _O_NOFOLLOW | _O_NONBLOCK,
                    dir_fd=parent,
                )
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

    def _write(self, path: str, content: str, allow_git: bool) -> None:
        path = _file_path(path)
        real, root = self._resolve(path)
        if not allow_git:
            self._refuse_git(path, real, root)
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
            with _opened_directory(directory, create=True) as parent:
                try:
                    info: os.stat_result | None = os.stat(
                        name, dir_fd=parent, follow_symlinks=False
                    )
                except FileNotFoundError:
                    info = None
                if info is not None:
                    _require_regular_file(info.st_mode, path)
                    if info.st_mode & 0o222 == 0 or not os.access(
                        name, os.W_OK, dir_fd=parent
                    ):
                        raise RpcError(
                            INTERNAL_ERROR, "File is read-only: not replacing it", path
                        )
                _replace_atomically(parent, name, data, info)
        except OSError as exc:
            _raise_os_error(exc, path, reading=False)

    def confine(self, path: str) -> str:
        """The resolved path, checked against the roots (resolved now, too)."""
        return self._resolve(path)[0]

    def _resolve(self, path: str) -> tuple[str, str]:
        """The resolved path and the resolved root it lies in (the deepest one)."""
        if "\0" in path:
            raise RpcError(INVALID_PARAMS, "Path contains a NUL character", path)
        if not os.path.isabs(path):
            raise RpcError(INVALID_PARAMS, "Path must be absolute", path)
        if not _OPENAT:  # pragma: no cover - Windows
            raise RpcError(
                INTERNAL_ERROR, "File access needs a POSIX system (openat)", path
            )
        try:
            real = os.path.realpath(path)
            roots = [os.path.realpath(root) for root in self._roots]
        except OSError as exc:
            if exc.errno == errno.EINVAL:  # a symlink it was following went away
                raise RpcError(
                    INVALID_PARAMS, "Path changed while it was being resolved", path
                ) from None
            _raise_os_error(exc, path, reading=True)
        inside = [root for root in roots if PurePath(real).is_relative_to(root)]
        if not inside:
            raise RpcError(
                INVALID_PARAMS,
                "Path is outside the session's directories",
                {"path": path, "resolvedPath": real, "allowedRoots": roots},
            )
        return real, max(inside, key=len)

    def _refuse_git(self, path: str, real: str, root: str) -> None:
        """Refuse a write under `.git` below a root, as given or as resolved."""
        below = [PurePath(real).relative_to(root).parts]
        given = PurePath(os.path.normpath(path))
        roots = [str(r) for r in self._roots] + [root]
        lexical = [r for r in roots if given.is_relative_to(r)]
        if lexical:  # not when it names a root through another symlink
            below.append(given.relative_to(max(lexical, key=len)).parts)
        if any(part.casefold() == _GIT for parts in below for part in parts):
            raise RpcError(
                INVALID_PARAMS,
                "Writing under .git is refused: a hook or a setting there runs code "
                "at the user's next git command. The user may allow it with "
                f"{GIT_WRITES_SETTING}.",
                path,
            )


def _file_path(path: str) -> str:
    """`path`, unless a trailing slash makes it name a directory."""
    if path.endswith("/") or (os.altsep is not None and path.endswith(os.altsep)):
        raise RpcError(
            INVALID_PARAMS, "Path ends with a slash: it names a directory", path
        )
    return path


@contextmanager
def _opened_directory(directory: str, *, create: bool) -> Iterator[int]:
    """A descriptor of `directory` (absolute and resolved), never through a symlink.

    It is opened from `/` one component at a time, each with `O_NOFOLLOW`;
    missing ones are made if `create`.

    Raises:
        OSError: `ELOOP` if a component is a symlink (swapped in since the path was
            resolved); `ENOTDIR` if it is some other non-directory; what opening
            or creating it raised otherwise.
    """
    fd = os.open("/", _DIRECTORY_FLAGS)
    try:
        for name in PurePath(directory).parts[1:]:
            parent, fd = fd, -1  # never closed twice: the number may be reused
            try:
                fd = _open_child_directory(name, parent, create=create)
            finally:
                os.close(parent)
        yield fd
    finally:
        if fd >= 0:
            os.close(fd)


def _open_child_directory(name: str, parent: int, *, create: bool) -> int:
    if create:
        with suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=parent)
    try:
        return os.open(name, _DIRECTORY_FLAGS, dir_fd=parent)
    except NotADirectoryError:
        # O_NOFOLLOW | O_DIRECTORY on a symlink fails as "not a directory" (Linux).
        # A directory now means it was swapped back meanwhile: a symlink too.
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


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
    parent: int, name: str, data: bytes, existing: os.stat_result | None
) -> None:
    """Replace `name`, in the directory open at `parent`, with `data`, atomically.

    A new file beside it is written and fsynced, then renamed over `name`; then
    the directory is fsynced.
    """
    temp_fd, temp_name = _create_temp(parent, name)
    try:
        with os.fdopen(temp_fd, "wb") as file:
            if existing is not None:
                os.fchmod(file.fileno(), stat.S_IMODE(existing.st_mode))
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.rename(temp_name, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp_name, dir_fd=parent)
        raise
    with suppress(OSError):  # durable rename; not every file system allows it
        os.fsync(parent)


def _create_temp(parent: int, name: str) -> tuple[int, str]:
    """Create a fresh hidden file in the directory open at `parent`.

    Its mode is 0o666 less the umask: unlike `tempfile.mkstemp` (0o600), a new
    target ends up with the mode any editor would give it. The name keeps at most
    200 bytes of the target's, so it stays within the usual 255-byte limit.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_NOFOLLOW
    stem = os.fsencode(name)[:200].decode(errors="ignore")
    while True:
        temp_name = f".{stem}.{secrets.token_hex(4)}.acp-tui.tmp"
        try:
            return os.open(temp_name, flags, 0o666, dir_fd=parent), temp_name
        except FileExistsError:
            continue


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
