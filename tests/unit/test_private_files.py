"""Private files: 0600 files, 0700 new directories, rotation and pruning."""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.storage.private_files import (
    PrivateRotatingFileHandler,
    make_private_dir,
    open_private,
    prune_files,
    replace_privately,
)


@pytest.fixture(autouse=True)
def _open_umask() -> Iterator[None]:
    """A umask that, left alone, makes files world-readable (the common default)."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_and_its_new_directories_are_private(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    path = shared / "a" / "b" / "file.log"
    fd = open_private(path)
    os.write(fd, b"secret\n")
    os.close(fd)
    assert mode(path) == 0o600
    assert mode(shared / "a") == 0o700
    assert mode(shared / "a" / "b") == 0o700
    assert mode(shared) == 0o755  # an existing directory is left alone


def test_existing_loose_file_is_tightened_and_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "old.log"
    path.write_bytes(b"one\n")
    path.chmod(0o644)
    fd = open_private(path)
    os.write(fd, b"two\n")
    os.close(fd)
    assert mode(path) == 0o600
    assert path.read_bytes() == b"one\ntwo\n"


def test_make_private_dir_on_an_existing_tree_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir(mode=0o755)
    make_private_dir(tmp_path / "x")
    assert mode(tmp_path / "x") == 0o755


def test_prune_keeps_the_newest_and_drops_the_too_old(tmp_path: Path) -> None:
    now = 1_000_000.0
    names = [f"agent-a-{i:02d}.log" for i in range(6)]
    for age, name in enumerate(reversed(names)):  # names[5] is the newest
        path = tmp_path / name
        path.write_text(name)
        os.utime(path, (now - age * 60, now - age * 60))
    ancient = tmp_path / "agent-b-00.log"
    ancient.write_text("old")
    os.utime(ancient, (now - 40 * 86400, now - 40 * 86400))
    other = tmp_path / "notes.txt"
    other.write_text("not a log")
    os.utime(other, (0, 0))

    deleted = prune_files(
        tmp_path, re.compile(r"agent-a-\d+\.log"), keep=3, now=lambda: now
    )
    assert sorted(p.name for p in deleted) == names[:3]
    assert sorted(p.name for p in tmp_path.glob("agent-a-*")) == names[3:]

    deleted = prune_files(
        tmp_path,
        re.compile(r"agent-.*\.log"),
        keep=100,
        max_age=30 * 86400,
        now=lambda: now,
    )
    assert [p.name for p in deleted] == ["agent-b-00.log"]
    assert other.exists()


def test_prune_of_a_missing_directory_does_nothing(tmp_path: Path) -> None:
    assert prune_files(tmp_path / "none", re.compile(".*"), keep=0) == []


def test_rotating_handler_files_are_private_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "app.log"
    handler = PrivateRotatingFileHandler(path, max_bytes=1000, backups=2)
    logger = logging.getLogger("acp_tui.test_private_files")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for index in range(100):
            logger.warning("line %03d %s", index, "x" * 80)
    finally:
        logger.removeHandler(handler)
        handler.close()
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["app.log", "app.log.1", "app.log.2"]
    for name in files:
        assert mode(path.parent / name) == 0o600
        assert (path.parent / name).stat().st_size <= 1000
    assert mode(path.parent) == 0o700
    assert "line 099" in path.read_text()


def test_replace_privately_writes_a_private_file_and_leaves_no_temporary(
    tmp_path: Path,
) -> None:
    target = tmp_path / "draft.json"
    target.write_text("old")
    target.chmod(0o644)
    replace_privately(target, b"new", prefix=".draft-")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["draft.json"]


def test_a_failed_replace_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "summary.json"
    target.write_bytes(b"old")

    def refuse(src: str, dst: str) -> None:
        raise OSError("rename refused")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="rename refused"):
        replace_privately(target, b"new", prefix=".summary-")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]
