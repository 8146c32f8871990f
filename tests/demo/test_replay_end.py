"""The replay agent ends cleanly after the last recorded turn, in v1 and v2.

A prompt sent once the recording is played gets a turn of its own that ends
normally (`end_turn`) with one agent message saying the replay is over and what
to do next, in the recording's protocol version, and never a JSON-RPC error.
`acp-tui replay` also says so as soon as the last recorded turn has ended.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from acp_tui import cli
from acp_tui.demo.replay import ENDED, OVER
from acp_tui.frontends.replay import replay_agent
from acp_tui.protocol.recording import read_recording
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.conversation import Banner
from tests.demo.schema_check import validate_messages
from tests.ui.helpers import wait_for
from tests.ui.test_app import agent_text

pytestmark = pytest.mark.subprocess

BOUND: Final = 20.0
VERSIONS: Final = pytest.mark.parametrize("version", [1, 2])


@pytest.fixture
def recording(tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int) -> Path:
    """A demo `/markdown` turn recorded by `acp-tui print --record` (`version`)."""
    path = tmp_path / f"demo-v{version}.jsonl"
    argv = ["print", "--agent", "demo", "--protocol", str(version)]
    assert cli.main([*argv, "--record", str(path), "/markdown"]) == 0
    capsys.readouterr()
    return path


def session_start_only(recording: Path) -> Path:
    """The same recording cut before its first prompt: no recorded turn."""
    lines = recording.read_text().splitlines(keepends=True)
    first_prompt = next(i for i, line in enumerate(lines) if "session/prompt" in line)
    cut = recording.with_name(f"start-{recording.name}")
    cut.write_text("".join(lines[:first_prompt]))
    return cut


def agent_messages(recording: Path) -> tuple[list[dict[str, Any]], dict[Any, str]]:
    """What the agent sent in a recording, and the method of each client request."""
    sent: list[dict[str, Any]] = []
    requested: dict[Any, str] = {}
    for line in read_recording(recording).connections[-1]:
        assert line.data is not None
        message = json.loads(line.data)
        if line.direction == "in":
            sent.append(message)
        elif "method" in message and "id" in message:
            requested[message["id"]] = message["method"]
    return sent, requested


@VERSIONS
def test_a_prompt_past_the_end_ends_its_turn_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], recording: Path, version: int
) -> None:
    """`print` against a recording with no turn: exit 0 (end_turn), the message."""
    start = session_start_only(recording)
    agent = f"{sys.executable} -m acp_tui.demo.replay {start} --instant"
    seen = tmp_path / "seen.jsonl"
    argv = ["print", "--agent", agent, "--format", "json", "--record", str(seen)]
    assert cli.main([*argv, "hello"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["state"], document["stopReason"]) == ("idle", "end_turn")
    messages = document["messages"]
    assert [m["role"] for m in messages] == ["user", "agent"]
    assert messages[0]["content"] == [{"type": "text", "text": "hello"}]
    assert messages[1]["content"] == [{"type": "text", "text": OVER}]
    sent, requested = agent_messages(seen)
    assert not [m for m in sent if "error" in m]
    report = validate_messages(version, sent, requested)
    assert report.failures == []
    kinds = set(report.checked)
    assert "result session/prompt" in kinds
    if version == 2:
        assert {"update user_message", "update agent_message"} <= kinds
        assert "update state_update" in kinds
    else:
        assert "update agent_message_chunk" in kinds


@VERSIONS
async def test_the_app_says_the_replay_is_over_and_a_prompt_past_it_ends_cleanly(
    tmp_path: Path, recording: Path
) -> None:
    """`acp-tui replay`: the recorded turn, the notice, then a turn that says so."""
    command = replay_agent(
        recording, speed=None, connection=-1, client_effects=False, err=sys.stderr
    )
    assert command is not None
    app = make_app(command, "replay", cwd=tmp_path, init_timeout=BOUND)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=BOUND)
        store = app.store
        assert store is not None
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: store.state.turns_ended == 1, bound=BOUND)
        # Said once the last recorded turn ends, before any further prompt.
        await wait_for(pilot, lambda: ENDED in agent_text(app), bound=BOUND)
        assert OVER not in agent_text(app)
        await pilot.press(*"more", "enter")
        await wait_for(pilot, lambda: store.state.turns_ended == 2, bound=BOUND)
        await wait_for(pilot, lambda: OVER in agent_text(app), bound=BOUND)
        assert store.state.is_idle
        assert store.state.stop_reason == "end_turn"
        assert not app.query(Banner)
        assert app.is_running
        await app.runner.stop()
