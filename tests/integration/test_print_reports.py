"""`acp-tui print` of what the agent reports about itself, against the fake agent.

The fake agent's "reports" turn sends notices and a compaction (v1 only when the
client opted in with `clientCapabilities.session.notices` / `.compaction`, so
seeing them proves the opt-in reached it) and, in v2, a message from another
session. Both formats are checked, and the saved transcript replays them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import main
from acp_tui.storage.transcripts import read_transcript

pytestmark = pytest.mark.subprocess

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"


def fake(scenario: str) -> str:
    return f"{sys.executable} {FAKE_AGENT} {scenario}"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("ACP_TUI_HOME", str(path))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["print", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("scenario", ["v1", "v2"])
def test_text_shows_notices_and_the_compaction_where_they_came(
    capsys: pytest.CaptureFixture[str], scenario: str, tmp_path: Path
) -> None:
    code, out, err = run(
        capsys, "--agent", fake(scenario), "--cwd", str(tmp_path), "reports"
    )
    assert code == 0, err
    expected = [
        "[notice] ℹ info: Using the fast model",
        "[compacting context…]",
        "[context compacted]\n## Retained context\nThe user is fixing the parser.",
        "[notice] ⚠ warning: MCP server unavailable\n  Continuing without it.",
        "[agent]\nCarrying on.",
    ]
    positions = [out.find(piece) for piece in expected]
    assert -1 not in positions, out
    assert positions == sorted(positions), out
    assert "not advertised" not in out  # the v1 opt-ins reached the agent
    if scenario == "v2":
        assert "[↘ from session s-helper]\nFound 3 failing tests." in out


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("scenario", ["v1", "v2"])
def test_a_failed_compaction_says_why(
    capsys: pytest.CaptureFixture[str], scenario: str, tmp_path: Path
) -> None:
    code, out, err = run(
        capsys, "--agent", fake(scenario), "--cwd", str(tmp_path), "reports broken"
    )
    assert code == 0, err
    assert "[context compaction failed: summary too long]" in out
    assert "[context compacted]" not in out


@pytest.mark.parametrize("scenario", ["v1", "v2"])
def test_json_document_and_transcript_keep_them(
    capsys: pytest.CaptureFixture[str], scenario: str, tmp_path: Path, home: Path
) -> None:
    code, out, err = run(
        capsys,
        "--format",
        "json",
        "--agent",
        fake(scenario),
        "--cwd",
        str(tmp_path),
        "reports",
    )
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    kinds = [entry["kind"] for entry in doc["timeline"]]
    reports = [
        k for k in kinds if k in ("agent_notice", "compaction", "session_message")
    ]
    tail = ["session_message"] if scenario == "v2" else []
    assert reports == ["agent_notice", "compaction", "agent_notice", *tail]
    assert doc["notices"] == [
        {"id": "0", "severity": "info", "title": "Using the fast model"},
        {
            "id": "1",
            "severity": "warning",
            "title": "MCP server unavailable",
            "description": "Continuing without it.",
        },
    ]
    (compaction,) = doc["compactions"]
    assert compaction["compactionId"] == "cmp1"
    assert compaction["status"] == "completed"
    assert "".join(b["text"] for b in compaction["summary"]) == (
        "## Retained context\nThe user is fixing the parser."
    )
    if scenario == "v2":
        (message,) = doc["sessionMessages"]
        assert message["senderSessionId"] == "s-helper"
        assert (
            "".join(b["text"] for b in message["content"]) == "Found 3 failing tests."
        )
    else:
        assert "sessionMessages" not in doc
    assert doc["unknownUpdates"] == []
    (saved,) = home.rglob("*.jsonl")
    loaded = read_transcript(saved)
    assert loaded is not None
    replayed = loaded.store.to_json()
    for key in ("timeline", "notices", "compactions"):
        assert replayed[key] == doc[key]
