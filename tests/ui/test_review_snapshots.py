"""SVG snapshots of the review of a turn's changes (look only; behaviour is in
test_review.py).

The change set is real: a directory outside git is snapshotted, changed (one
file edited in two places, one added, one deleted, one binary) and diffed. Its
paths are shown relative, so the pictures do not depend on the temporary
directory.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.changes import diff, snapshot
from acp_tui.changes.revert import capture
from acp_tui.client.review_prompt import comment_from_hunk
from acp_tui.client.turn_changes import TurnChanges, TurnReview
from acp_tui.ui.screens.review import ReviewScreen
from acp_tui.ui.themes import register_themes, theme_variable_defaults

pytestmark = pytest.mark.snapshot

SnapCompare = Callable[..., bool]

CODE = "".join(
    f"def step_{i}(value):\n    return value + {i}\n\n\n" for i in range(1, 9)
)


class ReviewHost(App[None]):
    """Pushes the review of `changes` on mount."""

    def __init__(self, changes: TurnChanges, cwd: Path) -> None:
        super().__init__()
        self.changes = changes
        self.cwd = cwd
        register_themes(self, dirs=[])
        self.theme = "acp-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield Static("session")

    def on_mount(self) -> None:
        self.push_screen(ReviewScreen(self.changes, self.cwd, lambda _text: None))


def turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ReviewHost:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "steps.py").write_text(CODE)
    (root / "old.txt").write_text("gone soon\n")
    (root / "logo.png").write_bytes(b"\x89PNG\x00old")
    snap = snapshot([root])
    code = CODE.replace("value + 2\n", "value * 2  # doubled\n")
    code = code.replace(
        "value + 7\n", "value + 7\n\n\ndef step_7b(value):\n    return 0\n"
    )
    (root / "src" / "steps.py").write_text(code)
    (root / "src" / "new.py").write_text('"""New."""\n')
    (root / "old.txt").unlink()
    (root / "logo.png").write_bytes(b"\x89PNG\x00new")
    changes = diff(snap)
    turn_changes = TurnChanges(enabled=True)
    turn_changes.turn = 1
    turn_changes.review = TurnReview(1, snap, changes, capture(changes))
    turn_changes.state.comments.append(
        comment_from_hunk(root / "src" / "steps.py", 5, [("+", "x")], "Why?")
    )
    return ReviewHost(turn_changes, root)


async def keep_first_hunk(pilot: Pilot[None]) -> None:
    await pilot.press("down", "down", "down", "down")  # to src/steps.py
    await pilot.press("k")  # kept; the cursor moves to the second hunk
    await pilot.pause()


async def keep_then_split(pilot: Pilot[None]) -> None:
    await keep_first_hunk(pilot)
    await pilot.press("s")
    await pilot.pause()


def test_review_80x24(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """80×24: the title `Review · turn 1 · 4 files changed +6 -2`; under it,
    in the warning colour, `project/ is not a git work tree: compared file by
    file (ignored files included)` (wrapped); left, the
    tree: `M logo.png binary`, `D old.txt +0 -1`, `▼ src/` with `A new.py +1 -0`
    and `M steps.py +5 -1` (the cursor row); right, the unified diff of
    `src/steps.py` (`-    return value + 2` on red, `+    return value * 2  #
    doubled` on green) with its second hunk's `@@ -26,6 +26,10 @@` header
    reversed (the hunk cursor, moved there by `k` on the first); the status
    line `hunk 2/2 · src/steps.py:26-35 · 1 comment to send`; the footer's keys
    (Close, Revert hunk, Revert file, Revert turn, …).
    """
    assert snap_compare(
        turn(tmp_path, monkeypatch), terminal_size=(80, 24), run_before=keep_first_hunk
    )


def test_review_160x48(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """160×48: the same review with room (the not-a-git-work-tree notice on
    one line), after `s`: the diff of
    `src/steps.py` side by side (old left, new right: `return value + 2`
    facing `return value * 2  # doubled`), its second hunk's header reversed;
    the status line `hunk 2/2 · src/steps.py:26-35 · 1 comment to send
    (ctrl+s)`; every review key in the footer (… Send review, Next hunk).
    """
    assert snap_compare(
        turn(tmp_path, monkeypatch), terminal_size=(160, 48), run_before=keep_then_split
    )
