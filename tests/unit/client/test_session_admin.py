"""The unstable session methods at the version seam and in `client/session_admin.py`.

The dialects read the `fork`, `title`, `archive` and `status` markers (v1 under
`agentCapabilities.sessionCapabilities`, v2 under `capabilities.session`) into
`SessionFeatures`; `session/list` entries carry `archived`. A fork point is the
last agent message (with the agent's own id) at or before the chosen message,
and `history_ops` rebuild the source's timeline up to it in another store. The
fork params validate against the TS SDK 2.4 unstable schema of each version.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from acp_tui.client import session_admin
from acp_tui.client.session_admin import (
    ForkSource,
    fork_at_message,
    fork_point,
    history_ops,
)
from acp_tui.client.v1 import V1Dialect
from acp_tui.client.v2 import V2Dialect
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from tests.spec_examples import SCHEMAS, load_schema

MARKERS: dict[str, Any] = {"fork": {}, "title": {}, "archive": {}, "status": {}}


def v1_dialect(session_caps: dict[str, Any]) -> V1Dialect:
    return V1Dialect(
        V1Dialect.parse_initialize(
            {
                "protocolVersion": 1,
                "agentCapabilities": {"sessionCapabilities": session_caps},
                "agentInfo": {"name": "@agentclientprotocol/claude-agent-acp"},
            }
        )
    )


def v2_dialect(session_caps: dict[str, Any] | None) -> V2Dialect:
    return V2Dialect(
        V2Dialect.parse_initialize(
            {
                "protocolVersion": 2,
                "info": {"name": "agent", "version": "1"},
                "capabilities": {"session": session_caps},
                "authMethods": [],
            }
        )
    )


@pytest.mark.parametrize("make", [v1_dialect, v2_dialect])
def test_markers_become_features(make: Any) -> None:
    features = make(MARKERS).session_features()
    assert (features.fork, features.set_title) == (True, True)
    assert (features.archive, features.status) == (True, True)
    none = make({}).session_features()
    assert (none.fork, none.set_title, none.archive, none.status) == (False,) * 4
    # A marker is an object: anything else (or null) is not one.
    odd = make({"fork": True, "title": None, "archive": [], "status": "yes"})
    features = odd.session_features()
    assert (features.fork, features.set_title) == (False, False)
    assert (features.archive, features.status) == (False, False)


def test_v2_without_sessions_offers_none() -> None:
    features = v2_dialect(None).session_features()
    assert (features.fork, features.set_title) == (False, False)


@pytest.mark.parametrize("make", [v1_dialect, v2_dialect])
def test_list_entries_carry_archived(make: Any) -> None:
    page = {
        "sessions": [
            {"sessionId": "a", "cwd": "/p", "archived": True},
            {"sessionId": "b", "cwd": "/p", "archived": False},
            {"sessionId": "c", "cwd": "/p", "archived": "yes"},
            {"sessionId": "d", "cwd": "/p"},
        ]
    }
    summaries, _ = make({}).list_page(page)
    assert [s.archived for s in summaries] == [True, False, False, False]


def test_fork_at_message_needs_fork_and_a_known_agent() -> None:
    features = v1_dialect(MARKERS).session_features()
    assert fork_at_message(features, "@agentclientprotocol/claude-agent-acp")
    assert fork_at_message(features, "acp-tui-demo")
    assert not fork_at_message(features, "another-agent")
    assert not fork_at_message(v1_dialect({}).session_features(), "acp-tui-demo")


def conversation() -> SessionStore:
    store = SessionStore("s")
    text = {"type": "text", "text": ""}
    store.apply_many(
        [
            ops.AppendMessageChunk("u1", "user", {**text, "text": "question"}),
            ops.ReplacePlan("p", "items", [{"content": "x"}], {"type": "items"}),
            ops.PatchToolCall("t1", title="Read", kind="read", status="completed"),
            ops.AppendMessageChunk("a1", "agent", {**text, "text": "answer one"}),
            ops.AppendMessageChunk("u2", "user", {**text, "text": "forged"}),
            ops.SetMessageOrigin("u2", "agent"),
            ops.AppendMessageChunk("a2", "thought", {**text, "text": "hmm"}),
            ops.AppendMessageChunk("a2", "agent", {**text, "text": "answer two"}),
        ]
    )
    return store


def test_fork_point_is_the_last_agent_message_up_to_the_one_chosen() -> None:
    store = conversation()
    assert fork_point(store, "u1") is None  # nothing the agent said before it
    point = fork_point(store, "u2")
    assert point is not None
    message_id, history = point
    assert message_id == "a1"
    copy = SessionStore("fork")
    copy.apply_many(history)
    assert copy.timeline() == store.timeline()[:4]
    assert copy.to_json()["toolCalls"] == store.to_json()["toolCalls"]
    assert copy.to_json()["plans"] == store.to_json()["plans"]
    # The latest: the last agent message (the thought of the same id comes first).
    whole = fork_point(store, None)
    assert whole is not None
    assert whole[0] == "a2"
    copy = SessionStore("fork")
    copy.apply_many(whole[1])
    wanted, got = store.to_json(), copy.to_json()
    for key in ("timeline", "messages", "toolCalls", "plans"):
        assert got[key] == wanted[key], key
    assert fork_point(store, "no-such-key") is None


def test_v1_synthesised_ids_name_no_fork_point() -> None:
    store = SessionStore("s")
    block = {"type": "text", "text": "hi"}
    store.apply(ops.AppendMessageChunk("v1-agent-1", "agent", block))
    assert fork_point(store, None) is None
    assert len(history_ops(store, store.timeline())) == 1


@cache
def _validator(version: int) -> Any:
    schema = load_schema(f"ts-sdk-2.4.0/v{version}/schema.unstable.json")
    return Draft202012Validator(
        {"$ref": "#/$defs/ForkSessionRequest", "$defs": schema["$defs"]}
    )


@pytest.mark.skipif(not SCHEMAS.is_dir(), reason="../shared/acp-schema is not there")
@pytest.mark.parametrize("version", [1, 2])
def test_fork_params_are_schema_valid(version: int) -> None:
    # What `AcpClient.new_session` sends, plus the fork's own params.
    new = {"cwd": "/tmp/project", "mcpServers": [], "additionalDirectories": ["/x"]}
    params = {**new, **session_admin.fork_params(ForkSource("s", "msg_1"))}
    assert params["_meta"] == {
        "jetbrains": {"air": {"fork": {"version": 1, "messageId": "msg_1"}}}
    }
    assert not list(_validator(version).iter_errors(params))
    whole = {**new, **session_admin.fork_params(ForkSource("s"))}
    assert "_meta" not in whole
    assert not list(_validator(version).iter_errors(whole))


def test_a_fork_keeps_the_agents_reports_up_to_its_point() -> None:
    """Notices, compaction dividers and session messages are history too."""
    store = SessionStore("s")
    text = {"type": "text", "text": "kept"}
    store.apply_many(
        [
            ops.UpsertMessage("u1", "user", content=[text]),
            ops.AddNotice("warning", "MCP server unavailable", "Continuing.", {"k": 1}),
            ops.PatchCompaction("c1", "completed", summary=[text]),
            ops.PatchSessionMessage("sm1", sender_session_id="other", content=[text]),
            ops.UpsertMessage("a1", "agent", content=[text]),
        ]
    )
    point = fork_point(store, None)
    assert point is not None
    copy = SessionStore("fork")
    copy.apply_many(point[1])
    wanted, got = store.to_json(), copy.to_json()
    for key in ("timeline", "notices", "compactions", "sessionMessages"):
        assert key in wanted, key
        assert got.get(key) == wanted[key], key
