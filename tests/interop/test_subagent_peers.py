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

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import make_app
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.subagent_lane import SubagentLane
from tests.interop.real_agents import (
    AGENTS,
    PrintRun,
    Workspace,
    environment,
    print_json,
)
from tests.modelserver._script import ByPrompt, Gate, Text, ToolUse
from tests.ui.helpers import wait_for

pytestmark = pytest.mark.interop

PROMPT = "delegate the count"
TASK = "SUBTASK count the files"
SUB_ANSWER = "Sub says: 3 files."


def task_script(key: str, written: Path) -> ByPrompt:
    """The parent calls Task; the subagent writes `written`, then answers."""
    agent = AGENTS[key]
    return agent.script(
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


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
def test_claude_subagent_shows_as_a_lane(key: str, tmp_path: Path) -> None:
    agent = AGENTS[key]
    workspace = Workspace(tmp_path).create()
    written = workspace.project / "sub.txt"
    script = task_script(key, written)
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


CANCEL_AFTER: tuple[float, ...] = (6, 12)
"""`print --timeout` of the subagent cancel, tried in turn until the subagent's
stream got to the gate before it fired (12 s, the only try before, stays for a
slow host); each second of it is a second of the test."""


def cancelled_with_a_subagent(
    key: str, root: Path, after: float
) -> tuple[PrintRun, Gate, Path]:
    """`print --timeout AFTER` while the subagent's model stream is held at a gate:
    the run, the gate and the recording."""
    agent = AGENTS[key]
    workspace = Workspace(root).create()
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
                str(after),
                "--record",
                str(recording),
            )
        finally:
            gate.event.set()
    return run, gate, recording


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
def test_cancelling_the_turn_cancels_claudes_subagent(key: str, tmp_path: Path) -> None:
    """`print --timeout` cancels the turn while the subagent's model stream is
    held: acp-tui sends `session/cancel` for the parent and for the child (its
    `cancel` capability), and the lane ends cancelled."""
    for attempt, after in enumerate(CANCEL_AFTER):
        run, gate, recording = cancelled_with_a_subagent(
            key, tmp_path / f"try-{attempt}", after
        )
        if gate.reached.is_set():
            break
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


async def test_claude_subagent_lane_in_the_app(tmp_path: Path) -> None:
    """The app (Pilot) shows claude-agent-acp's subagent as a lane that ends done,
    its write allowed in the permission dialog."""
    agent = AGENTS["claude-v2"]
    workspace = Workspace(tmp_path).create()
    written = workspace.project / "sub.txt"
    with agent.server(task_script("claude-v2", written)) as server:
        env = agent.environment(workspace, server)
        command = AgentCommand(argv=agent.argv(), env=env, cwd=workspace.project)
        app = make_app(
            command,
            agent.key,
            cwd=workspace.project,
            choice="2",
            init_timeout=120,
            request=SessionRequest(action="new"),
        )
        with environment({"ACP_TUI_HOME": env["ACP_TUI_HOME"]}):
            async with app.run_test(size=(100, 40)) as pilot:
                await wait_for(pilot, lambda: app.store is not None, 120)
                await pilot.press(*PROMPT, "enter")

                def lane_done() -> bool:
                    lanes = list(app.query(SubagentLane))
                    return bool(lanes) and "done" in lanes[0].header_text().plain

                for _ in range(600):  # the write asks: allow it, until the lane ends
                    if lane_done():
                        break
                    if isinstance(app.screen, PermissionScreen) and app.screen.armed:
                        await pilot.press("y")
                    await pilot.pause(0.1)
                assert lane_done()
                [lane] = app.query(SubagentLane)
                assert "Count files" in lane.header_text().plain
    assert written.read_text() == "from the subagent\n"
