"""A run of streamed chunks reaches the store as one batch, before anything else.

`UpdateIntake` keeps the ops of agent and thought chunks pending while the
dispatcher reads lines that are already buffered, and applies them at once
(one store batch: one journal write, one change notification) before the
dispatcher lets anything else run or handles another kind of line. The store
ends exactly as with one batch per update.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from acp_tui.client import update_intake
from acp_tui.protocol import dispatcher
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.store import ops
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from tests.unit.client.peer import ScriptedPrompter, open_harness, v1_init, v2_init

VERSIONS = [pytest.param(1, id="v1"), pytest.param(2, id="v2")]
OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


@pytest.fixture(autouse=True)
def _long_read_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow first update (a model compiled) must not end a read slice early."""
    monkeypatch.setattr(dispatcher, "READ_SLICE", 60.0)


def init_for(version: int) -> dict[str, Any]:
    return v1_init() if version == 1 else v2_init({})


def chunk(version: int, words: str, kind: str = "agent_message_chunk") -> Any:
    update: dict[str, Any] = {
        "sessionUpdate": kind,
        "content": {"type": "text", "text": words},
    }
    if version == 2:
        update["messageId"] = {"agent_message_chunk": "m1"}.get(kind, "t1")
    return update


def tool_call(version: int, tool_call_id: str) -> Any:
    return {
        "sessionUpdate": "tool_call" if version == 1 else "tool_call_update",
        "toolCallId": tool_call_id,
        "title": f"Tool {tool_call_id}",
        "status": "pending",
    }


def permission(version: int, tool_call_id: str) -> Any:
    if version == 1:
        return {
            "sessionId": "s1",
            "toolCall": {"toolCallId": tool_call_id},
            "options": OPTIONS,
        }
    return {
        "sessionId": "s1",
        "title": "Run?",
        "subject": {"type": "tool_call", "toolCall": {"toolCallId": tool_call_id}},
        "options": OPTIONS,
    }


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


def update_line(update: Any) -> bytes:
    params = {"sessionId": "s1", "update": update}
    return line({"jsonrpc": "2.0", "method": "session/update", "params": params})


def texts(store: SessionStore) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in store.messages()]


def replay(store: SessionStore, version: int, updates: list[Any]) -> None:
    """The updates applied one batch each (what the store got before)."""
    from acp_tui.client import v1, v2

    if version == 1:
        translator1 = v1.V1Translator(store)
        for update in updates:
            store.apply_many(
                translator1.translate({"sessionId": "s1", "update": update})
            )
    else:
        translator2 = v2.V2Translator()
        for update in updates:
            store.apply_many(
                translator2.translate({"sessionId": "s1", "update": update})
            )


async def buffered(
    version: int, updates: list[Any]
) -> tuple[SessionStore, list[Sequence[Change]]]:
    """The store after `updates` sent at once, and the batches it notified."""
    batches: list[Sequence[Change]] = []
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        store.subscribe(batches.append)
        await h.peer.endpoint.send_raw(b"".join(update_line(u) for u in updates))
        await h.peer.sync()
    return store, batches


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_buffered_run_of_chunks_is_one_store_batch(version: int) -> None:
    updates = [chunk(version, f"w{n} ") for n in range(200)]
    store, batches = await buffered(version, updates)
    assert texts(store) == [("agent", "".join(f"w{n} " for n in range(200)))]
    assert sum(len(batch) for batch in batches) == 200
    assert len(batches) < 10  # one per update before


