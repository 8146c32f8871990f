"""The store-op JSON codec and `JournaledStore`: event sourcing round trips."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import (
    UNSET,
    AddElicitation,
    AddPermission,
    AppendMessageChunk,
    AppendMessageTexts,
    AppendTerminalOutput,
    AppendToolCallContent,
    CancelUnfinishedToolCalls,
    CompleteElicitation,
    CutMessageText,
    Op,
    PatchSessionInfo,
    PatchTerminal,
    PatchToolCall,
    PatchUsage,
    RecordNotice,
    RecordTerminalError,
    RecordUnknownUpdate,
    ReplacePlan,
    ResolveElicitation,
    ResolvePermission,
    SessionStore,
    SetAvailableCommands,
    SetConfigOptions,
    SetState,
    SetTurnUsage,
    UpsertMessage,
    ops,
)
from acp_tui.store.config import ANY_KEYS, ConfigOption, read_options
from acp_tui.store.journal import (
    OP_TYPES,
    JournaledStore,
    encode_op,
    op_from_record,
    op_to_record,
)
from acp_tui.store.ops import (
    InSubagent,
    InterleavedTexts,
    MarkCancelling,
    PatchSubagent,
    RemovePlan,
    SetMessageOrigin,
)
from tests.unit.store.test_properties import (
    MESSAGE_OPS,
    META_VALUES,
    TERMINAL_OPS,
    TOOL_OPS,
)


def neutral(options: list[Any]) -> list[ConfigOption]:
    """Wire-form config options as the store keeps them (either spelling)."""
    return read_options(options, ANY_KEYS)


TEXT = {"type": "text", "text": "hi"}

# Every op type, with every field set (and some with fields cleared or omitted).
SAMPLES: list[Any] = [
    UpsertMessage("m1", "user", content=[TEXT], meta={"a": 1}, meta_merge=True),
    UpsertMessage("m1", "agent", content=None, meta=None),
    UpsertMessage("m2", "thought"),
    AppendMessageChunk("m1", "agent", {"type": "image", "data": "AAAA"}),
    CutMessageText("m1", "agent", 12_345, "the end"),
    AppendMessageTexts("m1", "thought", ["one ", "two \u00e9\n", ""]),
    PatchToolCall(
        "t1",
        title="Run",
        kind="execute",
        status="in_progress",
        content=[{"type": "content", "content": TEXT}],
        locations=[{"path": "/a", "line": 3}],
        raw_input={"command": ["ls", "-l"]},
        raw_output=[1, 2.5, None, True],
        meta={"x": {"y": [1]}},
        meta_merge=True,
        name="bash",
        capabilities={"cancel": {}},
    ),
    PatchToolCall("t1", title=None, raw_input=None, raw_output="plain string"),
    AppendToolCallContent("t1", {"type": "terminal", "terminalId": "term"}),
    CancelUnfinishedToolCalls(),
    ReplacePlan(
        "main",
        "items",
        [{"content": "x", "status": "pending"}],
        {"type": "items", "entries": []},
    ),
    PatchTerminal(
        "term",
        command="ls",
        cwd="/tmp",
        output=b"\x00\xff\x1b[31mred\r\n",
        exit_status={"exitCode": 3},
        meta={"m": True},
        meta_merge=True,
        size={"rows": 24, "cols": 80},
        capabilities={"kill": {}},
    ),
    PatchTerminal("term", output=None, exit_status=None),
    AppendTerminalOutput("term", bytes(range(256))),
    AppendTerminalOutput("term", b""),
    RecordTerminalError("term", "invalid base64"),
    SetConfigOptions(neutral([{"configId": "mode", "currentValue": "ask"}])),
    SetAvailableCommands([{"name": "review", "description": "Review"}]),
    PatchSessionInfo(title="Greeting", updated_at="2026-01-02T03:04:05Z", meta={}),
    PatchSessionInfo(title=None, meta_merge=True),
    PatchUsage(used=1200, size=200000, cost={"amount": 0.01}, meta={"k": "v"}),
    PatchUsage(used=None),
    SetTurnUsage(53000, 35000, 12000, 5000, None, 1000),
    SetState("running"),
    SetState("idle", "error", {"code": -1, "message": "x"}, {"raw": 1}),
    AddPermission(
        "7",
        "Run ls?",
        "Lists",
        {"type": "tool_call"},
        [{"optionId": "y", "name": "Yes", "kind": "allow_once"}],
        "t1",
        {"m": 1},
    ),
    AddPermission("8", None),
    ResolvePermission("7", {"outcome": "selected", "optionId": "y"}),
    AddElicitation(
        "9",
        "form",
        "Which?",
        {"type": "object", "properties": {"a": {"type": "string"}}},
        tool_call_id="t1",
        meta={"m": 2},
    ),
    AddElicitation("10", "url", "Log in", url="https://x.test/", url_id="e1"),
    ResolveElicitation("9", {"action": "accept", "content": {"a": "b"}}),
    ResolveElicitation("10", {"action": "accept"}),
    CompleteElicitation("10"),
    RecordUnknownUpdate({"sessionUpdate": "_vendor", "data": "QUFB"}),
    RecordNotice("warning", "Careful", "details", {"raw": [1]}),
    RecordNotice("error", "Bad"),
    SetMessageOrigin("m1", "agent"),
    ops.AddNotice("warning", "MCP server unavailable", "Continuing.", {"k": 1}),
    ops.AddNotice("_vendor", "Odd"),
    ops.PatchCompaction("c1", "in_progress"),
    ops.AppendCompactionSummary("c1", TEXT),
    ops.PatchCompaction(
        "c1", "failed", summary=None, error="boom", meta={"m": 2}, meta_merge=True
    ),
    ops.PatchCompaction("c2", "completed", summary=[TEXT]),
    ops.PatchSessionMessage(
        "sm1",
        sender_session_id="other",
        recipient_session_id=None,
        sender_message_id="x",
        content=[TEXT],
        meta={"a": 1},
    ),
    ops.AppendSessionMessageChunk("sm1", TEXT),
    PatchSubagent(
        "c1",
        title="Explore",
        description=None,
        status="failed",
        stop_reason="error",
        error="boom",
        can_cancel=True,
        at_ms=1_700_000_000_000,
    ),
    PatchSubagent("c1"),
    InSubagent("c1", AppendTerminalOutput("t", b"\x00\xff")),
    InSubagent("c1", InSubagent("g1", SetState("running"))),
    InterleavedTexts(
        [
            InSubagent("c1", AppendMessageTexts("m1", "agent", ["a", "b"])),
            AppendMessageTexts("m1", "thought", ["c"]),
        ],
        [0, 1, 0],
    ),
    RemovePlan("main"),
    MarkCancelling("tool_call", "t1"),
    MarkCancelling("terminal", "term", cancelling=False),
]


def roundtrip(op: Op) -> Op:
    """Encode, go through JSON text, decode."""
    return op_from_record(json.loads(json.dumps(op_to_record(op))))


def test_samples_cover_every_op_type() -> None:
    assert {type(op) for op in SAMPLES} == set(OP_TYPES.values())


@pytest.mark.parametrize("op", SAMPLES, ids=lambda op: type(op).__name__)
def test_every_op_round_trips(op: Op) -> None:
    decoded = roundtrip(op)
    assert type(decoded) is type(op)
    assert fields(decoded) == fields(op)
    assert op_to_record(decoded) == op_to_record(op)


@pytest.mark.parametrize("op", SAMPLES, ids=lambda op: type(op).__name__)
def test_the_fast_encoder_writes_the_same_record(op: Op) -> None:
    assert json.loads(encode_op(op)) == op_to_record(op)
    assert encode_op(op).isascii()


def fields(op: Op) -> dict[str, Any]:
    """An op's fields, with tuples as lists (JSON has only lists)."""

    def normal(value: Any) -> Any:
        if isinstance(value, tuple | list):
            return [normal(v) for v in value]
        if isinstance(value, dict):
            return {k: normal(v) for k, v in value.items()}
        return value

    return {f.name: normal(getattr(op, f.name)) for f in dataclasses.fields(op)}


