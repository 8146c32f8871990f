"""Pilot tests of the Textual app against the scripted fake agent subprocess."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from acp_tui.protocol.transport import AgentCommand
from acp_tui.render.highlight import COMMON_LANGUAGES
from acp_tui.ui import app as app_module
from acp_tui.ui import gc_policy
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.widgets.conversation import Banner
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.permission_view import PermissionView
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.ui.helpers import wait_for

pytestmark = pytest.mark.subprocess

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"
SIZE = (100, 30)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def fake_app(scenario: str, cwd: Path) -> AcpTuiApp:
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), scenario))
    return make_app(command, "fake", cwd=cwd, init_timeout=10.0)


def permission_armed(app: AcpTuiApp) -> bool:
    """A permission dialog is up and takes keys (its key guard has passed)."""
    screen = app.screen
    return isinstance(screen, PermissionScreen) and screen.armed


def turn_ended(app: AcpTuiApp) -> bool:
    store = app.store
    return store is not None and store.state.is_idle and store.state.turns_ended >= 1


def agent_text(app: AcpTuiApp) -> str:
    return "".join(v.text for v in app.query(MessageView) if v.role == "agent")


@pytest.mark.parametrize(
    ("scenario", "expected_text"), [("v2", "Hello "), ("v1", "Let me check.")]
)
async def test_turn_with_permission(
    tmp_path: Path, scenario: str, expected_text: str
) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hello")
        await pilot.press("enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(
            pilot,
            lambda: any(v.status == "completed" for v in app.query(ToolCallView)),
        )
        await wait_for(pilot, lambda: expected_text in agent_text(app))
        status = app.query_one(StatusBar).status_text()
        assert f"ACP v{scenario[1]}" in status
        assert "end_turn" in status
        assert not app.query(Banner)


async def test_failing_agent_shows_banner(tmp_path: Path) -> None:
    app = fake_app("exit-on-init", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)))
        banner = app.query_one(CrashBanner)
        assert "exited with code 3" in banner.text
        assert any("missing credentials" in line for line in banner.stderr_tail)
        assert app.is_running
        await pilot.press(*"still here")
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running


@pytest.mark.parametrize("scenario", ["v2", "v1"])
async def test_escape_cancels_and_queued_prompt_follows(
    tmp_path: Path, scenario: str
) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press(*"next", "enter")
        assert app.query_one(StatusBar).queued == 1
        await pilot.press("escape")
        await wait_for(
            pilot,
            lambda: app.store is not None and app.store.state.turns_ended >= 1,
        )
        assert app.store is not None
        assert app.store.state.last_stop_reason == "cancelled"
        await wait_for(pilot, lambda: app.query_one(StatusBar).queued == 0)


def permissions(app: AcpTuiApp) -> list[PermissionView]:
    return list(app.query(PermissionView))


@pytest.mark.parametrize(
    ("scenario", "key", "label"),
    [
        ("v2", "n", "rejected once"),
        ("v1", "n", "rejected once"),
        ("v2", "escape", "cancelled"),
        ("v1", "escape", "cancelled"),
        ("v2", "y", "allowed once"),
        ("v1", "y", "allowed once"),
    ],
)
async def test_permission_answers_are_recorded(
    tmp_path: Path, scenario: str, key: str, label: str
) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        status = app.query_one(StatusBar).status_text()
        assert "waiting for you" in status
        assert "requires_action" not in status
        await pilot.press(key, key)  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(pilot, lambda: bool(permissions(app)))
        await wait_for(pilot, lambda: permissions(app)[0].outcome_label == label)
        assert app.store is not None
        (permission,) = app.store.permissions()
        expected = {"escape": "cancelled", "y": "selected", "n": "selected"}[key]
        assert permission.outcome is not None
        assert permission.outcome["outcome"] == expected


async def test_allow_always_is_not_asked_again(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("3", "3")  # Always allow
        await wait_for(pilot, lambda: turn_ended(app))
        await pilot.press(*"again", "enter")
        await wait_for(
            pilot,
            lambda: app.store is not None and app.store.state.turns_ended >= 2,
        )
        assert app.store is not None
        outcomes = [p.outcome for p in app.store.permissions()]
        # The second, the same `ls`, is allowed by acp-tui once, without asking.
        assert outcomes == [
            {"outcome": "selected", "optionId": "always"},
            {"outcome": "selected", "optionId": "yes"},
        ]


@pytest.mark.parametrize("scenario", ["v2", "v1"])
async def test_plans_show_inline_and_in_the_panel(
    tmp_path: Path, scenario: str
) -> None:
    app = fake_app(scenario, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: turn_ended(app))
        await wait_for(pilot, lambda: bool(app.query(PlanView)))
        panel = app.query_one(PlanPanel)
        assert not panel.display
        await pilot.press("f4")
        assert panel.display
        assert app.store is not None
        assert panel.plan_ids == [p.plan_id for p in app.store.plans()]
        assert panel.plan_ids


async def test_quitting_shuts_the_agent_down(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        transport = app.runner.launcher.transport
        assert transport is not None
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert transport.returncode is None  # running, a request pending
        app.exit()
    assert transport.returncode is not None  # reaped before the app returned


async def test_teardown_without_exit_still_reaps_the_agent(tmp_path: Path) -> None:
    """The harness (or a crash) ends the loop without `exit()`: Textual then
    cancels the workers with a bare task cancel, which must not cut the agent's
    shutdown short."""
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        transport = app.runner.launcher.transport
        assert transport is not None
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert transport.returncode is None
    assert transport.returncode is not None


async def test_restart_while_running_replaces_the_agent(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        first = app.runner.launcher.transport
        assert first is not None
        old_store = app.store
        await pilot.press("ctrl+r")
        await wait_for(
            pilot, lambda: app.store is not None and app.store is not old_store
        )
        assert first.returncode is not None  # the old agent was reaped
        second = app.runner.launcher.transport
        assert second is not None
        assert second is not first
        assert second.returncode is None
        assert app.runner.running


async def test_no_lexer_is_compiled_while_a_turn_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn that sends nothing for a while is not a quiet session: a compile
    (20-70 ms) would hold back the first frames of its answer."""
    monkeypatch.setattr(app_module, "WARM_STEP", 0.3)  # some are left to warm
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        left = app.lexers_to_warm
        assert len(left) > len(COMMON_LANGUAGES) // 2
        bridge = app.runner.bridge
        assert bridge is not None
        await wait_for(pilot, lambda: bridge.quiet_for() > 3 * app_module.WARM_STEP)
        assert app.lexers_to_warm == left
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.lexers_to_warm)


