"""A turn's change set: snapshot at its start, diff at its end, reverts and undo."""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest

from acp_tui.changes import Snapshot
from acp_tui.client import turn_changes
from acp_tui.client.turn_changes import RevertRefused, TurnChanges, TurnReview


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("".join(f"{i}\n" for i in range(20)))
    return root


async def test_a_turn_is_diffed_at_its_end_and_reverts_undo_until_the_next(
    project: Path,
) -> None:
    changes = TurnChanges(enabled=True)
    heard: list[TurnReview] = []
    changes.subscribe(heard.append)
    await changes.begin([project])
    assert changes.running
    lines = [f"{i}\n" for i in range(20)]
    lines[2], lines[15] = "two\n", "X\n"
    (project / "a.txt").write_text("".join(lines))
    (project / "new.txt").write_text("new\n")
    review = await changes.end()
    assert review is not None
    assert heard == [review]
    assert not changes.running
    assert {f.path: f.status for f in review.changes.files} == {
        "a.txt": "modified",
        "new.txt": "added",
    }
    a = review.changes.by_path("a.txt")
    assert a is not None
    await changes.revert_hunk(a, 0)
    assert "two\n" not in (project / "a.txt").read_text()
    assert "X\n" in (project / "a.txt").read_text()
    assert changes.review is not None
    assert changes.review is heard[-1]  # diffed again after the revert
    again = changes.review.changes.by_path("a.txt")
    assert again is not None
    assert again.patch is not None
    assert len(again.patch.hunks) == 1
    await changes.undo()
    assert "two\n" in (project / "a.txt").read_text()
    await changes.revert_turn()
    assert not (project / "new.txt").exists()
    assert changes.keep(again, 0)
    assert changes.is_kept(again, 0)
    # The next turn: undo records and keep marks go.
    await changes.begin([project])
    assert not changes.is_kept(again, 0)
    with pytest.raises(RevertRefused, match="nothing to undo"):
        await changes.undo()


async def test_off_nothing_is_snapshotted(project: Path) -> None:
    changes = TurnChanges(enabled=False)
    await changes.begin([project])
    (project / "new.txt").write_text("new\n")
    assert await changes.end() is None
    assert changes.review is None


async def test_a_slow_snapshot_does_not_hold_the_turn_back(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real = turn_changes.snapshot

    def slow(directories: list[Path]) -> Snapshot:
        assert release.wait(10)
        return real(directories)

    monkeypatch.setattr(turn_changes, "snapshot", slow)
    monkeypatch.setattr(turn_changes, "SNAPSHOT_WAIT", 0.05)
    changes = TurnChanges(enabled=True)
    with anyio.fail_after(5):
        await changes.begin([project])  # returns while the snapshot still runs
    assert changes.running
    release.set()
    early = await changes.refresh()  # on demand: waits for the snapshot
    assert early is not None
    assert early.running
    assert early.changes.files == ()
    (project / "late.txt").write_text("late\n")
    review = await changes.end()
    assert review is not None
    assert [f.path for f in review.changes.files] == ["late.txt"]
    assert any("first moments" in n for n in review.changes.notices)