def test_record_format_unset_omitted_none_kept_bytes_base64() -> None:
    record = op_to_record(PatchTerminal("t", output=b"\x00\xff", exit_status=None))
    assert record == {
        "op": "PatchTerminal",
        "terminal_id": "t",
        "output": "AP8=",
        "exit_status": None,
        "meta_merge": False,
    }
    decoded = op_from_record(record)
    assert isinstance(decoded, PatchTerminal)
    assert decoded.output == b"\x00\xff"
    assert decoded.exit_status is None
    assert decoded.command is UNSET  # omitted: unchanged, not cleared


def test_strings_that_look_like_base64_stay_strings() -> None:
    """Bytes fields are known from the annotations: wire strings are never sniffed."""
    op = AppendMessageChunk("m", "agent", {"type": "text", "text": "AP8="})
    decoded = roundtrip(op)
    assert isinstance(decoded, AppendMessageChunk)
    assert decoded.block == {"type": "text", "text": "AP8="}
    unknown = roundtrip(RecordUnknownUpdate({"data": "AP8="}))
    assert isinstance(unknown, RecordUnknownUpdate)
    assert unknown.raw == {"data": "AP8="}


def test_read_only_views_are_encoded_as_plain_json() -> None:
    from types import MappingProxyType

    op = UpsertMessage(
        "m", "agent", content=(MappingProxyType(TEXT),), meta=MappingProxyType({})
    )
    record = op_to_record(op)
    assert record["content"] == [TEXT]
    assert json.loads(json.dumps(record)) == record
    assert json.loads(encode_op(op)) == record


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([1, 2], "must be a JSON object"),
        ({"op": "Explode"}, "unknown op 'Explode'"),
        ({"no": "op"}, "unknown op None"),
        ({"op": "__init__"}, "unknown op"),
        ({"op": "SetState", "state": "idle", "color": 1}, "unknown field(s) color"),
        ({"op": "AppendMessageChunk", "message_id": "m"}, "missing field role"),
        ({"op": "SetState", "state": 3}, "SetState.state must be a string"),
        ({"op": "PatchUsage", "used": True}, "PatchUsage.used must be an integer"),
        ({"op": "PatchUsage", "used": 1.5}, "must be an integer, not float"),
        (
            {"op": "RecordUnknownUpdate", "raw": [1]},
            "must be a JSON object, not a list",
        ),
        ({"op": "SetConfigOptions", "options": [1]}, "must be a list of JSON objects"),
        ({"op": "SetConfigOptions", "options": None}, "must not be null"),
        ({"op": "UpsertMessage", "message_id": "m", "role": "bot"}, "role must be"),
        (
            {"op": "SetMessageOrigin", "message_id": "m", "origin": "bot"},
            'origin must be "user" or "agent"',
        ),
        ({"op": "AppendTerminalOutput", "terminal_id": "t", "data": "%%"}, "base64"),
        (
            {"op": "AppendTerminalOutput", "terminal_id": "t", "data": 5},
            "base64 string",
        ),
        ({"op": "PatchSessionInfo", "meta_merge": None}, "must not be null"),
    ],
)
def test_bad_records_raise_clear_value_errors(record: object, message: str) -> None:
    with pytest.raises(ValueError, match=_escape(message)):
        op_from_record(record)