async def test_a_pane_change_after_the_tab_bar_is_gone_is_ignored(
    tmp_path: Path,
) -> None:
    """As the app closes its widgets go first: a session's late `Changed` (seen
    in CI with claude-agent-acp answering as the test quit) raised NoMatches."""
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await app.query_one("#tab-bar").remove()
        app.post_message(SessionPane.Changed(app.query_one(SessionPane)))
        await pilot.pause()
        assert app.is_running
    assert app.return_code in (None, 0)


async def test_the_first_common_lexer_is_compiled_as_the_session_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python's lexer does not wait for a quiet session: a turn answered with a
    fence soon after the session opened would compile it inside a frame."""
    monkeypatch.setattr(app_module, "WARM_QUIET", 60.0)  # no quiet warming here
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert app.lexers_to_warm == COMMON_LANGUAGES
        await wait_for(pilot, lambda: app.lexers_to_warm != COMMON_LANGUAGES)
        assert COMMON_LANGUAGES[0] == "python"
        rest: tuple[str, ...] = COMMON_LANGUAGES[1:]
        assert app.lexers_to_warm == rest


async def test_the_markdown_parser_is_warmed_as_the_session_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its first parse compiles linkify's patterns (about 20 ms): not inside the
    first frame of the first agent message."""
    warmed: list[None] = []
    monkeypatch.setattr(app_module, "warm_parser", lambda: warmed.append(None))
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(warmed))
        await pilot.pause()
    assert warmed == [None]


async def test_lexers_are_compiled_once_the_session_is_used_and_quiet(
    tmp_path: Path,
) -> None:
    """An idle app compiles Python's lexer only: the others' modules (about
    7 MB) wait for text typed into the prompt (issue 28: idle RSS)."""
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.lexers_to_warm == COMMON_LANGUAGES[1:])
        bridge = app.runner.bridge
        assert bridge is not None
        idle = bridge.quiet_for() + app_module.WARM_QUIET + 5 * app_module.WARM_STEP
        await wait_for(pilot, lambda: bridge.quiet_for() > idle)
        assert app.lexers_to_warm == COMMON_LANGUAGES[1:]
        await pilot.press("h")
        await wait_for(pilot, lambda: not app.lexers_to_warm)


