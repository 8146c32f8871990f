"""ACP v1 `session/update` scripts at the wire level: translator, then store.

Each test plays raw `session/update` params through `v1.SessionNotification` and a
`V1Translator`, applies the ops to a `SessionStore`, and asserts the store's state
exactly. v1 has no whole-message updates, no `state_update` and no display
terminals; chunks may lack a `messageId`, `tool_call` creates, `plan` is the single
plan `"main"` and `current_mode_update` moves the mode option (CLIENT-CHECKLIST §4.6,
§4.7, §4.10, §4.13).
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal, TypeAlias

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.client import v1 as translate_v1
from acp_tui.client.v1 import OPTION_KEYS
from acp_tui.protocol.schema import v1
from acp_tui.store import (
    AppendMessageChunk,
    PatchToolCall,
    RecordUnknownUpdate,
    SessionStore,
    SetConfigOptions,
)
from acp_tui.store.config import ConfigOption, read_options
from tests.unit.client.scripts import (
    SESSION_ID,
    Player,
    Update,
    block_image,
    chunk,
    dump,
    item,
    play,
    shape,
    text,
)


def neutral(options: list[Any]) -> list[ConfigOption]:
    """Wire-form config options as the store keeps them (v1 spelling)."""
    return read_options(options, OPTION_KEYS)


def tool_call(tool_call_id: str, title: str, **fields: Any) -> Update:
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": tool_call_id,
        "title": title,
        **fields,
    }


def tool_update(tool_call_id: str, **fields: Any) -> Update:
    return {"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id, **fields}


def plan(entries: list[dict[str, Any]], **extra: Any) -> Update:
    return {"sessionUpdate": "plan", "entries": entries, **extra}


def entry(content: str, status: str = "pending", **extra: Any) -> dict[str, Any]:
    return {"content": content, "priority": "high", "status": status, **extra}


TOOL_DEFAULTS: Final[dict[str, Any]] = {
    "toolCallId": "call_1",
    "title": None,
    "kind": "other",
    "status": "pending",
    "content": [],
    "locations": [],
    "rawInput": None,
    "rawOutput": None,
}


def tool_json(**fields: Any) -> dict[str, Any]:
    return {**TOOL_DEFAULTS, **fields}


def messages(store: SessionStore) -> list[tuple[str, str, list[Any]]]:
    return [(m["messageId"], m["role"], m["content"]) for m in dump(store)["messages"]]


MODES: Final = v1.SessionModeState.model_validate(
    {
        "currentModeId": "ask",
        "availableModes": [
            {"id": "ask", "name": "Ask"},
            {"id": "code", "name": "Code", "description": "Writes code"},
        ],
    }
)


def mode_option(current: str) -> dict[str, Any]:
    return {
        "id": "mode",
        "name": "Mode",
        "category": "mode",
        "type": "select",
        "currentValue": current,
        "options": [
            {"value": "ask", "name": "Ask"},
            {"value": "code", "name": "Code", "description": "Writes code"},
        ],
    }


# --- messages (§4.6 item 6) ---------------------------------------------------


def test_chunks_without_message_id_join_by_role_and_split_on_role_change() -> None:
    store = play(
        1,
        [
            chunk(None, "hi", role="user"),
            chunk(None, "there", role="user"),
            chunk(None, "let me think", role="thought"),
            chunk(None, "A", role="agent"),
            chunk(None, "B", role="agent"),
            chunk(None, "again", role="thought"),
            chunk(None, "C", role="agent"),
        ],
    )
    assert messages(store) == [
        ("v1-user-1", "user", [text("hi"), text("there")]),
        ("v1-thought-2", "thought", [text("let me think")]),
        ("v1-agent-3", "agent", [text("A"), text("B")]),
        ("v1-thought-4", "thought", [text("again")]),
        ("v1-agent-5", "agent", [text("C")]),
    ]
    assert [e["id"] for e in dump(store)["timeline"]] == [
        "v1-user-1",
        "v1-thought-2",
        "v1-agent-3",
        "v1-thought-4",
        "v1-agent-5",
    ]


def test_explicit_message_ids_are_respected() -> None:
    store = play(
        1,
        [
            chunk("msg_a", "A1"),
            chunk("msg_b", "B1"),
            chunk("msg_a", "A2"),
            chunk("msg_u", "hello", role="user"),
        ],
    )
    assert messages(store) == [
        ("msg_a", "agent", [text("A1"), text("A2")]),
        ("msg_b", "agent", [text("B1")]),
        ("msg_u", "user", [text("hello")]),
    ]


def test_id_less_chunk_joins_the_current_message_of_its_role() -> None:
    store = play(
        1,
        [
            chunk("msg_a", "A"),
            chunk(None, "B"),  # same role: joins msg_a
            chunk(None, "T", role="thought"),  # role change: a new message
            chunk(None, "C"),  # and back: another new message
        ],
    )
    assert messages(store) == [
        ("msg_a", "agent", [text("A"), text("B")]),
        ("v1-thought-1", "thought", [text("T")]),
        ("v1-agent-2", "agent", [text("C")]),
    ]


def test_end_message_starts_a_new_message_of_the_same_role() -> None:
    player = Player(1)
    player.send(chunk(None, "turn 1"))
    assert player.v1 is not None
    player.v1.end_message()
    player.send(chunk(None, "turn 2"))
    assert messages(player.store) == [
        ("v1-agent-1", "agent", [text("turn 1")]),
        ("v1-agent-2", "agent", [text("turn 2")]),
    ]


def test_new_message_id_is_joined_by_later_chunks_of_that_role() -> None:
    player = Player(1)
    assert player.v1 is not None
    assert player.v1.new_message_id("user") == "v1-user-1"
    assert player.ops(chunk(None, "echo", role="user")) == [
        AppendMessageChunk("v1-user-1", "user", text("echo"))
    ]


def test_chunk_meta_does_not_touch_the_message_and_null_id_is_absent() -> None:
    block = text("B", _meta={"block": True})
    store = play(
        1,
        [
            chunk(None, "A", _meta={"chunk": 1}),
            chunk(None, block, messageId=None),
        ],
    )
    assert dump(store)["messages"] == [
        {"messageId": "v1-agent-1", "role": "agent", "content": [text("A"), block]}
    ]


def test_non_text_and_unknown_blocks_are_kept_in_order() -> None:
    unknown = {"type": "_vendor", "x": 1, "_meta": {"v": 1}}
    store = play(
        1, [chunk(None, "A"), chunk(None, block_image()), chunk(None, unknown)]
    )
    message = store.message("v1-agent-1")
    assert message is not None
    assert message.runs() == ("A", block_image(), unknown)


# --- tool calls (§4.7, v1) ----------------------------------------------------


def test_tool_call_then_tool_call_update() -> None:
    player = Player(1)
    player.send(
        tool_call(
            "call_1",
            "Read a.txt",
            kind="read",
            status="pending",
            locations=[{"path": "/r/a.txt", "line": 1}],
            rawInput={"path": "/r/a.txt"},
        )
    )
    assert dump(player.store)["toolCalls"] == [
        tool_json(
            title="Read a.txt",
            kind="read",
            locations=[{"path": "/r/a.txt", "line": 1}],
            rawInput={"path": "/r/a.txt"},
        )
    ]
    player.send(tool_update("call_1", status="in_progress"))
    player.send(
        tool_update(
            "call_1", status="completed", content=[item("body")], rawOutput="body"
        )
    )
    assert dump(player.store)["toolCalls"] == [
        tool_json(
            title="Read a.txt",
            kind="read",
            status="completed",
            content=[item("body")],
            locations=[{"path": "/r/a.txt", "line": 1}],
            rawInput={"path": "/r/a.txt"},
            rawOutput="body",
        )
    ]
    assert dump(player.store)["timeline"] == [{"kind": "tool_call", "id": "call_1"}]


def test_tool_call_update_for_unknown_id_creates_it() -> None:
    store = play(1, [tool_update("call_1", status="in_progress", title="Running")])
    assert dump(store)["toolCalls"] == [
        tool_json(title="Running", status="in_progress")
    ]


@pytest.mark.parametrize("omitted", [True, False], ids=["omitted", "null"])
def test_tool_call_omitting_kind_and_status_gets_defaults(omitted: bool) -> None:
    fields: dict[str, Any] = {} if omitted else {"kind": None, "status": None}
    store = play(1, [tool_call("call_1", "Think", **fields)])
    assert dump(store)["toolCalls"] == [tool_json(title="Think")]


def test_tool_call_restates_every_field_it_omits_as_default() -> None:
    store = play(
        1,
        [
            tool_call(
                "call_1",
                "First",
                kind="edit",
                status="in_progress",
                content=[item("a")],
                locations=[{"path": "/a"}],
                rawInput={"i": 1},
                rawOutput={"o": 1},
                _meta={"m": 1},
            ),
            tool_call("call_1", "Second"),
        ],
    )
    assert dump(store)["toolCalls"] == [tool_json(title="Second")]


_ABSENT: Final = object()

# wire key, first value, second value, value after a null
TOOL_FIELDS: Final[list[tuple[str, Any, Any, Any]]] = [
    ("title", "Read a.txt", "Read b.txt", None),
    ("kind", "read", "edit", "other"),
    ("status", "in_progress", "completed", "pending"),
    ("content", [item("one")], [item("two"), item("three")], []),
    ("locations", [{"path": "/a", "line": 3}], [{"path": "/b"}], []),
    ("rawInput", {"path": "/a"}, ["x", 1], None),
    ("rawOutput", {"ok": True}, "done", None),
    ("_meta", {"a": 1}, {"b": 2}, _ABSENT),
]


@pytest.mark.parametrize(("key", "first", "second", "cleared"), TOOL_FIELDS)
@pytest.mark.parametrize("sent", ["omitted", "null", "value"])
def test_tool_call_update_field_null_versus_omitted(
    key: str, first: Any, second: Any, cleared: Any, sent: str
) -> None:
    patch: dict[str, Any] = {
        "omitted": {},
        "null": {key: None},
        "value": {key: second},
    }[sent]
    store = play(
        1,
        [tool_update("call_1", **{key: first}), tool_update("call_1", **patch)],
    )
    expected = tool_json()
    value = {"omitted": first, "null": cleared, "value": second}[sent]
    if value is _ABSENT:
        expected.pop(key, None)
    else:
        expected[key] = value
    assert dump(store)["toolCalls"] == [expected]


def test_tool_call_update_ops_are_three_state() -> None:
    player = Player(1)
    assert player.ops(tool_update("call_1")) == [PatchToolCall("call_1")]
    assert player.ops(
        tool_update("call_1", kind=None, content=None, rawInput=None)
    ) == [PatchToolCall("call_1", kind=None, content=None, raw_input=None)]


def test_unknown_tool_content_status_and_kind_are_kept_raw() -> None:
    unknown = {"type": "_vendor_chart", "series": [1, 2], "_meta": {"c": 1}}
    store = play(
        1,
        [
            tool_call(
                "call_1", "Odd", kind="teleport", status="_queued", content=[unknown]
            ),
        ],
    )
    assert dump(store)["toolCalls"] == [
        tool_json(title="Odd", kind="teleport", status="_queued", content=[unknown])
    ]


def test_diff_and_terminal_content_are_kept_as_received() -> None:
    new_file = {"type": "diff", "path": "/r/new.py", "newText": "x = 1\n"}
    edit = {"type": "diff", "path": "/r/a.py", "oldText": "a", "newText": "b"}
    null_old = {"type": "diff", "path": "/r/n.py", "oldText": None, "newText": ""}
    term = {"type": "terminal", "terminalId": "term_1"}
    store = play(
        1,
        [
            tool_call(
                "call_1", "Edit", kind="edit", content=[new_file, edit, null_old, term]
            )
        ],
    )
    assert dump(store)["toolCalls"][0]["content"] == [new_file, edit, null_old, term]
    assert store.terminal_ids_for_tool_call("call_1") == ("term_1",)


# --- plans (§4.10) ------------------------------------------------------------


def test_plan_is_the_main_plan_replaced_whole() -> None:
    player = Player(1)
    player.send(plan([entry("a"), entry("b")]))
    assert dump(player.store)["plans"] == [
        {"planId": "main", "type": "items", "entries": [entry("a"), entry("b")]}
    ]
    player.send(plan([entry("b", "completed", _meta={"e": 1})], _meta={"p": 1}))
    assert dump(player.store)["plans"] == [
        {
            "planId": "main",
            "type": "items",
            "entries": [entry("b", "completed", _meta={"e": 1})],
            "_meta": {"p": 1},
        }
    ]
    player.send(plan([]))
    assert dump(player.store)["plans"] == [
        {"planId": "main", "type": "items", "entries": []}
    ]
    assert dump(player.store)["timeline"] == [{"kind": "plan", "id": "main"}]
    found = player.store.plan(translate_v1.MAIN_PLAN_ID)
    assert found is not None
    assert found.plan_type == "items"


def test_plan_entry_unknown_priority_and_status_are_kept() -> None:
    odd = {"content": "x", "priority": "urgent", "status": "_blocked"}
    store = play(1, [plan([odd])])
    assert dump(store)["plans"][0]["entries"] == [odd]


# --- modes and other session-level updates (§4.13) ----------------------------


def _store_with_modes(options: list[dict[str, Any]] | None = None) -> SessionStore:
    store = SessionStore(SESSION_ID)
    store.apply(
        SetConfigOptions(neutral(translate_v1.with_modes(options or [], MODES)))
    )
    return store


def test_current_mode_update_moves_the_mode_option() -> None:
    store = _store_with_modes()
    before = store.config_options
    assert [dict(o) for o in before] == [mode_option("ask")]
    play(1, [{"sessionUpdate": "current_mode_update", "currentModeId": "code"}], store)
    assert dump(store)["configOptions"] == [mode_option("code")]
    assert [dict(o) for o in before] == [mode_option("ask")]  # not mutated
    assert dump(store)["unknownUpdates"] == []


def test_current_mode_update_moves_the_agents_own_mode_option() -> None:
    model = {
        "type": "select",
        "id": "model",
        "name": "Model",
        "category": "model",
        "currentValue": "m1",
        "options": [{"value": "m1", "name": "M1"}],
    }
    own = {
        "type": "select",
        "id": "agent_mode",
        "name": "Mode",
        "category": "mode",
        "currentValue": "ask",
        "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}],
    }
    store = _store_with_modes([model, own])  # no synthesised option: the agent has one
    play(1, [{"sessionUpdate": "current_mode_update", "currentModeId": "code"}], store)
    assert dump(store)["configOptions"] == [model, {**own, "currentValue": "code"}]


def test_current_mode_update_without_a_mode_option_is_kept_as_unknown() -> None:
    raw: Update = {
        "sessionUpdate": "current_mode_update",
        "currentModeId": "code",
        "_meta": {},
    }
    store = play(1, [raw])
    assert dump(store)["configOptions"] == []
    assert dump(store)["unknownUpdates"] == [raw]
    assert dump(store)["timeline"] == [{"kind": "unknown_update", "id": "0"}]
    assert Player(1).ops(raw) == [RecordUnknownUpdate(raw)]


def test_config_option_update_replaces_the_list_including_the_mode_option() -> None:
    boolean = {"type": "boolean", "id": "web", "name": "Web", "currentValue": False}
    unknown = {"type": "_slider", "id": "t", "name": "T", "max": 2}
    store = _store_with_modes()
    play(
        1,
        [
            {
                "sessionUpdate": "config_option_update",
                "configOptions": [boolean, unknown],
            },
            {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
        ],
        store,
    )
    assert dump(store)["configOptions"] == [boolean, unknown]
    assert dump(store)["unknownUpdates"] == [
        {"sessionUpdate": "current_mode_update", "currentModeId": "code"}
    ]


def test_available_commands_update_replaces_the_list() -> None:
    web = {"name": "web", "description": "Search", "input": {"hint": "query"}}
    plain = {"name": "plan", "description": "Plan", "_meta": {"c": 1}}
    player = Player(1)
    player.send(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [web, plain],
        }
    )
    assert dump(player.store)["commands"] == [web, plain]
    player.send({"sessionUpdate": "available_commands_update", "availableCommands": []})
    assert dump(player.store)["commands"] == []


def test_session_info_update_is_three_state() -> None:
    info: dict[str, Any] = {"sessionUpdate": "session_info_update"}
    player = Player(1)
    player.send(
        {**info, "title": "T", "updatedAt": "2025-01-01T00:00:00Z", "_meta": {"i": 1}}
    )
    player.send({**info, "title": "T2"})
    assert dump(player.store)["info"] == {
        "title": "T2",
        "updatedAt": "2025-01-01T00:00:00Z",
        "_meta": {"i": 1},
    }
    player.send({**info, "updatedAt": None, "_meta": None})
    assert dump(player.store)["info"] == {"title": "T2"}
    player.send({**info, "title": None})
    assert dump(player.store)["info"] == {}


def test_usage_update_cost_omitted_null_and_value() -> None:
    usage: dict[str, Any] = {"sessionUpdate": "usage_update"}
    player = Player(1)
    player.send(
        {**usage, "used": 1, "size": 10, "cost": {"amount": 0.25, "currency": "EUR"}}
    )
    player.send({**usage, "used": 2, "size": 10})
    assert dump(player.store)["usage"] == {
        "used": 2,
        "size": 10,
        "cost": {"amount": 0.25, "currency": "EUR"},
    }
    player.send({**usage, "used": 3, "size": 10, "cost": None, "_meta": {"u": 1}})
    assert dump(player.store)["usage"] == {"used": 3, "size": 10, "_meta": {"u": 1}}


def test_v1_has_no_state_updates_the_session_stays_idle() -> None:
    store = play(1, [chunk(None, "A"), tool_call("call_1", "T"), plan([])])
    assert store.state.is_idle
    assert (dump(store)["state"], dump(store)["stopReason"]) == ("idle", None)


# --- unknown updates and `_meta` (§4.13, §4.14) ---------------------------------


def test_unknown_session_updates_are_kept_raw_in_order() -> None:
    vendor = {"sessionUpdate": "_acme/progress", "percent": 10, "_meta": {"x": 1}}
    future = {"sessionUpdate": "weather_report", "sky": "newer v1"}
    v2_only = {"sessionUpdate": "state_update", "state": "running"}
    store = play(1, [vendor, chunk(None, "A"), future, v2_only])
    assert dump(store)["unknownUpdates"] == [vendor, future, v2_only]
    assert dump(store)["timeline"] == [
        {"kind": "unknown_update", "id": "0"},
        {"kind": "message", "id": "v1-agent-1"},
        {"kind": "unknown_update", "id": "1"},
        {"kind": "unknown_update", "id": "2"},
    ]
    assert store.state.is_idle  # a v2-shaped state_update means nothing in v1


def test_meta_is_kept_at_every_level() -> None:
    block = text("A", _meta={"level": "block"})
    content_item = {"type": "content", "content": block, "_meta": {"level": "item"}}
    plan_entry = entry("step", _meta={"level": "entry"})
    store = play(
        1,
        [
            chunk(None, block, _meta={"level": "chunk"}),
            tool_call("call_1", "T", content=[content_item], _meta={"level": "call"}),
            tool_update(
                "call_1", locations=[{"path": "/a", "_meta": {"level": "loc"}}]
            ),
            plan([plan_entry], _meta={"level": "plan"}),
            {"sessionUpdate": "session_info_update", "_meta": {"level": "info"}},
        ],
    )
    document = dump(store)
    assert document["messages"] == [
        {"messageId": "v1-agent-1", "role": "agent", "content": [block]}
    ]
    assert document["toolCalls"] == [
        tool_json(
            title="T",
            content=[content_item],
            locations=[{"path": "/a", "_meta": {"level": "loc"}}],
            _meta={"level": "call"},
        )
    ]
    assert document["plans"] == [
        {
            "planId": "main",
            "type": "items",
            "entries": [plan_entry],
            "_meta": {"level": "plan"},
        }
    ]
    assert document["info"] == {"_meta": {"level": "info"}}


def test_content_block_with_vendor_keys_round_trips() -> None:
    block = {
        "type": "resource_link",
        "name": "a",
        "uri": "file:///a",
        "_meta": {"traceparent": "00-1-2-01"},
        "vendor": {"k": [1, None, "x"]},
        "size": 12,
    }
    store = play(1, [chunk(None, block)])
    stored = dump(store)["messages"][0]["content"]
    assert json.dumps(stored, sort_keys=True) == json.dumps([block], sort_keys=True)


def test_integral_float_fields_round_trip_exactly() -> None:
    cost = {"amount": 1, "currency": "USD"}
    store = play(
        1, [{"sessionUpdate": "usage_update", "used": 1, "size": 2, "cost": cost}]
    )
    assert json.dumps(dump(store)["usage"]["cost"]) == json.dumps(cost)


# --- v1 and v2 give the same document -----------------------------------------

_BLOCK: Final = text("A", _meta={"b": 1})
_ITEM: Final = item("out", _meta={"i": 1})
_COMMANDS: Final = [{"name": "plan", "description": "Plan", "_meta": {"c": 1}}]
_COMMON: Final[list[Update]] = [
    {"sessionUpdate": "available_commands_update", "availableCommands": _COMMANDS},
    {
        "sessionUpdate": "session_info_update",
        "title": "T",
        "updatedAt": "2025-01-01T00:00:00Z",
        "_meta": {"s": 1},
    },
    {
        "sessionUpdate": "usage_update",
        "used": 5,
        "size": 9,
        "cost": {"amount": 0.5, "currency": "USD"},
        "_meta": {"u": 1},
    },
    {"sessionUpdate": "_vendor/thing", "x": [1]},
]

V1_SCRIPT: Final[list[Update]] = [
    chunk(None, "hello", role="user"),
    chunk(None, "hmm", role="thought"),
    chunk(None, _BLOCK),
    chunk(None, "B"),
    tool_call(
        "call_1",
        "Run",
        kind="execute",
        content=[_ITEM],
        locations=[{"path": "/a", "line": 2}],
        rawInput={"cmd": "ls"},
        _meta={"t": 1},
    ),
    tool_update("call_1", status="completed", rawOutput={"exit": 0}),
    plan([entry("a", _meta={"e": 1})], _meta={"p": 1}),
    *_COMMON,
]

V2_SCRIPT: Final[list[Update]] = [
    {"sessionUpdate": "user_message", "messageId": "u1", "content": [text("hello")]},
    chunk("t1", "hmm", role="thought"),
    chunk("a1", _BLOCK),
    chunk("a1", "B"),
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "call_1",
        "title": "Run",
        "kind": "execute",
        "content": [_ITEM],
        "locations": [{"path": "/a", "line": 2}],
        "rawInput": {"cmd": "ls"},
        "_meta": {"t": 1},
    },
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "call_1",
        "status": "completed",
        "rawOutput": {"exit": 0},
    },
    {
        "sessionUpdate": "plan_update",
        "plan": {
            "type": "items",
            "planId": "main",
            "entries": [entry("a", _meta={"e": 1})],
            "_meta": {"p": 1},
        },
    },
    *_COMMON,
]


def test_v1_and_v2_equivalent_scripts_give_the_same_document() -> None:
    first = dump(play(1, V1_SCRIPT))
    second = dump(play(2, V2_SCRIPT))
    assert shape(first) == shape(second)
    renamed = {"v1-user-1": "u1", "v1-thought-2": "t1", "v1-agent-3": "a1"}
    for message in first["messages"]:
        message["messageId"] = renamed[message["messageId"]]
    for entry_ in first["timeline"]:
        entry_["id"] = renamed.get(entry_["id"], entry_["id"])
    assert first == second


# --- property: id-less chunks group into runs by role --------------------------

Role: TypeAlias = Literal["user", "agent", "thought"]
_ROLES: Final[list[Role]] = ["user", "agent", "thought"]


@settings(derandomize=True, database=None, max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_ROLES), st.sampled_from(["a", "b", ""])),
        max_size=25,
    )
)
def test_property_id_less_chunks_form_one_message_per_role_run(
    script: list[tuple[Role, str]],
) -> None:
    runs: list[tuple[Role, list[dict[str, Any]]]] = []
    for role, value in script:
        if not runs or runs[-1][0] != role:
            runs.append((role, []))
        runs[-1][1].append(text(value))
    store = play(1, [chunk(None, value, role=role) for role, value in script])
    assert messages(store) == [
        (f"v1-{role}-{n}", role, blocks) for n, (role, blocks) in enumerate(runs, 1)
    ]
