"""Pilot tests of whole app flows against the scripted fake agent, v1 and v2.

Sessions (picker, resume with replay), config switching both ways, the crash
banner with restart, and the login flows. The fake agent records what it is sent
(`FAKE_AGENT_RECORD`), so the tests assert the wire traffic as well as the screen.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.key_guard import KEY_IDLE
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.config import ConfigScreen
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.screens.help import KeyHelpScreen
from acp_tui.ui.screens.session_picker import SessionPickerScreen
from acp_tui.ui.widgets.conversation import Banner, QueuedPrompt
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.ui.helpers import wait_for
from tests.ui.test_app import FAKE_AGENT, SIZE, agent_text, permission_armed
from tests.ui.test_elicitation_screen import form_ask
from tests.unit.client.test_traffic import FakeClock

pytestmark = pytest.mark.subprocess

BOTH = pytest.mark.parametrize("version", ["v2", "v1"])


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "record.jsonl"
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(path))
    return path


def sent(record: Path, method: str) -> list[dict[str, Any]]:
    """The params of every `method` message the fake agent received."""
    if not record.exists():
        return []
    messages = [json.loads(line) for line in record.read_text().splitlines()]
    return [m.get("params") or {} for m in messages if m.get("method") == method]


def app_for(
    scenario: str, cwd: Path, request: SessionRequest | None = None
) -> AcpTuiApp:
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), scenario))
    return make_app(command, "fake", cwd=cwd, init_timeout=10.0, request=request)


def status(app: AcpTuiApp) -> str:
    return app.query_one(StatusBar).status_text()


async def pick_session(pilot: Pilot[None], app: AcpTuiApp, needle: str) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
    picker = app.screen
    assert isinstance(picker, SessionPickerScreen)
    await wait_for(pilot, lambda: len(picker.visible_sessions) == 3)
    await pilot.press(*needle)
    await wait_for(pilot, lambda: len(picker.visible_sessions) == 1)
    await pilot.press("enter")


@BOTH
async def test_resume_with_replay_from_the_startup_picker(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-full", tmp_path, SessionRequest("pick"))
    async with app.run_test(size=SIZE) as pilot:
        await pick_session(pilot, app, "parser")
        await wait_for(
            pilot, lambda: app.store is not None and app.store.session_id == "s-alpha"
        )
        await wait_for(
            pilot, lambda: "Earlier answer in Refactor the parser" in agent_text(app)
        )
        assert any(v.role == "user" for v in app.query(MessageView))
        method = "session/resume" if version == "v2" else "session/load"
        (params,) = sent(record, method)
        assert params["sessionId"] == "s-alpha"
        assert not sent(record, "session/new")


@BOTH
async def test_picker_key_switches_to_another_session(
    tmp_path: Path, version: str
) -> None:
    app = app_for(f"{version}-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        first = app.store
        await pilot.press("f2")
        await pick_session(pilot, app, "flaky")
        await wait_for(pilot, lambda: app.store is not first)
        assert app.store is not None
        assert app.store.session_id == "s-beta"
        await wait_for(
            pilot,
            lambda: "Earlier answer in Fix the flaky login test" in agent_text(app),
        )


async def test_picker_cancelled_at_startup_opens_a_new_session(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path, SessionRequest("pick"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.store is not None)
        assert len(sent(record, "session/new")) == 1


async def test_session_option_resumes_directly(tmp_path: Path, record: Path) -> None:
    app = app_for("v2-full", tmp_path, SessionRequest("resume", "s-gamma"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: "Earlier answer in Write the release notes" in agent_text(app),
        )
        (params,) = sent(record, "session/resume")
        assert params["replayFrom"] == {"type": "start"}


@BOTH
async def test_mode_cycles_with_one_key(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "mode: Ask" in status(app))
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: "mode: Code" in status(app))
        if version == "v2":
            (params,) = sent(record, "session/set_config_option")
            assert (params["configId"], params["value"]) == ("mode", "code")
        else:
            (params,) = sent(record, "session/set_mode")
            assert params["modeId"] == "code"


async def test_shift_tab_in_a_dialog_moves_focus_back_and_keeps_the_mode(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "mode: Ask" in status(app))
        dialog = ElicitationScreen(form_ask())
        dialog.clock = FakeClock()
        app.push_screen(dialog)
        await wait_for(pilot, lambda: app.screen is dialog)
        await pilot.pause()
        dialog.clock.now += KEY_IDLE + 1
        assert dialog.guard.check()  # armed: keys reach the form
        await pilot.pause()
        first = app.focused
        await pilot.press("tab")
        assert app.focused is not first
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is first  # focus went back a field
        assert app.screen is dialog
        assert "mode: Ask" in status(app)
        assert sent(record, "session/set_config_option") == []


@BOTH
async def test_config_switcher_sets_the_model_and_the_agent_list_wins(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "model:" in status(app))
        before = status(app)
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfigScreen))
        screen = app.screen
        assert isinstance(screen, ConfigScreen)
        current = next(
            option
            for option in screen.options
            if option.category == "model" or option.config_id == "model"
        ).current
        row_id, choice = next(
            (row, choice)
            for row, choice in screen.choices.items()
            if choice.config_id == "model" and choice.value != current
        )
        option_list = screen.query_one(OptionList)
        option_list.highlighted = option_list.get_option_index(row_id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: status(app) != before)
        (params,) = sent(record, "session/set_config_option")
        assert (params["configId"], params["value"]) == ("model", choice.value)
        assert app.store is not None
        model = next(
            o for o in app.store.config_options if o.get("category") == "model"
        )
        assert model["currentValue"] == choice.value


async def test_palette_lists_config_values(tmp_path: Path) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Sessions" in titles
        assert "Mode: Plan" in titles
        assert "Mode: Ask" not in titles  # the current value is not offered


@BOTH
async def test_crash_shows_banner_and_restart_resumes(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        session_id = app.store.session_id if app.store is not None else ""
        await pilot.press(*"please crash", "enter")
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        banner = app.query_one(CrashBanner)
        assert "9" in banner.text
        assert any("simulated crash" in line for line in banner.stderr_tail)
        shown = [v.text for v in app.query(MessageView) if v.role == "user"]
        shown += [p.text for p in app.query(QueuedPrompt) if p.state == "lost"]
        assert shown == ["please crash"]  # what the user typed is still on screen
        await pilot.press(*"draft kept")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: not app.query(CrashBanner))  # it left
        method = "session/resume" if version == "v2" else "session/load"
        assert [p["sessionId"] for p in sent(record, method)] == [session_id]
        assert "draft kept" in app.query_one("#prompt").text  # type: ignore[attr-defined]


@BOTH
async def test_login_with_an_agent_method(
    tmp_path: Path, record: Path, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_AGENT_AUTH_FILE", str(tmp_path / "auth.json"))
    app = app_for(f"{version}-auth", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen))
        await pilot.press("1")  # agent-login is listed first
        await wait_for(pilot, lambda: app.store is not None)
        method = "auth/login" if version == "v2" else "authenticate"
        assert [p["methodId"] for p in sent(record, method)] == ["agent-login"]
        assert len(sent(record, "session/new")) == 2  # refused, then accepted


async def test_login_with_a_terminal_method_reconnects(
    tmp_path: Path, record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth_file = tmp_path / "auth.json"
    monkeypatch.setenv("FAKE_AGENT_AUTH_FILE", str(auth_file))
    app = app_for("v2-auth", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen))
        await pilot.press("2")  # terminal-login
        await wait_for(pilot, lambda: app.store is not None)
        assert auth_file.exists()
        assert len(sent(record, "initialize")) == 2  # reconnected after the login
        assert not sent(record, "auth/login")


async def test_declining_login_offers_restart(tmp_path: Path) -> None:
    app = app_for("v2-auth", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        assert "log in" in app.query_one(CrashBanner).text
        assert app.is_running


async def test_key_help_lists_actions(tmp_path: Path) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, KeyHelpScreen))
        help_screen = app.screen
        assert isinstance(help_screen, KeyHelpScreen)
        keys = dict(help_screen.bindings)
        assert keys["p"].startswith("Full paths of the card")  # in a card, diff…
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, KeyHelpScreen))


async def test_a_turn_ending_in_error_gets_a_banner(tmp_path: Path) -> None:
    app = app_for("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"turn-error", "enter")
        await wait_for(pilot, lambda: bool(app.query(Banner)))
        assert (
            "The turn failed: model overloaded (-32603)" in app.query_one(Banner).text
        )
        assert "idle (error)" in status(app)
        assert app.query_one(StatusBar).queued == 0


@BOTH
async def test_agent_side_mode_change_reaches_the_status_bar(
    tmp_path: Path, version: str
) -> None:
    app = app_for(f"{version}-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "mode: Ask" in status(app))
        await pilot.press(*"agent-switch", "enter")
        expected = "mode: Plan" if version == "v2" else "mode: Code"
        await wait_for(pilot, lambda: expected in status(app))
        assert app.store is not None
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Mode: Ask" in titles  # the palette follows the agent's list


async def test_demo_v1_runs_its_command_in_a_client_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over v1 the app advertises `terminal: true`, so the demo asks the app to
    run `/run`'s command; its output and exit status land in the store and the
    tool call's terminal shows them."""
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")
    project = tmp_path / "project"
    project.mkdir()
    command = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    app = make_app(command, "demo", cwd=project, choice="1", init_timeout=20.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        assert app.runner.client is not None
        assert app.runner.client.version == 1
        await pilot.press(*"/run", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("1", "1")  # allow once

        def finished() -> bool:
            store = app.store
            return store is not None and any(t.exited for t in store.terminals())

        await wait_for(pilot, finished)
        store = app.store
        assert store is not None
        (terminal,) = store.terminals()
        assert terminal.exit_status == {"exitCode": 0, "signal": None}
        assert terminal.cwd == str(project)
        assert b"All 3 checks passed" in terminal.output
    assert sorted(p.name for p in project.iterdir()) == []  # nothing written


async def test_quitting_mid_command_reaps_the_client_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A v1 client terminal still running when the user quits is killed and
    reaped before the app returns: no orphan."""
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")
    project = tmp_path / "project"
    project.mkdir()
    command = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    app = make_app(command, "demo", cwd=project, choice="1", init_timeout=20.0)
    pid_files: list[Path] = []

    def started() -> bool:
        pid_files[:] = (tmp_path / "home").rglob("run.pid")
        return bool(pid_files) and bool(pid_files[0].read_text())

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"/run long", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("1", "1")  # select, then choose
        await wait_for(pilot, started)
        pid = int(pid_files[0].read_text())
        os.kill(pid, 0)  # running
        app.exit()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