async def test_the_terminal_emulator_is_imported_once_the_session_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyte (about 25 ms) is imported ahead of the first terminal card, in a
    quiet step after the lexers', not inside the frame that mounts the card;
    not while the app idles unused (issue 28: idle RSS)."""
    app = fake_app("v2", tmp_path)
    warmed: list[tuple[str, ...]] = []
    monkeypatch.setattr(
        app_module, "warm_terminal", lambda: warmed.append(app.lexers_to_warm)
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.lexers_to_warm == COMMON_LANGUAGES[1:])
        bridge = app.runner.bridge
        assert bridge is not None
        idle = bridge.quiet_for() + app_module.WARM_QUIET + 5 * app_module.WARM_STEP
        await wait_for(pilot, lambda: bridge.quiet_for() > idle)
        assert warmed == []
        await pilot.press("h")
        await wait_for(pilot, lambda: bool(warmed))
    assert warmed == [()]  # after the lexers


class PausableTimer:
    """Records pause/resume, as Textual's `Timer` takes them."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def pause(self) -> None:
        self.calls.append("pause")

    def resume(self) -> None:
        self.calls.append("resume")


def test_deferred_collections_only_while_the_user_acts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check for a full collection to run after a frame (every 50 ms) pauses
    once the user stopped acting, and Python collects as without it: an idle
    app is not woken 20 times a second. The next input defers again."""
    app = fake_app("v2", tmp_path)
    timer = PausableTimer()
    monkeypatch.setattr(app, "_gc_after", timer)
    monkeypatch.setattr(gc_policy._collector, "deferring", True)
    now = time.monotonic()
    app._last_input = now - 0.1
    app._collect_after_frame()
    assert timer.calls == []
    assert gc_policy._collector.deferring
    app._last_input = now - app_module.DEFER_AFTER_INPUT - 0.1
    app._collect_after_frame()
    assert timer.calls == ["pause"]
    assert not gc_policy._collector.deferring
    app._defer_collections()  # what a key or the mouse calls (`on_event`)
    assert timer.calls == ["pause", "resume"]
    assert gc_policy._collector.deferring
    app._defer_collections()
    assert timer.calls == ["pause", "resume"]  # once


COLLECTION_TIMERS = ("quiet-collect", "gc-after")


async def test_the_start_ups_freed_memory_is_given_back_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the app's collector policy (the CLI's), the heap is trimmed once,
    `START_TRIM_DELAY` after the first session opened (bench/idle_cli.py); not
    again when a restart opens another (nor its collection timers twice)."""
    trims: list[float] = []
    # The policy stays off in this process (it is process-wide).
    monkeypatch.setattr(app_module, "tune_garbage_collector", lambda: None)
    monkeypatch.setattr(app_module, "defer_quiet_collections", lambda: None)

    def trim() -> bool:
        trims.append(1.0)
        return True

    monkeypatch.setattr(app_module, "trim_heap", trim)
    monkeypatch.setattr(app_module, "START_TRIM_DELAY", 0.05)
    app = fake_app("v2", tmp_path)
    app.tune_gc = True
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(trims))
        old_store = app.store
        await pilot.press("ctrl+r")  # a new agent, a new session opened
        await wait_for(
            pilot, lambda: app.store is not None and app.store is not old_store
        )
        bridge = app.runner.bridge
        assert bridge is not None
        quiet = bridge.quiet_for() + 0.2  # four delays more: still once
        await wait_for(pilot, lambda: bridge.quiet_for() > quiet)
        named = sorted(t.name for t in app._timers if t.name in COLLECTION_TIMERS)
        assert named == sorted(COLLECTION_TIMERS)  # each once
    assert trims == [1.0]


async def test_a_turn_started_without_typing_uses_the_session(tmp_path: Path) -> None:
    """A prompt sent by the runner (a replay, the benches): its turn starts them."""
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.lexers_to_warm == COMMON_LANGUAGES[1:])
        app.runner.prompts.put_nowait((1, "hang"))
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.lexers_to_warm)


async def test_no_lexer_is_compiled_while_the_user_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typing goes on while the store is quiet: a compile (10-60 ms, the filename
    index up to 200 ms) would hold back the echo of the next key."""
    monkeypatch.setattr(app_module, "WARM_INPUT_QUIET", 60.0)
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.lexers_to_warm == COMMON_LANGUAGES[1:])
        await pilot.press("h")
        bridge = app.runner.bridge
        assert bridge is not None
        idle = bridge.quiet_for() + app_module.WARM_QUIET + 5 * app_module.WARM_STEP
        await wait_for(pilot, lambda: bridge.quiet_for() > idle)
        assert app.lexers_to_warm == COMMON_LANGUAGES[1:]
        # (With input quiet too they are compiled: the test above.)
