"""ACP v2 `session/update` scripts at the wire level: translator, then store.

Each test plays raw `session/update` params (as an agent sends them) through
`v2.UpdateSessionNotification` and `translate_v2.translate_update`, applies the ops
to a `SessionStore`, and asserts the store's state exactly. The cases follow
CLIENT-CHECKLIST §4.5-§4.14 and the fixture list of §8.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from acp_tui.client import v2 as translate_v2
from acp_tui.export import terminal_text
from acp_tui.protocol.schema import v2
from acp_tui.store import (
    AppendMessageChunk,
    MessageRole,
    PatchTerminal,
    RecordNotice,
    RecordUnknownUpdate,
    SessionStore,
    UpsertMessage,
    ops,
)
from tests.unit.client.scripts import (
    OMIT,
    Player,
    Update,
    block_image,
    chunk,
    dump,
    item,
    play,
    text,
    whole,
)

SID: Final = "sess_1"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def tool(tool_call_id: str, **fields: Any) -> Update:
    """A `tool_call_update` with wire-named fields (`rawInput=`, `_meta=`...)."""
    return {"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id, **fields}


def tool_chunk(tool_call_id: str, content: dict[str, Any], **extra: Any) -> Update:
    return {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": tool_call_id,
        "content": content,
        **extra,
    }


def terminal(terminal_id: str, **fields: Any) -> Update:
    return {"sessionUpdate": "terminal_update", "terminalId": terminal_id, **fields}


def terminal_chunk(terminal_id: str, data: bytes | str) -> Update:
    return {
        "sessionUpdate": "terminal_output_chunk",
        "terminalId": terminal_id,
        "data": data if isinstance(data, str) else b64(data),
    }


def plan(plan_id: str, entries: list[dict[str, Any]], **extra: Any) -> Update:
    return {
        "sessionUpdate": "plan_update",
        "plan": {"type": "items", "planId": plan_id, "entries": entries, **extra},
    }


def entry(content: str, status: str = "pending", **extra: Any) -> dict[str, Any]:
    return {"content": content, "priority": "medium", "status": status, **extra}


def state(value: str, **extra: Any) -> Update:
    return {"sessionUpdate": "state_update", "state": value, **extra}


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
    """The expected `to_json()` of tool call `call_1`: defaults plus `fields`."""
    return {**TOOL_DEFAULTS, **fields}


# --- the wire model itself ----------------------------------------------------


def test_play_validates_every_update_with_the_notification_model() -> None:
    with pytest.raises(ValidationError):  # a v2 chunk without messageId is invalid
        play(2, [{"sessionUpdate": "agent_message_chunk", "content": text("A")}])


def test_translate_update_returns_ops_without_touching_a_store() -> None:
    notification = v2.UpdateSessionNotification.model_validate(
        {"sessionId": SID, "update": chunk("m1", "A", _meta={"chunk": 1})}
    )
    assert translate_v2.translate_update(notification.update) == [
        AppendMessageChunk("m1", "agent", {"type": "text", "text": "A"})
    ]


# --- messages (§4.6) ----------------------------------------------------------


def test_whole_message_then_chunk_appends() -> None:
    store = play(2, [whole("m1", ["A"]), chunk("m1", "B")])
    assert dump(store)["messages"] == [
        {"messageId": "m1", "role": "agent", "content": [text("A"), text("B")]}
    ]
    message = store.message("m1")
    assert message is not None
    assert message.text == "AB"


def test_chunks_then_whole_replaces_then_chunk_appends() -> None:
    player = Player(2)
    player.send(chunk("m1", "A"), chunk("m1", "B"))
    first = player.store.message("m1")
    assert first is not None
    assert first.text == "AB"
    changes = player.send(whole("m1", ["C"]))
    assert [c.action for c in changes] == ["replaced"]  # renderers must re-render
    assert dump(player.store)["messages"][0]["content"] == [text("C")]
    replaced = player.store.message("m1")
    assert replaced is not None
    assert replaced.text == "C"
    player.send(chunk("m1", "D"))
    assert dump(player.store)["messages"] == [
        {"messageId": "m1", "role": "agent", "content": [text("C"), text("D")]}
    ]
    final = player.store.message("m1")
    assert final is not None
    assert final.text == "CD"
    assert list(first.content) == [text("A"), text("B")]  # old snapshots unchanged


@pytest.mark.parametrize("cleared", [None, []], ids=["null", "empty"])
def test_whole_message_null_or_empty_clears_but_keeps_the_message(
    cleared: list[Any] | None,
) -> None:
    store = play(
        2,
        [
            whole("m1", ["A"], meta={"keep": True}),
            chunk("m1", "B"),
            whole("m1", cleared),
        ],
    )
    assert dump(store)["messages"] == [
        {"messageId": "m1", "role": "agent", "content": [], "_meta": {"keep": True}}
    ]
    assert dump(store)["timeline"] == [{"kind": "message", "id": "m1"}]
    message = store.message("m1")
    assert message is not None
    assert message.text == ""
    store = play(2, [whole("m1", ["A"]), whole("m1", cleared), chunk("m1", "E")])
    assert dump(store)["messages"][0]["content"] == [text("E")]


def test_omitted_content_with_meta_only_leaves_content_and_replaces_meta() -> None:
    player = Player(2)
    player.send(whole("m1", ["A"], meta={"a": 1, "b": 2}), chunk("m1", "B"))
    player.send(whole("m1", meta={"c": 3}))  # alpha.3: an object replaces
    assert dump(player.store)["messages"] == [
        {
            "messageId": "m1",
            "role": "agent",
            "content": [text("A"), text("B")],
            "_meta": {"c": 3},
        }
    ]
    player.send(whole("m1"))  # nothing sent: nothing changes
    assert dump(player.store)["messages"][0]["_meta"] == {"c": 3}
    player.send(whole("m1", meta={}))  # alpha.3: {} replaces too
    assert dump(player.store)["messages"][0]["_meta"] == {}
    player.send(whole("m1", meta=None))  # null clears
    assert dump(player.store)["messages"] == [
        {"messageId": "m1", "role": "agent", "content": [text("A"), text("B")]}
    ]


def test_chunk_meta_belongs_to_the_chunk_not_the_message() -> None:
    block = text("B", _meta={"block": 1})
    store = play(
        2,
        [
            chunk("m1", "A", _meta={"chunk": 1}),  # new message: no message _meta
            whole("m1", meta={"message": 1}),
            chunk("m1", block, _meta={"chunk": 2}),
        ],
    )
    assert dump(store)["messages"] == [
        {
            "messageId": "m1",
            "role": "agent",
            "content": [
                text("A"),
                {"type": "text", "text": "B", "_meta": {"block": 1}},
            ],
            "_meta": {"message": 1},
        }
    ]


def test_user_agent_and_thought_messages_are_separate() -> None:
    store = play(
        2,
        [
            whole("u1", ["hello"], role="user"),
            chunk("t1", "hmm", role="thought"),
            chunk("a1", "hi", role="agent"),
            chunk("u2", "more", role="user"),
            whole("t2", ["deep"], role="thought"),
            whole("a2", ["bye"], role="agent"),
            chunk("t1", "...", role="thought"),
        ],
    )
    assert [
        (m["messageId"], m["role"], m["content"]) for m in dump(store)["messages"]
    ] == [
        ("u1", "user", [text("hello")]),
        ("t1", "thought", [text("hmm"), text("...")]),
        ("a1", "agent", [text("hi")]),
        ("u2", "user", [text("more")]),
        ("t2", "thought", [text("deep")]),
        ("a2", "agent", [text("bye")]),
    ]
    assert [e["id"] for e in dump(store)["timeline"]] == [
        "u1",
        "t1",
        "a1",
        "u2",
        "t2",
        "a2",
    ]


def test_new_message_id_with_omitted_content_starts_empty() -> None:
    store = play(2, [whole("m1"), whole("m2", meta={"x": 1}), chunk("m1", "A")])
    assert dump(store)["messages"] == [
        {"messageId": "m1", "role": "agent", "content": [text("A")]},
        {"messageId": "m2", "role": "agent", "content": [], "_meta": {"x": 1}},
    ]


def test_interleaved_chunks_of_two_messages() -> None:
    store = play(
        2,
        [
            chunk("m1", "A"),
            chunk("m2", "1"),
            chunk("m1", "B"),
            chunk("m2", "2"),
            whole("m1", ["C"]),
            chunk("m2", "3"),
            chunk("m1", "D"),
        ],
    )
    assert dump(store)["messages"] == [
        {"messageId": "m1", "role": "agent", "content": [text("C"), text("D")]},
        {"messageId": "m2", "role": "agent", "content": [text(c) for c in "123"]},
    ]


def test_text_runs_join_and_other_blocks_stay_separate() -> None:
    unknown = {"type": "_vendor_widget", "payload": {"x": [1, 2]}, "_meta": {"v": 1}}
    link = {"type": "resource_link", "name": "a.txt", "uri": "file:///a.txt"}
    store = play(
        2,
        [
            chunk("m1", "A"),
            chunk("m1", "B"),
            chunk("m1", block_image()),
            chunk("m1", "C"),
            chunk("m1", unknown),
            chunk("m1", link),
        ],
    )
    message = store.message("m1")
    assert message is not None
    assert message.runs() == ("AB", block_image(), "C", unknown, link)
    assert dump(store)["messages"][0]["content"] == [
        text("A"),
        text("B"),
        block_image(),
        text("C"),
        unknown,
        link,
    ]


def test_a_whole_update_of_another_role_with_the_same_id_is_another_message() -> None:
    store = play(
        2, [chunk("m1", "A", role="thought"), whole("m1", ["B"], role="agent")]
    )
    assert dump(store)["messages"] == [
        {"messageId": "m1", "role": "thought", "content": [text("A")]},
        {"messageId": "m1", "role": "agent", "content": [text("B")], "key": "m1#agent"},
    ]
    assert dump(store)["timeline"] == [
        {"kind": "message", "id": "m1"},
        {"kind": "message", "id": "m1#agent"},
    ]


def test_whole_update_ops_are_three_state() -> None:
    player = Player(2)
    assert player.ops(whole("m1")) == [UpsertMessage("m1", "agent")]
    assert player.ops(whole("m1", None, meta=None)) == [
        UpsertMessage("m1", "agent", content=None, meta=None)
    ]
    assert player.ops(whole("m1", [], role="user", meta={"a": 1})) == [
        UpsertMessage("m1", "user", content=[], meta={"a": 1})
    ]


# --- tool calls (§4.7) --------------------------------------------------------


def test_first_tool_call_update_creates_with_defaults() -> None:
    store = play(2, [tool("call_1")])
    assert dump(store)["toolCalls"] == [tool_json()]
    assert dump(store)["timeline"] == [{"kind": "tool_call", "id": "call_1"}]


_ABSENT: Final = object()
"""The `to_json()` key is left out when the field is unset (`_meta`, `name`, ...)."""

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
    ("name", "read_file", "write_file", _ABSENT),
    ("capabilities", {"cancel": {}}, {}, _ABSENT),
]


def _expected_tool(key: str, value: Any) -> dict[str, Any]:
    expected = tool_json()
    if value is _ABSENT:
        expected.pop(key, None)
    else:
        expected[key] = value
    return expected


@pytest.mark.parametrize(("key", "first", "second", "cleared"), TOOL_FIELDS)
@pytest.mark.parametrize("sent", ["omitted", "null", "value"])
def test_tool_call_field_null_versus_omitted(
    key: str, first: Any, second: Any, cleared: Any, sent: str
) -> None:
    patch: dict[str, Any] = {
        "omitted": {},
        "null": {key: None},
        "value": {key: second},
    }[sent]
    store = play(2, [tool("call_1", **{key: first}), tool("call_1", **patch)])
    expected = {"omitted": first, "null": cleared, "value": second}[sent]
    assert dump(store)["toolCalls"] == [_expected_tool(key, expected)]


@pytest.mark.parametrize(("key", "first", "second", "cleared"), TOOL_FIELDS)
def test_tool_call_field_null_on_creation_is_the_default(
    key: str, first: Any, second: Any, cleared: Any
) -> None:
    store = play(2, [tool("call_1", **{key: None})])
    assert dump(store)["toolCalls"] == [_expected_tool(key, cleared)]


def test_tool_call_patch_changes_only_the_fields_sent() -> None:
    store = play(
        2,
        [
            tool(
                "call_1",
                title="Run",
                kind="execute",
                status="pending",
                rawInput={"command": "ls"},
                name="bash",
            ),
            tool("call_1", status="in_progress"),
            tool("call_1", status="completed", rawOutput={"exit": 0}),
        ],
    )
    assert dump(store)["toolCalls"] == [
        tool_json(
            title="Run",
            kind="execute",
            status="completed",
            rawInput={"command": "ls"},
            rawOutput={"exit": 0},
            name="bash",
        )
    ]


def test_tool_call_content_chunks_append() -> None:
    store = play(
        2,
        [
            tool("call_1", title="Edit", content=[item("a")]),
            tool_chunk("call_1", item("b")),
            tool_chunk("call_1", item("c")),
        ],
    )
    assert dump(store)["toolCalls"] == [
        tool_json(title="Edit", content=[item("a"), item("b"), item("c")])
    ]


def test_tool_call_content_replace_after_chunks_then_append() -> None:
    player = Player(2)
    player.send(tool_chunk("call_1", item("a")), tool_chunk("call_1", item("b")))
    player.send(tool("call_1", content=[item("c")]))
    assert dump(player.store)["toolCalls"][0]["content"] == [item("c")]
    player.send(tool_chunk("call_1", item("d")))
    assert dump(player.store)["toolCalls"] == [
        tool_json(content=[item("c"), item("d")])
    ]


@pytest.mark.parametrize("cleared", [None, []], ids=["null", "empty"])
def test_tool_call_null_or_empty_clears_content_and_locations(
    cleared: list[Any] | None,
) -> None:
    store = play(
        2,
        [
            tool("call_1", content=[item("a")], locations=[{"path": "/a", "line": 1}]),
            tool_chunk("call_1", item("b")),
            tool("call_1", content=cleared, locations=cleared),
        ],
    )
    assert dump(store)["toolCalls"] == [tool_json()]
    store = play(
        2, [tool("call_1", content=[item("a")]), tool("call_1", content=cleared)]
    )
    assert dump(store)["toolCalls"] == [tool_json()]


def test_content_chunk_for_unknown_tool_call_creates_it() -> None:
    store = play(2, [tool_chunk("call_1", item("a")), tool("call_1", title="Late")])
    assert dump(store)["toolCalls"] == [tool_json(title="Late", content=[item("a")])]
    assert dump(store)["timeline"] == [{"kind": "tool_call", "id": "call_1"}]


def test_tool_call_content_chunk_meta_belongs_to_the_chunk() -> None:
    inner = item("a", _meta={"item": 1})
    store = play(
        2,
        [
            tool("call_1", _meta={"call": 1}),
            tool_chunk("call_1", inner, _meta={"chunk": 1}),
        ],
    )
    assert dump(store)["toolCalls"] == [tool_json(content=[inner], _meta={"call": 1})]


def test_unknown_tool_content_type_status_and_kind_are_kept_raw() -> None:
    unknown = {"type": "_vendor_chart", "series": [1, 2, 3], "_meta": {"v": True}}
    future = {"type": "widget", "id": "w1"}
    store = play(
        2,
        [
            tool(
                "call_1",
                kind="_vendor_kind",
                status="_vendor_status",
                content=[unknown],
            ),
            tool_chunk("call_1", future),
            tool("call_2", kind="teleport", status="paused"),
        ],
    )
    calls = dump(store)["toolCalls"]
    assert calls[0] == tool_json(
        kind="_vendor_kind", status="_vendor_status", content=[unknown, future]
    )
    assert calls[1] == tool_json(toolCallId="call_2", kind="teleport", status="paused")
    call = store.tool_call("call_1")
    assert call is not None
    assert not call.is_final  # unknown status: generic in-progress


def test_diff_content_is_kept_as_received() -> None:
    modify = {
        "type": "diff",
        "changes": [{"operation": "modify", "path": "/r/a.py", "fileType": "text"}],
        "patch": {"format": "git_patch", "text": "diff --git a/r/a.py b/r/a.py\n"},
    }
    binary = {
        "type": "diff",
        "changes": [
            {"operation": "delete", "path": "/r/old.bin", "fileType": "binary"},
            {"operation": "move", "oldPath": "/r/x", "path": "/r/y"},
            {"operation": "_vendor_chmod", "path": "/r/z", "mode": "0755"},
        ],
    }
    null_patch = {
        "type": "diff",
        "changes": [{"operation": "add", "path": "/r/dir", "fileType": "directory"}],
        "patch": None,
    }
    store = play(2, [tool("call_1", kind="edit", content=[modify, binary, null_patch])])
    assert dump(store)["toolCalls"] == [
        tool_json(kind="edit", content=[modify, binary, null_patch])
    ]


def test_tool_call_updates_while_idle_and_after_cancel_are_applied() -> None:
    store = play(
        2,
        [
            state("running"),
            tool("call_1", status="in_progress"),
            state("idle", stopReason="cancelled"),
            tool("call_1", status="cancelled"),
        ],
    )
    assert dump(store)["toolCalls"] == [tool_json(status="cancelled")]
    assert store.state.is_idle
    assert store.state.stop_reason == "cancelled"


# --- terminals (§4.8) ---------------------------------------------------------


def _terminal_ids(store: SessionStore) -> list[str]:
    return [t.terminal_id for t in store.terminals()]


def _output(store: SessionStore, terminal_id: str = "term_1") -> bytes:
    found = store.terminal(terminal_id)
    assert found is not None
    return found.output


def test_terminal_reference_before_the_terminal_update() -> None:
    player = Player(2)
    player.send(
        tool(
            "call_1",
            kind="execute",
            content=[{"type": "terminal", "terminalId": "term_1"}],
        )
    )
    assert _terminal_ids(player.store) == ["term_1"]
    assert dump(player.store)["timeline"] == [{"kind": "tool_call", "id": "call_1"}]
    player.send(
        terminal("term_1", command="ls", cwd="/r"),
        terminal_chunk("term_1", b"a.txt\n"),
    )
    assert player.store.terminal_ids_for_tool_call("call_1") == ("term_1",)
    assert player.store.tool_call_ids_for_terminal("term_1") == ("call_1",)
    assert dump(player.store)["terminals"] == [
        {
            "terminalId": "term_1",
            "command": "ls",
            "cwd": "/r",
            "exitStatus": None,
            "output": b64(b"a.txt\n"),
        }
    ]
    assert dump(player.store)["timeline"] == [{"kind": "tool_call", "id": "call_1"}]


def test_terminal_reference_after_the_terminal_update() -> None:
    player = Player(2)
    player.send(terminal("term_1", command="make"), terminal_chunk("term_1", b"ok"))
    assert dump(player.store)["timeline"] == [{"kind": "terminal", "id": "term_1"}]
    player.send(tool_chunk("call_1", {"type": "terminal", "terminalId": "term_1"}))
    assert dump(player.store)["timeline"] == [{"kind": "tool_call", "id": "call_1"}]
    assert player.store.terminal_ids_for_tool_call("call_1") == ("term_1",)
    assert _output(player.store) == b"ok"
    player.send(tool("call_1", content=None))  # the reference goes: standalone again
    assert dump(player.store)["timeline"] == [
        {"kind": "terminal", "id": "term_1"},
        {"kind": "tool_call", "id": "call_1"},
    ]


def test_terminal_id_is_independent_of_an_equal_tool_call_id() -> None:
    store = play(
        2,
        [
            tool("same", title="T"),
            terminal("same", command="ls"),
        ],
    )
    assert dump(store)["toolCalls"] == [tool_json(toolCallId="same", title="T")]
    assert store.terminal_ids_for_tool_call("same") == ()
    assert [t["terminalId"] for t in dump(store)["terminals"]] == ["same"]


def test_chunks_split_inside_utf8_and_inside_an_escape_sequence() -> None:
    pieces = [b"caf\xc3", b"\xa9 \x1b[3", b"1mred\x1b[0", b"m done"]
    store = play(2, [terminal_chunk("term_1", p) for p in pieces])
    assert _output(store) == b"caf\xc3\xa9 \x1b[31mred\x1b[0m done"
    found = store.terminal("term_1")
    assert found is not None
    assert terminal_text(found) == "café red done"


def test_invalid_utf8_is_kept_as_bytes() -> None:
    store = play(
        2, [terminal_chunk("term_1", b"\xff\xfe"), terminal_chunk("term_1", b"ok\x80")]
    )
    assert _output(store) == b"\xff\xfeok\x80"
    found = store.terminal("term_1")
    assert found is not None
    assert terminal_text(found) == "\ufffd\ufffdok\ufffd"
    assert store.notices == ()


def test_snapshot_replaces_earlier_chunks_then_chunks_append() -> None:
    player = Player(2)
    player.send(terminal_chunk("term_1", b"old 1 "), terminal_chunk("term_1", b"old 2"))
    before = player.store.terminal("term_1")
    assert before is not None
    changes = player.send(terminal("term_1", output={"data": b64(b"\x1b[2Jfresh")}))
    assert [c.action for c in changes] == ["replaced"]
    assert _output(player.store) == b"\x1b[2Jfresh"
    player.send(terminal_chunk("term_1", b" +1"), terminal_chunk("term_1", b" +2"))
    after = player.store.terminal("term_1")
    assert after is not None
    assert after.output == b"\x1b[2Jfresh +1 +2"
    assert after.resets == before.resets + 1
    assert before.output == b"old 1 old 2"  # an old snapshot is unchanged


def test_snapshot_with_empty_data_and_null_output_clear() -> None:
    player = Player(2)
    player.send(terminal("term_1", command="ls", output={"data": b64(b"abc")}))
    player.send(terminal("term_1", output={"data": ""}))
    assert _output(player.store) == b""
    player.send(terminal_chunk("term_1", b"x"), terminal("term_1", output=None))
    found = player.store.terminal("term_1")
    assert found is not None
    assert found.output == b""
    assert found.command == "ls"  # output: null touches only the output
    assert found.resets == 3
    player.send(terminal("term_1"))  # output omitted: unchanged
    player.send(terminal_chunk("term_1", b"y"))
    assert _output(player.store) == b"y"


def test_exit_status_sequence() -> None:
    player = Player(2)
    player.send(terminal("term_1", command="sleep 1"))
    found = player.store.terminal("term_1")
    assert found is not None
    assert not found.exited
    seen: list[Any] = []
    for status in ({}, {"exitCode": 0}, {"signal": "SIGTERM"}, {"exitCode": -1}, None):
        player.send(terminal("term_1", exitStatus=status))
        term = dump(player.store)["terminals"][0]
        current = player.store.terminal("term_1")
        assert current is not None
        seen.append((term["exitStatus"], current.exited))
    assert seen == [
        ({}, True),
        ({"exitCode": 0}, True),
        ({"signal": "SIGTERM"}, True),
        ({"exitCode": -1}, True),
        (None, False),
    ]
    player.send(terminal("term_1", exitStatus={"exitCode": None, "signal": None}))
    assert dump(player.store)["terminals"][0]["exitStatus"] == {
        "exitCode": None,
        "signal": None,
    }


def test_each_chunk_is_base64_decoded_on_its_own() -> None:
    first, second = "QQ==", "Qg=="
    try:  # joined before decoding, the two strings would not give b"AB"
        joined: bytes | None = base64.b64decode(first + second, validate=True)
    except ValueError:
        joined = None
    assert joined != b"AB"
    assert base64.b64decode(first + second) == b"A"
    store = play(2, [terminal_chunk("term_1", first), terminal_chunk("term_1", second)])
    assert _output(store) == b"AB"
    assert store.notices == ()


def test_snapshot_then_padded_chunks_decode_separately() -> None:
    store = play(
        2,
        [
            terminal("term_1", output={"data": "eA=="}),
            terminal_chunk("term_1", "eQ=="),
            terminal_chunk("term_1", "eg=="),
        ],
    )
    assert _output(store) == b"xyz"


@pytest.mark.parametrize("bad", ["!!!", "QQ", "QQ==Qg==", "Q Q==", "é"])
def test_invalid_base64_chunk_gives_a_notice_and_the_stream_continues(bad: str) -> None:
    player = Player(2)
    player.send(terminal_chunk("term_1", b"a"))
    ops = player.ops(terminal_chunk("term_1", bad))
    assert ops[0] == PatchTerminal("term_1")
    assert isinstance(ops[1], RecordNotice)
    assert ops[1].severity == "error"
    player.send(terminal_chunk("term_1", bad), terminal_chunk("term_1", b"b"))
    assert _output(player.store) == b"ab"
    assert [n.severity for n in player.store.notices] == ["error"]
    assert "term_1" in player.store.notices[0].title
    found = player.store.terminal("term_1")
    assert found is not None
    assert found.errors == ("invalid base64 in an output chunk: it was skipped",)


def test_invalid_base64_chunk_for_an_unknown_terminal_creates_it() -> None:
    store = play(2, [terminal_chunk("term_1", "***")])
    assert [t["terminalId"] for t in dump(store)["terminals"]] == ["term_1"]
    assert _output(store) == b""
    assert len(store.notices) == 1


def test_invalid_base64_snapshot_keeps_output_and_applies_the_rest() -> None:
    store = play(
        2,
        [
            terminal_chunk("term_1", b"kept"),
            terminal(
                "term_1", command="ls", output={"data": "not base64!"}, exitStatus={}
            ),
            terminal_chunk("term_1", b"+"),
        ],
    )
    found = store.terminal("term_1")
    assert found is not None
    assert found.output == b"kept+"
    assert found.command == "ls"
    assert found.exit_status == {}
    assert found.resets == 0
    assert len(store.notices) == 1
    assert "snapshot" in store.notices[0].title
    assert found.errors == ("invalid base64 in an output snapshot: it was skipped",)


def test_terminal_update_fields_are_three_state_and_keep_meta() -> None:
    player = Player(2)
    player.send(
        terminal(
            "term_1",
            command="top",
            cwd="/r",
            size={"cols": 80, "rows": 24},
            capabilities={"cancel": {}},
            _meta={"t": 1},
        )
    )
    player.send(terminal("term_1", cwd=None, _meta={"t": 2}))
    assert dump(player.store)["terminals"] == [
        {
            "terminalId": "term_1",
            "command": "top",
            "cwd": None,
            "exitStatus": None,
            "output": "",
            "_meta": {"t": 2},
            "size": {"cols": 80, "rows": 24},
            "capabilities": {"cancel": {}},
        }
    ]
    player.send(
        terminal("term_1", command=None, size=None, capabilities=None, _meta=None)
    )
    assert dump(player.store)["terminals"] == [
        {
            "terminalId": "term_1",
            "command": None,
            "cwd": None,
            "exitStatus": None,
            "output": "",
        }
    ]


# --- plans (§4.10) ------------------------------------------------------------


def test_two_plans_by_plan_id_each_replaced_whole() -> None:
    store = play(
        2,
        [
            plan("p1", [entry("a"), entry("b")]),
            plan("p2", [entry("x")]),
            plan("p1", [entry("b", "completed")]),
        ],
    )
    assert dump(store)["plans"] == [
        {"planId": "p1", "type": "items", "entries": [entry("b", "completed")]},
        {"planId": "p2", "type": "items", "entries": [entry("x")]},
    ]
    assert dump(store)["timeline"] == [
        {"kind": "plan", "id": "p1"},
        {"kind": "plan", "id": "p2"},
    ]
    store = play(2, [plan("p1", [entry("a")]), plan("p1", [])])
    assert dump(store)["plans"] == [{"planId": "p1", "type": "items", "entries": []}]


def test_unknown_plan_type_is_kept_with_its_plan_id() -> None:
    markdown = {
        "type": "_vendor_outline",
        "planId": "p2",
        "outline": "# Steps",
        "_meta": {"m": 1},
    }
    store = play(
        2,
        [
            plan("p1", [entry("a")]),
            {"sessionUpdate": "plan_update", "plan": markdown},
        ],
    )
    assert dump(store)["plans"][1] == markdown
    found = store.plan("p2")
    assert found is not None
    assert (found.plan_type, found.entries) == ("_vendor_outline", ())
    assert [p.plan_id for p in store.plans()] == ["p1", "p2"]


def test_plan_entry_unknown_priority_and_status_and_meta_are_kept() -> None:
    odd = {
        "content": "a",
        "priority": "urgent",
        "status": "_blocked",
        "_meta": {"e": 1},
    }
    store = play(2, [plan("p1", [odd], _meta={"plan": 1})])
    assert dump(store)["plans"] == [
        {"planId": "p1", "type": "items", "entries": [odd], "_meta": {"plan": 1}}
    ]


# --- foreground state (§4.5) --------------------------------------------------


def test_new_session_starts_idle() -> None:
    store = play(2, [])
    assert store.state.is_idle
    assert (dump(store)["state"], dump(store)["stopReason"]) == ("idle", None)


def test_running_then_idle_with_stop_reason() -> None:
    player = Player(2)
    player.send(state("running"))
    assert player.store.state.is_busy
    assert dump(player.store)["state"] == "running"
    player.send(state("requires_action"))
    assert player.store.state.is_busy
    player.send(state("idle", stopReason="end_turn"))
    assert player.store.state.is_idle
    assert (dump(player.store)["state"], dump(player.store)["stopReason"]) == (
        "idle",
        "end_turn",
    )
    assert player.store.state.turns_ended == 1
    player.send(state("idle"))  # an idle without stopReason is allowed
    assert player.store.state.stop_reason is None
    assert player.store.state.last_stop_reason == "end_turn"


@pytest.mark.parametrize("reason", ["max_tokens", "refusal", "_vendor_reason", "later"])
def test_idle_keeps_any_stop_reason_string(reason: str) -> None:
    store = play(2, [state("running"), state("idle", stopReason=reason)])
    assert store.state.stop_reason == reason


@pytest.mark.parametrize("reason", [None, 42, {"x": 1}])
def test_null_or_malformed_stop_reason_is_not_reported(reason: Any) -> None:
    store = play(2, [state("running"), state("idle", stopReason=reason)])
    assert store.state.is_idle
    assert store.state.stop_reason is None


def test_unknown_state_is_kept_and_busy() -> None:
    raw = state("compacting", _meta={"s": 1})
    store = play(2, [raw])
    assert store.state.state == "compacting"
    assert store.state.is_busy
    assert store.state.raw == raw
    assert dump(store)["state"] == "compacting"
    store = play(2, [raw, state("idle", stopReason="end_turn")])
    assert store.state.is_idle


def test_idle_with_error() -> None:
    error = {"code": -32603, "message": "model overloaded", "data": {"retry": True}}
    store = play(2, [state("running"), state("idle", stopReason="error", error=error)])
    assert store.state.stop_reason == "error"
    assert store.state.error == error
    document = dump(store)
    assert (document["state"], document["stopReason"], document["error"]) == (
        "idle",
        "error",
        error,
    )


def test_updates_while_idle_do_not_change_the_state() -> None:
    store = play(2, [chunk("m1", "background"), tool("call_1"), plan("p1", [])])
    assert store.state.is_idle
    assert store.state.revision == 0


# --- session-level updates (§4.13) --------------------------------------------


def test_available_commands_untagged_and_tagged_replace_the_list() -> None:
    untagged = {
        "name": "web",
        "description": "Search the web",
        "input": {"type": "text", "hint": "query"},
    }
    tagged = {"type": "command", "name": "plan", "description": "Make a plan"}
    future = {"type": "_group", "name": "more", "description": "…", "items": [1]}
    odd_input = {
        "name": "x",
        "description": "y",
        "input": {"type": "_choice", "of": [1]},
    }
    player = Player(2)
    player.send(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [untagged, tagged],
        }
    )
    assert dump(player.store)["commands"] == [untagged, tagged]
    player.send(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [future, odd_input],
        }
    )
    assert dump(player.store)["commands"] == [future, odd_input]
    player.send({"sessionUpdate": "available_commands_update", "availableCommands": []})
    assert dump(player.store)["commands"] == []


def test_config_option_update_replaces_the_list() -> None:
    model = {
        "type": "select",
        "configId": "model",
        "name": "Model",
        "category": "model",
        "currentValue": "fast",
        "options": [
            {"value": "fast", "name": "Fast"},
            {"value": "deep", "name": "Deep"},
        ],
    }
    boolean = {
        "type": "boolean",
        "configId": "web",
        "name": "Web",
        "currentValue": True,
    }
    unknown = {"type": "_slider", "configId": "temp", "name": "Temp", "min": 0}
    player = Player(2)
    player.send(
        {"sessionUpdate": "config_option_update", "configOptions": [model, boolean]}
    )
    assert dump(player.store)["configOptions"] == [model, boolean]
    player.send({"sessionUpdate": "config_option_update", "configOptions": [unknown]})
    assert dump(player.store)["configOptions"] == [unknown]


def test_session_info_update_is_three_state() -> None:
    player = Player(2)
    info: dict[str, Any] = {"sessionUpdate": "session_info_update"}
    player.send(
        {
            **info,
            "title": "Fix bug",
            "updatedAt": "2025-01-01T00:00:00Z",
            "_meta": {"i": 1},
        }
    )
    assert dump(player.store)["info"] == {
        "title": "Fix bug",
        "updatedAt": "2025-01-01T00:00:00Z",
        "_meta": {"i": 1},
    }
    player.send({**info, "title": "Fix the bug"})
    assert dump(player.store)["info"] == {
        "title": "Fix the bug",
        "updatedAt": "2025-01-01T00:00:00Z",
        "_meta": {"i": 1},
    }
    player.send({**info, "updatedAt": None, "_meta": None})
    assert dump(player.store)["info"] == {"title": "Fix the bug"}
    player.send({**info, "title": None})
    assert dump(player.store)["info"] == {}
    assert player.store.session_info.title is None


def test_usage_update_cost_omitted_null_and_value() -> None:
    player = Player(2)
    usage: dict[str, Any] = {"sessionUpdate": "usage_update"}
    assert dump(player.store)["usage"] is None
    player.send({**usage, "used": 10, "size": 100})
    assert dump(player.store)["usage"] == {"used": 10, "size": 100}
    player.send(
        {**usage, "used": 20, "size": 100, "cost": {"amount": 0.5, "currency": "USD"}}
    )
    assert dump(player.store)["usage"] == {
        "used": 20,
        "size": 100,
        "cost": {"amount": 0.5, "currency": "USD"},
    }
    player.send({**usage, "used": 30, "size": 200, "_meta": {"u": 1}})  # cost omitted
    assert dump(player.store)["usage"] == {
        "used": 30,
        "size": 200,
        "cost": {"amount": 0.5, "currency": "USD"},
        "_meta": {"u": 1},
    }
    player.send({**usage, "used": 40, "size": 200, "cost": None})
    assert dump(player.store)["usage"] == {"used": 40, "size": 200, "_meta": {"u": 1}}


# --- unknown updates, notices, `_meta` (§4.13, §4.14) ---------------------------


def test_unknown_session_updates_are_kept_raw_in_order() -> None:
    vendor = {"sessionUpdate": "_acme/progress", "percent": 50, "_meta": {"x": 1}}
    future = {"sessionUpdate": "weather_report", "sky": {"clouds": [1, 2]}}
    later = {"sessionUpdate": "_acme/other", "n": 1}
    store = play(2, [vendor, chunk("m1", "A"), future, later])
    assert dump(store)["unknownUpdates"] == [vendor, future, later]
    assert dump(store)["timeline"] == [
        {"kind": "unknown_update", "id": "0"},
        {"kind": "message", "id": "m1"},
        {"kind": "unknown_update", "id": "1"},
        {"kind": "unknown_update", "id": "2"},
    ]
    assert dump(store)["messages"][0]["content"] == [text("A")]


def test_notice_becomes_a_line_in_the_timeline_not_a_toast() -> None:
    raw: Update = {
        "sessionUpdate": "notice",
        "severity": "warning",
        "title": "Rate limited",
        "description": "Retrying in 5s",
        "_meta": {"n": 1},
    }
    odd = {"sessionUpdate": "notice", "severity": "_debug", "title": "x"}
    player = Player(2)
    assert player.ops(raw) == [
        ops.AddNotice("warning", "Rate limited", "Retrying in 5s", {"n": 1})
    ]
    player.send(raw, odd)
    assert [
        (n.severity, n.title, n.description, n.meta)
        for n in player.store.reports.notices()
    ] == [
        ("warning", "Rate limited", "Retrying in 5s", {"n": 1}),
        ("_debug", "x", None, None),
    ]
    assert player.store.notices == ()  # the client's own toasts only
    assert dump(player.store)["timeline"] == [
        {"kind": "agent_notice", "id": "0"},
        {"kind": "agent_notice", "id": "1"},
    ]
    assert dump(player.store)["unknownUpdates"] == []


def test_unknown_update_op_keeps_the_payload() -> None:
    raw: Update = {"sessionUpdate": "_x", "a": [1, {"b": None}]}
    assert Player(2).ops(raw) == [RecordUnknownUpdate(raw)]


def test_meta_is_kept_at_every_level() -> None:
    block = text("A", _meta={"level": "block"})
    content_item = {"type": "content", "content": block, "_meta": {"level": "item"}}
    plan_entry = entry("step", _meta={"level": "entry"})
    store = play(
        2,
        [
            whole("m1", [block], meta={"level": "message"}),
            tool("call_1", content=[content_item], _meta={"level": "call"}),
            tool_chunk("call_1", content_item),
            plan("p1", [plan_entry], _meta={"level": "plan"}),
            terminal("term_1", _meta={"level": "terminal"}),
            {"sessionUpdate": "session_info_update", "_meta": {"level": "info"}},
            {
                "sessionUpdate": "usage_update",
                "used": 1,
                "size": 2,
                "_meta": {"level": "usage"},
            },
        ],
    )
    document = dump(store)
    assert document["messages"] == [
        {
            "messageId": "m1",
            "role": "agent",
            "content": [block],
            "_meta": {"level": "message"},
        }
    ]
    assert document["toolCalls"] == [
        tool_json(content=[content_item, content_item], _meta={"level": "call"})
    ]
    assert document["plans"] == [
        {
            "planId": "p1",
            "type": "items",
            "entries": [plan_entry],
            "_meta": {"level": "plan"},
        }
    ]
    assert document["terminals"][0]["_meta"] == {"level": "terminal"}
    assert document["info"] == {"_meta": {"level": "info"}}
    assert document["usage"] == {"used": 1, "size": 2, "_meta": {"level": "usage"}}


# --- wire keys round-trip exactly (§4.14) ---------------------------------------


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def test_content_block_with_vendor_keys_round_trips_exactly() -> None:
    block = {
        "type": "text",
        "text": "héllo",
        "annotations": {"audience": ["user"], "priority": 0.5, "_x": "y"},
        "_meta": {"traceparent": "00-abc-def-01", "nested": {"n": [None, True]}},
        "vendorKey": {"deep": [1, 2.5, "s", None]},
    }
    resource = {
        "type": "resource",
        "resource": {"uri": "file:///a", "text": "body", "mimeType": None, "_x": 1},
        "_meta": None,
    }
    store = play(2, [chunk("m1", block), whole("m2", [resource])])
    content = [m["content"][0] for m in dump(store)["messages"]]
    assert [_canonical(c) for c in content] == [_canonical(block), _canonical(resource)]


def test_tool_call_content_item_and_location_round_trip_exactly() -> None:
    content_item = {
        "type": "content",
        "content": {"type": "_vendor_block", "blob": {"k": "v"}},
        "_meta": {"i": 1},
        "extra": [1],
    }
    location = {"path": "/a", "line": 7, "_meta": {"l": 1}, "column": 3}
    store = play(2, [tool("call_1", content=[content_item], locations=[location])])
    call = dump(store)["toolCalls"][0]
    assert _canonical(call["content"]) == _canonical([content_item])
    assert _canonical(call["locations"]) == _canonical([location])


def test_integral_float_fields_round_trip_exactly() -> None:
    block = text("x", annotations={"priority": 1})
    store = play(2, [chunk("m1", block)])
    assert _canonical(dump(store)["messages"][0]["content"]) == _canonical([block])


# --- properties ---------------------------------------------------------------

_IDS: Final = ["m0", "m1", "m2"]
_ROLE_OF: Final[dict[str, MessageRole]] = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
    "user_message": "user",
    "agent_message": "agent",
    "agent_thought": "thought",
}
_BLOCKS: Final[list[dict[str, Any]]] = [
    text("a"),
    text("bc", _meta={"b": 1}),
    text(""),
    block_image(),
    {"type": "_vendor", "x": [1, None], "_meta": {"v": 2}},
    {"type": "resource_link", "name": "n", "uri": "file:///n"},
]
_METAS: Final[list[dict[str, Any]]] = [{"m": 1}, {"m": 2, "gone": None}, {}]


@st.composite
def message_updates(draw: st.DrawFn) -> Update:
    message_id = draw(st.sampled_from(_IDS))
    if draw(st.booleans()):
        kind = draw(
            st.sampled_from(
                ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]
            )
        )
        update: Update = {
            "sessionUpdate": kind,
            "messageId": message_id,
            "content": draw(st.sampled_from(_BLOCKS)),
        }
        chunk_meta = draw(st.sampled_from([OMIT, None, {"chunk": True}]))
        if chunk_meta is not OMIT:
            update["_meta"] = chunk_meta
        return update
    kind = draw(st.sampled_from(["user_message", "agent_message", "agent_thought"]))
    update = {"sessionUpdate": kind, "messageId": message_id}
    content = draw(
        st.one_of(
            st.just(OMIT),
            st.none(),
            st.just([]),
            st.lists(st.sampled_from(_BLOCKS), min_size=1, max_size=3),
        )
    )
    if content is not OMIT:
        update["content"] = content
    meta = draw(st.sampled_from([OMIT, None, *_METAS]))
    if meta is not OMIT:
        update["_meta"] = meta
    return update


def _block_text(block: dict[str, Any]) -> str:
    return str(block["text"]) if block.get("type") == "text" else ""


class _MessageModel:
    """The reference: plain dicts, in order of first appearance.

    A message is its id and its role: the first of an id is keyed by the id, a
    later role by `<id>#<role>` (and says so in its `key`).
    """

    def __init__(self) -> None:
        self.messages: dict[str, dict[str, Any]] = {}
        self.keys: dict[tuple[str, str], str] = {}

    def apply(self, update: Update) -> None:
        kind = update["sessionUpdate"]
        message_id, role = update["messageId"], _ROLE_OF[kind]
        key = self.keys.get((message_id, role))
        if key is None:
            key = message_id
            if key in self.messages:
                key = f"{message_id}#{role}"
            self.keys[(message_id, role)] = key
        message = self.messages.setdefault(
            key, {"messageId": message_id, "role": role, "content": []}
        )
        if key != message_id:
            message.setdefault("key", key)
        if kind.endswith("_chunk"):
            message["content"] = [*message["content"], update["content"]]
            return
        if "content" in update:
            message["content"] = list(update["content"] or [])
        if "_meta" in update:
            if update["_meta"] is None:
                message.pop("_meta", None)
            else:
                message["_meta"] = update["_meta"]


@settings(derandomize=True, database=None, max_examples=150, deadline=None)
@given(st.lists(message_updates(), max_size=25))
def test_property_message_updates_match_a_reference_model(
    updates: list[Update],
) -> None:
    model = _MessageModel()
    player = Player(2)
    for update in updates:
        player.send(update)
        model.apply(update)
        role: MessageRole = _ROLE_OF[update["sessionUpdate"]]
        message = player.store.message(update["messageId"], role)
        assert message is not None
        expected = model.messages[model.keys[(update["messageId"], role)]]
        assert list(message.content) == expected["content"]
        assert message.text == "".join(_block_text(b) for b in expected["content"])
    document = dump(player.store)
    assert document["messages"] == list(model.messages.values())
    assert document["timeline"] == [
        {"kind": "message", "id": i} for i in model.messages
    ]


_TOOL_IDS: Final = ["call_0", "call_1", "call_2"]
_TOOL_VALUES: Final[dict[str, list[Any]]] = {
    "title": ["Read", "Write"],
    "kind": ["read", "_vendor"],
    "status": ["in_progress", "completed", "weird"],
    "content": [
        [],
        [item("x")],
        [{"type": "terminal", "terminalId": "term_a"}, item("y", _meta={"i": 1})],
    ],
    "locations": [[], [{"path": "/a", "line": 1}], [{"path": "/b"}, {"path": "/c"}]],
    "rawInput": [{"cmd": "ls"}, [1, "x"], "text", 0, False],
    "rawOutput": [{"out": None}, 1.5, ""],
    "_meta": [{"k": 1}, {}],
    "name": ["bash", "edit"],
    "capabilities": [{"cancel": {}}, {}],
}
_TOOL_CLEARED: Final[dict[str, Any]] = {
    "title": None,
    "kind": "other",
    "status": "pending",
    "content": [],
    "locations": [],
    "rawInput": None,
    "rawOutput": None,
    "_meta": _ABSENT,
    "name": _ABSENT,
    "capabilities": _ABSENT,
}
_CHUNK_ITEMS: Final[list[dict[str, Any]]] = [
    item("c"),
    {"type": "terminal", "terminalId": "term_b"},
    {"type": "_vendor_item", "z": 1},
    {"type": "diff", "changes": [{"operation": "add", "path": "/n"}], "patch": None},
]


@st.composite
def tool_updates(draw: st.DrawFn) -> Update:
    tool_call_id = draw(st.sampled_from(_TOOL_IDS))
    if draw(st.integers(0, 2)) == 0:
        update = tool_chunk(tool_call_id, draw(st.sampled_from(_CHUNK_ITEMS)))
        if draw(st.booleans()):
            update["_meta"] = {"chunk": 1}
        return update
    update = tool(tool_call_id)
    for key, values in _TOOL_VALUES.items():
        value = draw(st.sampled_from([OMIT, OMIT, None, *values]))
        if value is not OMIT:
            update[key] = value
    return update


class _ToolModel:
    def __init__(self) -> None:
        self.calls: dict[str, dict[str, Any]] = {}

    def apply(self, update: Update) -> None:
        tool_call_id = update["toolCallId"]
        call = self.calls.setdefault(
            tool_call_id, {**TOOL_DEFAULTS, "toolCallId": tool_call_id}
        )
        if update["sessionUpdate"] == "tool_call_content_chunk":
            call["content"] = [*call["content"], update["content"]]
            return
        for key, cleared in _TOOL_CLEARED.items():
            if key not in update:
                continue
            value = cleared if update[key] is None else update[key]
            if value is _ABSENT:
                call.pop(key, None)
            else:
                call[key] = value


@settings(derandomize=True, database=None, max_examples=150, deadline=None)
@given(st.lists(tool_updates(), max_size=20))
def test_property_tool_call_patches_match_a_reference_model(
    updates: list[Update],
) -> None:
    model = _ToolModel()
    player = Player(2)
    for update in updates:
        player.send(update)
        model.apply(update)
    document = dump(player.store)
    assert document["toolCalls"] == list(model.calls.values())
    for tool_call_id, call in model.calls.items():
        refs = [c["terminalId"] for c in call["content"] if c["type"] == "terminal"]
        assert player.store.terminal_ids_for_tool_call(tool_call_id) == tuple(
            dict.fromkeys(refs)
        )
