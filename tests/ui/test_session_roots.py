"""Where the agent may read and write, in the app (Pilot, against the fake agent).

The fake agent (`v1-full`) lists its sessions at `FAKE_AGENT_LIST_CWD` (an agent
that ignores the `cwd` filter), and its prompt "read PATH" asks the client's
`fs/read_text_file` for PATH and says what came back ("read PATH: content" or
"read PATH: refused CODE"). So each test shows on screen what the agent could
reach, and the fake's record (`FAKE_AGENT_RECORD`) shows what it was told.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.session_picker import ConfirmFolderScreen, SessionPickerScreen
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.helpers import wait_for
from tests.ui.test_app import FAKE_AGENT, SIZE, agent_text, turn_ended
from tests.ui.test_app_flows import sent

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "record.jsonl"
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(path))
    return path


def folder(path: Path, file: str, text: str) -> Path:
    """A new directory holding one file; resolved, as the picker resolves one."""
    path.mkdir()
    (path / file).write_text(text)
    return path.resolve()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return folder(tmp_path / "project", "notes.txt", "project notes\n")


@pytest.fixture
def other(tmp_path: Path) -> Path:
    return folder(tmp_path / "other", "plan.md", "the other plan\n")


def fake_app(
    project: Path,
    request: SessionRequest | None = None,
    additional_directories: tuple[Path, ...] = (),
    allow_git_writes: bool = False,
) -> AcpTuiApp:
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), "v1-full"))
    return make_app(
        command,
        "fake",
        cwd=project,
        init_timeout=10.0,
        request=request,
        additional_directories=additional_directories,
        allow_git_writes=allow_git_writes,
    )


async def send(pilot: Pilot[None], app: AcpTuiApp, prompt: str) -> None:
    """Send `prompt`: put it in the prompt box, then press Enter.

    Set, not typed: these tests are about what the agent may reach, and each key
    Pilot types waits for the app to be idle twice (40 ms at least, far more on
    a loaded host); the paths under tmp_path are ~80 characters, so typing them
    took most of this file's minute (issue 28). Typing is tested elsewhere."""
    app.active_pane.query_one(PromptInput).text = prompt
    await pilot.press("enter")


async def agent_reads(pilot: Pilot[None], app: AcpTuiApp, path: Path) -> str:
    """Prompt "read PATH"; returns what the agent said it got."""
    store = app.store
    assert store is not None
    turns = store.state.turns_ended
    await send(pilot, app, f"read {path}")
    marker = f"read {path}: "
    # The store ends the turn before the view shows the last chunk: wait for both.
    await wait_for(
        pilot,
        lambda: (
            turn_ended(app)
            and store.state.turns_ended > turns
            and marker in agent_text(app)
        ),
    )
    return agent_text(app).rsplit(marker, 1)[1]


async def pick_alpha(pilot: Pilot[None], app: AcpTuiApp) -> SessionPickerScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
    picker = app.screen
    assert isinstance(picker, SessionPickerScreen)
    await wait_for(pilot, lambda: len(picker.visible_sessions) == 3)
    await pilot.press(*"parser")
    await wait_for(pilot, lambda: len(picker.visible_sessions) == 1)
    await pilot.press("enter")
    return picker


async def test_resuming_a_session_listed_at_slash_keeps_the_project_root(
    monkeypatch: pytest.MonkeyPatch, record: Path, project: Path
) -> None:
    """The old pick of a listed `/` session (no confirmation) cannot read /etc."""
    monkeypatch.setenv("FAKE_AGENT_LIST_CWD", "/")
    request = SessionRequest("resume", "s-alpha", Path("/"))
    app = fake_app(project, request)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        (loaded,) = sent(record, "session/load")
        assert loaded["cwd"] == "/"  # the agent is told its session's directory
        assert await agent_reads(pilot, app, Path("/etc/hostname")) == "refused -32602"
        assert await agent_reads(pilot, app, project / "notes.txt") == (
            "project notes\n"
        )
        # A restart resumes it the same way.
        assert app.runner.restart_request().root is None


