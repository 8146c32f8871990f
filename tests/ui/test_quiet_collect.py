"""The user's input counts as activity for the garbage-collector policy.

What the conversation drops while the user scrolls a long session (cards
unmounted far from the view) is frozen garbage until a collection; the app
collects it once neither input nor store changes came for a while
(`gc_policy.collect_if_quiet`), so a key or a scroll must hold that pause off.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui import gc_policy
from acp_tui.ui.app import make_app
from tests.ui.helpers import wait_for

pytestmark = pytest.mark.subprocess

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"


async def test_keys_and_the_mouse_are_noted_as_activity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), "v2"))
    app = make_app(command, "fake", cwd=tmp_path, init_timeout=10.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.store is not None, 10.0)
        monkeypatch.setattr(gc_policy, "_last_activity", 0.0)
        await pilot.press("x")
        assert gc_policy._last_activity > 0.0
        monkeypatch.setattr(gc_policy, "_last_activity", 0.0)
        await pilot.hover(offset=(10, 5))  # the mouse, as when it scrolls
        assert gc_policy._last_activity > 0.0
