"""The review of a turn's changes in the app (Pilot, against the fake agent).

The fake agent (`v1-full`) answers the prompt "write PATH" by writing "written
by the agent" to PATH through the client's `fs/write_text_file`; the turn's
change set then lists PATH. Each test opens the review (f6 from the session,
or the palette) and checks what it shows and does on disk, and what the agent
receives when the review is sent (`FAKE_AGENT_RECORD`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.confirm import ConfirmRevertTurnScreen
from acp_tui.ui.screens.review import ReviewScreen
from acp_tui.ui.widgets.review_diff import ReviewDiff
from tests.ui.helpers import wait_for
from tests.ui.test_app import FAKE_AGENT, SIZE, agent_text
from tests.ui.test_app_flows import sent
from tests.ui.test_markup_injection import palette_text
from tests.ui.test_session_roots import send

pytestmark = pytest.mark.subprocess

BEFORE = "".join(f"line {i}\n" for i in range(1, 21))


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "record.jsonl"
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(path))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "code.txt").write_text(BEFORE)
    (root / "notes.md").write_text("notes\n")
    return root.resolve()


def review_app(project: Path) -> AcpTuiApp:
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), "v1-full"))
    return make_app(command, "fake", cwd=project, init_timeout=10.0, review=True)


async def write_turn(pilot: Pilot[None], app: AcpTuiApp, path: Path) -> None:
    """Prompt "write PATH" and wait until the turn's change set is in."""
    await wait_for(pilot, lambda: app.store is not None)
    await send(pilot, app, f"write {path}")  # set, not typed: a ~80-character path
    changes = app._active.runner.turn_changes
    await wait_for(
        pilot,
        lambda: (
            f"write {path}: ok" in agent_text(app)
            and changes.review is not None
            and not changes.running
        ),
    )


def review_screen(app: AcpTuiApp) -> ReviewScreen:
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def test_f6_opens_the_review_and_r_reverts_the_hunk(
    project: Path,
) -> None:
    app = review_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        # No turn has changed files yet: f6 is not offered (the prompt has it).
        await pilot.press("f6")
        assert not isinstance(app.screen, ReviewScreen)
        await write_turn(pilot, app, project / "code.txt")
        await pilot.press("f6")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = review_screen(app)
        diff = screen.query_one(ReviewDiff)
        assert diff.change is not None
        assert diff.change.path == "code.txt"
        rows = "\n".join(diff.row_texts())
        assert "written by the agent" in rows
        await pilot.press("r")
        await wait_for(pilot, lambda: (project / "code.txt").read_text() == BEFORE)
        await wait_for(pilot, lambda: screen.files == ())
        await pilot.press("u")
        await wait_for(
            pilot, lambda: (project / "code.txt").read_text() != BEFORE, bound=5
        )
        assert "written by" in (project / "code.txt").read_text()


async def test_a_hunk_changed_since_is_refused_with_a_message(project: Path) -> None:
    app = review_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(pilot, app, project / "code.txt")
        (project / "code.txt").write_text("the user's own text\n")
        app.action_review_changes()  # the palette's entry runs this action
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("r")
        await wait_for(
            pilot,
            lambda: any(
                "code.txt changed since this turn" in str(n.message)
                for n in app._notifications
            ),
        )
        assert (project / "code.txt").read_text() == "the user's own text\n"


async def test_the_palette_opens_the_review(project: Path) -> None:
    app = review_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(pilot, app, project / "notes.md")
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Review changes")
        await wait_for(
            pilot, lambda: any("Review changes" in t for t in palette_text(app))
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        change = review_screen(app).query_one(ReviewDiff).change
        assert change is not None
        assert change.path == "notes.md"


async def test_comments_are_sent_as_one_prompt(project: Path, record: Path) -> None:
    app = review_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(pilot, app, project / "code.txt")
        await pilot.press("f6")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.screen.query("#comment")))
        await pilot.press(*"Keep line 1 please", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen))
        await wait_for(pilot, lambda: len(sent(record, "session/prompt")) == 2)
    prompt = sent(record, "session/prompt")[1]["prompt"]
    text = prompt[0]["text"]
    assert text.startswith("Review of your changes (1 comment):")
    assert "1. code.txt:1\n```diff\n" in text
    assert "-line 1\n" in text
    assert "+written by the agent" in text
    assert "Keep line 1 please" in text
    assert prompt[1]["type"] in ("resource_link", "resource")
    assert (
        prompt[1]
        .get("uri", prompt[1].get("resource", {}).get("uri", ""))
        .endswith("code.txt")
    )


async def test_the_whole_turn_reverts_after_a_question_and_undoes(
    project: Path,
) -> None:
    app = review_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(pilot, app, project / "code.txt")
        await pilot.press("f6")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("T")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmRevertTurnScreen))
        await pilot.press("n")  # no: nothing is reverted
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        assert (project / "code.txt").read_text() != BEFORE
        await pilot.press("T")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmRevertTurnScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: (project / "code.txt").read_text() == BEFORE)
        await wait_for(pilot, lambda: review_screen(app).files == ())
        await pilot.press("u")
        await wait_for(
            pilot, lambda: "written by" in (project / "code.txt").read_text()
        )


async def test_a_comment_on_selected_lines_quotes_only_them(
    project: Path, record: Path
) -> None:
    (project / "code.txt").write_text("one\ntwo\n")
    app = review_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(pilot, app, project / "code.txt")
        await pilot.press("f6")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("shift+down", "shift+down")  # "-one", "-two"
        diff = review_screen(app).query_one(ReviewDiff)
        assert diff.selection == (0, 1)
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.screen.query("#comment")))
        await pilot.press(*"Keep these", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(sent(record, "session/prompt")) == 2)
    text = sent(record, "session/prompt")[1]["prompt"][0]["text"]
    assert "1. code.txt:1\n```diff\n-one\n-two\n```\nKeep these" in text
    assert "+written by the agent" not in text
