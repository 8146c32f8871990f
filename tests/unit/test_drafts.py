"""DraftStore: the prompt draft and queued prompts of a project, kept on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from acp_tui.storage import paths
from acp_tui.storage.drafts import Draft, DraftStore, draft_file


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    return directory


def test_text_and_queue_persist_per_project(tmp_path: Path, project: Path) -> None:
    drafts = DraftStore.for_project(project)
    assert drafts.draft == Draft()
    drafts.save_text("half a thought\nsecond line é")
    drafts.save_queued(["first queued", "second queued"])
    drafts.save_text("edited")

    reopened = DraftStore.for_project(project / "sub" / "..")
    assert reopened.draft == Draft("edited", ("first queued", "second queued"))
    assert drafts.path == paths.data_dir() / "drafts" / drafts.path.name  # type: ignore[union-attr]
    assert draft_file(project).is_relative_to(tmp_path / "home")
    other = tmp_path / "other"
    other.mkdir()
    assert DraftStore.for_project(other).draft == Draft()


def test_drafts_are_private_to_the_user(project: Path) -> None:
    previous = os.umask(0o022)
    try:
        DraftStore.for_project(project).save_text("a secret in progress")
    finally:
        os.umask(previous)
    path = draft_file(project)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_combined_puts_queued_prompts_first() -> None:
    assert Draft("typing", ("one", "two")).combined() == "one\n\ntwo\n\ntyping"
    assert Draft("", ("one",)).combined() == "one"
    assert Draft("only").combined() == "only"
    assert Draft().empty
    assert not Draft("", ("q",)).empty


def test_an_empty_draft_removes_the_file(project: Path) -> None:
    drafts = DraftStore.for_project(project)
    drafts.save_text("x")
    assert draft_file(project).exists()
    drafts.save_text("")
    assert not draft_file(project).exists()
    assert DraftStore.for_project(project).draft == Draft()


def test_saves_replace_the_file_atomically(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drafts = DraftStore.for_project(project)
    drafts.save_text("old draft")

    def broken_replace(source: str, target: str) -> None:
        assert json.loads(Path(source).read_text())["text"] == "new draft"
        raise OSError(5, "Input/output error")

    real_replace = os.replace
    monkeypatch.setattr(os, "replace", broken_replace)
    drafts.save_text("new draft")  # logged, not raised
    monkeypatch.setattr(os, "replace", real_replace)
    assert DraftStore.for_project(project).draft.text == "old draft"
    assert sorted(p.name for p in draft_file(project).parent.iterdir()) == [
        draft_file(project).name
    ]


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe",
        b"[1, 2]",
        b'{"cwd": "/somewhere/else", "text": "not ours"}',
    ],
)
def test_corrupt_or_foreign_files_are_an_empty_draft(
    project: Path, content: bytes
) -> None:
    path = draft_file(project)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert DraftStore.for_project(project).draft == Draft()


def test_bad_fields_are_dropped(project: Path) -> None:
    path = draft_file(project)
    path.parent.mkdir(parents=True)
    record = {"cwd": str(project.resolve()), "text": 5, "queued": ["ok", 3, "", None]}
    path.write_text(json.dumps(record))
    assert DraftStore.for_project(project).draft == Draft("", ("ok",))


def test_io_errors_never_raise(tmp_path: Path, project: Path) -> None:
    blocker = tmp_path / "home" / "data"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("a file where the data directory should be")
    drafts = DraftStore.for_project(project)
    drafts.save_text("kept in memory")
    drafts.save_queued(["q"])
    assert drafts.draft == Draft("kept in memory", ("q",))
    drafts.save_text("")
    drafts.save_queued([])
    assert drafts.draft == Draft()


def test_memory_only_store(project: Path) -> None:
    drafts = DraftStore(None, project)
    drafts.save_text("x")
    assert drafts.draft.text == "x"
    assert drafts.path is None
