"""The full-screen app names a program that is not an ACP agent, with a hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.crash_banner import CrashBanner
from tests.ui.helpers import wait_for

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("cat",), "`cat` is not an ACP agent: it sent acp-tui's own initialize"),
        (("echo", "hi"), "`echo hi` is not an ACP agent: it wrote 'hi' instead"),
    ],
)
async def test_the_banner_says_it_is_not_an_agent(
    tmp_path: Path, argv: tuple[str, ...], said: str
) -> None:
    app = make_app(AgentCommand(argv=argv), argv[0], cwd=tmp_path, init_timeout=60)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: bool(app.query(CrashBanner)), bound=30)
        text = app.query_one(CrashBanner).text
        assert said in text
        assert "acp-tui agents" in text
        assert "RuntimeError" not in text
        assert app.is_running
