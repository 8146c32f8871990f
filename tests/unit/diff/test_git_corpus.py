"""The parser against real git patches, made here with `git diff` on temporary repos.

Each test builds a repository, commits a "before" state, changes the work tree
and parses `git diff --cached -M -C --binary` with absolute path prefixes (what
ACP's `git_patch` carries). Plain `a/`/`b/` patches are read too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.diff import FilePatch, check_paths, parse_patch
from acp_tui.diff.model import ParsedPatch

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
]

Change = Callable[[Path], None]


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-c", "core.autocrlf=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
    )
    return result.stdout.decode("utf-8")


def make_patch(
    tmp_path: Path,
    before: dict[str, bytes],
    change: Change,
    *,
    absolute: bool = True,
    binary: bool = True,
) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    for name, data in before.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "before", "--allow-empty")
    change(repo)
    git(repo, "add", "-A")
    args = ["diff", "--cached", "-M", "-C", "--find-copies-harder"]
    if binary:
        args.append("--binary")
    text = git(repo, *args)
    return repo, absolutise(text, str(repo)) if absolute else text


def absolutise(text: str, root: str) -> str:
    """Git's `a/`, `b/` header paths made absolute under `root`, as ACP wants.

    (`git diff --src-prefix=/abs/` would do it, but git 2.39 then writes a bogus
    `new file mode` line for every file.)
    """
    out: list[str] = []
    in_header = False
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            in_header = True
            line = re.sub(r'(^diff --git |\s)("?)[ab]/', rf"\1\2{root}/", line)
        elif line.startswith("@@"):
            in_header = False
        elif in_header and line.startswith(("--- ", "+++ ")):
            line = re.sub(r'^(--- |\+\+\+ )("?)[ab]/', rf"\1\2{root}/", line)
        elif in_header and re.match(r"^(rename|copy) (from|to) ", line):
            line = re.sub(r'^((?:rename|copy) (?:from|to) )("?)', rf"\1\2{root}/", line)
        out.append(line)
    return "\n".join(out)


def only(patch: ParsedPatch) -> FilePatch:
    assert patch.error is None
    (file,) = patch.files
    assert file.error is None
    return file


def numbered(count: int) -> bytes:
    return "".join(f"line {n}\n" for n in range(1, count + 1)).encode()


def test_modify_with_several_hunks(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        text = (repo / "app.py").read_text().replace("line 5\n", "line five\n")
        text = text.replace("line 80\n", "line 80\nline 80b\n")
        (repo / "app.py").write_text(text)

    repo, text = make_patch(tmp_path, {"app.py": numbered(100)}, change)
    file = only(parse_patch(text))
    path = f"{repo}/app.py"
    assert (file.operation, file.old_path, file.new_path) == ("modify", path, path)
    assert len(file.hunks) == 2
    assert (file.added, file.removed) == (2, 1)
    first, second = file.hunks
    assert (first.old_start, first.old_count, first.new_start, first.new_count) == (
        2,
        7,
        2,
        7,
    )
    removed = [line for line in first.lines if line.kind == "removed"]
    assert [(r.old, r.new, r.text) for r in removed] == [(5, None, "line 5")]
    added = [line for line in second.lines if line.kind == "added"]
    assert [(a.old, a.new, a.text) for a in added] == [(None, 81, "line 80b")]
    context = second.lines[0]
    assert (context.kind, context.old, context.new) == ("context", 78, 78)
    assert check_paths(parse_patch(text), [{"operation": "modify", "path": path}]) == []


def test_rename_with_edit_has_similarity(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        text = (repo / "old.txt").read_text().replace("line 10\n", "line ten\n")
        (repo / "old.txt").unlink()
        (repo / "sub").mkdir()
        (repo / "sub" / "new.txt").write_text(text)

    repo, text = make_patch(tmp_path, {"old.txt": numbered(40)}, change)
    file = only(parse_patch(text))
    assert file.operation == "rename"
    assert file.old_path == f"{repo}/old.txt"
    assert file.new_path == f"{repo}/sub/new.txt"
    assert file.similarity is not None
    assert 80 <= file.similarity < 100
    assert (file.added, file.removed) == (1, 1)


def test_pure_rename_has_no_hunks(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        (repo / "a.txt").rename(repo / "b.txt")

    repo, text = make_patch(tmp_path, {"a.txt": numbered(5)}, change)
    file = only(parse_patch(text))
    assert (file.operation, file.similarity, file.hunks) == ("rename", 100, ())
    assert (file.old_path, file.new_path) == (f"{repo}/a.txt", f"{repo}/b.txt")


def test_copy_is_read_from_the_extended_header(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        text = (repo / "base.txt").read_text().replace("line 3\n", "line three\n")
        (repo / "copy.txt").write_text(text)

    repo, text = make_patch(tmp_path, {"base.txt": numbered(30)}, change)
    file = only(parse_patch(text))
    assert file.operation == "copy"
    assert (file.old_path, file.new_path) == (f"{repo}/base.txt", f"{repo}/copy.txt")
    assert file.similarity is not None
    assert file.similarity >= 80
    assert file.added == 1


@pytest.mark.parametrize("binary", [True, False])
def test_binary_change_has_no_text_hunks(tmp_path: Path, binary: bool) -> None:
    def change(repo: Path) -> None:
        (repo / "logo.png").write_bytes(b"\x89PNG\x00\x02\x03after")

    repo, text = make_patch(
        tmp_path, {"logo.png": b"\x89PNG\x00\x01before"}, change, binary=binary
    )
    assert ("GIT binary patch" in text) is binary
    file = only(parse_patch(text))
    assert file.binary
    assert (file.operation, file.hunks) == ("modify", ())
    assert file.path == f"{repo}/logo.png"


def test_mode_change_without_content_change(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        (repo / "run.sh").chmod(0o755)

    _repo, text = make_patch(tmp_path, {"run.sh": b"echo hi\n"}, change)
    file = only(parse_patch(text))
    assert (file.old_mode, file.new_mode) == ("100644", "100755")
    assert file.mode_changed
    assert (file.operation, file.hunks) == ("modify", ())


def test_missing_trailing_newline_is_flagged(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        (repo / "a.txt").write_bytes(b"one\ntwo\nTHREE")

    _, text = make_patch(tmp_path, {"a.txt": b"one\ntwo\nthree"}, change)
    assert text.count("\\ No newline at end of file") == 2
    file = only(parse_patch(text))
    lines = file.hunks[0].lines
    flagged = [(line.kind, line.text) for line in lines if line.no_newline]
    assert flagged == [("removed", "three"), ("added", "THREE")]
    assert all(not line.text.endswith("\n") for line in lines)


def test_crlf_lines_keep_their_ending_as_a_flag(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        (repo / "win.txt").write_bytes(b"alpha\r\nBETA\r\ngamma\n")

    _, text = make_patch(tmp_path, {"win.txt": b"alpha\r\nbeta\r\ngamma\n"}, change)
    assert "\r\n" in text
    file = only(parse_patch(text))
    by_text = {line.text: line.crlf for line in file.hunks[0].lines}
    assert by_text == {"alpha": True, "beta": True, "BETA": True, "gamma": False}


def test_unicode_content_and_quoted_path(tmp_path: Path) -> None:
    name = "spa ce é.txt"

    def change(repo: Path) -> None:
        (repo / name).write_text("naïve → ✓\n日本語\n", encoding="utf-8")

    repo, text = make_patch(tmp_path, {name: "naive\n日本\n".encode()}, change)
    assert '"' in text  # git quoted the non-ASCII path
    file = only(parse_patch(text))
    assert file.path == f"{repo}/{name}"
    added = [line.text for line in file.hunks[0].lines if line.kind == "added"]
    assert added == ["naïve → ✓", "日本語"]


def test_deletion_and_addition(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        (repo / "gone.txt").unlink()
        (repo / "fresh.txt").write_text("hello\n")
        (repo / "empty.txt").write_text("")

    repo, text = make_patch(tmp_path, {"gone.txt": b"bye\nnow\n"}, change)
    patch = parse_patch(text)
    files = {f.path: f for f in patch.files}
    gone = files[f"{repo}/gone.txt"]
    assert (gone.operation, gone.old_path, gone.new_path) == (
        "delete",
        f"{repo}/gone.txt",
        None,
    )
    assert (gone.added, gone.removed) == (0, 2)
    fresh = files[f"{repo}/fresh.txt"]
    assert (fresh.operation, fresh.old_path, fresh.added) == ("add", None, 1)
    empty = files[f"{repo}/empty.txt"]
    assert (empty.operation, empty.hunks, empty.new_mode) == ("add", (), "100644")


def test_symlink_mode_is_kept(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        (repo / "link").symlink_to("target.txt")

    _repo, text = make_patch(tmp_path, {"target.txt": b"x\n"}, change)
    file = only(parse_patch(text))
    assert (file.operation, file.new_mode) == ("add", "120000")


def test_prefixed_relative_patch_strips_a_and_b(tmp_path: Path) -> None:
    def change(repo: Path) -> None:
        (repo / "m.txt").write_text("new\n")

    _, text = make_patch(tmp_path, {"m.txt": b"old\n"}, change, absolute=False)
    patch = parse_patch(text)
    file = only(patch)
    assert (file.old_path, file.new_path) == ("m.txt", "m.txt")
    assert check_paths(patch) == ["path is not absolute: m.txt"]


def test_many_files_in_one_patch(tmp_path: Path) -> None:
    before = {f"d{n}/f.txt": numbered(5) for n in range(5)}

    def change(repo: Path) -> None:
        for n in range(5):
            (repo / f"d{n}" / "f.txt").write_text("changed\n")

    repo, text = make_patch(tmp_path, before, change)
    patch = parse_patch(text)
    assert patch.error is None
    assert [f.path for f in patch.files] == [f"{repo}/d{n}/f.txt" for n in range(5)]
    assert (patch.added, patch.removed) == (5, 25)
    changes: list[dict[str, object]] = [
        {"operation": "modify", "path": f"{repo}/d{n}/f.txt"} for n in range(4)
    ]
    assert check_paths(patch, changes) == [
        f"path not listed in changes: {repo}/d4/f.txt"
    ]
