"""acp-tui's own messages are valid: every line it sends, checked against the schema.

Turns with the demo agent (a real ACP peer) that exercise what acp-tui sends: the
v2 and v1 handshakes, session/new, a prompt, a permission answer, elicitation
answers, v1 file-system
answers and v1 terminals, and cancellation. Each is recorded with
`acp-tui print --record`, then every line acp-tui wrote is validated strictly with
the wire models of the version spoken on its connection (`check_schema` with
`side="client"`; the agent's lines only say which request a response answers).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

import pytest

from acp_tui.cli import main
from acp_tui.demo.pacing import DELAY_ENV
from acp_tui.frontends.check import check_schema
from acp_tui.protocol.recording import RecordedLine, read_recording

pytestmark = pytest.mark.subprocess

DEMO: Final = f"{sys.executable} -m acp_tui.demo"


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv(DELAY_ENV, "0")


def lines(connection: list[RecordedLine], direction: str) -> list[bytes]:
    return [
        line.data
        for line in connection
        if line.direction == direction and line.data is not None
    ]


def spoken_version(connection: list[RecordedLine]) -> int:
    """The version the agent answered in this connection's initialize."""
    for line in lines(connection, "in"):
        result = json.loads(line).get("result")
        if isinstance(result, dict) and "protocolVersion" in result:
            return int(result["protocolVersion"])
    raise AssertionError("no initialize response in the recording")


@pytest.mark.parametrize(
    ("prompt", "options", "version"),
    [
        ("hello", ("--protocol", "2"), 2),
        ("/permission", ("--protocol", "2", "--permissions", "allow"), 2),
        ("/permission", ("--protocol", "2", "--permissions", "reject"), 2),
        ("/edit", ("--protocol", "1", "--permissions", "allow"), 1),
        ("/run", ("--protocol", "1", "--permissions", "allow"), 1),
        ("/permission", ("--protocol", "1", "--permissions", "reject"), 1),
        # Elicitation answers: declined (form), cancelled (URL).
        ("/ask", ("--protocol", "2"), 2),
        ("/login", ("--protocol", "1", "--elicitation", "cancel"), 1),
        # Cancelled by the timeout (the demo paced as usual): session/cancel.
        ("/long", ("--protocol", "2", "--timeout", "1"), 2),
        ("/long", ("--protocol", "1", "--timeout", "1"), 1),
        (
            "/run long",
            ("--protocol", "1", "--permissions", "allow", "--timeout", "1"),
            1,
        ),
    ],
)
def test_every_line_acp_tui_sends_is_valid(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    prompt: str,
    options: tuple[str, ...],
    version: int,
) -> None:
    if "--timeout" in options:
        monkeypatch.delenv(DELAY_ENV)
    recording = tmp_path / "turn.jsonl"
    main(
        [
            "print",
            "--agent",
            DEMO,
            "--cwd",
            str(tmp_path),
            "--record",
            str(recording),
            *options,
            prompt,
        ]
    )
    capsys.readouterr()
    connections = read_recording(recording).connections
    assert connections
    checked = 0
    sent: list[str] = []
    for connection in connections:
        spoken = spoken_version(connection)
        assert spoken == version
        ours = lines(connection, "out")
        rows = check_schema(
            1 if spoken == 1 else 2, lines(connection, "in"), ours, side="client"
        )
        failures = [row.detail for row in rows if row.result != "pass"]
        assert failures == [], failures
        checked += len(ours)
        sent += [str(json.loads(line).get("method")) for line in ours]
    assert {"initialize", "session/new", "session/prompt"} <= set(sent)
    if "--timeout" in options:
        assert "session/cancel" in sent
