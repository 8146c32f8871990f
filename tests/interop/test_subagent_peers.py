"""claude-agent-acp's subagents as lanes, over the scripted Anthropic model server.

acp-tui declares the subagents RFD's `subagents` client capability (v1; v2 takes
child sessions as baseline), so claude-agent-acp reports each Agent/Task call as a
child session: a `subagent_update` on the parent, then the child's own updates
under its session id. The scripted model calls the Task tool (Claude Code runs
it as its Agent tool); the subagent's own request (its prompt is the task's)
writes a file (a permission it asks) and answers. `acp-tui print --format json`
must show the subagent with its own work, its permission in its own store.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.interop.real_agents import AGENTS, Workspace, print_json
from tests.modelserver._script import Gate, Text, ToolUse

pytestmark = pytest.mark.interop

PROMPT = "delegate the count"
TASK = "SUBTASK count the files"
SUB_ANSWER = "Sub says: 3 files."


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
def test_claude_subagent_shows_as_a_lane(key: str, tmp_path: Path) -> None:
    agent = AGENTS[key]
    workspace = Workspace(tmp_path).create()
    written = workspace.project / "sub.txt"
    script = agent.script(
        {
            PROMPT: [
                (
                    Text("Delegating."),
                    ToolUse(
                        "Task",
                        {
                            "description": "Count files",
                            "prompt": TASK,
                            "subagent_type": "general-purpose",
                            # In the foreground: the turn waits for it (a
                            # background one outlives a v2 turn, which ends idle).
                            "run_in_background": False,
                        },
                    ),
                ),
                (Text("Parent done."),),
            ],
            TASK: [
                agent.toolkit.write(written, "from the subagent\n"),
                (Text(SUB_ANSWER),),
            ],
        }
    )
    recording = workspace.root / "turn.jsonl"
    with agent.server(script) as server:
        run = print_json(
            agent,
            workspace,
            agent.environment(workspace, server),
            PROMPT,
            "--permissions",
            "allow",
            "--timeout",
            "150",
            "--record",
            str(recording),
        )
    assert run.code == 0, run.err
    document = run.document
    [subagent] = document["subagents"]
    assert subagent["title"] == "Count files"
    assert subagent["status"] == "done"
    assert {"kind": "subagent", "id": subagent["id"]} in document["timeline"]
    own = subagent["session"]
    texts = [b["text"] for m in own["messages"] for b in m["content"] if "text" in b]
    assert SUB_ANSWER in "".join(texts)
    assert [c["status"] for c in own["toolCalls"]] == ["completed"]
    assert written.read_text() == "from the subagent\n"
    # Its write was asked (and allowed) as its own, not the parent's.
    [permission] = own["permissions"]
    assert permission["outcome"]["outcome"] == "selected"
    assert document["permissions"] == []
    assert document["toolCalls"] == []
    assert all(SUB_ANSWER not in json.dumps(m) for m in document["messages"])
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    sent = [json.loads(e["line"]) for e in lines if e.get("dir") == "out"]
    initialize = next(m for m in sent if m.get("method") == "initialize")
    assert initialize["params"]["clientCapabilities"]["subagents"] == {}


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
def test_cancelling_the_turn_cancels_claudes_subagent(key: str, tmp_path: Path) -> None:
    """`print --timeout` cancels the turn while the subagent's model stream is
    held: acp-tui sends `session/cancel` for the parent and for the child (its
    `cancel` capability), and the lane ends cancelled."""
    agent = AGENTS[key]
    workspace = Workspace(tmp_path).create()
    gate = Gate(bound=60)
    task = "SUBTASK wait for the gate"
    script = agent.script(
        {
            PROMPT: [
                (
                    ToolUse(
                        "Task",
                        {
                            "description": "Wait",
                            "prompt": task,
                            "subagent_type": "general-purpose",
                            "run_in_background": False,
                        },
                    ),
                ),
                (Text("Parent done."),),
            ],
            task: [(Text("Starting."), gate, Text("never shown"))],
        }
    )
    recording = workspace.root / "turn.jsonl"
    with agent.server(script) as server:
        try:
            run = print_json(
                agent,
                workspace,
                agent.environment(workspace, server),
                PROMPT,
                "--timeout",
                "12",
                "--record",
                str(recording),
            )
        finally:
            gate.event.set()
    assert gate.reached.is_set()
    assert run.document["stopReason"] == "cancelled"
    [subagent] = run.document["subagents"]
    assert subagent["status"] == "cancelled"
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    sent = [json.loads(e["line"]) for e in lines if e.get("dir") == "out"]
    cancelled = [
        m["params"]["sessionId"] for m in sent if m.get("method") == "session/cancel"
    ]
    assert cancelled == [run.document["sessionId"], subagent["id"]]
