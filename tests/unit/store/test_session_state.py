"""Plans, foreground state, permissions, session-level values, other records."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.store import (
    AddPermission,
    Change,
    JSONObject,
    PatchSessionInfo,
    PatchToolCall,
    PatchUsage,
    Permission,
    Plan,
    RecordNotice,
    RecordUnknownUpdate,
    ReplacePlan,
    ResolvePermission,
    SessionInfo,
    SessionState,
    SessionStore,
    SetAvailableCommands,
    SetConfigOptions,
    SetState,
    Usage,
)
from acp_tui.store.config import ANY_KEYS, ConfigOption, read_options

# --- plans (§4.10) ----------------------------------------------------------


def neutral(options: list[Any]) -> list[ConfigOption]:
    """Wire-form config options as the store keeps them (either spelling)."""
    return read_options(options, ANY_KEYS)


def _entry(content: str, status: str = "pending") -> JSONObject:
    return {"content": content, "priority": "medium", "status": status}


def _items(plan_id: str, *entries: JSONObject) -> ReplacePlan:
    raw: JSONObject = {"type": "items", "planId": plan_id, "entries": list(entries)}
    return ReplacePlan(plan_id, "items", entries, raw)


def test_two_plan_ids_are_kept_apart(store: SessionStore) -> None:
    store.apply(_items("p1", _entry("a")))
    store.apply(_items("p2", _entry("b"), _entry("c")))
    assert [(p.plan_id, len(p.entries)) for p in store.plans()] == [
        ("p1", 1),
        ("p2", 2),
    ]


def test_plan_update_replaces_entries_completely(store: SessionStore) -> None:
    assert store.apply(_items("p1", _entry("a"), _entry("b"))) == (
        Change("plan", "p1", "added"),
    )
    changes = store.apply(_items("p1", _entry("c", "in_progress")))
    assert changes == (Change("plan", "p1", "replaced"),)
    plan = store.plan("p1")
    assert plan is not None
    assert plan.entries == (_entry("c", "in_progress"),)
    assert store.apply(_items("p1")) == (Change("plan", "p1", "replaced"),)
    assert store.plan("p1") == Plan("p1", "items", (), plan_raw("p1"))


def plan_raw(plan_id: str) -> JSONObject:
    return {"type": "items", "planId": plan_id, "entries": []}


def test_unknown_plan_type_is_kept_raw(store: SessionStore) -> None:
    raw: JSONObject = {"type": "markdown", "planId": "p9", "text": "# Plan\n- a"}
    store.apply(ReplacePlan("p9", "markdown", (), raw))
    plan = store.plan("p9")
    assert plan is not None
    assert (plan.plan_type, plan.raw) == ("markdown", raw)
    assert store.plan("nope") is None


# --- foreground state (§4.5) --------------------------------------------------


def test_new_session_is_idle_without_stop_reason(store: SessionStore) -> None:
    state = store.state
    assert state == SessionState()
    assert (state.state, state.stop_reason, state.is_idle, state.is_busy) == (
        "idle",
        None,
        True,
        False,
    )


@pytest.mark.parametrize("name", ["running", "requires_action", "compacting", "_x"])
def test_anything_but_idle_is_busy(store: SessionStore, name: str) -> None:
    assert store.apply(SetState(name)) == (Change("state", None, "updated"),)
    assert store.state.state == name
    assert store.state.is_busy
    assert not store.state.is_idle


def test_idle_with_stop_reason_ends_a_turn() -> None:
    times = iter([100.0, 200.0])
    store = SessionStore("s", clock=lambda: next(times))
    store.apply(SetState("running"))
    store.apply(SetState("idle", stop_reason="end_turn"))
    state = store.state
    assert (state.state, state.stop_reason, state.last_stop_reason) == (
        "idle",
        "end_turn",
        "end_turn",
    )
    assert (state.turns_ended, state.ended_at) == (1, 100.0)
    store.apply(SetState("running"))
    assert store.state.stop_reason is None
    assert store.state.last_stop_reason == "end_turn"
    store.apply(SetState("idle", stop_reason="cancelled"))
    assert (store.state.last_stop_reason, store.state.turns_ended) == ("cancelled", 2)
    assert store.state.ended_at == 200.0


def test_repeated_idle_is_not_a_new_turn_end(store: SessionStore) -> None:
    store.apply(SetState("idle", stop_reason="end_turn"))  # e.g. after a replay
    assert store.state.turns_ended == 0
    assert store.state.ended_at is None
    assert store.state.last_stop_reason == "end_turn"


def test_idle_without_stop_reason_and_error_stop(store: SessionStore) -> None:
    store.apply(SetState("running"))
    store.apply(SetState("idle"))
    assert (store.state.stop_reason, store.state.turns_ended) == (None, 1)
    store.apply(SetState("running"))
    error: JSONObject = {"code": -32603, "message": "boom"}
    raw: JSONObject = {"sessionUpdate": "state_update", "state": "idle"}
    store.apply(SetState("idle", stop_reason="error", error=error, raw=raw))
    assert (store.state.error, store.state.raw) == (error, raw)


def test_unknown_state_is_kept_and_busy_until_a_known_one(
    store: SessionStore,
) -> None:
    store.apply(SetState("hibernating"))
    assert store.state.is_busy
    store.apply(SetState("idle", stop_reason="_vendor_stop"))
    assert store.state.is_idle
    assert store.state.stop_reason == "_vendor_stop"


# --- permissions (§4.11) ------------------------------------------------------


OPTIONS: list[JSONObject] = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "x", "name": "Maybe", "kind": "_ask_later"},
]


def test_add_resolve_and_pending(store: SessionStore) -> None:
    subject: JSONObject = {"type": "command", "command": "rm -rf build", "cwd": "/w"}
    assert store.apply(AddPermission("1", "Run?", "It deletes", subject, OPTIONS)) == (
        Change("permission", "1", "added"),
    )
    store.apply(AddPermission("2", "Also?", None, None, OPTIONS[:1]))
    assert [p.permission_id for p in store.pending_permissions()] == ["1", "2"]
    outcome: JSONObject = {"outcome": "selected", "optionId": "allow"}
    assert store.apply(ResolvePermission("1", outcome)) == (
        Change("permission", "1", "updated"),
    )
    assert [p.permission_id for p in store.pending_permissions()] == ["2"]
    store.apply(ResolvePermission("2", {"outcome": "cancelled"}))
    assert store.pending_permissions() == ()
    assert store.permissions() == (
        Permission(
            "1", "Run?", "It deletes", subject, tuple(OPTIONS), None, None, outcome
        ),
        Permission(
            "2",
            "Also?",
            None,
            None,
            (OPTIONS[0],),
            None,
            None,
            {"outcome": "cancelled"},
        ),
    )
    first = store.permission("1")
    assert first is not None
    assert not first.pending


def test_resolving_an_unknown_permission_is_ignored(store: SessionStore) -> None:
    assert store.apply(ResolvePermission("9", {"outcome": "cancelled"})) == ()
    assert store.permissions() == ()


def test_tool_call_subject_links_to_the_tool_call(store: SessionStore) -> None:
    store.apply(PatchToolCall("t1", title="Edit a.py", kind="edit"))
    subject: JSONObject = {"type": "tool_call", "toolCall": {"toolCallId": "t1"}}
    store.apply(AddPermission("1", "Edit?", None, subject, OPTIONS, "t1"))
    permission = store.permission("1")
    assert permission is not None
    assert permission.tool_call_id == "t1"
    tool_call = store.tool_call("t1")
    assert tool_call is not None
    assert tool_call.title == "Edit a.py"  # the permission's title is not a patch
    assert store.timeline() == (("tool_call", "t1"), ("permission", "1"))


def test_unknown_subject_and_no_subject_are_kept(store: SessionStore) -> None:
    unknown: JSONObject = {"type": "_vendor_subject", "blob": [1]}
    store.apply(AddPermission("1", "?", None, unknown, OPTIONS))
    store.apply(AddPermission("2", "?", None, None, OPTIONS))
    assert [p.subject for p in store.permissions()] == [unknown, None]


def test_re_adding_a_permission_updates_it_in_place(store: SessionStore) -> None:
    store.apply(AddPermission("1", "First", None, None, OPTIONS))
    store.apply(ResolvePermission("1", {"outcome": "cancelled"}))
    assert store.apply(AddPermission("1", "Again", None, None, OPTIONS)) == (
        Change("permission", "1", "updated"),
    )
    permission = store.permission("1")
    assert permission is not None
    assert (permission.title, permission.pending) == ("Again", True)
    assert store.timeline() == (("permission", "1"),)


# --- session-level values (§4.13) -------------------------------------------


def test_config_options_and_commands_replace_whole_lists(store: SessionStore) -> None:
    options: list[JSONObject] = [
        {"configId": "model", "type": "select", "currentValue": "a", "options": []},
        {"configId": "x", "type": "_unknown_type"},
    ]
    assert store.apply(SetConfigOptions(neutral(options))) == (
        Change("config_options", None, "replaced"),
    )
    assert store.config_options == tuple(options)
    store.apply(SetConfigOptions(neutral(options[1:])))
    assert store.config_options == (options[1],)
    commands: list[JSONObject] = [{"name": "web", "description": "Search"}]
    assert store.apply(SetAvailableCommands(commands)) == (
        Change("commands", None, "replaced"),
    )
    store.apply(SetAvailableCommands(commands + commands))
    store.apply(SetAvailableCommands([]))
    assert store.commands == ()


def test_session_info_three_states(store: SessionStore) -> None:
    assert store.session_info == SessionInfo()
    store.apply(PatchSessionInfo(title="Fix bug", updated_at="2025-01-01T00:00:00Z"))
    store.apply(PatchSessionInfo(meta={"a": 1}))
    assert store.session_info == SessionInfo(
        "Fix bug", "2025-01-01T00:00:00Z", {"a": 1}
    )
    store.apply(PatchSessionInfo(title=None))
    assert store.session_info == SessionInfo(None, "2025-01-01T00:00:00Z", {"a": 1})
    store.apply(PatchSessionInfo(meta={"b": 2}, meta_merge=True))
    assert store.session_info.meta == {"a": 1, "b": 2}


def test_usage_cost_omitted_keeps_null_clears(store: SessionStore) -> None:
    assert store.usage is None
    cost: JSONObject = {"amount": 0.5, "currency": "USD"}
    assert store.apply(PatchUsage(used=10, size=100, cost=cost)) == (
        Change("usage", None, "added"),
    )
    store.apply(PatchUsage(used=20, size=100))
    assert store.usage == Usage(20, 100, cost)
    assert store.apply(PatchUsage(used=30, size=100, cost=None)) == (
        Change("usage", None, "updated"),
    )
    assert store.usage == Usage(30, 100, None)


# --- other records (§4.13.7, notices) ---------------------------------------


def test_unknown_updates_are_kept_raw_in_order(store: SessionStore) -> None:
    first: JSONObject = {"sessionUpdate": "_vendor_thing", "x": {"y": [1]}}
    second: JSONObject = {"sessionUpdate": "future_update", "_meta": None}
    assert store.apply(RecordUnknownUpdate(first)) == (
        Change("unknown_update", "0", "added"),
    )
    store.apply(RecordUnknownUpdate(second))
    assert store.unknown_updates == (first, second)
    assert store.unknown_updates[0] is first
    assert store.timeline() == (("unknown_update", "0"), ("unknown_update", "1"))


def test_notices_are_bounded_and_not_in_the_timeline() -> None:
    store = SessionStore("s", max_notices=2)
    for n in range(3):
        changes = store.apply(RecordNotice("info", f"n{n}", None, {"n": n}))
        assert changes == (Change("notice", str(n), "added"),)
    assert [(x.notice_id, x.title) for x in store.notices] == [("1", "n1"), ("2", "n2")]
    assert store.timeline() == ()


def test_updates_while_idle_do_not_change_the_state(store: SessionStore) -> None:
    state = store.state
    store.apply(PatchToolCall("bg", status="in_progress"))
    store.apply(RecordUnknownUpdate({"sessionUpdate": "_x"}))
    store.apply(PatchUsage(used=1, size=2))
    assert store.state is state
    assert store.state.is_idle


def test_agent_started_work_goes_running_then_idle(store: SessionStore) -> None:
    store.apply(SetState("running"))
    store.apply(SetState("idle", stop_reason="end_turn"))
    assert (store.state.is_idle, store.state.turns_ended) == (True, 1)
