"""`acp-tui check` asks `auth/status` where the agent advertises it.

Against the scripted fake agent (`tests/fakes/agent.py`) with
`FAKE_AGENT_AUTH_STATUS=1`: one `auth/status` row per version, right after
`initialize`, that passes with the state and the number of accounts, and the
answer is part of the strict schema check.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import main

pytestmark = pytest.mark.subprocess

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"


@pytest.mark.parametrize("scenario", ["v2-full", "v1-relogin"])
def test_the_auth_status_row(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    scenario: str,
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FAKE_AGENT_AUTH_STATUS", "1")
    agent = f"{sys.executable} {FAKE_AGENT} {scenario}"
    main(["check", "--agent", agent, "--timeout", "5", "--format", "json"])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    rows = [c for c in document["checks"] if c["check"] == "auth/status"]
    versions = [1] if scenario.startswith("v1") else [2, 1]
    assert [(r["protocolVersion"], r["result"]) for r in rows] == [
        (v, "pass") for v in versions
    ]
    assert all(r["detail"] == "state authenticated, 1 account(s)" for r in rows)
    for version in versions:
        names = [
            c["check"] for c in document["checks"] if c["protocolVersion"] == version
        ]
        assert names[:2] == ["initialize", "auth/status"]
    schema = [c for c in document["checks"] if c["check"] == "schema"]
    assert all(c["result"] == "pass" for c in schema)
