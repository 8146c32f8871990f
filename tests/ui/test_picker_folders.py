"""The session picker and the directories of the sessions it lists (Pilot).

A listed session may live in another directory than the project (an agent that
ignores the `cwd` filter, or a transcript saved from another project). The picker
shows every session's directory (home as `~`), marks the ones outside the
project's roots, and resuming one of those asks first, in a dialog that names the
directory; only a confirmed pick carries it as the session's new root.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.client.session import SessionSummary
from acp_tui.storage.transcripts import TranscriptInfo
from acp_tui.ui.screens.session_picker import (
    ConfirmFolderScreen,
    SessionPick,
    SessionPickerScreen,
    display_path,
)
from tests.ui.helpers import wait_for
from tests.ui.test_screens import (
    NOW,
    SIZE,
    FakeSessions,
    ScreenHost,
    loaded,
    picker,
    prompts,
    static_text,
)

HOME = Path("/home/ada")
PROJECT = HOME / "project"

SESSIONS = [
    SessionSummary("here", str(PROJECT), "In the project", None, {}),
    SessionSummary("sub", str(PROJECT / "api"), "In a subfolder", None, {}),
    SessionSummary("other", str(HOME / "other"), "Another project", None, {}),
    SessionSummary("slash", "/", "At the root", None, {}),
    SessionSummary("home", str(HOME), "In the home folder", None, {}),
    SessionSummary("shared", "/srv/shared/docs", "In an added folder", None, {}),
    SessionSummary("relative", "somewhere", "Relative", None, {}),
]


def folder_picker(
    sessions: list[SessionSummary] = SESSIONS,
    *,
    roots: tuple[Path, ...] = (PROJECT, Path("/srv/shared")),
    saved: Callable[[], Sequence[TranscriptInfo]] | None = None,
    reopens_saved: bool = True,
) -> ScreenHost[SessionPick | None]:
    fake = FakeSessions(sessions)
    return ScreenHost(
        lambda: SessionPickerScreen(
            fake.load,
            now=lambda: NOW,
            saved=saved,
            roots=roots,
            reopens_saved=reopens_saved,
            home=HOME,
        )
    )


async def choose(
    pilot: Pilot[None], app: ScreenHost[SessionPick | None], needle: str
) -> None:
    """Filter the loaded picker down to `needle`'s row and press Enter."""
    await loaded(pilot, app)
    await pilot.press(*needle)
    await wait_for(pilot, lambda: len(picker(app).visible_sessions) == 1)
    await pilot.press("enter")


def question(app: ScreenHost[SessionPick | None]) -> ConfirmFolderScreen:
    screen = app.screen
    assert isinstance(screen, ConfirmFolderScreen)
    return screen


async def ask(
    pilot: Pilot[None], app: ScreenHost[SessionPick | None], needle: str
) -> ConfirmFolderScreen:
    """Choose `needle`'s row, which asks first; returns the question."""
    await choose(pilot, app, needle)
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen))
    return question(app)


def dialog_text(screen: ConfirmFolderScreen) -> str:
    return " ".join(
        static_text(screen, f"#{name}")
        for name in ("folder-where", "folder-effect")
        + (("folder-warning",) if screen.warning else ())
    )


async def test_rows_show_the_folder_with_home_as_tilde_and_mark_other_folders() -> None:
    app = folder_picker()
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await loaded(pilot, app))
        assert rows[1:] == [
            "In the project\n  ~/project",
            "In a subfolder\n  ~/project/api",
            "Another project\n  ~/other · other folder",
            "At the root\n  / · other folder",
            "In the home folder\n  ~ · other folder",
            "In an added folder\n  /srv/shared/docs",
            "Relative\n  somewhere",
        ]
        assert set(picker(app).elsewhere) == {"other", "slash", "home"}


@pytest.mark.parametrize("needle", ["In the project", "subfolder", "added", "Relat"])
async def test_a_session_inside_the_roots_resumes_without_a_question(
    needle: str,
) -> None:
    app = folder_picker()
    async with app.run_test(size=SIZE) as pilot:
        await choose(pilot, app, needle)
        await wait_for(pilot, lambda: bool(app.results))
        [pick] = app.results
        assert pick is not None
        assert pick.action == "resume"
        assert pick.root is None


async def test_another_folder_asks_and_declining_keeps_the_picker() -> None:
    app = folder_picker()
    async with app.run_test(size=SIZE) as pilot:
        text = dialog_text(await ask(pilot, app, "Another"))
        assert "started in /home/ada/other, outside this project" in text
        assert "(/home/ada/project)" in text
        assert "let the agent read and write files under /home/ada/other" in text
        assert "instead of in /home/ada/project" in text
        assert not question(app).warning
        await pilot.press("enter")  # Cancel has the focus: Enter never confirms
        await wait_for(pilot, lambda: app.screen is picker(app))
        assert app.results == []
        assert static_text(picker(app), "#session-status") == (
            "“Another project” was not resumed."
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is picker(app))
        assert app.results == []


