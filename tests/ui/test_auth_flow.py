"""Pilot tests of logging in and out, against the scripted fake agent, v1 and v2.

Checklist 4.3.3: any session request may fail with `auth_required` (-32000), not
only `session/new` and resume; then the user is offered the login, and the request
runs again. Logout is offered only where the agent supports it (v2: `authMethods`
present; v1: `agentCapabilities.auth.logout`). Odd methods (empty or huge ids,
empty names, custom types, invalid entries) never trap the user in a "restart to
choose a method" loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.app import SystemCommand
from textual.pilot import Pilot
from textual.widgets import OptionList

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.session_picker import SessionPickerScreen
from acp_tui.ui.widgets.conversation import Banner, QueuedPrompt
from acp_tui.ui.widgets.crash_banner import CrashBanner
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE
from tests.ui.test_app_flows import BOTH, _home, app_for, record, sent, status
from tests.ui.test_screens import prompts

pytestmark = pytest.mark.subprocess

# The fixtures: a private ACP_TUI_HOME per test, and where the fake agent records
# what it is sent.
__all__ = ["_home", "record"]


def command(app: AcpTuiApp, title: str) -> SystemCommand | None:
    return next(
        (c for c in app.get_system_commands(app.screen) if c.title == title), None
    )


def login_method(version: str) -> str:
    return "auth/login" if version == "v2" else "authenticate"


def logout_method(version: str) -> str:
    return "auth/logout" if version == "v2" else "logout"


@asynccontextmanager
async def logged_out(
    scenario: str, tmp_path: Path
) -> AsyncIterator[tuple[AcpTuiApp, Pilot[None]]]:
    """The app with its session open (and its settings known), then logged out
    through the client: the agent refuses session requests until a login."""
    app = app_for(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "model:" in status(app))
        client = app.runner.client
        assert client is not None
        await client.logout()
        yield app, pilot


async def asked_to_log_in(pilot: Pilot[None], app: AcpTuiApp) -> AuthScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen))
    screen = app.screen
    assert isinstance(screen, AuthScreen)
    return screen


def turn_done(app: AcpTuiApp) -> bool:
    """The last turn ended normally and no other runs."""
    store = app.store
    return (
        store is not None
        and store.state.last_stop_reason == "end_turn"
        and not app.runner.in_turn
    )


def lost_prompts(app: AcpTuiApp) -> list[str]:
    return [p.text for p in app.query(QueuedPrompt) if p.state == "lost"]


@pytest.mark.parametrize(
    ("scenario", "offered"),
    [
        ("v2-relogin", True),
        ("v1-relogin", True),
        ("v2-full", False),  # no authMethods: auth/logout MUST NOT be called
        ("v1-full", False),  # no agentCapabilities.auth.logout
    ],
)
async def test_logout_is_offered_only_where_the_agent_supports_it(
    tmp_path: Path, scenario: str, offered: bool
) -> None:
    app = app_for(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        assert (command(app, "Log out") is not None) is offered


@BOTH
async def test_the_palettes_log_out_logs_out(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-relogin", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        logout = command(app, "Log out")
        assert logout is not None
        logout.callback()
        await wait_for(pilot, lambda: bool(sent(record, logout_method(version))))
        await wait_for(
            pilot, lambda: any("Logged out" in n.message for n in app._notifications)
        )
        await pilot.press(*"hello", "enter")  # the next request asks for a login
        await asked_to_log_in(pilot, app)


@BOTH
async def test_after_logout_a_prompt_offers_the_login_and_is_sent_again(
    tmp_path: Path, record: Path, version: str
) -> None:
    async with logged_out(f"{version}-relogin", tmp_path) as (app, pilot):
        await pilot.press(*"agent-switch", "enter")
        screen = await asked_to_log_in(pilot, app)
        assert "Authentication required" in str(screen.message)
        await pilot.press("1")  # agent-login
        await wait_for(pilot, lambda: turn_done(app))
        assert [p["methodId"] for p in sent(record, login_method(version))] == [
            "agent-login"
        ]
        prompts_sent = sent(record, "session/prompt")
        assert len(prompts_sent) == 2  # refused, then sent again after the login
        assert prompts_sent[0] == prompts_sent[1]
        assert not app.query(Banner)  # nothing failed in the end
        assert lost_prompts(app) == []


@BOTH
async def test_after_logout_a_settings_change_offers_the_login(
    tmp_path: Path, record: Path, version: str
) -> None:
    async with logged_out(f"{version}-relogin", tmp_path) as (app, pilot):
        app.set_config("model", "max")
        await asked_to_log_in(pilot, app)
        await pilot.press("1")
        await wait_for(pilot, lambda: "Fake Max" in status(app))
        assert len(sent(record, "session/set_config_option")) == 2
        assert len(sent(record, login_method(version))) == 1


async def test_declining_the_login_for_a_prompt_keeps_the_session(
    tmp_path: Path, record: Path
) -> None:
    async with logged_out("v2-relogin", tmp_path) as (app, pilot):
        await pilot.press(*"hello", "enter")
        await asked_to_log_in(pilot, app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(app.query(Banner)))
        assert "log in" in app.query_one(Banner).text
        assert lost_prompts(app) == ["hello"]  # kept, marked as not delivered
        assert len(app.query(QueuedPrompt)) == 1
        assert not app.query(CrashBanner)  # the connection goes on
        assert app.runner.connected
        assert len(sent(record, "session/prompt")) == 1


@BOTH
async def test_odd_auth_methods_are_offered_and_work(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-odd-auth", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await asked_to_log_in(pilot, app)
        rows = prompts(screen.query_one(OptionList))
        # The empty id and name get a label; the 5,000-character id is cut and
        # escaped; the custom type is shown but cannot be used; the method whose
        # id is a number is not valid and not listed.
        assert len(rows) == 3
        assert rows[0].startswith("1 Method 1")
        assert rows[1].startswith("2 xxxx")
        assert len(rows[1].splitlines()[0]) < 100
        assert "\x1b" not in rows[1]
        assert rows[2].startswith("3 Company SSO")
        assert "not supported" in rows[2]
        await pilot.press("3")  # not usable: nothing happens
        await pilot.pause()
        assert isinstance(app.screen, AuthScreen)
        await pilot.press("1")
        await wait_for(pilot, lambda: app.store is not None)
        assert [p["methodId"] for p in sent(record, login_method(version))] == [""]


async def test_an_agent_without_usable_methods_does_not_ask_to_restart_and_choose(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-unusable-auth", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        text = app.query_one(CrashBanner).text
        assert "choose a method" not in text
        assert "none of its login methods can be used" in text
        assert "Company SSO" in text
        assert "log in outside acp-tui" in text.lower()
        assert not sent(record, "auth/login")
        assert not isinstance(app.screen, AuthScreen)


async def test_a_terminal_login_for_a_prompt_reconnects_and_sends_it(
    tmp_path: Path, record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth_file = tmp_path / "auth.json"
    monkeypatch.setenv("FAKE_AGENT_AUTH_FILE", str(auth_file))
    async with logged_out("v2-relogin", tmp_path) as (app, pilot):
        await pilot.press(*"agent-switch", "enter")
        await asked_to_log_in(pilot, app)
        await pilot.press("2")  # terminal-login: the app runs the agent's login
        await wait_for(pilot, lambda: len(sent(record, "session/prompt")) == 2)
        await wait_for(pilot, lambda: turn_done(app))
        assert auth_file.exists()  # written by `agent.py v2-relogin --login`
        assert len(sent(record, "initialize")) == 2  # reconnected after the login
        assert not sent(record, "auth/login")
        first, again = sent(record, "session/prompt")
        assert first["prompt"] == again["prompt"]
        assert lost_prompts(app) == []


async def test_after_logout_the_session_list_offers_the_login(
    tmp_path: Path, record: Path
) -> None:
    async with logged_out("v2-relogin", tmp_path) as (app, pilot):
        await pilot.press("f2")
        await asked_to_log_in(pilot, app)
        await pilot.press("1")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_for(pilot, lambda: len(picker.visible_sessions) == 3)
        assert len(sent(record, "session/list")) == 3  # refused, then two pages
