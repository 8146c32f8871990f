"""`acp-tui print` and `acp-tui sessions` against real agents, by catalogue name.

Prompts to real models cannot succeed here (no network beyond the package
registries), so these check the failure and cancellation paths end cleanly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from acp_tui.cli import main
from tests.interop.conftest import BIN, Peer

pytestmark = pytest.mark.interop

TIMEOUT = 5
"""`print --timeout` for opencode, whose turn hangs with no model reachable: it is
counted from the prompt, so the test waits that long."""


def use_peer(monkeypatch: pytest.MonkeyPatch, peer: Peer) -> None:
    """Put the peer (and its Node) on PATH so `--agent NAME` finds it."""
    path = peer.env.get("PATH", os.environ.get("PATH", ""))
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{path}")
    for key, value in peer.env.items():
        if key != "PATH":
            monkeypatch.setenv(key, value)


def test_print_opencode_ends_cleanly_on_timeout(
    opencode: Peer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    use_peer(monkeypatch, opencode)
    code = main(
        [
            "print",
            "--agent",
            "opencode",
            "--cwd",
            str(tmp_path),
            "--timeout",
            str(TIMEOUT),
            "--format",
            "json",
            "hi",
        ]
    )
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    document: dict[str, Any] = json.loads(captured.out)
    assert document["protocolVersion"] == 1
    assert document["agent"]["name"] == "OpenCode"
    assert document["state"] == "idle"
    if code == 4:  # no model reachable: our timeout cancelled the turn
        assert f"the turn was cancelled after {TIMEOUT} s" in captured.err
    else:
        assert code == 0, captured.err
    # The session it created is listed by `acp-tui sessions`.
    code = main(
        ["sessions", "--agent", "opencode", "--cwd", str(tmp_path), "--format", "json"]
    )
    listed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert document["sessionId"] in [s["sessionId"] for s in listed]
    assert all({"sessionId", "cwd"} <= set(s) for s in listed)


def test_print_claude_code_exits_3_with_the_agents_error(
    claude_agent: Peer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    use_peer(monkeypatch, claude_agent)
    code = main(["print", "--agent", "claude-code", "--cwd", str(tmp_path), "hi"])
    captured = capsys.readouterr()
    assert code == 3, captured.err
    assert "Traceback" not in captured.err
    assert "API Error" in captured.out + captured.err
    assert "\x1b" not in captured.out
