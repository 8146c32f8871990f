"""Cancelling one tool call or terminal alone (v2), and markdown plans (v1 and
v2), against claude-agent-acp.

claude-agent-acp offers `tool_call/cancel` / `terminal/cancel` for work Claude
Code runs in the background (`capabilities.cancel`), and stops the task when
asked. The scripted model runs `sleep` in the background with Bash, then ends
the turn; the agent offers to cancel its terminal (`terminal/cancel`), acp-tui's
client cancels it through the same path the card's `x` and the palette take
(`client.cancel_one`), and the agent reports the terminal's exit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from acp_tui.client.cancel_one import CancelKind, cancel_one, cancellable
from acp_tui.client.connection import connect
from acp_tui.client.plan_documents import plan_document
from acp_tui.client.ports import PermissionPolicy
from acp_tui.client.session import AcpClient
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from acp_tui.store.store import SessionStore
from tests.interop.real_agents import AGENTS, RealAgent, Workspace
from tests.modelserver._script import ByPrompt, Text, ToolUse

pytestmark = [pytest.mark.interop, pytest.mark.subprocess]

BOUND = 120.0
PROMPT = "wait in the background"


def offered(client: AcpClient, store: SessionStore) -> tuple[CancelKind, str] | None:
    for call in store.tool_calls():
        if cancellable(client, store, "tool_call", call.tool_call_id):
            return "tool_call", call.tool_call_id
    for terminal in store.terminals():
        if cancellable(client, store, "terminal", terminal.terminal_id):
            return "terminal", terminal.terminal_id
    return None


async def until(store: SessionStore, holds: Callable[[], bool]) -> None:
    changed = anyio.Event()

    def listener(_: object) -> None:
        changed.set()

    unsubscribe = store.subscribe(listener)
    try:
        with anyio.fail_after(BOUND):
            while not holds():
                await changed.wait()
                changed = anyio.Event()
    finally:
        unsubscribe()


@asynccontextmanager
async def session_with(
    agent: RealAgent, workspace: Workspace, script: ByPrompt
) -> AsyncIterator[tuple[AcpClient, SessionStore]]:
    """A new session of `agent` (its protocol pinned) on the scripted model."""
    with agent.server(script) as server:
        command = AgentCommand(
            argv=agent.argv(),
            env=agent.environment(workspace, server),
            cwd=workspace.project,
        )
        client = AcpClient(prompter=PermissionPolicy("allow"))
        with anyio.fail_after(BOUND * 3):
            async with connect(
                lambda: StdioTransport(command, name="peer"),
                choice="1" if agent.protocol == 1 else "2",
                init_timeout=BOUND / 2,
                on_request=client.handle_request,
                on_notification=client.handle_notification,
            ) as connection:
                client.attach(connection)
                assert connection.protocol_version == agent.protocol
                yield client, await client.new_session(workspace.project)


async def test_claude_stops_background_work_cancelled_alone(tmp_path: Path) -> None:
    agent = AGENTS["claude-v2"]
    workspace = Workspace(tmp_path / "w").create()
    background = ToolUse(
        "Bash",
        {"command": "sleep 90", "description": "Wait", "run_in_background": True},
    )
    script = agent.script({PROMPT: [(background,), (Text("It runs."),)]})
    async with session_with(agent, workspace, script) as (client, store):
        stop = await client.prompt(store.session_id, [{"type": "text", "text": PROMPT}])
        assert stop == "end_turn"
        await until(store, lambda: offered(client, store) is not None)
        found = offered(client, store)
        assert found is not None
        kind, entity_id = found
        # A background Bash is a display terminal the agent lists.
        assert kind == "terminal"
        await cancel_one(client, store, kind, entity_id)
        await until(
            store,
            lambda: store.terminal(entity_id).exited,  # type: ignore[union-attr]
        )
        assert not store.cancelling(kind, entity_id)
        assert store.state.is_idle  # no turn was started or cancelled


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
async def test_claude_shows_an_approved_plan_as_a_markdown_plan(
    tmp_path: Path, key: str
) -> None:
    """In plan mode, an approved ExitPlanMode plan arrives as a markdown plan
    (`plan_update`, `type: markdown`), which the store reads as a document. v1
    agents send it because acp-tui advertises the `plan` capability."""
    agent = AGENTS[key]
    workspace = Workspace(tmp_path / "w").create()
    plan_text = "## The plan\n\n- Read the code\n- Change it"
    exit_plan = ToolUse("ExitPlanMode", {"plan": plan_text})
    script = agent.script({PROMPT: [(exit_plan,), (Text("Planned."),)]})
    async with session_with(agent, workspace, script) as (client, store):
        mode = next(o for o in store.settings if o.category == "mode")
        await client.set_config_option(store.session_id, mode.config_id, "plan")
        await client.prompt(store.session_id, [{"type": "text", "text": PROMPT}])
        documents = [plan_document(p) for p in store.plans()]
        markdown = [d for d in documents if d is not None]
        assert markdown, store.to_json()["plans"]
        assert markdown[0].kind == "markdown"
        assert "- Read the code" in (markdown[0].text or "")
