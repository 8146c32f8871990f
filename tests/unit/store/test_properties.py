"""Property tests: the store against small reference models built from lists.

Any interleaving of chunks, whole-message updates and `_meta`-only updates (and,
for tool calls, field patches and content appends) must give what a plain-list
reference model predicts. Snapshots taken along the way must not change later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import (
    UNSET,
    AppendMessageChunk,
    AppendTerminalOutput,
    AppendToolCallContent,
    CancelUnfinishedToolCalls,
    JSONObject,
    Message,
    MessageRole,
    PatchTerminal,
    PatchToolCall,
    SessionStore,
    Terminal,
    ToolCall,
    Unset,
    UpsertMessage,
)

MESSAGE_IDS = st.sampled_from(["m1", "m2", "m3"])
ROLES: st.SearchStrategy[MessageRole] = st.sampled_from(["user", "agent", "thought"])


def _text_block(value: str) -> JSONObject:
    return {"type": "text", "text": value}


BLOCKS: st.SearchStrategy[JSONObject] = st.one_of(
    st.text(alphabet="abcé\n", max_size=3).map(_text_block),
    st.integers(0, 3).map(lambda n: {"type": "image", "data": str(n)}),
    st.just({"type": "_vendor", "x": [1]}),
    st.just({"type": "text", "text": 5}),  # malformed text: not text
)
META_VALUES: st.SearchStrategy[dict[str, Any]] = st.dictionaries(
    st.sampled_from(["a", "b", "c"]), st.one_of(st.none(), st.integers(0, 3))
)


def _patch(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(UNSET), st.none(), values)


MESSAGE_OPS = st.one_of(
    st.builds(AppendMessageChunk, MESSAGE_IDS, ROLES, BLOCKS),
    st.builds(
        UpsertMessage,
        MESSAGE_IDS,
        ROLES,
        content=_patch(st.lists(BLOCKS, max_size=3)),
        meta=_patch(META_VALUES),
        meta_merge=st.booleans(),
    ),
    # _meta-only updates
    st.builds(
        UpsertMessage,
        MESSAGE_IDS,
        ROLES,
        meta=_patch(META_VALUES),
        meta_merge=st.booleans(),
    ),
)


@dataclass
class RefMessage:
    role: str
    content: list[JSONObject] = field(default_factory=list)
    meta: dict[str, Any] | None = None


def _ref_meta(
    current: dict[str, Any] | None, value: dict[str, Any] | Unset | None, merge: bool
) -> dict[str, Any] | None:
    if value is UNSET:
        return current
    if value is None:
        return None
    if not merge:
        return dict(value)
    if not value:
        return current
    merged = dict(current or {})
    for key, item in value.items():
        if item is None:
            merged.pop(key, None)
        else:
            merged[key] = item
    return merged


def _ref_text(content: list[JSONObject]) -> str:
    return "".join(
        str(b["text"])
        for b in content
        if b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def _check_message(message: Message | None, ref: RefMessage) -> None:
    assert message is not None
    assert message.role == ref.role
    assert list(message.content) == ref.content
    assert len(message.content) == len(ref.content)
    assert (None if message.meta is None else dict(message.meta)) == ref.meta
    assert message.text == _ref_text(ref.content)


@settings(max_examples=300, deadline=None)
@given(st.lists(MESSAGE_OPS, max_size=40))
def test_messages_match_reference_model(
    ops: list[AppendMessageChunk | UpsertMessage],
) -> None:
    store = SessionStore("s")
    # A message is its id and its role (a thought and an answer may share an id).
    model: dict[tuple[str, MessageRole], RefMessage] = {}
    taken: list[tuple[Message | None, RefMessage]] = []
    for op in ops:
        ref = model.setdefault((op.message_id, op.role), RefMessage(op.role))
        if isinstance(op, AppendMessageChunk):
            ref.content.append(op.block)
        else:
            if op.content is not UNSET:
                ref.content = list(op.content or [])
            ref.meta = _ref_meta(ref.meta, op.meta, op.meta_merge)  # type: ignore[arg-type]
        store.apply(op)
        snapshot = store.message(op.message_id, op.role)
        _check_message(snapshot, ref)
        taken.append((snapshot, RefMessage(ref.role, list(ref.content), ref.meta)))
    assert [(m.message_id, m.role) for m in store.messages()] == list(model)
    keys = [store.message_key(i, role) for i, role in model]
    assert len(set(keys)) == len(keys)
    assert store.timeline() == tuple(("message", k) for k in keys if k is not None)
    for (message_id, role), ref in model.items():
        _check_message(store.message(message_id, role), ref)
    for snapshot, expected in taken:  # earlier snapshots never change
        _check_message(snapshot, expected)


# --- tool calls -------------------------------------------------------------

TOOL_CALL_IDS = st.sampled_from(["t1", "t2"])
ITEMS: st.SearchStrategy[JSONObject] = st.one_of(
    st.text(alphabet="xy", max_size=2).map(
        lambda s: {"type": "content", "content": {"type": "text", "text": s}}
    ),
    st.sampled_from(["term1", "term2"]).map(
        lambda t: {"type": "terminal", "terminalId": t}
    ),
    st.just({"type": "diff", "changes": [], "patch": None}),
    st.just({"type": "_vendor"}),
)
JSON_VALUES: st.SearchStrategy[Any] = st.one_of(
    st.integers(0, 2), st.text(max_size=2), st.dictionaries(st.just("k"), st.booleans())
)
TOOL_OPS = st.one_of(
    st.builds(AppendToolCallContent, TOOL_CALL_IDS, ITEMS),
    st.builds(
        PatchToolCall,
        TOOL_CALL_IDS,
        title=_patch(st.text(max_size=2)),
        kind=_patch(st.sampled_from(["read", "edit", "_x"])),
        status=_patch(st.sampled_from(["in_progress", "completed", "failed", "_c"])),
        content=_patch(st.lists(ITEMS, max_size=3)),
        locations=_patch(
            st.lists(st.builds(dict, path=st.sampled_from(["/a", "/b"])), max_size=2)
        ),
        raw_input=_patch(JSON_VALUES),
        raw_output=_patch(JSON_VALUES),
        meta=_patch(META_VALUES),
        meta_merge=st.booleans(),
        name=_patch(st.sampled_from(["bash", "grep"])),
        capabilities=_patch(st.just({"cancel": {}})),
    ),
    st.just(CancelUnfinishedToolCalls()),
)

DEFAULTS: dict[str, Any] = {
    "title": None,
    "kind": "other",
    "status": "pending",
    "content": [],
    "locations": [],
    "raw_input": None,
    "raw_output": None,
    "meta": None,
    "name": None,
    "capabilities": None,
}
PLAIN_FIELDS = ["title", "kind", "status", "raw_input", "raw_output", "name"]


def _apply_ref(model: dict[str, dict[str, Any]], op: Any) -> None:
    if isinstance(op, CancelUnfinishedToolCalls):
        for ref in model.values():
            if ref["status"] not in {"completed", "failed", "cancelled"}:
                ref["status"] = "cancelled"
        return
    ref = model.setdefault(op.tool_call_id, dict(DEFAULTS))
    ref["content"] = list(ref["content"])
    if isinstance(op, AppendToolCallContent):
        ref["content"].append(op.item)
        return
    for name in [*PLAIN_FIELDS, "capabilities"]:
        value = getattr(op, name)
        if value is not UNSET:
            ref[name] = DEFAULTS[name] if value is None else value
    for name in ["content", "locations"]:
        value = getattr(op, name)
        if value is not UNSET:
            ref[name] = list(value or [])
    ref["meta"] = _ref_meta(ref["meta"], op.meta, op.meta_merge)


def _check_tool_call(tool_call: ToolCall | None, ref: dict[str, Any]) -> None:
    assert tool_call is not None
    for name in [*PLAIN_FIELDS, "capabilities"]:
        assert getattr(tool_call, name) == ref[name], name
    assert list(tool_call.content) == ref["content"]
    assert list(tool_call.locations) == ref["locations"]
    assert (None if tool_call.meta is None else dict(tool_call.meta)) == ref["meta"]
    terminal_ids = [
        i["terminalId"] for i in ref["content"] if i.get("type") == "terminal"
    ]
    assert tool_call.terminal_ids == tuple(dict.fromkeys(terminal_ids))


@settings(max_examples=300, deadline=None)
@given(st.lists(TOOL_OPS, max_size=40))
def test_tool_calls_match_reference_model(ops: list[Any]) -> None:
    store = SessionStore("s")
    model: dict[str, dict[str, Any]] = {}
    taken: list[tuple[ToolCall | None, dict[str, Any]]] = []
    for op in ops:
        _apply_ref(model, op)
        store.apply(op)
        for tool_call_id, ref in model.items():
            snapshot = store.tool_call(tool_call_id)
            _check_tool_call(snapshot, ref)
            taken.append((snapshot, {**ref, "content": list(ref["content"])}))
    assert [t.tool_call_id for t in store.tool_calls()] == list(model)
    for snapshot, expected in taken:  # earlier snapshots never change
        _check_tool_call(snapshot, expected)
    # The reverse index agrees with the forward one.
    for terminal_id in ["term1", "term2"]:
        users = store.tool_call_ids_for_terminal(terminal_id)
        assert set(users) == {
            t.tool_call_id for t in store.tool_calls() if terminal_id in t.terminal_ids
        }
        if users:
            assert store.terminal(terminal_id) is not None


# --- terminal output ----------------------------------------------------------

SMALL_DATA = st.binary(max_size=12)
BIG_DATA = st.tuples(st.integers(0x60, 0xBF), st.integers(0, 40_000)).map(
    lambda t: bytes([t[0]]) * t[1]
)
TERMINAL_OPS = st.one_of(
    st.builds(AppendTerminalOutput, st.just("term"), st.one_of(SMALL_DATA, BIG_DATA)),
    st.builds(
        PatchTerminal,
        st.just("term"),
        output=_patch(st.one_of(SMALL_DATA, BIG_DATA)),
        command=_patch(st.just("ls")),
    ),
)


def _ref_cap(data: bytes, cap: int) -> bytes:
    if len(data) <= cap:
        return data
    kept = data[len(data) - cap :]
    for _ in range(3):  # a cut never starts inside a UTF-8 sequence
        if kept and 0x80 <= kept[0] < 0xC0:
            kept = kept[1:]
    return kept


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([0, 1, 5, 100, 20_000, 50_000]),
    st.lists(TERMINAL_OPS, max_size=30),
)
def test_terminal_output_matches_reference_model(
    cap: int, ops: list[AppendTerminalOutput | PatchTerminal]
) -> None:
    store = SessionStore("s", max_terminal_bytes=cap)
    kept = b""
    received = 0  # bytes received since the last reset
    resets = 0
    taken: list[tuple[Terminal | None, bytes]] = []
    for op in ops:
        if isinstance(op, AppendTerminalOutput):
            received += len(op.data)
            kept = _ref_cap(kept + op.data, cap)
        elif op.output is not UNSET:
            resets += 1
            received = len(op.output or b"")
            kept = _ref_cap(op.output or b"", cap)
        store.apply(op)
        terminal = store.terminal("term")
        assert terminal is not None
        assert terminal.output == kept
        assert terminal.dropped_bytes == received - len(kept)
        assert terminal.resets == resets
        taken.append((terminal, kept))
    for snapshot, expected in taken:  # earlier snapshots never change
        assert snapshot is not None
        assert snapshot.output == expected


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([0, 1, 5, 100, 20_000, 50_000]),
    st.lists(TERMINAL_OPS, max_size=30),
    st.lists(st.integers(min_value=-1, max_value=60_000), min_size=1, max_size=4),
)
def test_terminal_output_tail_and_size_match_the_joined_output(
    cap: int, ops: list[AppendTerminalOutput | PatchTerminal], counts: list[int]
) -> None:
    """`output_tail(n)` and `output_size` never join the log, yet agree with it,
    for every snapshot taken along the way (before and after its first join)."""
    store = SessionStore("s", max_terminal_bytes=cap)
    taken: list[Terminal] = []
    for op in ops:
        store.apply(op)
        terminal = store.terminal("term")
        assert terminal is not None
        # Asked before `output` is ever joined for this snapshot.
        size = terminal.output_size
        tails = [terminal.output_tail(count) for count in counts]
        output = terminal.output
        assert size == len(output)
        assert tails == [output[-c:] if c > 0 else b"" for c in counts]
        taken.append(terminal)
    for terminal in taken:  # and after the join, from the cached value
        output = terminal.output
        assert terminal.output_size == len(output)
        for count in counts:
            assert terminal.output_tail(count) == (
                output[-count:] if count > 0 else b""
            )
