"""Tool calls: upserts, the null-versus-omitted matrix, content appends (§4.7)."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.store import (
    UNSET,
    AppendToolCallContent,
    CancelUnfinishedToolCalls,
    Change,
    JSONObject,
    PatchToolCall,
    SessionStore,
    ToolCall,
)
from tests.unit.store.helpers import item, terminal_item


def _tool_call(store: SessionStore, tool_call_id: str = "t1") -> ToolCall:
    tool_call = store.tool_call(tool_call_id)
    assert tool_call is not None
    return tool_call


def test_first_patch_creates_with_defaults(store: SessionStore) -> None:
    changes = store.apply(PatchToolCall("t1"))
    assert changes == (Change("tool_call", "t1", "added"),)
    assert _tool_call(store) == ToolCall("t1")
    tool_call = _tool_call(store)
    assert (tool_call.title, tool_call.kind, tool_call.status) == (
        None,
        "other",
        "pending",
    )
    assert list(tool_call.content) == []
    assert tool_call.locations == ()
    assert (tool_call.raw_input, tool_call.raw_output) == (None, None)
    assert (tool_call.meta, tool_call.name, tool_call.capabilities) == (
        None,
        None,
        None,
    )


def test_first_patch_with_fields(store: SessionStore) -> None:
    store.apply(
        PatchToolCall(
            "t1", title="Read", kind="read", status="in_progress", content=[item("a")]
        )
    )
    assert _tool_call(store) == ToolCall(
        "t1", "Read", "read", "in_progress", [item("a")]
    )


# field name -> (a value, what None resets it to)
FIELDS: dict[str, tuple[Any, Any]] = {
    "title": ("Run tests", None),
    "kind": ("execute", "other"),
    "status": ("completed", "pending"),
    "content": ([item("x")], []),
    "locations": ([{"path": "/a.py", "line": 3}], []),
    "raw_input": ({"command": "ls"}, None),
    "raw_output": ({"stdout": "ok"}, None),
    "meta": ({"trace": "t"}, None),
    "name": ("bash", None),
    "capabilities": ({"cancel": {}}, None),
}


def _patch(field: str, value: Any) -> PatchToolCall:
    fields: dict[str, Any] = {field: value}
    return PatchToolCall("t1", **fields)


def _read(tool_call: ToolCall, field: str) -> Any:
    value = getattr(tool_call, field)
    if field in {"content", "locations"}:
        return list(value)
    return value


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_omitted_field_is_unchanged(store: SessionStore, field: str) -> None:
    value, _ = FIELDS[field]
    store.apply(_patch(field, value))
    store.apply(PatchToolCall("t1", title="other title" if field != "title" else UNSET))
    assert _read(_tool_call(store), field) == value


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_null_field_clears_to_its_default(store: SessionStore, field: str) -> None:
    value, default = FIELDS[field]
    store.apply(_patch(field, value))
    store.apply(_patch(field, None))
    assert _read(_tool_call(store), field) == default


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_value_replaces(store: SessionStore, field: str) -> None:
    value, _ = FIELDS[field]
    store.apply(_patch(field, value))
    replacements: dict[str, Any] = {
        "title": "Other",
        "kind": "_vendor_kind",
        "status": "_custom",
        "content": [item("y"), item("z")],
        "locations": [{"path": "/b.py"}],
        "raw_input": ["any", "json", 1],
        "raw_output": "plain string",
        "meta": {"other": 1},
        "name": "grep",
        "capabilities": {},
    }
    replacement = replacements[field]
    store.apply(_patch(field, replacement))
    assert _read(_tool_call(store), field) == replacement


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_null_on_creation_gives_the_default(store: SessionStore, field: str) -> None:
    _, default = FIELDS[field]
    store.apply(_patch(field, None))
    assert _read(_tool_call(store), field) == default


@pytest.mark.parametrize("field", ["content", "locations"])
@pytest.mark.parametrize("cleared", [None, []], ids=["null", "empty"])
def test_empty_or_null_clears_arrays(
    store: SessionStore, field: str, cleared: list[JSONObject] | None
) -> None:
    value, _ = FIELDS[field]
    store.apply(_patch(field, value))
    store.apply(_patch(field, cleared))
    assert _read(_tool_call(store), field) == []


def test_arrays_are_replaced_whole(store: SessionStore) -> None:
    store.apply(PatchToolCall("t1", locations=[{"path": "/a"}, {"path": "/b"}]))
    store.apply(PatchToolCall("t1", locations=[{"path": "/c"}]))
    assert _tool_call(store).locations == ({"path": "/c"},)


def test_content_chunks_append(store: SessionStore) -> None:
    store.apply(PatchToolCall("t1", content=[item("a")]))
    changes = store.apply(AppendToolCallContent("t1", item("b")))
    assert changes == (Change("tool_call", "t1", "appended", item("b")),)
    store.apply(AppendToolCallContent("t1", item("c")))
    assert list(_tool_call(store).content) == [item("a"), item("b"), item("c")]


def test_replace_after_chunks_then_chunks_append(store: SessionStore) -> None:
    store.apply(AppendToolCallContent("t1", item("a")))
    store.apply(AppendToolCallContent("t1", item("b")))
    changes = store.apply(PatchToolCall("t1", content=[item("c")]))
    assert changes == (Change("tool_call", "t1", "replaced"),)
    assert list(_tool_call(store).content) == [item("c")]
    store.apply(AppendToolCallContent("t1", item("d")))
    assert list(_tool_call(store).content) == [item("c"), item("d")]


def test_patch_without_content_keeps_appended_content(store: SessionStore) -> None:
    store.apply(AppendToolCallContent("t1", item("a")))
    store.apply(PatchToolCall("t1", status="completed"))
    assert list(_tool_call(store).content) == [item("a")]


def test_chunk_for_unknown_id_creates_with_defaults(store: SessionStore) -> None:
    changes = store.apply(AppendToolCallContent("t9", item("a")))
    assert changes == (Change("tool_call", "t9", "added", item("a")),)
    assert _tool_call(store, "t9") == ToolCall("t9", content=[item("a")])
    assert store.timeline() == (("tool_call", "t9"),)


def test_unknown_content_type_status_and_kind_are_kept(store: SessionStore) -> None:
    unknown: JSONObject = {"type": "_vendor_widget", "payload": {"a": [1, 2]}}
    store.apply(PatchToolCall("t1", kind="_teleport", status="paused"))
    store.apply(AppendToolCallContent("t1", unknown))
    tool_call = _tool_call(store)
    assert (tool_call.kind, tool_call.status) == ("_teleport", "paused")
    assert list(tool_call.content) == [unknown]
    assert not tool_call.is_final


def test_diff_content_is_kept_as_received(store: SessionStore) -> None:
    diff: JSONObject = {
        "type": "diff",
        "changes": [{"operation": "modify", "path": "/a.py"}],
        "patch": None,
    }
    store.apply(PatchToolCall("t1", content=[diff]))
    assert _tool_call(store).content[0] is diff


def test_cancel_unfinished(store: SessionStore) -> None:
    statuses = ["pending", "in_progress", "completed", "failed", "cancelled"]
    statuses += ["_custom", "paused"]
    for n, status in enumerate(statuses):
        store.apply(PatchToolCall(f"t{n}", status=status))
    changes = store.apply(CancelUnfinishedToolCalls())
    cancelled_ids = {"t0", "t1", "t5", "t6"}
    assert {c.id for c in changes} == cancelled_ids
    assert all(c == Change("tool_call", c.id, "updated") for c in changes)
    after = {t.tool_call_id: t.status for t in store.tool_calls()}
    assert after == {
        "t0": "cancelled",
        "t1": "cancelled",
        "t2": "completed",
        "t3": "failed",
        "t4": "cancelled",
        "t5": "cancelled",
        "t6": "cancelled",
    }
    assert store.apply(CancelUnfinishedToolCalls()) == ()


def test_late_updates_after_cancel_are_accepted(store: SessionStore) -> None:
    store.apply(PatchToolCall("t1", status="in_progress"))
    store.apply(CancelUnfinishedToolCalls())
    store.apply(PatchToolCall("t1", status="completed", raw_output={"ok": True}))
    tool_call = _tool_call(store)
    assert (tool_call.status, tool_call.raw_output) == ("completed", {"ok": True})
    assert tool_call.is_final


def test_revision_increases_on_every_change(store: SessionStore) -> None:
    store.apply(PatchToolCall("t1"))
    revisions = [_tool_call(store).revision]
    store.apply(AppendToolCallContent("t1", item("a")))
    revisions.append(_tool_call(store).revision)
    store.apply(PatchToolCall("t1", status="completed"))
    revisions.append(_tool_call(store).revision)
    assert revisions == sorted(set(revisions))


def test_terminal_references_are_tracked(store: SessionStore) -> None:
    store.apply(PatchToolCall("t1", content=[item("a"), terminal_item("term1")]))
    store.apply(AppendToolCallContent("t1", terminal_item("term2")))
    store.apply(AppendToolCallContent("t1", terminal_item("term1")))
    assert store.terminal_ids_for_tool_call("t1") == ("term1", "term2")
    assert _tool_call(store).terminal_ids == ("term1", "term2")
    assert store.tool_call_ids_for_terminal("term2") == ("t1",)
    store.apply(PatchToolCall("t1", content=[terminal_item("term2")]))
    assert store.terminal_ids_for_tool_call("t1") == ("term2",)
    assert store.tool_call_ids_for_terminal("term1") == ()
    store.apply(PatchToolCall("t1", content=None))
    assert store.terminal_ids_for_tool_call("t1") == ()
    assert store.terminal_ids_for_tool_call("nope") == ()


def test_tool_calls_in_order(store: SessionStore) -> None:
    for tool_call_id in ["b", "a", "c"]:
        store.apply(PatchToolCall(tool_call_id))
    store.apply(PatchToolCall("a", status="completed"))
    assert [t.tool_call_id for t in store.tool_calls()] == ["b", "a", "c"]
    assert store.tool_call("nope") is None
