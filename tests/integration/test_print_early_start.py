"""`acp-tui print` starts the agent before it imports the client stack
(`frontends.print_early`), so the agent boots while that import runs.

Run in a fresh interpreter, as the command runs: an audit hook notes whether the
client stack (`acp_tui.client.connection`, the wire models) was imported when
the agent's process was started.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

AGENT = Path(__file__).resolve().parent.parent / "fakes" / "plain_stream_agent.py"

PROBE = """
import io, json, sys
spawns = []
def hook(event, args):
    if event == "subprocess.Popen":
        spawns.append("acp_tui.client.connection" in sys.modules)
sys.addaudithook(hook)
from acp_tui import cli
out, sys.stdout = sys.stdout, io.StringIO()
code = cli.main(["--agent", sys.argv[1], "print", "--format", "json", *sys.argv[2:]])
document, sys.stdout = sys.stdout.getvalue(), out
print(json.dumps({"code": code, "spawns": spawns, "document": document}))
"""


def _print(tmp_path: Path, *args: str) -> tuple[dict[str, object], str]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, f"{sys.executable} {AGENT} 50", *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={"ACP_TUI_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    result: dict[str, object] = json.loads(completed.stdout.splitlines()[-1])
    return result, completed.stderr


@pytest.mark.subprocess
def test_the_agent_is_started_before_the_client_stack_is_imported(
    tmp_path: Path,
) -> None:
    result, err = _print(tmp_path, "go")
    assert result["code"] == 0, err
    assert result["spawns"] == [False]  # one agent, started first
    document = json.loads(str(result["document"]))
    assert document["stopReason"] == "end_turn"
    assert document["protocolVersion"] == 2


@pytest.mark.subprocess
def test_unreadable_answers_start_no_agent(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text("[1, 2]", encoding="utf-8")
    result, err = _print(tmp_path, "--answers", str(answers), "go")
    assert result["code"] == 2
    assert "the answers must be a JSON object" in err
    assert result["spawns"] == []
