"""Elicitations in the store: recorded, answered, completed, and exported."""

from __future__ import annotations

import json

from acp_tui.store import (
    AddElicitation,
    AddPermission,
    CompleteElicitation,
    JSONObject,
    Op,
    ResolveElicitation,
    SessionStore,
)
from acp_tui.store.journal import op_from_record, op_to_record

SCHEMA: JSONObject = {
    "type": "object",
    "properties": {"strategy": {"type": "string", "enum": ["a", "b"]}},
    "required": ["strategy"],
}


def test_an_elicitation_is_in_the_timeline_and_pending_until_answered() -> None:
    store = SessionStore("s")
    changes = store.apply(AddElicitation("4", "form", "How?", SCHEMA, tool_call_id="t"))
    assert [(c.kind, c.id, c.action) for c in changes] == [
        ("elicitation", "4", "added")
    ]
    assert store.timeline() == (("elicitation", "4"),)
    elicitation = store.elicitation("4")
    assert elicitation is not None
    assert elicitation.pending
    assert elicitation.action is None
    assert elicitation.requested_schema == SCHEMA
    assert elicitation.tool_call_id == "t"
    store.apply(
        ResolveElicitation("4", {"action": "accept", "content": {"strategy": "a"}})
    )
    answered = store.elicitation("4")
    assert answered is not None
    assert not answered.pending
    assert answered.action == "accept"
    assert answered.content == {"strategy": "a"}
    assert answered.revision > elicitation.revision


def test_declined_has_no_content_even_if_some_was_recorded() -> None:
    store = SessionStore("s")
    store.apply(AddElicitation("1", "form", "Q", SCHEMA))
    store.apply(ResolveElicitation("1", {"action": "decline", "content": {"x": 1}}))
    elicitation = store.elicitation("1")
    assert elicitation is not None
    assert elicitation.action == "decline"
    assert elicitation.content is None


def test_unknown_ids_are_ignored_and_completion_counts_once() -> None:
    store = SessionStore("s")
    assert store.apply(ResolveElicitation("nope", {"action": "cancel"})) == ()
    assert store.apply(CompleteElicitation("nope")) == ()
    store.apply(AddElicitation("2", "url", "Log in", url="https://a.test/", url_id="e"))
    assert len(store.apply(CompleteElicitation("2"))) == 1
    assert store.apply(CompleteElicitation("2")) == ()
    elicitation = store.elicitation("2")
    assert elicitation is not None
    assert elicitation.completed


def test_the_document_gains_elicitations_only_when_there_are_some() -> None:
    store = SessionStore("s")
    store.apply(AddPermission("1", "Run?"))
    assert "elicitations" not in store.to_json()
    store.apply(AddElicitation("2", "url", "Log in", url="https://a.test/", url_id="e"))
    store.apply(ResolveElicitation("2", {"action": "accept"}))
    store.apply(CompleteElicitation("2"))
    store.apply(AddElicitation("3", "form", "How?", SCHEMA, tool_call_id="t"))
    document = store.to_json()
    assert document["elicitations"] == [
        {
            "id": "2",
            "mode": "url",
            "message": "Log in",
            "url": "https://a.test/",
            "elicitationId": "e",
            "outcome": {"action": "accept"},
            "completed": True,
        },
        {
            "id": "3",
            "mode": "form",
            "message": "How?",
            "requestedSchema": SCHEMA,
            "toolCallId": "t",
            "outcome": None,
        },
    ]
    assert document["timeline"] == [
        {"kind": "permission", "id": "1"},
        {"kind": "elicitation", "id": "2"},
        {"kind": "elicitation", "id": "3"},
    ]


def test_a_journal_replay_rebuilds_the_elicitations() -> None:
    ops: list[Op] = [
        AddElicitation("1", "form", "How?", SCHEMA, tool_call_id="t", meta={"k": 1}),
        ResolveElicitation("1", {"action": "accept", "content": {"strategy": "b"}}),
        AddElicitation("2", "url", "Log in", url="https://a.test/", url_id="e"),
        ResolveElicitation("2", {"action": "accept"}),
        CompleteElicitation("2"),
    ]
    live, replayed = SessionStore("s"), SessionStore("s")
    for op in ops:
        live.apply(op)
        replayed.apply(op_from_record(json.loads(json.dumps(op_to_record(op)))))
    assert replayed.to_json() == live.to_json()