@pytest.mark.parametrize("version", VERSIONS)
async def test_the_run_is_in_the_store_before_a_request_is_served(
    version: int,
) -> None:
    seen: list[list[tuple[str, str]]] = []
    stores: list[SessionStore] = []

    def answer(request: object) -> str:
        seen.append(texts(stores[0]))
        return "allow"

    updates = [chunk(version, "thinking ", "agent_thought_chunk")] * 3
    updates += [tool_call(version, "tc1"), *[chunk(version, "a ")] * 5]
    batches: list[Sequence[Change]] = []
    async with open_harness(init_for(version), prompter=ScriptedPrompter(answer)) as h:
        store = await h.new_session()
        stores.append(store)
        store.subscribe(batches.append)
        request = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "session/request_permission",
            "params": permission(version, "tc1"),
        }
        await h.peer.endpoint.send_raw(
            b"".join(update_line(u) for u in updates) + line(request)
        )
        response = await h.peer.expect_response(7)
        await h.peer.sync()
    assert response["result"]["outcome"]["optionId"] == "allow"
    assert seen == [[("thought", "thinking " * 3), ("agent", "a " * 5)]]
    # the thoughts, the tool call, the agent's chunks; then the request's
    assert len(batches[:3]) == 3
    assert [len(batch) for batch in batches[:3]] == [3, 1, 5]
    expected = SessionStore("s1", cwd=store.cwd)
    replay(expected, version, updates)
    timeline = [entry for entry in store.timeline() if entry[0] != "permission"]
    assert timeline == list(expected.timeline())
    assert texts(store) == texts(expected)


@pytest.mark.parametrize("version", VERSIONS)
async def test_user_chunks_and_other_updates_keep_their_order(version: int) -> None:
    updates = [
        chunk(version, "hi ", "user_message_chunk"),
        *[chunk(version, "hello ")] * 3,
        tool_call(version, "tc1"),
        *[chunk(version, "more ", "agent_thought_chunk")] * 3,
        chunk(version, "again ", "user_message_chunk"),
        *[chunk(version, "bye ")] * 3,
    ]
    if version == 2:
        updates[0]["messageId"] = "u1"
        updates[8]["messageId"] = "u2"
        for update in updates[9:]:
            update["messageId"] = "m2"
    store, batches = await buffered(version, updates)
    # user, 3 agent, tool, 3 thought, user, 3 agent: runs of 3 chunks are one batch
    assert [len(batch) for batch in batches][1::2] == [3, 3, 3]
    assert len(batches) == 6
    expected = SessionStore("s1", cwd=store.cwd)
    replay(expected, version, updates)
    assert list(store.timeline()) == list(expected.timeline())
    assert texts(store) == texts(expected)


async def test_a_long_run_is_applied_in_bounded_batches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(update_intake, "MAX_PENDING_OPS", 16)
    batches: list[Sequence[Change]] = []
    async with open_harness(init_for(2)) as h:
        store = await h.new_session()
        store.subscribe(batches.append)
        await h.peer.endpoint.send_raw(
            b"".join(update_line(chunk(2, "x")) for _ in range(100))
        )
        await h.peer.sync()
    assert max(len(batch) for batch in batches) <= 16
    assert texts(store) == [("agent", "x" * 100)]


async def test_a_failing_batch_is_reported_once_and_the_connection_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failures = [RpcError(1, "boom")]

    async with open_harness(init_for(2)) as h:
        store = await h.new_session()
        apply_many = store.apply_many

        def failing(ops: Any) -> tuple[Change, ...]:
            if failures:
                raise failures.pop()
            return apply_many(ops)

        monkeypatch.setattr(store, "apply_many", failing)
        await h.peer.endpoint.send_raw(
            update_line(chunk(2, "lost ")) + update_line(chunk(2, "with it "))
        )
        await h.peer.sync()
        await h.peer.update("s1", chunk(2, "kept"))
        await h.peer.sync()
    assert texts(store) == [("agent", "kept")]
    assert [d.kind for d in h.diagnostics] == ["notification_error"]


def announce(child: str) -> Any:
    return {
        "sessionUpdate": "subagent_update",
        "sessionId": child,
        "title": f"Child {child}",
        "state": {"state": "running"},
    }