async def test_the_picker_asks_before_a_session_at_slash_and_no_resumes_nothing(
    monkeypatch: pytest.MonkeyPatch, record: Path, project: Path
) -> None:
    monkeypatch.setenv("FAKE_AGENT_LIST_CWD", "/")
    app = fake_app(project, SessionRequest("pick"))
    async with app.run_test(size=SIZE) as pilot:
        picker = await pick_alpha(pilot, app)
        assert set(picker.elsewhere) == {"s-alpha", "s-beta", "s-gamma"}
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen))
        dialog = app.screen
        assert isinstance(dialog, ConfirmFolderScreen)
        assert dialog.folder == "/"
        assert dialog.warning == "⚠ / is the whole file system."
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is picker)
        assert not sent(record, "session/load")
        await pilot.press("escape")  # no session picked: a new one, in the project
        await wait_for(pilot, lambda: app.store is not None)
        assert not sent(record, "session/load")
        (created,) = sent(record, "session/new")
        assert created["cwd"] == str(project)
        assert await agent_reads(pilot, app, Path("/etc/hostname")) == "refused -32602"


async def test_confirming_moves_the_session_and_its_roots_to_its_folder(
    monkeypatch: pytest.MonkeyPatch, record: Path, project: Path, other: Path
) -> None:
    monkeypatch.setenv("FAKE_AGENT_LIST_CWD", str(other))
    app = fake_app(project, SessionRequest("pick"))
    async with app.run_test(size=SIZE) as pilot:
        await pick_alpha(pilot, app)
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.store is not None)
        (loaded,) = sent(record, "session/load")
        assert (loaded["sessionId"], loaded["cwd"]) == ("s-alpha", str(other))
        assert await agent_reads(pilot, app, other / "plan.md") == "the other plan\n"
        assert await agent_reads(pilot, app, project / "notes.txt") == (
            "refused -32602"
        )
        restart = app.runner.restart_request()
        assert (restart.cwd, restart.root) == (other, other)
        # A new session goes back to the project.
        await pilot.press("ctrl+n")
        await wait_for(
            pilot, lambda: app.store is not None and app.store.session_id == "s1"
        )
        assert await agent_reads(pilot, app, project / "notes.txt") == (
            "project notes\n"
        )


async def test_added_directories_are_roots_even_if_the_agent_cannot_take_them(
    record: Path, project: Path, other: Path
) -> None:
    app = fake_app(project, additional_directories=(other,))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        (created,) = sent(record, "session/new")
        assert "additionalDirectories" not in created
        await wait_for(
            pilot,
            lambda: any(
                "does not take additional directories" in str(n.message)
                for n in app._notifications
            ),
        )
        assert await agent_reads(pilot, app, other / "plan.md") == "the other plan\n"


async def test_added_directories_reach_an_agent_that_takes_them(
    monkeypatch: pytest.MonkeyPatch, record: Path, project: Path, other: Path
) -> None:
    monkeypatch.setenv("FAKE_AGENT_ADDITIONAL_DIRECTORIES", "1")
    app = fake_app(
        project, SessionRequest("resume", "s-beta"), additional_directories=(other,)
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        (loaded,) = sent(record, "session/load")
        assert loaded["cwd"] == str(project)
        assert loaded["additionalDirectories"] == [str(other)]
        assert await agent_reads(pilot, app, other / "plan.md") == "the other plan\n"


@pytest.mark.parametrize("allowed", [False, True])
async def test_git_writes_follow_the_users_setting(
    project: Path, allowed: bool
) -> None:
    """`allow_git_writes` reaches the client: `.git/hooks` is written only if set."""
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True)
    app = fake_app(project, allow_git_writes=allowed)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        store = app.store
        assert store is not None
        await send(pilot, app, f"write {hook}")
        marker = f"write {hook}: "
        await wait_for(pilot, lambda: turn_ended(app) and marker in agent_text(app))
        said = agent_text(app).rsplit(marker, 1)[1]
    if allowed:
        assert said.startswith("ok")
        assert hook.read_text() == "written by the agent\n"
    else:
        assert said.startswith("refused -32602")
        assert not hook.exists()
