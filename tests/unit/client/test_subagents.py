"""Subagents on the wire: `subagent_update`, child sessions, cancel (v1 and v2).

The subagents RFD (TS SDK 2.4's unstable schemas): v2 takes child sessions as
baseline; v1 declares the `subagents` client capability. A child's own updates
arrive under its session id and land in its parent's store.
"""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.client.connection import ClientFeatures, ClientIdentity
from acp_tui.client.subagent_wire import subagent_ops, subagent_status
from acp_tui.client.v1 import V1Dialect, V1Translator
from acp_tui.client.v2 import V2Dialect, V2Translator
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import UNSET
from tests.unit.client.peer import JSON, open_harness, v1_init, v2_init

VERSIONS = [pytest.param(1, id="v1"), pytest.param(2, id="v2")]


def init_for(version: int) -> JSON:
    return v1_init() if version == 1 else v2_init({})


def announce(child: str, cancel: bool = True, **extra: Any) -> JSON:
    update: JSON = {
        "sessionUpdate": "subagent_update",
        "sessionId": child,
        "title": f"Child {child}",
        "state": {"state": "running"},
        **extra,
    }
    if cancel:
        update["capabilities"] = {"cancel": {}}
    return update


def chunk(version: int, value: str) -> JSON:
    update: JSON = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": value},
    }
    if version == 2:
        update["messageId"] = "m1"
    return update


def tool_call(version: int, tool_call_id: str) -> JSON:
    kind = "tool_call" if version == 1 else "tool_call_update"
    return {"sessionUpdate": kind, "toolCallId": tool_call_id, "title": "grep"}


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"state": "running"}, ("running", None, None)),
        ({"state": "requires_action"}, ("waiting", None, None)),
        ({"state": "idle", "stopReason": "end_turn"}, ("done", "end_turn", None)),
        ({"state": "idle"}, ("done", None, None)),
        (
            {"state": "idle", "stopReason": "cancelled"},
            ("cancelled", "cancelled", None),
        ),
        (
            {"state": "idle", "stopReason": "error", "error": {"message": "x"}},
            ("failed", "error", "x"),
        ),
        ({"state": "unknown"}, ("unknown", None, None)),
        ({"state": "_vendor"}, ("unknown", None, None)),
        (None, ("unknown", None, None)),
    ],
)
def test_child_state_becomes_a_neutral_status(state: Any, expected: Any) -> None:
    assert subagent_status(state) == expected


def test_subagent_update_fields_are_three_state() -> None:
    [op] = subagent_ops(
        {"sessionUpdate": "subagent_update", "sessionId": "c", "title": None},
        lambda: 7,
    ) or [ops.RecordNotice("info", "none")]
    assert isinstance(op, ops.PatchSubagent)
    assert (op.title, op.description, op.status, op.can_cancel, op.at_ms) == (
        None,
        UNSET,
        None,
        None,
        7,
    )
    [op] = subagent_ops(
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "c",
            "title": 5,  # the wrong type: as if omitted
            "capabilities": None,
        }
    ) or [ops.RecordNotice("info", "none")]
    assert isinstance(op, ops.PatchSubagent)
    assert (op.title, op.can_cancel) == (UNSET, False)
    assert subagent_ops({"sessionUpdate": "subagent_update"}) is None


def test_both_translators_read_subagent_update() -> None:
    params = {"sessionId": "p", "update": announce("c1")}
    for translator in (V1Translator(SessionStore("p")), V2Translator()):
        [op] = translator.translate(params)
        assert isinstance(op, ops.PatchSubagent)
        assert (op.subagent_id, op.title, op.status, op.can_cancel) == (
            "c1",
            "Child c1",
            "running",
            True,
        )


def test_initialize_declares_subagents_for_v1() -> None:
    identity = ClientIdentity("acp-tui", "acp-tui", "1")
    v1 = V1Dialect.initialize_params(identity, ClientFeatures())
    assert v1["clientCapabilities"]["subagents"] == {}
    v2 = V2Dialect.initialize_params(identity, ClientFeatures())
    assert v2["clientCapabilities"]["subagents"] == {}  # for a v1-only answer