def child_line(child: str, update: Any) -> bytes:
    params = {"sessionId": child, "update": update}
    return line({"jsonrpc": "2.0", "method": "session/update", "params": params})


@pytest.mark.parametrize("version", VERSIONS)
async def test_subagents_streaming_in_parallel_are_one_run(version: int) -> None:
    """Their chunks interleave: each was a store batch of its own (bench/ui.py's
    20 parallel subagents took 1.8x one agent's time)."""
    children = [f"c{n}" for n in range(4)]
    batches: list[Sequence[Change]] = []
    async with open_harness(init_for(version)) as h:
        store = await h.new_session()
        await h.peer.endpoint.send_raw(
            b"".join(update_line(announce(c)) for c in children)
        )
        await h.peer.sync()
        store.subscribe(batches.append)
        await h.peer.endpoint.send_raw(
            b"".join(
                child_line(c, chunk(version, f"{c}w{n} "))
                for n in range(50)
                for c in children
            )
        )
        await h.peer.sync()
    for c in children:
        own = store.subagent_store(c)
        assert own is not None
        assert texts(own) == [("agent", "".join(f"{c}w{n} " for n in range(50)))]
    assert sum(len(batch) for batch in batches) == 200
    assert len(batches) < 10  # one per update before


def terminal_output(terminal_id: str, text: str) -> Any:
    data = base64.b64encode(text.encode()).decode()
    return {
        "sessionUpdate": "terminal_output_chunk",
        "terminalId": terminal_id,
        "data": data,
    }


async def test_a_terminals_output_joins_the_run() -> None:
    updates = [chunk(2, "a ")] * 3
    updates += [terminal_output("t1", f"line {n}\n") for n in range(20)]
    updates += [chunk(2, "b ")] * 3
    store, batches = await buffered(2, updates)
    assert sum(len(batch) for batch in batches) == 26
    assert len(batches) < 5  # one per update before
    terminal = store.terminal("t1")
    assert terminal is not None
    assert terminal.output == "".join(f"line {n}\n" for n in range(20)).encode()
    assert texts(store) == [("agent", "a a a b b b ")]


def mixed_updates(seed: int) -> list[Any]:
    """v2 updates: runs of plain chunks of several messages and roles, broken by
    chunks that are not plain, user chunks and other updates."""
    rng = random.Random(seed)
    updates: list[Any] = []
    for _ in range(300):
        kind = rng.choice(
            ["agent", "agent", "agent", "thought", "user", "odd", "tool", "term"]
        )
        words = rng.choice(["a ", "b\n", "\u00e9 ", '"q" ', ""])
        if kind == "tool":
            updates.append(tool_call(2, rng.choice(["tc1", "tc2"])))
            continue
        if kind == "term":
            updates.append(terminal_output(rng.choice(["t1", "t2"]), words))
            continue
        update = chunk(2, words, f"{'agent' if kind == 'odd' else kind}_message_chunk")
        update["messageId"] = rng.choice(["m1", "m2", "m3"])
        if kind == "odd":  # not a plain chunk: the models' path
            update["content"] = rng.choice(
                [
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    {"type": "text", "text": words, "_meta": {"x": 1}},
                ]
            )
        updates.append(update)
    return updates


