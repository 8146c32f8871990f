"""The app's warm-up steps (lexers compiled, the terminal emulator imported
ahead of use): off the disk, and out of the user's way."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from textual import events

from acp_tui.client.runner import SessionRequest
from acp_tui.protocol.transport import AgentCommand
from acp_tui.render import highlight
from acp_tui.render.highlight import COMMON_LANGUAGES
from acp_tui.ui import app as app_module
from acp_tui.ui.app import TERMINAL_MODULE, AcpTuiApp, make_app
from tests.ui.helpers import wait_for
from tests.ui.test_app import FAKE_AGENT, SIZE, _home, fake_app

pytestmark = pytest.mark.subprocess

__all__ = ["_home"]


def send_key(app: AcpTuiApp, key: str) -> None:
    """A key as a terminal's driver hands it over (what bench/long_session.py does)."""
    driver = app._driver
    assert driver is not None
    driver.process_message(events.Key(key, None))


async def test_a_key_from_the_driver_counts_as_input(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        app._last_input = before = 0.0
        send_key(app, "pageup")
        await wait_for(pilot, lambda: app._last_input > before)


async def test_no_step_runs_while_keys_come_from_the_driver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paging up with keys held down: no compile in the frames of the pages."""
    monkeypatch.setattr(app_module, "WARM_INPUT_QUIET", 60.0)
    steps: list[str] = []
    monkeypatch.setattr(app_module, "warm_lexer", steps.append)
    monkeypatch.setattr(app_module, "warm_terminal", lambda: steps.append("terminal"))
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        send_key(app, "pageup")
        app._session_used()  # (a turn started, say)
        bridge = app.runner.bridge
        assert bridge is not None
        idle = bridge.quiet_for() + app_module.WARM_QUIET + 5 * app_module.WARM_STEP
        await wait_for(pilot, lambda: bridge.quiet_for() > idle)
        assert steps == ["python"]  # as the session opened, before the keys


async def test_the_imports_run_in_a_thread_before_the_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step compiles on the event loop; what it would read from the disk (the
    lexer modules, the terminal emulator's) is imported in a worker thread
    first, so no step waits on the disk."""
    events_seen: list[tuple[str, bool]] = []
    real_prefetch = highlight.prefetch_lexers
    real_warm = highlight.warm_lexer

    def prefetch(languages: list[str], then: tuple[str, ...]) -> None:
        main = threading.current_thread() is threading.main_thread()
        events_seen.append(
            ("prefetch " + ",".join(languages) + " " + ",".join(then), main)
        )
        real_prefetch(languages, then)
        events_seen.append(("prefetched", main))

    def warm(language: str) -> bool:
        main = threading.current_thread() is threading.main_thread()
        events_seen.append((f"compile {language}", main))
        return real_warm(language)

    monkeypatch.setattr(app_module, "prefetch_lexers", prefetch)
    monkeypatch.setattr(app_module, "warm_lexer", warm)
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.lexers_to_warm == COMMON_LANGUAGES[1:])
        await pilot.press("h")
        await wait_for(pilot, lambda: not app.lexers_to_warm and app._terminal_warm)
    rest = ",".join(COMMON_LANGUAGES[1:])
    assert (
        events_seen
        == [
            ("compile python", True),  # as the session opened
            (f"prefetch {rest} {TERMINAL_MODULE}", False),
            ("prefetched", False),
            *((f"compile {language}", True) for language in COMMON_LANGUAGES[1:]),
        ]
    )


async def test_a_session_opened_with_its_history_is_warmed_without_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resumed, it is paged through at once: every common lexer is compiled
    while it is quiet, before anything is typed (a new session waits for use)."""
    steps: list[str] = []
    monkeypatch.setattr(app_module, "warm_lexer", steps.append)
    monkeypatch.setattr(app_module, "warm_terminal", lambda: steps.append("terminal"))
    app = make_app(
        AgentCommand(argv=(sys.executable, str(FAKE_AGENT), "v2-full")),
        "fake",
        cwd=tmp_path,
        init_timeout=10.0,
        request=SessionRequest("resume", "s-gamma"),
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "terminal" in steps)
        assert app.store is not None
        assert app.store.timeline()
        assert steps == [*COMMON_LANGUAGES, "terminal"]


async def test_a_new_session_is_not_warmed_until_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counterpart: opened empty and left idle, only the first lexer is
    compiled (an idle app never holds the rest's modules)."""
    monkeypatch.setattr(app_module, "WARM_QUIET", 0.01)
    monkeypatch.setattr(app_module, "WARM_INPUT_QUIET", 0.01)
    steps: list[str] = []
    monkeypatch.setattr(app_module, "warm_lexer", steps.append)
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None and steps == ["python"])
        bridge = app.runner.bridge
        assert bridge is not None
        await wait_for(pilot, lambda: bridge.quiet_for() > 0.5)
        assert steps == ["python"]
        store = app.store
        assert store is not None
        assert not store.timeline()
