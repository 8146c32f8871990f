"""`acp-tui replay`: a banner says what is played and what to type; the end is said."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui import cli
from acp_tui.demo.replay import OVER
from acp_tui.frontends.replay import recorded_prompts, replay_banner, replay_command
from acp_tui.protocol.recording import read_recording
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.conversation import Banner
from tests.ui.helpers import wait_for
from tests.ui.test_app import agent_text

RECORDING = (
    Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "claude-v1.jsonl"
)
BANNER = (
    "Replaying claude-v1.jsonl: 1 recorded turn. Type any prompt and press Enter "
    "to play the next turn (the recorded prompts: 1. 'make hello.py'). When all "
    "are played, the replay is over: ctrl+q quits."
)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def test_the_recorded_prompts_are_read() -> None:
    lines = read_recording(RECORDING).connections[-1]
    assert recorded_prompts(lines) == ["make hello.py"]
    assert replay_banner(RECORDING) == BANNER


def test_the_cli_gives_the_app_the_banner(monkeypatch: pytest.MonkeyPatch) -> None:
    from acp_tui.ui import app as app_module

    banners: list[object] = []

    class Captured:
        def __init__(self, *args: object, banner: object, **kw: object) -> None:
            banners.append(banner)

        def run(self) -> None:
            pass

    monkeypatch.setattr(app_module, "make_app", Captured)
    monkeypatch.setattr(cli, "_screen_problem", lambda: None)
    assert cli.main(["replay", str(RECORDING), "--instant"]) == 0
    assert banners == [BANNER]


@pytest.fixture
def recording(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A demo turn recorded by `acp-tui print --record`."""
    path = tmp_path / "demo.jsonl"
    argv = ["print", "--agent", "demo", "--record", str(path), "/markdown"]
    assert cli.main(argv) == 0
    capsys.readouterr()
    return path


@pytest.mark.subprocess
async def test_the_banner_shows_and_a_prompt_past_the_end_says_it_is_over(
    tmp_path: Path, recording: Path
) -> None:
    banner = replay_banner(recording)
    assert banner is not None
    assert "1 recorded turn" in banner
    assert "'/markdown'" in banner
    command = replay_command(recording, speed=None)
    app = make_app(command, "replay", cwd=tmp_path, init_timeout=20.0, banner=banner)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20.0)
        assert [n.message for n in app._notifications] == [banner]
        store = app.store
        assert store is not None
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: store.state.turns_ended == 1, bound=20.0)
        await pilot.press(*"more", "enter")
        await wait_for(pilot, lambda: store.state.turns_ended == 2, bound=20.0)
        await wait_for(pilot, lambda: OVER in agent_text(app), bound=20.0)
        assert store.state.stop_reason == "end_turn"
        assert not app.query(Banner)  # a turn that ends normally, not an error
        assert app.is_running
        await app.runner.stop()