def _escape(text: str) -> str:
    import re

    return re.escape(text)


# --- JournaledStore -------------------------------------------------------------


class Sink:
    """Records each call, and the store's revision of a message at that time."""

    def __init__(self) -> None:
        self.calls: list[tuple[Op, ...]] = []
        self.seen_text: list[str | None] = []

    def __call__(self, store: SessionStore, ops: Sequence[Op]) -> None:
        self.calls.append(tuple(ops))
        message = store.message("m")
        self.seen_text.append(None if message is None else message.text)


def test_journaled_store_hands_ops_to_the_sink_before_applying() -> None:
    sink = Sink()
    store = JournaledStore("s", sink)
    first = AppendMessageChunk("m", "agent", {"type": "text", "text": "a"})
    second = AppendMessageChunk("m", "agent", {"type": "text", "text": "b"})
    third = AppendMessageChunk("m", "agent", {"type": "text", "text": "c"})
    store.apply(first)
    store.apply_many(op for op in (second, third))  # a generator is fine
    store.apply_many([])
    assert sink.calls == [(first,), (second, third)]
    assert sink.seen_text == [None, "a"]  # before each call applied
    message = store.message("m")
    assert message is not None
    assert message.text == "abc"


def test_a_failing_sink_never_breaks_the_store(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(store: SessionStore, ops: Sequence[Op]) -> None:
        raise OSError("disk full")

    store = JournaledStore("s", broken, max_terminal_bytes=4)
    store.apply(AppendTerminalOutput("t", b"123456"))
    store.apply_many([SetState("running")])
    terminal = store.terminal("t")
    assert terminal is not None
    assert terminal.output == b"3456"  # store options pass through
    assert store.state.is_busy
    assert "journaling ops of s failed" in caplog.text


# --- event sourcing property ---------------------------------------------------

_IDS = st.sampled_from(["a", "b"])
_OBJECTS = st.dictionaries(
    st.sampled_from(["k", "type"]), st.integers(0, 2), max_size=2
)
_OBJECT_LISTS = st.lists(_OBJECTS, max_size=2)


def _patch(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(UNSET), st.none(), values)


OTHER_OPS: st.SearchStrategy[Any] = st.one_of(
    st.builds(
        ReplacePlan, _IDS, st.sampled_from(["items", "_x"]), _OBJECT_LISTS, _OBJECTS
    ),
    st.builds(SetConfigOptions, _OBJECT_LISTS.map(neutral)),
    st.builds(SetAvailableCommands, _OBJECT_LISTS),
    st.builds(
        PatchSessionInfo,
        title=_patch(st.text(max_size=3)),
        updated_at=_patch(st.just("2026-01-01T00:00:00Z")),
        meta=_patch(META_VALUES),
        meta_merge=st.booleans(),
    ),
    st.builds(
        PatchUsage,
        used=_patch(st.integers(0, 9)),
        size=_patch(st.integers(0, 9)),
        cost=_patch(_OBJECTS),
        meta=_patch(META_VALUES),
    ),
    st.builds(
        SetState,
        st.sampled_from(["idle", "running", "_odd"]),
        st.one_of(st.none(), st.sampled_from(["end_turn", "error"])),
        st.one_of(st.none(), _OBJECTS),
        st.one_of(st.none(), _OBJECTS),
    ),
    st.builds(
        AddPermission,
        _IDS,
        st.one_of(st.none(), st.text(max_size=3)),
        st.one_of(st.none(), st.text(max_size=3)),
        st.one_of(st.none(), _OBJECTS),
        _OBJECT_LISTS,
        st.one_of(st.none(), st.just("t1")),
        st.one_of(st.none(), META_VALUES),
    ),
    st.builds(ResolvePermission, _IDS, _OBJECTS),
    st.builds(RecordUnknownUpdate, _OBJECTS),
    st.builds(
        RecordNotice,
        st.sampled_from(["warning", "error"]),
        st.text(max_size=3),
        st.one_of(st.none(), st.text(max_size=3)),
        st.one_of(st.none(), _OBJECTS),
    ),
    st.builds(RecordTerminalError, st.just("term"), st.text(max_size=3)),
)
REPORT_OPS = st.one_of(
    st.builds(
        ops.AddNotice,
        st.sampled_from(["info", "warning", "error", "_x"]),
        st.text(min_size=1, max_size=3),
        st.one_of(st.none(), st.text(max_size=3)),
        st.one_of(st.none(), _OBJECTS),
    ),
    st.builds(
        ops.PatchCompaction,
        st.sampled_from(["c1", "c2"]),
        st.sampled_from(["in_progress", "completed", "failed", "_odd"]),
        summary=_patch(_OBJECT_LISTS),
        error=_patch(st.text(max_size=3)),
        meta=_patch(_OBJECTS),
        meta_merge=st.booleans(),
    ),
    st.builds(ops.AppendCompactionSummary, st.sampled_from(["c1", "c2"]), _OBJECTS),
    st.builds(
        ops.PatchSessionMessage,
        st.sampled_from(["s1", "s2"]),
        sender_session_id=_patch(st.text(max_size=3)),
        recipient_message_id=_patch(st.text(max_size=3)),
        content=_patch(_OBJECT_LISTS),
        meta=_patch(_OBJECTS),
        meta_merge=st.booleans(),
    ),
    st.builds(ops.AppendSessionMessageChunk, st.sampled_from(["s1", "s2"]), _OBJECTS),
)
ANY_OPS = st.one_of(MESSAGE_OPS, TOOL_OPS, TERMINAL_OPS, OTHER_OPS, REPORT_OPS)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(ANY_OPS, min_size=1, max_size=4), max_size=25))
def test_a_store_rebuilt_from_its_journal_equals_the_live_one(
    batches: list[list[Any]],
) -> None:
    lines: list[str] = []

    def sink(store: SessionStore, ops: Sequence[Op]) -> None:
        lines.extend(json.dumps(op_to_record(op)) for op in ops)

    live = JournaledStore("s", sink)
    for batch in batches:
        if len(batch) == 1:
            live.apply(batch[0])
        else:
            live.apply_many(batch)
    rebuilt = SessionStore("s")
    for line in lines:
        rebuilt.apply(op_from_record(json.loads(line)))
    assert rebuilt.to_json() == live.to_json()
    assert rebuilt.timeline() == live.timeline()
    assert [n.title for n in rebuilt.notices] == [n.title for n in live.notices]
