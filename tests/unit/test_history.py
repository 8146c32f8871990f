"""PromptHistory: per-project JSON-lines file, cap and compaction, navigation."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from acp_tui.storage import paths
from acp_tui.storage.history import PromptHistory, history_file


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    return directory


def test_entries_persist_per_project_in_data_dir(tmp_path: Path, project: Path) -> None:
    history = PromptHistory.for_project(project)
    history.add("first")
    history.add("second\nwith two lines")

    reopened = PromptHistory.for_project(project)
    assert list(reopened.entries) == ["first", "second\nwith two lines"]
    assert history.path is not None
    assert history.path.parent == paths.data_dir() / "history"
    assert history.path.is_relative_to(tmp_path / "home")
    lines = history.path.read_text("utf-8").splitlines()
    assert len(lines) == 2
    assert json.loads(lines[1]) == {
        "cwd": str(project.resolve()),
        "text": "second\nwith two lines",
    }

    other = tmp_path / "other"
    other.mkdir()
    assert list(PromptHistory.for_project(other).entries) == []
    assert history_file(other) != history_file(project)


def test_same_file_for_unresolved_path(project: Path) -> None:
    assert history_file(project / "sub" / "..") == history_file(project)


def test_blank_and_consecutive_duplicates_are_skipped(project: Path) -> None:
    history = PromptHistory.for_project(project)
    for text in ["a", "a", "  ", "", "b", "a", "a"]:
        history.add(text)
    assert list(history.entries) == ["a", "b", "a"]
    assert list(PromptHistory.for_project(project).entries) == ["a", "b", "a"]


def test_corrupt_and_foreign_lines_are_skipped(project: Path) -> None:
    path = history_file(project)
    path.parent.mkdir(parents=True)
    good = json.dumps({"cwd": str(project.resolve()), "text": "kept"})
    foreign = json.dumps({"cwd": "/somewhere/else", "text": "not ours"})
    path.write_bytes(
        b"{not json\n"
        + good.encode()
        + b"\n\xff\xfe garbage\n"
        + foreign.encode()
        + b'\n[1, 2]\n{"cwd": "'
        + str(project.resolve()).encode()
        + b'", "text": 3}\n'
    )
    history = PromptHistory.for_project(project)
    assert list(history.entries) == ["kept"]
    history.add("new")
    assert list(PromptHistory.for_project(project).entries) == ["kept", "new"]


def test_cap_keeps_newest_and_compacts_past_twice_the_limit(project: Path) -> None:
    path = history_file(project)
    history = PromptHistory(path, project, limit=5)
    for n in range(10):
        history.add(f"p{n}")
    assert list(history.entries) == [f"p{n}" for n in range(5, 10)]
    assert len(path.read_text("utf-8").splitlines()) == 10  # not yet past 2x

    history.add("p10")
    assert len(path.read_text("utf-8").splitlines()) == 5
    assert list(history.entries) == [f"p{n}" for n in range(6, 11)]
    assert list(PromptHistory(path, project, limit=5).entries) == list(history.entries)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_io_errors_never_raise(tmp_path: Path, project: Path) -> None:
    blocker = tmp_path / "home" / "data"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("a file where the data directory should be")
    history = PromptHistory.for_project(project)
    history.add("kept in memory")
    assert list(history.entries) == ["kept in memory"]
    assert list(PromptHistory.for_project(project).entries) == []


def test_unreadable_file_never_raises(project: Path) -> None:
    path = history_file(project)
    path.mkdir(parents=True)  # a directory where the file should be
    history = PromptHistory.for_project(project)
    assert list(history.entries) == []
    history.add("x")
    assert list(history.entries) == ["x"]


def test_previous_and_next_walk_entries_and_restore_the_draft(project: Path) -> None:
    history = PromptHistory.for_project(project)
    for text in ["one", "two", "three"]:
        history.add(text)

    assert history.next() is None  # not browsing
    assert history.previous("my draft") == "three"
    assert history.browsing
    assert history.previous("three") == "two"
    assert history.previous("two") == "one"
    assert history.previous("one") is None  # oldest: stays
    assert history.next() == "two"
    assert history.next() == "three"
    assert history.next() == "my draft"
    assert not history.browsing
    assert history.next() is None


def test_edits_to_recalled_entries_are_kept_while_browsing(project: Path) -> None:
    history = PromptHistory.for_project(project)
    history.add("one")
    history.add("two")

    assert history.previous("draft") == "two"
    assert history.previous("two edited") == "one"
    assert history.next("one") == "two edited"
    assert history.next("two edited again") == "draft"
    assert history.previous("draft") == "two edited again"
    assert list(history.entries) == ["one", "two"]

    history.reset()
    assert not history.browsing
    assert history.previous("") == "two"


def test_add_resets_the_cursor(project: Path) -> None:
    history = PromptHistory.for_project(project)
    history.add("one")
    assert history.previous("draft") == "one"
    history.add("two")
    assert not history.browsing
    assert history.previous("") == "two"


def test_empty_history_has_nothing_previous(project: Path) -> None:
    history = PromptHistory(None, project)
    assert history.previous("draft") is None
    assert not history.browsing
    history.add("memory only")
    assert history.path is None
    assert history.previous("") == "memory only"


def test_history_is_private_to_the_user(project: Path) -> None:
    old_umask = os.umask(0o022)  # the usual default: new files world-readable
    try:
        history = PromptHistory.for_project(project)
        history.add("my secret prompt")
        assert history.path is not None
        assert stat.S_IMODE(history.path.stat().st_mode) == 0o600
        assert stat.S_IMODE(history.path.parent.stat().st_mode) == 0o700

        # A file an older version left readable is tightened on the next write.
        history.path.chmod(0o644)
        history.add("another")
        assert stat.S_IMODE(history.path.stat().st_mode) == 0o600

        # So is the file compaction writes.
        small = PromptHistory(history.path, project, limit=1)
        for index in range(4):
            small.add(f"p{index}")
        assert stat.S_IMODE(history.path.stat().st_mode) == 0o600
        assert list(PromptHistory(history.path, project).entries)[-1] == "p3"
    finally:
        os.umask(old_umask)
