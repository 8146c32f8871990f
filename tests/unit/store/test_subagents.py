"""Subagents in the store: patch semantics, times, their own store, the journal."""

from __future__ import annotations

import json
from collections.abc import Sequence

from acp_tui.store import ops
from acp_tui.store.journal import JournaledStore, encode_op, op_from_record
from acp_tui.store.store import SessionStore

TEXT = {"type": "text", "text": "Looking."}


def test_announce_patch_and_times() -> None:
    store = SessionStore("p")
    changes = store.apply(
        ops.PatchSubagent("c1", title="Explore", status="running", at_ms=1_000)
    )
    assert [(c.kind, c.id, c.action) for c in changes] == [("subagent", "c1", "added")]
    assert store.timeline() == (("subagent", "c1"),)
    store.apply(ops.PatchSubagent("c1", description="Reads code", at_ms=2_000))
    subagent = store.subagent("c1")
    assert subagent is not None
    assert (subagent.title, subagent.description, subagent.status) == (
        "Explore",
        "Reads code",
        "running",
    )
    assert subagent.elapsed_ms(5_000) == 4_000
    store.apply(
        ops.PatchSubagent(
            "c1", status="failed", stop_reason="error", error="boom", at_ms=9_000
        )
    )
    subagent = store.subagent("c1")
    assert subagent is not None
    assert (subagent.status, subagent.error, subagent.running) == (
        "failed",
        "boom",
        False,
    )
    assert subagent.elapsed_ms(99_000) == 8_000  # ended: the clock no longer counts
    store.apply(ops.PatchSubagent("c1", status="running", title=None, at_ms=10_000))
    subagent = store.subagent("c1")
    assert subagent is not None
    assert (subagent.ended_ms, subagent.title, subagent.name) == (
        None,
        None,
        "Reads code",
    )
    # Nothing changed: no change reported.
    assert store.apply(ops.PatchSubagent("c1", status="running")) == ()


def test_inner_ops_fill_the_subagents_own_store() -> None:
    store = SessionStore("p")
    store.apply(ops.PatchSubagent("c1", at_ms=1))
    changes = store.apply(
        ops.InSubagent("c1", ops.AppendMessageChunk("m", "agent", TEXT))
    )
    assert [(c.kind, c.id, c.action) for c in changes] == [
        ("subagent", "c1", "appended")
    ]
    assert [(c.kind, c.id, c.action) for c in changes[0].inner] == [
        ("message", "m", "added")
    ]
    own = store.subagent_store("c1")
    assert own is not None
    assert [m.text for m in own.messages()] == ["Looking."]
    assert store.messages() == ()  # not the parent's
    # An op for a subagent never announced creates it (a child reported first).
    store.apply(ops.InSubagent("c2", ops.PatchToolCall("t", title="Read")))
    assert [s.subagent_id for s in store.subagents()] == ["c1", "c2"]


def _journaled(batches: Sequence[Sequence[ops.Op]]) -> tuple[SessionStore, list[str]]:
    lines: list[str] = []

    def sink(store: SessionStore, batch: Sequence[ops.Op]) -> None:
        lines.extend(encode_op(op) for op in batch)

    live = JournaledStore("p", sink)
    for batch in batches:
        live.apply_many(batch)
    return live, lines


def test_journal_round_trip_with_nested_subagents_and_terminals() -> None:
    live, lines = _journaled(
        [
            [ops.PatchSubagent("c1", title="Explore", can_cancel=True, at_ms=5)],
            [
                ops.InSubagent("c1", ops.AppendMessageChunk("m", "agent", TEXT)),
                ops.InSubagent("c1", ops.AppendTerminalOutput("t", b"\x1b[32mok\r\n")),
                ops.InSubagent("c1", ops.PatchSubagent("g1", title="Deeper", at_ms=6)),
                ops.InSubagent(
                    "c1", ops.InSubagent("g1", ops.PatchToolCall("x", title="grep"))
                ),
            ],
            [ops.PatchSubagent("c1", status="done", stop_reason="end_turn", at_ms=9)],
        ]
    )
    rebuilt = SessionStore("p")
    for line in lines:
        rebuilt.apply(op_from_record(json.loads(line)))
    assert rebuilt.to_json() == live.to_json()
    assert rebuilt.subagents() == live.subagents()
    own = rebuilt.subagent_store("c1")
    assert own is not None
    nested = own.subagent_store("g1")
    assert nested is not None
    assert [t.title for t in nested.tool_calls()] == ["grep"]
    document = rebuilt.to_json()["subagents"]
    assert isinstance(document, list)
    assert [item["status"] for item in document if isinstance(item, dict)] == ["done"]


def test_document_has_no_subagents_key_without_subagents() -> None:
    assert "subagents" not in SessionStore("p").to_json()