@pytest.mark.parametrize("version", VERSIONS)
async def test_child_updates_land_in_the_parents_store(version: int) -> None:
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        await h.peer.update("c9", chunk(version, "before any announcement"))
        await h.peer.update("s1", announce("c1"))
        await h.peer.update("c1", chunk(version, "child text"))
        await h.peer.update("c1", announce("g1"))  # a grandchild
        await h.peer.update("g1", tool_call(version, "t1"))
        await h.peer.sync()
        assert store.messages() == ()
        assert [s.subagent_id for s in store.subagents()] == ["c1"]
        own = store.subagent_store("c1")
        assert own is not None
        assert [m.text for m in own.messages()] == ["child text"]
        nested = own.subagent_store("g1")
        assert nested is not None
        assert [t.title for t in nested.tool_calls()] == ["grep"]


@pytest.mark.parametrize("version", VERSIONS)
async def test_parent_cancel_cancels_its_subagents(version: int) -> None:
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        call = h.start(h.client.prompt, "s1", [{"type": "text", "text": "go"}])
        request = await h.peer.expect_request("session/prompt")
        if version == 2:
            await h.peer.reply(request, {})
            await h.peer.update(
                "s1", {"sessionUpdate": "state_update", "state": "running"}
            )
        await h.peer.update("s1", announce("c1"))
        await h.peer.update("s1", announce("c2", cancel=False))
        await h.peer.update(
            "s1",
            announce("c3", state={"state": "idle", "stopReason": "end_turn"}),
        )
        await h.peer.sync()
        await h.client.cancel("s1")
        first = await h.peer.expect_notification("session/cancel")
        second = await h.peer.expect_notification("session/cancel")
        assert [first["params"]["sessionId"], second["params"]["sessionId"]] == [
            "s1",
            "c1",
        ]
        statuses = {s.subagent_id: s.status for s in store.subagents()}
        assert statuses == {"c1": "cancelled", "c2": "cancelled", "c3": "done"}
        if version == 1:
            await h.peer.reply(request, {"stopReason": "cancelled"})
        else:
            await h.peer.update(
                "s1",
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "cancelled",
                },
            )
        assert await call.wait() == "cancelled"


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_childs_permission_is_asked_and_kept_in_its_store(
    version: int,
) -> None:
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        await h.peer.update("s1", announce("c1"))
        await h.peer.sync()
        params: JSON = {
            "sessionId": "c1",
            "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
        }
        if version == 1:
            params["toolCall"] = {"toolCallId": "t1"}
        else:
            params["title"] = "Run t1?"
            params["subject"] = {"type": "tool_call", "toolCall": {"toolCallId": "t1"}}
        rid = await h.peer.request("session/request_permission", params)
        asked = await h.prompter.next()
        asked.reply("ok")
        response = await h.peer.expect_response(rid)
        assert response["result"]["outcome"] == {
            "outcome": "selected",
            "optionId": "ok",
        }
        own = store.subagent_store("c1")
        assert own is not None
        [permission] = own.permissions()
        assert permission.outcome == {"outcome": "selected", "optionId": "ok"}
        assert [t.tool_call_id for t in own.tool_calls()] == ["t1"]
        assert store.permissions() == ()
        assert store.tool_calls() == ()  # no stray card in the parent


async def test_v2_a_childs_own_state_update_is_mirrored_on_its_lane() -> None:
    """An agent that reports a child's state only on the child's stream still
    ends its lane (the RFD asks the parent to mirror it; not every agent does)."""
    async with open_harness(init_for(2)) as h:
        store = await h.new_session()
        await h.peer.update("s1", announce("c1"))
        await h.peer.update(
            "c1",
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "error",
                "error": {"code": -32603, "message": "crashed"},
            },
        )
        await h.peer.sync()
        subagent = store.subagent("c1")
        assert subagent is not None
        assert (subagent.status, subagent.error) == ("failed", "crashed")
        assert subagent.ended_ms is not None
        assert store.state.turns_ended == 0  # the parent's turn is not the child's
