"""Change sets outside git: hashes, kept text, and the caps' notices."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from acp_tui.changes import ChangeSet, diff, snapshot
from acp_tui.changes.plain import PlainSnapshot, read_directory
from acp_tui.changes.plain_diff import compare


def by_path(changes: ChangeSet) -> dict[str, str]:
    return {f.path: f.status for f in changes.files}


@pytest.fixture
def directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Never inside a git work tree, wherever the temp directory is.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "plain dir"
    root.mkdir()
    (root / "a.txt").write_text("alpha\nbeta\n")
    (root / "keep.txt").write_text("same\n")
    (root / "old name.md").write_text("moved content\n")
    (root / "doomed.txt").write_text("x\n")
    (root / "tool.sh").write_text("echo hi\n")
    return root


@pytest.mark.subprocess
def test_shell_changes_outside_git(directory: Path) -> None:
    snap = snapshot([directory])
    assert snap.notices == ()
    assert isinstance(snap.roots[0], PlainSnapshot)
    subprocess.run(
        "sed -i 's/beta/BETA/' a.txt && rm doomed.txt && mv 'old name.md' 'nëw.md'"
        " && printf '\\000\\377' > image.bin && echo made > made.txt"
        " && chmod +x tool.sh",
        shell=True,
        cwd=directory,
        check=True,
        timeout=60,
    )
    changes = diff(snap)
    assert by_path(changes) == {
        "a.txt": "modified",
        "doomed.txt": "deleted",
        "nëw.md": "renamed",
        "image.bin": "added",
        "made.txt": "added",
        "tool.sh": "modified",
    }
    a = changes.by_path("a.txt")
    assert a is not None
    assert a.patch is not None
    assert (a.patch.added, a.patch.removed, a.patch.path) == (1, 1, "a.txt")
    assert "-beta\n+BETA\n" in a.patch.raw
    moved = changes.by_path("nëw.md")
    assert moved is not None
    assert moved.old_path == "old name.md"
    assert moved.patch is not None
    assert moved.patch.operation == "rename"
    assert moved.patch.old_path == "old name.md"
    image = changes.by_path("image.bin")
    assert image is not None
    assert image.binary
    assert image.patch is not None
    assert image.patch.binary
    tool = changes.by_path("tool.sh")
    assert tool is not None
    assert (tool.old_mode, tool.new_mode) == ("100644", "100755")
    deleted = changes.by_path("doomed.txt")
    assert deleted is not None
    assert deleted.patch is not None
    assert deleted.patch.operation == "delete"
    assert deleted.patch.removed == 1
    made = changes.by_path("made.txt")
    assert made is not None
    assert made.patch is not None
    assert made.patch.operation == "add"
    assert made.patch.added == 1
    assert len(changes.parsed().files) == 6


@pytest.mark.subprocess
def test_nothing_changed(directory: Path) -> None:
    assert diff(snapshot([directory])).files == ()


@pytest.mark.subprocess
def test_symlink_outside_git(directory: Path) -> None:
    snap = snapshot([directory])
    (directory / "link").symlink_to("a.txt")
    changes = diff(snap)
    assert by_path(changes) == {"link": "added"}
    assert changes.files[0].new_mode == "120000"


def test_the_size_cap_is_announced_and_changes_still_listed(directory: Path) -> None:
    (directory / "big.txt").write_text("x" * 100 + "\n")
    before = read_directory(directory, max_file_bytes=50)
    assert before.notice is not None
    assert "not kept" in before.notice
    (directory / "big.txt").write_text("y" * 100 + "\n")
    (directory / "a.txt").write_text("alpha\n")
    changes = compare(before, read_directory(directory, max_file_bytes=50))
    assert by_path(ChangeSet(tuple(changes))) == {
        "big.txt": "modified",
        "a.txt": "modified",
    }
    big = next(c for c in changes if c.path == "big.txt")
    assert big.patch is None
    assert big.note is not None
    assert "not kept" in big.note


def test_the_file_cap_is_announced_and_no_false_additions(directory: Path) -> None:
    before = read_directory(directory, max_files=2)
    assert not before.complete
    assert before.notice is not None
    assert "only the first 2" in before.notice
    changes = compare(before, read_directory(directory, max_files=2))
    assert changes == []


def test_overall_cap_keeps_hashes(directory: Path) -> None:
    before = read_directory(directory, max_total_bytes=10)
    assert before.notice is not None
    (directory / "keep.txt").write_text("different\n")
    changes = compare(before, read_directory(directory, max_total_bytes=10))
    assert [c.path for c in changes] == ["keep.txt"]


@pytest.mark.subprocess
def test_several_directories_git_and_plain_nested_ones_folded(
    directory: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, timeout=60)
    (directory / "nested").mkdir()
    snap = snapshot([directory, repo, directory / "nested", repo])
    assert [root.directory for root in snap.roots] == [
        directory.resolve(),
        repo.resolve(),
    ]
    (directory / "nested" / "n.txt").write_text("n\n")
    (repo / "r.txt").write_text("r\n")
    changes = diff(snap)
    assert [(f.directory, f.path, f.status) for f in changes.files] == [
        (directory.resolve(), "nested/n.txt", "added"),
        (repo.resolve(), "r.txt", "added"),
    ]


def test_a_missing_directory_is_a_notice(tmp_path: Path) -> None:
    snap = snapshot([tmp_path / "nope"])
    assert snap.roots == ()
    assert snap.notices == (
        f"{(tmp_path / 'nope').resolve()}: not a directory, not compared",
    )
