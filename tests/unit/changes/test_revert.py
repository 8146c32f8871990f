"""Reverting a turn's changes: hunks, files, the whole turn, and undo.

Each test changes files the way an agent would (edits and shell commands), takes
the change set, then reverts, and checks the files and that the user's git
index, stash and refs are as they were (`state`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tui.changes import diff, snapshot
from acp_tui.changes.revert import (
    RevertRefused,
    capture,
    revert_file,
    revert_hunk,
    revert_turn,
    undo,
)
from tests.unit.changes.test_git_changes import git, shell, state

pytestmark = pytest.mark.subprocess

ORIGINAL = "".join(f"line {i}\n" for i in range(1, 41))
STARTED = ORIGINAL.replace("line 40", "line forty")
"""code.py in the git work tree when the turn starts (the user's staged edit)."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "code.py").write_text(ORIGINAL)
    (repo / "gone.txt").write_text("bye\n")
    (repo / "moved.txt").write_text("".join(f"m{i}\n" for i in range(12)))
    (repo / "image.bin").write_bytes(b"\x00\x01old")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    # Work in progress the user has: a stash, a staged change, an untracked file.
    (repo / "gone.txt").write_text("bye!\n")
    git(repo, "stash", "-q")
    (repo / "code.py").write_text(ORIGINAL.replace("line 40", "line forty"))
    git(repo, "add", "code.py")
    (repo / "mine.txt").write_text("mine\n")
    return repo


@pytest.fixture
def plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "plain"
    root.mkdir()
    (root / "code.py").write_text(ORIGINAL)
    (root / "gone.txt").write_text("bye\n")
    (root / "image.bin").write_bytes(b"\x00\x01old")
    return root


def two_hunks(directory: Path) -> None:
    """The agent edits line 3 and line 30 (two hunks)."""
    path = directory / "code.py"
    text = path.read_text().replace("line 3\n", "line THREE\n")
    path.write_text(text.replace("line 30\n", "line THIRTY\nadded\n"))


def test_a_hunk_revert_keeps_the_other_hunk_and_the_users_later_edit(
    repo: Path,
) -> None:
    before = state(repo)
    snap = snapshot([repo])
    two_hunks(repo)
    changes = diff(snap)
    code = changes.by_path("code.py")
    assert code is not None
    assert code.patch is not None
    assert len(code.patch.hunks) == 2
    # The user edits elsewhere after the turn: line 20 and a new first line.
    path = repo / "code.py"
    path.write_text("# header\n" + path.read_text().replace("line 20\n", "L20\n"))
    record = revert_hunk(code, 1)
    text = path.read_text()
    assert "line 30\n" in text
    assert "THIRTY" not in text
    assert "added\n" not in text
    assert "line THREE\n" in text  # the other hunk stays
    assert text.startswith("# header\n")
    assert "L20\n" in text
    assert state(repo)[1:] == before[1:]
    undo(record)
    assert path.read_text() == text.replace("line 30\n", "line THIRTY\nadded\n")
    assert state(repo)[1:] == before[1:]


def test_a_hunk_revert_refuses_where_the_file_changed_since(repo: Path) -> None:
    snap = snapshot([repo])
    two_hunks(repo)
    changes = diff(snap)
    code = changes.by_path("code.py")
    assert code is not None
    path = repo / "code.py"
    path.write_text(path.read_text().replace("line THIRTY\n", "line 30 again\n"))
    edited = path.read_text()
    with pytest.raises(RevertRefused, match=r"code\.py changed since this turn at"):
        revert_hunk(code, 1)
    assert path.read_text() == edited  # untouched
    # The first hunk still reverts.
    revert_hunk(code, 0)
    assert "line 3\n" in path.read_text()


def test_undo_refuses_when_the_file_changed_again(repo: Path) -> None:
    snap = snapshot([repo])
    two_hunks(repo)
    code = diff(snap).by_path("code.py")
    assert code is not None
    record = revert_hunk(code, 0)
    path = repo / "code.py"
    path.write_text(path.read_text().replace("line 3\n", "line three (user)\n"))
    with pytest.raises(RevertRefused, match="changed since"):
        undo(record)
    assert "line three (user)\n" in path.read_text()


def test_file_reverts_added_deleted_renamed_binary_and_the_repo_is_untouched(
    repo: Path,
) -> None:
    before = state(repo)
    snap = snapshot([repo])
    two_hunks(repo)
    shell(
        repo,
        "rm gone.txt && mv moved.txt renamed.txt && echo fresh > fresh.txt"
        " && printf '\\000\\002new' > image.bin && chmod +x code.py",
    )
    changes = diff(snap)
    statuses = {f.path: f.status for f in changes.files}
    assert statuses == {
        "code.py": "modified",
        "gone.txt": "deleted",
        "renamed.txt": "renamed",
        "fresh.txt": "added",
        "image.bin": "modified",
    }
    baseline = capture(changes)
    records = [revert_file(change, snap, baseline) for change in changes.files]
    assert (repo / "code.py").read_text() == STARTED
    assert not os.access(repo / "code.py", os.X_OK)
    assert (repo / "gone.txt").read_text() == "bye\n"
    assert (repo / "moved.txt").exists()
    assert not (repo / "renamed.txt").exists()
    assert not (repo / "fresh.txt").exists()
    assert (repo / "image.bin").read_bytes() == b"\x00\x01old"
    assert state(repo) == before  # `git status --porcelain` as before the turn
    for record in reversed(records):
        undo(record)
    assert (repo / "fresh.txt").read_text() == "fresh\n"
    assert (repo / "image.bin").read_bytes() == b"\x00\x02new"
    assert (repo / "renamed.txt").exists()
    assert not (repo / "gone.txt").exists()
    assert state(repo)[1:] == before[1:]


def test_a_binary_or_added_file_changed_since_is_refused(repo: Path) -> None:
    snap = snapshot([repo])
    shell(repo, "printf '\\000\\002new' > image.bin && echo fresh > fresh.txt")
    changes = diff(snap)
    baseline = capture(changes)
    (repo / "image.bin").write_bytes(b"\x00\x03user")
    (repo / "fresh.txt").write_text("fresh, then the user's\n")
    for path in ("image.bin", "fresh.txt"):
        change = changes.by_path(path)
        assert change is not None
        with pytest.raises(RevertRefused, match="changed since"):
            revert_file(change, snap, baseline)
    assert (repo / "image.bin").read_bytes() == b"\x00\x03user"
    assert (repo / "fresh.txt").exists()
    with pytest.raises(RevertRefused, match="the turn was not reverted"):
        revert_turn(changes, snap, baseline)


def test_a_whole_turn_reverts_or_nothing_does(repo: Path) -> None:
    before = state(repo)
    snap = snapshot([repo])
    two_hunks(repo)
    shell(repo, "rm gone.txt && echo fresh > fresh.txt")
    changes = diff(snap)
    baseline = capture(changes)
    (repo / "fresh.txt").write_text("edited\n")
    with pytest.raises(RevertRefused, match=r"fresh\.txt changed since"):
        revert_turn(changes, snap, baseline)
    assert not (repo / "gone.txt").exists()  # nothing reverted
    assert "THREE" in (repo / "code.py").read_text()
    (repo / "fresh.txt").write_text("fresh\n")
    record = revert_turn(changes, snap, baseline)
    assert (repo / "code.py").read_text() == STARTED
    assert (repo / "gone.txt").read_text() == "bye\n"
    assert not (repo / "fresh.txt").exists()
    # Everything as before the turn: `git status --porcelain` included.
    assert state(repo) == before
    undo(record)
    assert (repo / "fresh.txt").exists()
    assert not (repo / "gone.txt").exists()
    assert state(repo)[1:] == before[1:]


def test_reverts_outside_git(plain: Path) -> None:
    snap = snapshot([plain])
    two_hunks(plain)
    shell(
        plain,
        "rm gone.txt && echo new > new.txt && printf '\\000\\002new' > image.bin",
    )
    changes = diff(snap)
    assert {f.path: f.status for f in changes.files} == {
        "code.py": "modified",
        "gone.txt": "deleted",
        "new.txt": "added",
        "image.bin": "modified",
    }
    code = changes.by_path("code.py")
    assert code is not None
    revert_hunk(code, 0)
    assert "line 3\n" in (plain / "code.py").read_text()
    assert "THIRTY" in (plain / "code.py").read_text()
    baseline = capture(changes)
    rest = [f for f in changes.files if f.path != "code.py"]
    record = revert_turn(rest, snap, baseline)
    assert (plain / "gone.txt").read_text() == "bye\n"
    assert not (plain / "new.txt").exists()
    assert (plain / "image.bin").read_bytes() == b"\x00\x01old"
    undo(record)
    assert (plain / "new.txt").read_text() == "new\n"


@pytest.mark.parametrize("where", ["git", "plain"])
def test_crlf_lines_and_a_last_line_without_newline_revert_exactly(
    where: str, repo: Path, plain: Path
) -> None:
    directory = repo if where == "git" else plain
    original = b"".join(b"%d\r\n" % i for i in range(12)).replace(b"2", b"two")
    original += b"last"
    path = directory / "dos.txt"
    path.write_bytes(original)
    snap = snapshot([directory])
    path.write_bytes(original.replace(b"two", b"TWO").replace(b"last", b"LAST"))
    change = diff(snap).by_path("dos.txt")
    assert change is not None
    assert change.patch is not None
    assert len(change.patch.hunks) == 2
    revert_hunk(change, 1)
    assert path.read_bytes() == original.replace(b"two", b"TWO")
    revert_hunk(change, 0)
    assert path.read_bytes() == original
