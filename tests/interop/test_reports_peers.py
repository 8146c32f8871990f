"""claude-agent-acp reports about itself over the scripted model server.

It sends a `notice` when an MCP server the client named fails to start, and a
context compaction (`compaction_update`, its summary taken from the model's
`<summary>`) when the user runs `/compact`, in v1 only to a client that opted in
(`clientCapabilities.session.notices` / `.compaction`: without them it writes a
bold agent message and a tool call instead), in v2 always. One session per
version: a turn with a broken MCP server configured, then `/compact` in the same
session (`--session`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.interop.real_agents import AGENTS, Workspace, print_json
from tests.modelserver._script import Text

pytestmark = pytest.mark.interop

SUMMARY = "The user asked for a greeting; the agent said hello."
COMPACTED = (
    f"<analysis>\nNothing else happened.\n</analysis>\n<summary>\n{SUMMARY}\n</summary>"
)


def reports(document: dict[str, Any]) -> list[str]:
    kinds = ("agent_notice", "compaction")
    return [entry["kind"] for entry in document["timeline"] if entry["kind"] in kinds]


@pytest.mark.parametrize("key", ["claude-v1", "claude-v2"])
def test_a_failed_mcp_server_notice_and_a_compaction(key: str, tmp_path: Path) -> None:
    agent = AGENTS[key]
    workspace = Workspace(tmp_path).create()
    config = workspace.acp_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[mcp_servers.broken]\ncommand = "/bin/false"\n')
    # The compaction's request carries the conversation: the turn's second reply.
    script = agent.script({"say hello": [(Text("Hello there."),), (Text(COMPACTED),)]})
    with agent.server(script) as server:
        env = agent.environment(workspace, server)
        first = print_json(agent, workspace, env, "say hello", "--timeout", "120")
        assert first.code == 0, first.err
        assert first.document["notices"] == [
            {
                "id": "0",
                "severity": "warning",
                "title": 'MCP server "broken" failed to start',
                "description": (
                    "Its tools are unavailable in this session. Run /mcp for the error."
                ),
            }
        ]
        assert reports(first.document) == ["agent_notice"]
        assert "failed to start" not in str(first.document["messages"])
        session = first.document["sessionId"]
        second = print_json(
            agent, workspace, env, "/compact", "--session", session, "--timeout", "120"
        )
    assert second.code == 0, second.err
    (compaction,) = second.document["compactions"]
    assert compaction["status"] == "completed"
    assert compaction["summary"] == [{"type": "text", "text": SUMMARY}]
    assert "compaction" in reports(second.document)
    assert second.document["unknownUpdates"] == []
    assert second.document["toolCalls"] == []  # not shown as a tool call
