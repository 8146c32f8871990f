"""Change sets in git work trees: every change by any means, the repo untouched."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from acp_tui.changes import ChangeSet, diff, snapshot

pytestmark = pytest.mark.subprocess


def git(repo: Path, *args: str, check: bool = True) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        # The checks' own `git status` must not refresh the index either.
        "GIT_OPTIONAL_LOCKS": "0",
    }
    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        check=check,
        timeout=60,
    )
    return done.stdout.decode("utf-8", "replace")


def shell(repo: Path, command: str) -> None:
    subprocess.run(command, shell=True, cwd=repo, check=True, timeout=60)


def state(repo: Path) -> tuple[object, ...]:
    """Everything the acceptance says must not change."""
    index = repo / ".git" / "index"
    return (
        git(repo, "status", "--porcelain", "-z", "--untracked-files=all"),
        git(repo, "stash", "list"),
        git(repo, "rev-parse", "--verify", "-q", "HEAD", check=False),
        git(repo, "for-each-ref"),
        index.read_bytes() if index.exists() else None,
        index.stat().st_mtime_ns if index.exists() else None,
        sorted(p.name for p in (repo / ".git").iterdir()),
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "notes.txt").write_text("one\ntwo\nthree\n")
    (repo / "moved.py").write_text("".join(f"line {i}\n" for i in range(30)))
    (repo / "gone.txt").write_text("bye\n")
    (repo / ".gitignore").write_text("*.log\nbuild/\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "inner.txt").write_text("inner\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    # A user with work in progress: staged, unstaged, untracked, a stash.
    (repo / "notes.txt").write_text("one\ntwo\nthree\nfour\n")
    git(repo, "stash", "-q")
    (repo / "notes.txt").write_text("one\ntwo\nthree\nstaged\n")
    git(repo, "add", "notes.txt")
    (repo / "untracked.txt").write_text("mine\n")
    return repo


def by_path(changes: ChangeSet) -> dict[str, str]:
    return {f.path: f.status for f in changes.files}


def test_shell_changes_are_listed_with_patches_and_the_repo_is_untouched(
    repo: Path,
) -> None:
    before = state(repo)
    snap = snapshot([repo])
    shell(
        repo,
        "sed -i 's/two/TWO/' notes.txt && mv moved.py renamed.py && rm gone.txt"
        " && printf '\\000\\001\\002' > blob.bin && echo new > fresh.txt"
        " && chmod +x sub/inner.txt && echo noise > app.log",
    )
    changes = diff(snap)
    after_shell = state(repo)
    assert by_path(changes) == {
        "notes.txt": "modified",
        "renamed.py": "renamed",
        "gone.txt": "deleted",
        "blob.bin": "added",
        "fresh.txt": "added",
        "sub/inner.txt": "modified",
    }
    notes = changes.by_path("notes.txt")
    assert notes is not None
    assert notes.patch is not None
    assert [(line.kind, line.text) for h in notes.patch.hunks for line in h.lines] == [
        ("context", "one"),
        ("removed", "two"),
        ("added", "TWO"),
        ("context", "three"),
        ("context", "staged"),
    ]
    renamed = changes.by_path("renamed.py")
    assert renamed is not None
    assert renamed.old_path == "moved.py"
    blob = changes.by_path("blob.bin")
    assert blob is not None
    assert blob.binary
    inner = changes.by_path("sub/inner.txt")
    assert inner is not None
    assert (inner.old_mode, inner.new_mode, inner.mode_changed) == (
        "100644",
        "100755",
        True,
    )
    gone = changes.by_path("gone.txt")
    assert gone is not None
    assert gone.patch is not None
    assert gone.patch.removed == 1
    assert "-two\n+TWO\n" in changes.patch_text
    assert len(changes.parsed().files) == 6
    # Only the shell's changes to the work tree show in status: snapshot and
    # diff wrote no index, stash, ref or file in .git (bar loose objects).
    assert after_shell[1:4] == before[1:4]
    assert after_shell[4] == before[4], "the real index was written"
    assert after_shell[5] == before[5], "the real index was rewritten"
    assert after_shell[6] == before[6]


def test_snapshot_and_diff_leave_status_stash_head_refs_and_index_identical(
    repo: Path,
) -> None:
    before = state(repo)
    snap = snapshot([repo], include_ignored=True)
    diff(snap)
    diff(snapshot([repo / "sub"]))
    assert state(repo) == before


def test_no_change_gives_an_empty_change_set(repo: Path) -> None:
    snap = snapshot([repo])
    assert diff(snap).files == ()
    assert snap.notices == ()


def test_ignored_files_stay_out_unless_asked_for(repo: Path) -> None:
    plain = snapshot([repo])
    everything = snapshot([repo], include_ignored=True)
    (repo / "build").mkdir()
    (repo / "build" / "out.txt").write_text("artefact\n")
    (repo / "run.log").write_text("log\n")
    (repo / "kept.txt").write_text("kept\n")
    assert by_path(diff(plain)) == {"kept.txt": "added"}
    assert by_path(diff(everything)) == {
        "kept.txt": "added",
        "build/out.txt": "added",
        "run.log": "added",
    }


def test_unicode_and_space_paths(repo: Path) -> None:
    name = "dir with space/ünïcødé ✓.txt"
    (repo / "dir with space").mkdir()
    (repo / name).write_text("a\n")
    snap = snapshot([repo])
    (repo / name).write_text("b\n")
    (repo / "tab\there.txt").write_text("t\n")
    changes = diff(snap)
    assert by_path(changes) == {name: "modified", "tab\there.txt": "added"}
    file = changes.by_path(name)
    assert file is not None
    assert file.patch is not None
    assert file.patch.path == name
    assert file.patch.added == 1
    assert file.absolute == repo.resolve() / name


def test_a_subdirectory_of_a_repo_is_compared_alone(repo: Path) -> None:
    snap = snapshot([repo / "sub"])
    (repo / "sub" / "inner.txt").write_text("changed\n")
    (repo / "outside.txt").write_text("not ours\n")
    changes = diff(snap)
    assert by_path(changes) == {"inner.txt": "modified"}
    assert changes.files[0].directory == (repo / "sub").resolve()


def test_symlinks_and_type_changes(repo: Path) -> None:
    snap = snapshot([repo])
    (repo / "link").symlink_to("notes.txt")
    (repo / "gone.txt").unlink()
    (repo / "gone.txt").symlink_to("notes.txt")
    changes = diff(snap)
    assert by_path(changes) == {"link": "added", "gone.txt": "type_changed"}
    link = changes.by_path("link")
    assert link is not None
    assert link.new_mode == "120000"


def test_an_empty_repository_without_head(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q")
    before = state(repo)
    snap = snapshot([repo])
    (repo / "first.txt").write_text("hello\n")
    changes = diff(snap)
    assert by_path(changes) == {"first.txt": "added"}
    assert not (repo / ".git" / "index").exists()
    assert git(repo, "status", "--porcelain") == "?? first.txt\n"
    assert state(repo)[1:4] == before[1:4]


def test_a_file_too_large_to_show_loses_only_its_own_patch(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("acp_tui.diff.parse.MAX_PATCH_CHARS", 2_000)
    snap = snapshot([repo / "sub"])
    (repo / "sub" / "huge [x].txt").write_text("".join(f"{i}\n" for i in range(900)))
    (repo / "sub" / "inner.txt").write_text("small change\n")
    changes = diff(snap)
    assert by_path(changes) == {"huge [x].txt": "added", "inner.txt": "modified"}
    huge = changes.by_path("huge [x].txt")
    assert huge is not None
    assert huge.patch is None
    assert huge.note == "no patch: it is too large to show"
    small = changes.by_path("inner.txt")
    assert small is not None
    assert small.patch is not None
    assert small.patch.added == 1
