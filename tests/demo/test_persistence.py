"""Demo sessions survive a restart: list, then resume with replay, gives the live state.

A session is driven through acp-tui's own client core (`AcpClient`) in one demo
process; a *new* demo process then lists the sessions, attaches without replay
(nothing is replayed), then resumes with replay (v2 `session/resume` +
`replayFrom: start`, v1 `session/load`). The two
stores' `to_json()` documents must be equal, except for what legitimately differs
(`normalise`):

* `permissions` and their `timeline` entries: permission requests are requests,
  not session history, so a replay has none;
* `state` / `stopReason`: the live store ends idle with the last turn's stop
  reason, a resumed one is idle with none (no turn ran in it);
* v1 only: the ids of user messages. The v1 client shows its own prompt under an
  id it makes up (`v1-user-N`); the replay carries the agent's (`msg-N`).
  Contents and positions must still match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import anyio
import pytest

from acp_tui.store.changes import Change
from tests.demo.client import demo_client, prompt, prompt_and_cancel, snapshot
from tests.demo.recorder import BOUND

pytestmark = pytest.mark.subprocess

PROMPTS = (
    "hello",
    "/edit",
    "/files",
    "/run",
    "/plan",
    "/stream",
    "/read",
    "/permission",
    "/misbehave",
    "/title Persisted session",
)


def normalise(document: dict[str, Any], version: int) -> dict[str, Any]:
    doc = dict(document)
    doc.pop("permissions")
    doc.pop("state")
    doc.pop("stopReason")
    doc["timeline"] = [e for e in doc["timeline"] if e["kind"] != "permission"]
    if version == 1:
        renamed: dict[str, str] = {}
        users = [m for m in doc["messages"] if m["role"] == "user"]
        for index, message in enumerate(users):
            renamed[message["messageId"]] = f"user-{index}"
        doc["messages"] = [
            {**m, "messageId": renamed.get(m["messageId"], m["messageId"])}
            for m in doc["messages"]
        ]
        doc["timeline"] = [
            {**e, "id": renamed.get(e["id"], e["id"])} for e in doc["timeline"]
        ]
    return doc


def _terminal_output(changes: Any) -> bool:
    return any(isinstance(c, Change) and c.kind == "terminal" for c in changes)


@pytest.mark.parametrize("version", [1, 2])
async def test_resume_with_replay_reproduces_the_live_session(
    version: Literal[1, 2], project: Path
) -> None:
    async with demo_client(version) as client:
        store = await client.new_session(project)
        for text in PROMPTS:
            await prompt(client, store.session_id, text)
        await client.set_config_option(store.session_id, "model", "demo-deep")
        stop = await prompt_and_cancel(
            client,
            store,
            "/long",
            lambda changes: (
                any(c.kind == "message" for c in changes)
                and len(store.messages()) > 0
                and "Paragraph 1" in store.messages()[-1].text
            ),
        )
        assert stop == "cancelled"
        live = snapshot(store)
        session_id = store.session_id

    async with demo_client(version) as client:
        sessions = await client.list_sessions(project)
        assert [s.session_id for s in sessions] == [session_id]
        assert sessions[0].title == "Persisted session"
        with anyio.fail_after(BOUND):
            attached = await client.resume_session(session_id, project, replay=False)
        plain = snapshot(attached)
        assert (plain["messages"], plain["toolCalls"], plain["plans"]) == ([], [], [])
        assert plain["configOptions"] == live["configOptions"]
        with anyio.fail_after(BOUND):
            resumed = await client.resume_session(session_id, project, replay=True)
        replayed = snapshot(resumed)
        # The resumed session goes on where it stopped.
        assert await prompt(client, session_id, "/help") == "end_turn"
        assert resumed.messages()[-1].text.startswith("## Demo scenarios")

    assert normalise(replayed, version) == normalise(live, version), "\n".join(
        _debug_diff(normalise(replayed, version), normalise(live, version))
    )
    # The things that make the comparison meaningful are really there.
    kinds = {entry["kind"] for entry in live["timeline"]}
    assert {"message", "tool_call", "plan"} <= kinds
    assert live["configOptions"][1]["currentValue"] == "demo-deep"
    assert live["info"]["title"] == "Persisted session"
    if version == 2:
        assert live["terminals"]
        assert live["unknownUpdates"]
        assert "All 3 checks passed" in live["terminals"][0]["text"]


def _debug_diff(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += _debug_diff(
                a.get(k, "<missing>"), b.get(k, "<missing>"), f"{path}.{k}"
            )
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += _debug_diff(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {str(a)[:300]!r} != {str(b)[:300]!r}"]