async def test_confirming_carries_the_folder_as_the_sessions_root() -> None:
    app = folder_picker()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "Another")
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [
            SessionPick("resume", "other", "/home/ada/other", root=HOME / "other")
        ]


@pytest.mark.parametrize(
    ("needle", "warning"),
    [
        ("At the root", "⚠ / is the whole file system."),
        ("home folder", "⚠ /home/ada is your whole home folder."),
    ],
)
async def test_the_root_and_the_home_folder_get_an_extra_warning(
    needle: str, warning: str
) -> None:
    app = folder_picker()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask(pilot, app, needle)
        assert static_text(dialog, "#folder-warning") == warning
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.results))
        [pick] = app.results
        assert pick is not None
        assert pick.root == Path(pick.cwd or "")


async def test_a_folder_holding_home_is_warned_about() -> None:
    sessions = [SessionSummary("up", "/home", "Above home", None, {})]
    app = folder_picker(sessions)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask(pilot, app, "Above")
        assert static_text(dialog, "#folder-warning") == (
            "⚠ /home holds your whole home folder."
        )


async def test_the_question_names_the_folder_the_agent_would_reach() -> None:
    """A listed folder that climbs out with `..` is shown resolved, and warned of."""
    sessions = [SessionSummary("up", f"{PROJECT}/../../..", "Climbs out", None, {})]
    app = folder_picker(sessions)
    async with app.run_test(size=SIZE) as pilot:
        text = dialog_text(await ask(pilot, app, "Climbs"))
        assert "started in /home/ada/project/../../.. (that is /), outside" in text
        assert "read and write files under / and run" in text
        assert "⚠ / is the whole file system." in text
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.results))
        [pick] = app.results
        assert pick is not None
        assert pick.root == Path("/")


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """A project, and the resolved folder its `link` points to, outside it."""
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    (project / "link").symlink_to(other)
    return project, other.resolve()


async def test_a_symlink_out_of_the_project_is_another_folder(
    linked: tuple[Path, Path],
) -> None:
    project, other = linked
    sessions = [SessionSummary("link", str(project / "link"), "Linked", None, {})]
    app = folder_picker(sessions, roots=(project,))
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await loaded(pilot, app))
        assert rows[1].endswith(" · other folder")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen))
        text = dialog_text(question(app))
        assert f"started in {project / 'link'} (that is {other})" in text
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.results))
        [pick] = app.results
        assert pick is not None
        assert pick.root == other


async def test_without_roots_nothing_is_marked_and_no_pick_carries_a_root() -> None:
    app = folder_picker(roots=())
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await loaded(pilot, app))
        assert not any("other folder" in row for row in rows)
        await pilot.press(*"At the root", "enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("resume", "slash", "/")]


async def test_folder_names_from_the_agent_are_shown_as_text() -> None:
    evil = "/tmp/[bold]x\x1b[31m"
    sessions = [SessionSummary("evil", evil, "Evil", None, {})]
    app = folder_picker(sessions)
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await loaded(pilot, app))
        assert "\x1b" not in rows[1]
        assert "[bold]" in rows[1]
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen))
        text = dialog_text(question(app))
        assert "\x1b" not in text
        assert "/tmp/[bold]x" in text


def saved(session_id: str, cwd: str) -> TranscriptInfo:
    return TranscriptInfo(
        session_id=session_id,
        agent="fake",
        cwd=cwd,
        title="Saved elsewhere",
        updated_at="2026-03-10T11:00:00Z",
        messages=2,
        path=Path(f"/data/{session_id}.jsonl"),
    )


@pytest.mark.parametrize("reopens", [True, False])
async def test_a_saved_session_asks_only_if_the_agent_will_reopen_it(
    reopens: bool,
) -> None:
    app = folder_picker([], saved=lambda: [saved("old", "/")], reopens_saved=reopens)
    async with app.run_test(size=SIZE) as pilot:
        await choose(pilot, app, "Saved")
        if reopens:
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen))
            await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.results))
        [pick] = app.results
        assert pick is not None
        assert pick.transcript == Path("/data/old.jsonl")
        assert pick.root == (Path("/") if reopens else None)


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/home/ada", "~"),
        ("/home/ada/src/x", "~/src/x"),
        ("/home/ada/../bob", "/home/ada/../bob"),
        ("/home/adam", "/home/adam"),
        ("/", "/"),
        ("relative/x", "relative/x"),
        ("/tmp/\x1b[2Jx", "/tmp/\\x1b[2Jx"),
    ],
)
def test_display_path(path: str, shown: str) -> None:
    assert display_path(path, HOME) == shown
