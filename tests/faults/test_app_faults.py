"""The fault suite through the Textual app (Pilot): a misbehaving agent, every case.

Each test drives the real app against `tests/fakes/fault_agent.py` and checks what
the issue asks of every fault: the app keeps running, the user sees a clear
message (a notification, a banner, the crash banner with the agent's stderr), the
text streamed before the fault is still in the store and on screen, no traceback
reaches the screen, and no process (the agent, or the child it spawned) outlives
the connection.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.client import runner
from acp_tui.ui import agent_runner
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets.conversation import Banner, QueuedPrompt
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.markdown_view import MarkdownView
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.fakes.fault_agent import (
    AFTER,
    BEFORE,
    EXIT_INIT_CODE,
    EXIT_INIT_STDERR,
    EXIT_MID_TURN_CODE,
    EXIT_MID_TURN_STDERR,
    FLOOD_COUNT,
    flood_chunk,
)
from tests.faults.conftest import (
    SIZE,
    Pids,
    assert_no_traceback,
    fault_app,
    notifications,
    screen_text,
    store_agent_text,
)
from tests.ui.helpers import wait_for
from tests.ui.test_app import agent_text, turn_ended

pytestmark = pytest.mark.subprocess


def crash_banner(app: AcpTuiApp) -> CrashBanner | None:
    banners = list(app.query(CrashBanner))
    return banners[0] if banners else None


def drawn_in_order(app: AcpTuiApp, whole: str) -> bool:
    """Whether the agent's message view draws `whole`: all of it, or (a long
    text, windowed) its first characters, a notice of exactly how many are not
    drawn, and its last characters.

    A view that fell behind by more than `REBASE_CHARS` (a loaded machine) is
    drawn anew as a window and no longer holds the middle it never drew: the
    pager has it from the store.
    """
    views = [v for v in app.query(MessageView) if v.role == "agent"]
    if len(views) != 1 or views[0].pending:
        return False
    markdown = views[0].query_one(MarkdownView)
    if not markdown.windowed:
        return markdown.source == whole
    head, tail = markdown.document.source, markdown.tail_source
    return (
        whole.startswith(head)
        and whole.endswith(tail)
        and len(head) + markdown.hidden_chars + len(tail) == len(whole)
    )


def banners(app: AcpTuiApp) -> str:
    return " ".join(banner.text for banner in app.query(Banner))


# --- the agent writes something wrong; the turn goes on -------------------------

SURVIVABLE = [
    ("garbage", "v2", "unreadable line (invalid JSON"),
    ("huge-line", "v2", "unreadable line (invalid JSON"),
    ("invalid-utf8", "v2", "unreadable line (invalid UTF-8"),
    ("malformed", "v2", "ignored a malformed tool_call_update"),
    ("malformed", "v1", "ignored a malformed tool_call update"),
    ("unknown-id", "v2", "a response for no pending request"),
]


@pytest.mark.parametrize(("fault", "version", "warning"), SURVIVABLE)
async def test_bad_input_is_reported_and_the_turn_completes(
    app_cwd: Path, pids: Pids, fault: str, version: str, warning: str
) -> None:
    app = fault_app(fault, app_cwd, version)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: turn_ended(app), bound=30)
        await wait_for(pilot, lambda: agent_text(app) == BEFORE + AFTER)
        assert store_agent_text(app) == BEFORE + AFTER
        shown = notifications(app)
        assert any(f"the agent sent a bad message: {warning}" in n for n in shown)
        assert len(shown) <= agent_runner.DIAGNOSTIC_NOTICES + 1
        if fault == "garbage":  # the first line quoted is markup: shown as typed
            assert any("[@click=app.quit]click-quit[/]" in n for n in shown)
        await wait_for(
            pilot, lambda: "the agent sent a bad message" in screen_text(app)
        )
        await wait_for(pilot, lambda: "end_turn" in screen_text(app))
        assert not app.query(CrashBanner)
        assert_no_traceback(app)
        assert app.is_running
    await pids.wait_gone()


@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_unknown_methods_and_updates_are_ignored_quietly(
    app_cwd: Path, pids: Pids, version: str
) -> None:
    app = fault_app("unknown", app_cwd, version)
    expected = BEFORE + AFTER + " (ask: -32601)"
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(pilot, lambda: agent_text(app) == expected)
        assert store_agent_text(app) == expected
        assert app.store is not None
        kinds = [u["sessionUpdate"] for u in app.store.unknown_updates]
        assert kinds == ["_fault_sparkle", "future_update"]
        assert notifications(app) == []
        assert_no_traceback(app)
    await pids.wait_gone()


async def test_stderr_flood_does_not_disturb_the_turn(
    app_cwd: Path, pids: Pids
) -> None:
    app = fault_app("stderr-flood", app_cwd)
    expected = BEFORE + "".join(f"{i} " for i in range(20)) + AFTER
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: turn_ended(app), bound=30)
        await wait_for(pilot, lambda: agent_text(app) == expected)
        assert store_agent_text(app) == expected
        tail = app.runner.stderr_tail()
        assert tail  # drained and kept, bounded
        assert len(tail) <= 500
        assert all(len(line) <= 4096 + len(" […truncated]") for line in tail)
        assert notifications(app) == []
        assert_no_traceback(app)
    await pids.wait_gone()


async def test_ten_second_flood_keeps_the_app_responsive(
    app_cwd: Path, pids: Pids
) -> None:
    """100,000 message chunks at 10,000 a second: keys typed during the flood are
    handled during the flood, and every chunk reaches the screen in order."""
    app = fault_app("flood", app_cwd)
    flood = "".join(flood_chunk(index) for index in range(FLOOD_COUNT))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: "w1000 " in store_agent_text(app))
        prompt = app.query_one(PromptInput)
        # One key: Pilot waits (up to 2 s) for a busy app to go idle after each.
        await pilot.press("x")
        await wait_for(pilot, lambda: prompt.text == "x")
        assert not turn_ended(app)  # the flood (10 s) is still going on
        await wait_for(pilot, lambda: turn_ended(app), bound=90)
        whole = BEFORE + flood + AFTER
        assert store_agent_text(app) == whole
        await wait_for(pilot, lambda: drawn_in_order(app, whole), 60)
        assert [v.role for v in app.query(MessageView)] == ["user", "agent"]
        assert notifications(app) == []
        assert_no_traceback(app)
    await pids.wait_gone()


# --- the agent goes away -------------------------------------------------------------


@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_agent_exiting_mid_turn(app_cwd: Path, pids: Pids, version: str) -> None:
    app = fault_app("exit-mid-turn", app_cwd, version)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: crash_banner(app) is not None)
        banner = crash_banner(app)
        assert banner is not None
        assert f"the agent exited with code {EXIT_MID_TURN_CODE}" in banner.text
        assert EXIT_MID_TURN_STDERR in banner.stderr_tail
        await pids.wait_gone()  # already, with the app still up
        await wait_for(pilot, lambda: agent_text(app) == BEFORE)
        assert store_agent_text(app) == BEFORE
        expected = (BEFORE.strip(), f"code {EXIT_MID_TURN_CODE}", EXIT_MID_TURN_STDERR)
        await wait_for(pilot, lambda: all(e in screen_text(app) for e in expected))
        assert_no_traceback(app)
        assert app.is_running
        # The way out: ctrl+r restarts the agent in a new session (this agent
        # cannot resume one: v1 has no load or resume, v2 answers -32601).
        old_store = app.store
        await pilot.press("ctrl+r")
        await wait_for(
            pilot, lambda: app.store is not old_store and app.runner.connected
        )
        assert any("started a new one" in n for n in notifications(app))
    await pids.wait_gone()


async def test_agent_exiting_during_initialize(app_cwd: Path, pids: Pids) -> None:
    app = fault_app("exit-init", app_cwd)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: crash_banner(app) is not None)
        banner = crash_banner(app)
        assert banner is not None
        assert "the agent stopped during initialize" in banner.text
        assert f"exited with code {EXIT_INIT_CODE}" in banner.text
        assert EXIT_INIT_STDERR in banner.stderr_tail
        await pids.wait_gone()
        await wait_for(pilot, lambda: "stopped during initialize" in screen_text(app))
        assert_no_traceback(app)
        assert app.is_running


@pytest.mark.usefixtures("quick_shutdown")
@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_agent_closing_stdout_but_staying_alive(
    app_cwd: Path, pids: Pids, version: str
) -> None:
    app = fault_app("close-stdout", app_cwd, version)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: crash_banner(app) is not None)
        banner = crash_banner(app)
        assert banner is not None
        assert "the agent closed its output" in banner.text
        assert "killed by signal SIGTERM" in banner.text  # it had to be stopped
        await pids.wait_gone()
        await wait_for(pilot, lambda: agent_text(app) == BEFORE)
        assert store_agent_text(app) == BEFORE
        await wait_for(pilot, lambda: "the agent closed its output" in screen_text(app))
        assert_no_traceback(app)
        assert app.is_running


# --- the agent hangs ------------------------------------------------------------------


@pytest.mark.usefixtures("quick_shutdown")
async def test_agent_hanging_on_initialize(app_cwd: Path, pids: Pids) -> None:
    app = fault_app("hang-init", app_cwd, init_timeout=0.5)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: crash_banner(app) is not None)
        banner = crash_banner(app)
        assert banner is not None
        assert "the agent did not answer initialize within 0.5 s" in banner.text
        await pids.wait_gone()
        await wait_for(pilot, lambda: "did not answer initialize" in screen_text(app))
        assert_no_traceback(app)
        assert app.is_running


@pytest.mark.usefixtures("quick_shutdown")
@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_agent_hanging_on_a_prompt(
    app_cwd: Path, pids: Pids, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No reply and no update at all: Esc cancels, and when the agent ignores
    that too, a banner says so and how to get out (a restart)."""
    monkeypatch.setattr(runner, "CANCEL_GRACE", 0.5)
    app = fault_app("hang-prompt", app_cwd, version)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press("escape")
        await wait_for(pilot, lambda: "did not end the turn" in banners(app))
        assert "within 0.5 s of the cancel request" in banners(app)
        assert "ctrl+r" in banners(app)
        await wait_for(pilot, lambda: "did not end the turn" in screen_text(app))
        # What the user typed is still shown: the agent never echoed it (v2),
        # or the client recorded it (v1).
        if version == "v1":
            users = [v.text for v in app.query(MessageView) if v.role == "user"]
            assert users == ["go"]
        else:
            assert [p.text for p in app.query(QueuedPrompt)] == ["go"]
        assert_no_traceback(app)
        assert app.is_running
    await pids.wait_gone()


async def test_quitting_while_the_crash_banner_mounts(
    app_cwd: Path, pids: Pids
) -> None:
    """The app may end while it is still showing a failure: no traceback then
    either (it used to raise NoMatches for the status bar of a removed screen)."""
    app = fault_app("exit-init", app_cwd)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        app.exit()
    assert app.return_code == 0
    await pids.wait_gone()