@pytest.mark.parametrize("seed", range(4))
async def test_runs_of_plain_chunks_end_as_their_chunks(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The intake gathers runs of plain text chunks (`AppendMessageTexts`): the
    store, and every change told, are as with an op per chunk (the translator
    asked for each); the messages are as with each update applied on its own
    (but the marks of the user messages the agent wrote, which only the
    client makes)."""
    from acp_tui.client import v2

    updates = mixed_updates(seed)
    runs: list[list[str]] = []
    real = ops.AppendMessageTexts

    def run(message_id: str, role: Any, texts: list[str]) -> Any:
        runs.append(texts)
        return real(message_id, role, texts)

    with monkeypatch.context() as patched:
        patched.setattr(update_intake, "AppendMessageTexts", run)
        store, batches = await buffered(2, updates)
    assert sum(map(len, runs)) > 50  # (runs were gathered)
    with monkeypatch.context() as patched:
        patched.setattr(v2.V2Translator, "text_chunk", lambda self, params: None)
        chunked, chunk_batches = await buffered(2, updates)
    assert store.to_json() == chunked.to_json()
    assert store.messages() == chunked.messages()
    assert [m.revision for m in store.messages()] == [
        m.revision for m in chunked.messages()
    ]
    assert [c for b in batches for c in b] == [c for b in chunk_batches for c in b]
    expected = SessionStore("s1", cwd=store.cwd)
    replay(expected, 2, updates)
    messages: Any = store.to_json()["messages"]
    without_marks = [{k: v for k, v in m.items() if k != "origin"} for m in messages]
    assert without_marks == expected.to_json()["messages"]


def raw_chunk(text: str, session: str = "s1", message: str = "m1") -> bytes:
    """A compact chunk line, as a Node agent writes it."""
    params = {
        "sessionId": session,
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "messageId": message,
            "content": {"type": "text", "text": text},
        },
    }
    value = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    return json.dumps(value, separators=(",", ":")).encode() + b"\n"


def repeated_lines() -> bytes:
    """Chunk lines that repeat each other but for their text, broken by lines
    that differ elsewhere, end otherwise or are not valid."""
    lines = [raw_chunk(f'w{n} \u00e9\\ "q"') for n in range(30)]
    lines.insert(5, raw_chunk("other session", session="s9"))
    lines.insert(8, raw_chunk("another message", message="m2"))
    lines.insert(12, raw_chunk("cr").replace(b"}}}}\n", b"}}}}\r\n"))
    lines.insert(14, raw_chunk("bad").replace(b'"bad"', b'"b\\qd"'))  # bad escape
    lines.insert(16, raw_chunk("two").replace(b'"two"', b'"two","x":"y"'))
    lines.insert(18, raw_chunk("ctl").replace(b'"ctl"', b'"c\x01l"'))
    lines.insert(20, raw_chunk("utf").replace(b'"utf"', b'"\xff"'))
    lines.insert(22, update_line(chunk(2, "spaced ")))
    lines.insert(24, update_line(tool_call(2, "tc1")))
    return b"".join(lines)


async def test_lines_repeating_a_chunk_are_read_by_their_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The dispatcher reads only the text of a line that repeats a chunk's
    (`Dispatcher.learn_text_shape`): the store, its changes and the problems
    reported are as with every line read whole."""
    taken: list[str] = []
    real = update_intake.UpdateIntake._text_again

    def spied(self: Any, token: Any, text: str) -> bool:
        took = real(self, token, text)
        if took:
            taken.append(text)
        return took

    async def run() -> tuple[SessionStore, list[Sequence[Change]], list[Any]]:
        batches: list[Sequence[Change]] = []
        async with open_harness(init_for(2)) as h:
            store = await h.new_session()
            store.subscribe(batches.append)
            await h.peer.endpoint.send_raw(repeated_lines())
            await h.peer.sync()
        diagnostics = [(d.kind, d.message) for d in h.diagnostics]
        return store, batches, diagnostics

    with monkeypatch.context() as patched:
        patched.setattr(update_intake.UpdateIntake, "_text_again", spied)
        store, batches, diagnostics = await run()
    assert len(taken) > 20
    with monkeypatch.context() as patched:
        patched.setattr(update_intake.UpdateIntake, "_text_again", lambda *args: False)
        whole, whole_batches, whole_diagnostics = await run()
    assert store.to_json() == whole.to_json()
    assert [c for b in batches for c in b] == [c for b in whole_batches for c in b]
    assert diagnostics == whole_diagnostics
    assert [kind for kind, _ in diagnostics] == ["parse_error"] * 3
    message = store.message("m1")
    assert message is not None
    assert message.text.startswith('w0 \u00e9\\ "q"w1 ')


LANES = ["c0", "c1", "c2", "c3", "g0"]
"""The subagents of `lane_updates`: four children of s1, and g0 of c0."""


def lane_updates(seed: int) -> list[bytes]:
    """Lines of subagents streaming in parallel: runs of plain chunks of several
    messages and roles, interleaved, broken by chunks that are not plain, user
    chunks, tool calls, the parent's own chunks and lines that are not JSON."""
    rng = random.Random(seed)
    lines: list[bytes] = []
    current = dict.fromkeys([*LANES, "s1"], ("agent", "m1"))
    for _ in range(400):
        kind = rng.choice(["plain"] * 100 + ["user", "odd", "tool", "root", "broken"])
        words = rng.choice(["a ", "b\n", "\u00e9 ", '"q" ', ""])
        lane = rng.choice([*LANES[:4] * 4, "g0"])
        if kind == "broken":
            lines.append(b'{"jsonrpc":"2.0","method":"session/update","params":{\n')
            continue
        if kind == "tool":
            lines.append(child_line(lane, tool_call(2, rng.choice(["tc1", "tc2"]))))
            continue
        if rng.random() < 0.1:  # the lane goes on with another message
            current[lane] = (rng.choice(["agent", "thought"]), rng.choice(["m1", "m2"]))
        role, message_id = current[lane] if kind != "user" else ("user", "u1")
        kinds = {"thought": "agent_thought_chunk"}
        update = chunk(2, words, kinds.get(role, f"{role}_message_chunk"))
        update["messageId"] = message_id
        if kind == "odd":  # not a plain chunk: the models' path
            update["content"] = rng.choice(
                [
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    {"type": "text", "text": words, "_meta": {"x": 1}},
                ]
            )
        if kind == "root":
            lines.append(update_line(update))
        else:
            lines.append(
                raw_chunk(words, lane, update["messageId"])
                if kind == "plain" and role == "agent" and rng.random() < 0.5
                else child_line(lane, update)
            )
    return lines


async def lanes_streamed(
    lines: list[bytes],
) -> tuple[SessionStore, list[Sequence[Change]], list[list[ops.Op]], list[Any]]:
    """The store after `lines`, the changes it told, the op batches it was given
    and the problems reported."""
    batches: list[Sequence[Change]] = []
    given: list[list[ops.Op]] = []
    async with open_harness(init_for(2)) as h:
        store = await h.new_session()
        await h.peer.endpoint.send_raw(
            b"".join(update_line(announce(c)) for c in LANES[:4])
            + child_line("c0", announce("g0"))
        )
        await h.peer.sync()
        store.subscribe(batches.append)
        apply_many = store.apply_many

        def recorded(operations: Any) -> tuple[Change, ...]:
            given.append(list(operations))
            return apply_many(given[-1])

        store.apply_many = recorded  # type: ignore[method-assign,assignment]
        await h.peer.endpoint.send_raw(b"".join(lines))
        await h.peer.sync()
    return store, batches, given, [(d.kind, d.message) for d in h.diagnostics]


def lane_state(store: SessionStore) -> Any:
    """Every store's messages with their revisions, and the subagents'."""
    inner = {}
    for subagent in store.subagents():
        own = store.subagent_store(subagent.subagent_id)
        assert own is not None
        inner[subagent.subagent_id] = lane_state(own)
    messages = [(m.key, m.revision, m.text) for m in store.messages()]
    return messages, inner


def journaled(given: list[list[ops.Op]], session_id: str) -> list[bytes]:
    """The transcript lines (but its header) of the op batches, applied in turn."""
    from acp_tui.storage import transcripts

    store = transcripts.journaled_store(
        "fake", session_id, cwd="/work", how="new", protocol_version=2
    )
    for batch in given:
        store.apply_many(batch)
    transcripts.close_transcript(store)
    path = transcripts.transcript_file("fake", session_id)
    return path.read_bytes().splitlines()[1:]


def lane_runs(given: list[list[ops.Op]]) -> list[ops.AppendMessageTexts]:
    """The subagents' runs of text chunks in the op batches."""
    from acp_tui.store.subagents import texts_in_subagent

    return [
        run
        for batch in given
        for op in batch
        if isinstance(op, ops.InterleavedTexts)
        for each in op.runs
        if (run := texts_in_subagent(each)) is not None
    ]


@pytest.mark.parametrize("seed", range(4))
async def test_subagents_runs_of_plain_chunks_end_as_their_chunks(
    seed: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """Subagents' interleaved plain text chunks are a run per subagent in one op
    (`InterleavedTexts`): every store (the subagents', nested too) ends as with
    an op per chunk, with the same revisions; the changes are the same, in the
    same order; so are the problems reported, and the transcript is byte for
    byte the same."""
    from acp_tui.client import v2

    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    lines = lane_updates(seed)
    apart: list[bool] = []
    real = SessionStore._runs_apart

    def spied(self: SessionStore, runs: Any, order: Any) -> bool:
        apart.append(real(self, runs, order))
        return apart[-1]

    with monkeypatch.context() as patched:
        patched.setattr(SessionStore, "_runs_apart", spied)
        store, batches, given, problems = await lanes_streamed(lines)
    assert apart
    assert all(apart)  # each run at once, never chunk by chunk
    runs = lane_runs(given)
    assert sum(len(run.texts) for run in runs) > 1.5 * len(runs) > 60
    with monkeypatch.context() as patched:
        patched.setattr(v2.V2Translator, "text_chunk", lambda self, params: None)
        chunked, chunk_batches, chunk_given, chunk_problems = await lanes_streamed(
            lines
        )
    assert not lane_runs(chunk_given)
    assert store.to_json() == chunked.to_json()
    assert lane_state(store) == lane_state(chunked)
    assert [c for b in batches for c in b] == [c for b in chunk_batches for c in b]
    assert problems == chunk_problems
    assert "parse_error" in [kind for kind, _ in problems]
    assert journaled(given, "runs") == journaled(chunk_given, "chunks")


async def test_interleaved_subagents_make_an_op_per_lane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four subagents' interleaved chunks: a batch is a run per subagent."""
    lines = [raw_chunk(f"{c}w{n} ", c, f"{c}-m") for n in range(50) for c in LANES[:4]]
    store, batches, given, _ = await lanes_streamed(lines)
    assert sum(map(len, given)) <= 4 * len(given)
    for c in LANES[:4]:
        own = store.subagent_store(c)
        assert own is not None
        assert texts(own) == [("agent", "".join(f"{c}w{n} " for n in range(50)))]
    assert sum(len(batch) for batch in batches) == 200


async def test_two_sessions_subagents_interleaved_stay_in_their_sessions() -> None:
    """A batch is one session's: subagents of two sessions streaming in turn
    each get their own chunks."""
    async with open_harness(init_for(2)) as h:
        first = await h.new_session("s1")
        second = await h.new_session("s2")
        params = {"sessionId": "s2", "update": announce("d0")}
        await h.peer.endpoint.send_raw(
            update_line(announce("c0"))
            + line({"jsonrpc": "2.0", "method": "session/update", "params": params})
        )
        await h.peer.sync()
        await h.peer.endpoint.send_raw(
            b"".join(
                raw_chunk(f"{c}w{n} ", c, f"{c}-m")
                for n in range(20)
                for c in ("c0", "d0")
            )
        )
        await h.peer.sync()
    for store, child in ((first, "c0"), (second, "d0")):
        own = store.subagent_store(child)
        assert own is not None
        assert texts(own) == [("agent", "".join(f"{child}w{n} " for n in range(20)))]
    assert first.subagent_store("d0") is None
    assert second.subagent_store("c0") is None
