"""Record and replay end to end: `--record`, the replay agent, `acp-tui replay`.

The acceptance check of issue 9: a turn of the demo agent recorded with
`acp-tui print --record FILE`, then played back by the replay agent
(`python -m acp_tui.demo.replay FILE --instant`) to the same `acp-tui print`,
gives the same JSON document. Nothing in the document is volatile: the session id
and the demo's `updatedAt` come from the agent, so the replay repeats them.

The app's side: `--record` through the agent runner, and `acp-tui replay`'s
command played into the real UI with Pilot.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest

from acp_tui.cli import build_parser, main
from acp_tui.demo.pacing import DELAY_ENV
from acp_tui.frontends.replay import replay_command
from acp_tui.protocol.recording import read_recording
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import AcpTuiApp, make_app
from tests.ui.helpers import wait_for
from tests.ui.test_app import agent_text, turn_ended

pytestmark = pytest.mark.subprocess

DEMO: Final = f"{sys.executable} -m acp_tui.demo"
SIZE: Final = (100, 30)


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv(DELAY_ENV, "0")


def print_json(
    capsys: pytest.CaptureFixture[str], agent: str, cwd: Path, *args: str
) -> tuple[int, dict[str, Any]]:
    code = main(
        ["print", "--agent", agent, "--cwd", str(cwd), "--format", "json", *args]
    )
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, document


def replay_agent(path: Path, *extra: str) -> str:
    return f"{sys.executable} -m acp_tui.demo.replay {path} --instant {' '.join(extra)}"


@pytest.mark.parametrize(
    ("prompt", "options", "replay_options", "expected_code"),
    [
        ("hello", (), (), 0),  # the default: v2, a plan, a read, markdown
        ("/permission", ("--protocol", "2", "--permissions", "allow"), (), 0),
        ("/misbehave", ("--protocol", "2"), (), 4),
        ("/edit", ("--protocol", "1", "--permissions", "allow"), (), 0),
        (
            "/run",
            ("--protocol", "1", "--permissions", "allow"),
            ("--client-effects",),
            0,
        ),
    ],
)
def test_replay_reproduces_the_live_document(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    prompt: str,
    options: tuple[str, ...],
    replay_options: tuple[str, ...],
    expected_code: int,
) -> None:
    recording = tmp_path / "turn.jsonl"
    code, live = print_json(
        capsys, DEMO, tmp_path, "--record", str(recording), *options, prompt
    )
    assert code == expected_code
    assert live["messages"], "the live turn produced messages"
    assert read_recording(recording).header["agent"].endswith("-m acp_tui.demo")
    code, replayed = print_json(
        capsys, replay_agent(recording, *replay_options), tmp_path, *options, prompt
    )
    assert code == expected_code
    assert replayed == live


def test_v1_terminals_are_not_rerun_by_default(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Without `--client-effects` the client is never asked to run a command."""
    recording = tmp_path / "run.jsonl"
    options = ("--protocol", "1", "--permissions", "allow")
    code, live = print_json(
        capsys, DEMO, tmp_path, "--record", str(recording), *options, "/run"
    )
    assert code == 0
    assert live["terminals"], "the live v1 run used a client-owned terminal"
    code, replayed = print_json(
        capsys, replay_agent(recording), tmp_path, *options, "/run"
    )
    assert code == 0
    assert [t["command"] for t in live["terminals"]] != [None]
    assert [t["command"] for t in replayed["terminals"]] == [None]
    assert [t["output"] for t in replayed["terminals"]] == [""]
    assert replayed["messages"] == live["messages"]


def test_replay_command_rejects_a_file_that_is_not_a_recording(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": 1}\n')
    assert main(["replay", str(path)]) == 2
    assert "not an acp-tui recording" in capsys.readouterr().err


def test_replay_command_line_reaches_the_replay_agent(tmp_path: Path) -> None:
    command = replay_command(tmp_path / "a.jsonl", speed=2.5, connection=0)
    assert command.argv[1:4] == ("-m", "acp_tui.demo.replay", str(tmp_path / "a.jsonl"))
    assert command.argv[4:] == ("--speed", "2.5", "--connection", "0")
    instant = replay_command(tmp_path / "a.jsonl", speed=None, client_effects=True)
    assert instant.argv[4:] == ("--instant", "--client-effects", "--connection", "-1")


def test_record_is_an_option_of_the_app_and_of_print() -> None:
    parser = build_parser()
    assert parser.parse_args(["--record", "a.jsonl"]).record == Path("a.jsonl")
    args = parser.parse_args(["print", "--record", "b.jsonl", "hi"])
    assert args.record == Path("b.jsonl")
    args = parser.parse_args(["replay", "c.jsonl", "--speed", "4"])
    assert (args.file, args.speed, args.instant) == (Path("c.jsonl"), 4.0, False)
    with pytest.raises(SystemExit):
        parser.parse_args(["replay", "c.jsonl", "--speed", "4", "--instant"])


# --- The app. ----------------------------------------------------------------------


async def run_turn(app: AcpTuiApp, prompt: str, shown: Callable[[str], bool]) -> str:
    """Send `prompt`, wait for the end of the turn and for `shown(agent text)`."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20.0)
        await pilot.press(*prompt)
        await pilot.press("enter")
        await wait_for(pilot, lambda: turn_ended(app), bound=20.0)
        await wait_for(pilot, lambda: shown(agent_text(app)), bound=20.0)
        text = agent_text(app)
        await app.runner.stop()
    return text


async def test_app_records_and_replay_shows_the_recorded_turn(tmp_path: Path) -> None:
    recording = tmp_path / "app.jsonl"
    demo = AgentCommand(argv=(sys.executable, "-m", "acp_tui.demo"))
    live_app = make_app(demo, "demo", cwd=tmp_path, init_timeout=20.0, record=recording)
    live_text = await run_turn(live_app, "/markdown", lambda text: len(text) > 100)
    methods = [
        json.loads(line.data).get("method")
        for line in read_recording(recording).connections[-1]
        if line.direction == "out" and line.data is not None
    ]
    assert "session/prompt" in methods

    replay_app = make_app(
        replay_command(recording, speed=None), "replay", cwd=tmp_path, init_timeout=20.0
    )
    # Any prompt plays the recorded turn.
    replayed = await run_turn(replay_app, "go", lambda text: text == live_text)
    assert replayed == live_text
