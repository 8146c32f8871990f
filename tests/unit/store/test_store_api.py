"""The store API: ops and values, timeline, listeners, dispatch, `to_json`."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence
from typing import Any

import pytest

from acp_tui.store import (
    UNSET,
    AddPermission,
    AppendMessageChunk,
    AppendTerminalOutput,
    AppendToolCallContent,
    Change,
    ContentView,
    JSONObject,
    Op,
    PatchSessionInfo,
    PatchTerminal,
    PatchToolCall,
    PatchUsage,
    RecordNotice,
    RecordUnknownUpdate,
    ReplacePlan,
    ResolvePermission,
    SessionStore,
    SetAvailableCommands,
    SetConfigOptions,
    SetState,
    UpsertMessage,
)
from acp_tui.store.config import ANY_KEYS, ConfigOption, read_options
from tests.unit.store.helpers import Recorder, image, item, terminal_item, text

# --- the session's directory ----------------------------------------------


def neutral(options: list[Any]) -> list[ConfigOption]:
    """Wire-form config options as the store keeps them (either spelling)."""
    return read_options(options, ANY_KEYS)


def test_the_store_knows_the_sessions_directory() -> None:
    """Widgets show paths relative to it (`acp_tui.display_paths`)."""
    assert SessionStore("s1", cwd="/home/ann/proj").cwd == "/home/ann/proj"
    assert SessionStore("s1").cwd is None


# --- values and ops ---------------------------------------------------------


def test_unset_is_falsy_with_a_short_repr() -> None:
    assert not UNSET
    assert repr(UNSET) == "UNSET"
    assert UNSET is not None


def test_ops_are_frozen_and_slotted() -> None:
    op = PatchToolCall("t1", status="completed")
    with pytest.raises(dataclasses.FrozenInstanceError):
        op.status = "failed"  # type: ignore[misc]
    assert not hasattr(op, "__dict__")
    assert op.title is UNSET
    assert op.status == "completed"


# --- timeline ---------------------------------------------------------------


def test_timeline_is_first_appearance_order_and_unique(store: SessionStore) -> None:
    store.apply(UpsertMessage("u1", "user", content=[text("hi")]))
    store.apply(AppendMessageChunk("a1", "agent", text("ok")))
    store.apply(PatchToolCall("t1"))
    store.apply(AppendMessageChunk("a1", "agent", text("more")))
    store.apply(ReplacePlan("p1", "items", [], {"type": "items", "planId": "p1"}))
    store.apply(PatchTerminal("term1", command="ls"))
    store.apply(AddPermission("9", "ok?", None, None, []))
    store.apply(RecordUnknownUpdate({"sessionUpdate": "_x"}))
    store.apply(PatchToolCall("t1", status="completed"))
    store.apply(ReplacePlan("p1", "items", [], {"type": "items", "planId": "p1"}))
    store.apply(AppendTerminalOutput("term1", b"x"))
    store.apply(SetState("running"))
    store.apply(PatchUsage(used=1, size=2))
    store.apply(RecordNotice("info", "toast"))
    assert store.timeline() == (
        ("message", "u1"),
        ("message", "a1"),
        ("tool_call", "t1"),
        ("plan", "p1"),
        ("terminal", "term1"),
        ("permission", "9"),
        ("unknown_update", "0"),
    )


def test_referenced_terminals_leave_the_timeline_and_can_return(
    store: SessionStore,
) -> None:
    store.apply(PatchTerminal("term1", command="make"))
    store.apply(AppendMessageChunk("a1", "agent", text("x")))
    revision = store.timeline_revision
    store.apply(PatchToolCall("t1", content=[terminal_item("term1")]))
    assert store.timeline() == (("message", "a1"), ("tool_call", "t1"))
    assert store.timeline_revision > revision
    store.apply(PatchToolCall("t1", content=[item("no terminal any more")]))
    assert store.timeline() == (
        ("terminal", "term1"),
        ("message", "a1"),
        ("tool_call", "t1"),
    )


def test_timeline_query_is_cached(store: SessionStore) -> None:
    store.apply(AppendMessageChunk("a1", "agent", text("x")))
    first = store.timeline()
    revision = store.timeline_revision
    store.apply(AppendMessageChunk("a1", "agent", text("y")))
    assert store.timeline() is first
    assert store.timeline_revision == revision


# --- listeners --------------------------------------------------------------


def test_listener_gets_each_applys_changes(store: SessionStore) -> None:
    recorder = Recorder()
    store.subscribe(recorder)
    returned = store.apply(AppendMessageChunk("m1", "agent", text("a")))
    store.apply(AppendMessageChunk("m1", "agent", text("b")))
    assert recorder.batches == [
        returned,
        (Change("message", "m1", "appended", text("b")),),
    ]


def test_apply_many_notifies_once(store: SessionStore) -> None:
    recorder = Recorder()
    store.subscribe(recorder)
    changes = store.apply_many(
        [
            AppendMessageChunk("m1", "agent", text("a")),
            AppendMessageChunk("m1", "agent", text("b")),
            PatchToolCall("t1"),
        ]
    )
    assert len(changes) == 3
    assert recorder.batches == [changes]


def test_apply_many_reports_what_was_applied_before_an_error(
    store: SessionStore,
) -> None:
    recorder = Recorder()
    store.subscribe(recorder)
    bad = AppendTerminalOutput("term1", 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.apply_many([PatchToolCall("t1"), bad])
    assert recorder.changes[0] == Change("tool_call", "t1", "added")


def test_no_change_no_notification(store: SessionStore) -> None:
    recorder = Recorder()
    store.subscribe(recorder)
    store.apply(ResolvePermission("nope", {"outcome": "cancelled"}))
    store.apply_many([])
    assert recorder.batches == []


def test_unsubscribe_stops_notifications(store: SessionStore) -> None:
    recorder = Recorder()
    unsubscribe = store.subscribe(recorder)
    store.apply(PatchToolCall("t1"))
    unsubscribe()
    unsubscribe()  # twice is fine
    store.apply(PatchToolCall("t2"))
    assert [c.id for c in recorder.changes] == ["t1"]


def test_raising_listener_is_logged_and_others_still_run(
    store: SessionStore, caplog: pytest.LogCaptureFixture
) -> None:
    before, after = Recorder(), Recorder()

    def broken(changes: Sequence[Change]) -> None:
        raise RuntimeError("listener bug")

    store.subscribe(before)
    store.subscribe(broken)
    store.subscribe(after)
    with caplog.at_level(logging.ERROR, logger="acp_tui.store.store"):
        changes = store.apply(PatchToolCall("t1"))
    assert changes == (Change("tool_call", "t1", "added"),)
    assert before.batches == after.batches == [changes]
    assert "listener bug" in caplog.text
    store.apply(PatchToolCall("t1", status="completed"))
    tool_call = store.tool_call("t1")
    assert tool_call is not None
    assert tool_call.status == "completed"


def test_listener_may_unsubscribe_while_notified(store: SessionStore) -> None:
    seen: list[str] = []
    unsubscribe: list[Any] = []

    def once(changes: Sequence[Change]) -> None:
        seen.append("once")
        unsubscribe[0]()

    unsubscribe.append(store.subscribe(once))
    other = Recorder()
    store.subscribe(other)
    store.apply(PatchToolCall("t1"))
    store.apply(PatchToolCall("t2"))
    assert seen == ["once"]
    assert len(other.batches) == 2


# --- dispatch ---------------------------------------------------------------


def test_unknown_op_changes_nothing(store: SessionStore) -> None:
    recorder = Recorder()
    store.subscribe(recorder)
    assert store.apply(object()) == ()  # type: ignore[arg-type]
    assert store.apply_many([object()]) == ()  # type: ignore[list-item]
    assert recorder.batches == []


def test_op_subclass_dispatches_to_its_base(store: SessionStore) -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class LoudChunk(AppendMessageChunk):
        pass

    store.apply(LoudChunk("m1", "agent", text("a")))
    store.apply(LoudChunk("m1", "agent", text("b")))
    message = store.message("m1")
    assert message is not None
    assert message.text == "ab"


def test_one_change_per_common_op(store: SessionStore) -> None:
    ops: list[Op] = [
        UpsertMessage("m1", "agent", content=[text("a")]),
        AppendMessageChunk("m1", "agent", text("b")),
        PatchToolCall("t1", status="in_progress"),
        AppendToolCallContent("t1", item("x")),
        ReplacePlan("p1", "items", [], {}),
        PatchTerminal("term1", output=b"x"),
        AppendTerminalOutput("term1", b"y"),
        SetConfigOptions([]),
        SetAvailableCommands([]),
        PatchSessionInfo(title="t"),
        PatchUsage(used=1),
        SetState("running"),
        AddPermission("1", "?"),
        ResolvePermission("1", {"outcome": "cancelled"}),
        RecordUnknownUpdate({}),
        RecordNotice("info", "x"),
    ]
    for op in ops:
        assert len(store.apply(op)) == 1, op


# --- ContentView ------------------------------------------------------------


def test_content_view_is_an_immutable_prefix() -> None:
    backing = [1, 2, 3]
    view = ContentView(backing, 2)
    backing.append(4)
    assert list(view) == [1, 2]
    assert len(view) == 2
    assert view[-1] == 2
    assert view[0:5] == (1, 2)
    assert list(reversed(view)) == [2, 1]
    assert view == [1, 2]
    assert [1, 2].__eq__(view) is NotImplemented  # so Python asks the view
    assert view == (1, 2)
    assert view != [1, 2, 3]
    assert view != "12"
    assert 2 in view
    assert view.index(2) == 1
    with pytest.raises(IndexError):
        view[2]
    assert repr(view) == "ContentView([1, 2])"


# --- to_json ----------------------------------------------------------------


def _full_store() -> SessionStore:
    store = SessionStore("sess_1", clock=lambda: 0.0)
    meta: JSONObject = {"traceparent": "00-abc"}
    store.apply(UpsertMessage("u1", "user", content=[text("hi")]))
    store.apply(AppendMessageChunk("a1", "agent", text("Hel")))
    store.apply(AppendMessageChunk("a1", "agent", text("lo")))
    store.apply(AppendMessageChunk("a1", "agent", image()))
    store.apply(UpsertMessage("a1", "agent", meta=meta))
    store.apply(
        PatchToolCall(
            "t1",
            title="Run",
            kind="execute",
            status="completed",
            raw_input={"command": "ls"},
            locations=[{"path": "/w/a.py", "line": 1}],
        )
    )
    store.apply(AppendToolCallContent("t1", terminal_item("term1")))
    store.apply(PatchToolCall("t2", name="grep", capabilities={"cancel": {}}))
    store.apply(
        ReplacePlan(
            "main",
            "items",
            [{"content": "a", "priority": "high", "status": "pending"}],
            {"entries": [], "_meta": {"v1": True}},
        )
    )
    store.apply(
        ReplacePlan(
            "p2", "markdown", [], {"type": "markdown", "planId": "p2", "md": "# x"}
        )
    )
    store.apply(PatchTerminal("term1", command="ls", cwd="/w", exit_status={}))
    store.apply(AppendTerminalOutput("term1", b"a.py\n"))
    store.apply(PatchTerminal("term2", meta={"k": 1}, size={"cols": 80, "rows": 24}))
    store.apply(SetConfigOptions(neutral([{"configId": "mode", "type": "select"}])))
    store.apply(SetAvailableCommands([{"name": "web", "description": "Search"}]))
    store.apply(PatchSessionInfo(title="T", meta={"m": 1}))
    store.apply(PatchUsage(used=5, size=10, cost={"amount": 1, "currency": "EUR"}))
    store.apply(AddPermission("7", "Allow?", "desc", None, [{"optionId": "a"}]))
    store.apply(ResolvePermission("7", {"outcome": "selected", "optionId": "a"}))
    store.apply(RecordUnknownUpdate({"sessionUpdate": "_vendor", "x": 1}))
    store.apply(SetState("running"))
    store.apply(SetState("idle", stop_reason="end_turn"))
    return store


def test_to_json_shape_and_exact_wire_keys() -> None:
    data: dict[str, Any] = _full_store().to_json()
    expected: dict[str, Any] = {
        "sessionId": "sess_1",
        "timeline": [
            {"kind": "message", "id": "u1"},
            {"kind": "message", "id": "a1"},
            {"kind": "tool_call", "id": "t1"},
            {"kind": "tool_call", "id": "t2"},
            {"kind": "plan", "id": "main"},
            {"kind": "plan", "id": "p2"},
            {"kind": "terminal", "id": "term2"},
            {"kind": "permission", "id": "7"},
            {"kind": "unknown_update", "id": "0"},
        ],
        "messages": [
            {"messageId": "u1", "role": "user", "content": [text("hi")]},
            {
                "messageId": "a1",
                "role": "agent",
                "content": [text("Hel"), text("lo"), image()],
                "_meta": {"traceparent": "00-abc"},
            },
        ],
        "toolCalls": [
            {
                "toolCallId": "t1",
                "title": "Run",
                "kind": "execute",
                "status": "completed",
                "content": [terminal_item("term1")],
                "locations": [{"path": "/w/a.py", "line": 1}],
                "rawInput": {"command": "ls"},
                "rawOutput": None,
            },
            {
                "toolCallId": "t2",
                "title": None,
                "kind": "other",
                "status": "pending",
                "content": [],
                "locations": [],
                "rawInput": None,
                "rawOutput": None,
                "name": "grep",
                "capabilities": {"cancel": {}},
            },
        ],
        "plans": [
            {
                "planId": "main",
                "type": "items",
                "entries": [{"content": "a", "priority": "high", "status": "pending"}],
                "_meta": {"v1": True},
            },
            {"type": "markdown", "planId": "p2", "md": "# x"},
        ],
        "terminals": [
            {
                "terminalId": "term1",
                "command": "ls",
                "cwd": "/w",
                "exitStatus": {},
                "output": "YS5weQo=",
            },
            {
                "terminalId": "term2",
                "command": None,
                "cwd": None,
                "exitStatus": None,
                "output": "",
                "_meta": {"k": 1},
                "size": {"cols": 80, "rows": 24},
            },
        ],
        "configOptions": [{"configId": "mode", "type": "select"}],
        "commands": [{"name": "web", "description": "Search"}],
        "usage": {"used": 5, "size": 10, "cost": {"amount": 1, "currency": "EUR"}},
        "info": {"title": "T", "_meta": {"m": 1}},
        "permissions": [
            {
                "permissionId": "7",
                "title": "Allow?",
                "description": "desc",
                "subject": None,
                "options": [{"optionId": "a"}],
                "outcome": {"outcome": "selected", "optionId": "a"},
            }
        ],
        "unknownUpdates": [{"sessionUpdate": "_vendor", "x": 1}],
        "state": "idle",
        "stopReason": "end_turn",
    }
    assert data == expected


def test_to_json_is_json_ready_and_a_deep_copy() -> None:
    store = _full_store()
    data: dict[str, Any] = store.to_json()
    assert json.loads(json.dumps(data)) == data
    data["messages"][1]["content"][0]["text"] = "changed"
    data["messages"][1]["_meta"]["traceparent"] = "changed"
    message = store.message("a1")
    assert message is not None
    assert message.text == "Hello"
    assert message.meta == {"traceparent": "00-abc"}


def test_to_json_merged_meta_and_error_state() -> None:
    store = SessionStore("s")
    store.apply(UpsertMessage("m", "agent", meta={"a": 1}, meta_merge=True))
    store.apply(SetState("idle", stop_reason="error", error={"code": 1}))
    data: dict[str, Any] = store.to_json()
    assert data["messages"][0]["_meta"] == {"a": 1}
    assert json.loads(json.dumps(data)) == data
    assert (data["stopReason"], data["error"]) == ("error", {"code": 1})


def test_to_json_terminal_text_hook_and_dropped_bytes() -> None:
    store = SessionStore("s", max_terminal_bytes=3)
    store.apply(AppendTerminalOutput("term1", b"abcdef"))
    store.apply(PatchTerminal("term2"))
    data: dict[str, Any] = store.to_json(
        terminal_text=lambda t: t.output.decode() if t.terminal_id == "term1" else None
    )
    first, second = data["terminals"]
    assert (first["text"], first["droppedBytes"], first["output"]) == (
        "def",
        3,
        "ZGVm",
    )
    assert "text" not in second
    assert "droppedBytes" not in second


def test_meta_is_kept_on_every_level() -> None:
    store = SessionStore("s")
    block: JSONObject = {"type": "text", "text": "a", "_meta": {"level": "block"}}
    content_item: JSONObject = {
        "type": "content",
        "content": block,
        "_meta": {"level": "item"},
    }
    diff: JSONObject = {
        "type": "diff",
        "changes": [{"operation": "_rename", "path": "/a", "_meta": {"x": 1}}],
        "patch": None,
        "_meta": {"level": "diff"},
    }
    entry: JSONObject = {"content": "e", "status": "pending", "_meta": {"e": 1}}
    store.apply(AppendMessageChunk("m", "agent", block))
    store.apply(PatchToolCall("t", content=[content_item, diff], meta={"tc": 1}))
    raw: JSONObject = {"type": "items", "planId": "p", "entries": [entry]}
    store.apply(ReplacePlan("p", "items", [entry], raw))
    store.apply(SetConfigOptions(neutral([{"configId": "c", "_meta": {"o": 1}}])))
    data: dict[str, Any] = store.to_json()
    assert data["messages"][0]["content"] == [block]
    assert data["toolCalls"][0]["content"] == [content_item, diff]
    assert data["toolCalls"][0]["_meta"] == {"tc": 1}
    assert data["plans"][0]["entries"] == [entry]
    assert data["configOptions"] == [{"configId": "c", "_meta": {"o": 1}}]
