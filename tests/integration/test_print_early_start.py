"""`acp-tui print` starts the agent before it imports the client stack
(`frontends.print_early`), so the agent boots while that import runs.

Run in a fresh interpreter, as the command runs: an audit hook notes whether the
client stack (`acp_tui.client.connection`, the wire models) was imported when
the agent's process was started.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.print_probe import run_probe

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
    completed = run_probe(PROBE, tmp_path, *args)
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
