"""The in-memory traffic log behind the protocol inspector."""

from __future__ import annotations

import gc
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from acp_tui.client.traffic import (
    SLACK,
    TrafficLog,
    filter_entries,
    format_latency,
    format_size,
    matches,
    pretty_json,
)
from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.transport import MessageStream


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


INIT_REQUEST = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}
INIT_RESPONSE = {
    "jsonrpc": "2.0",
    "id": 0,
    "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []},
}
CHUNK = {
    "jsonrpc": "2.0",
    "method": "session/update",
    "params": {
        "sessionId": "s1",
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "hi"},
        },
    },
}


def test_entries_carry_direction_size_method_and_id() -> None:
    log = TrafficLog(clock=lambda: 5.0)
    log.record("out", line(INIT_REQUEST))
    log.record("in", line(CHUNK))
    request, update = log.entries()
    assert (request.direction, request.method, request.id) == ("out", "initialize", 0)
    assert request.kind == "request"
    assert request.size == len(line(INIT_REQUEST)) - 1
    assert request.time == 5.0
    assert (update.direction, update.method, update.id) == (
        "in",
        "session/update",
        None,
    )
    assert update.kind == "notification"
    assert update.data == CHUNK


def test_latency_matches_response_to_request_by_id_and_direction() -> None:
    mono = FakeClock()
    log = TrafficLog(monotonic=mono)
    log.record("out", line(INIT_REQUEST))
    # The agent's own request with the same id is not an answer to ours.
    mono.now += 0.1
    log.record("in", line({**INIT_REQUEST, "method": "fs/read_text_file"}))
    mono.now += 0.15
    log.record("in", line(INIT_RESPONSE))
    request, agent_request, response = log.entries()
    assert response.kind == "response"
    assert response.method == "initialize"
    assert response.latency is not None
    assert abs(response.latency - 0.25) < 1e-9
    assert request.latency == response.latency
    assert response.request_index == request.index
    assert request.response_index == response.index
    assert agent_request.latency is None
    mono.now += 1.0
    log.record("out", line({"jsonrpc": "2.0", "id": 0, "result": {"content": ""}}))
    ours = log.entries()[-1]
    assert ours.method == "fs/read_text_file"
    assert ours.latency is not None
    assert abs(ours.latency - 1.15) < 1e-9


def test_string_and_integer_ids_do_not_match() -> None:
    log = TrafficLog()
    log.record("out", line(INIT_REQUEST))
    log.record("in", line({**INIT_RESPONSE, "id": "0"}))
    assert log.entries()[1].latency is None
    assert log.entries()[1].method is None


def test_ring_buffer_keeps_the_last_entries_and_since_reads_new_ones() -> None:
    log = TrafficLog(max_entries=3)
    for n in range(5):
        log.record("in", line({**CHUNK, "n": n}))
    assert len(log) == 3
    assert log.total == 5
    assert [entry.index for entry in log.entries()] == [2, 3, 4]
    assert [entry.index for entry in log.since(0)] == [2, 3, 4]
    assert [entry.index for entry in log.since(4)] == [4]
    assert log.since(5) == []
    assert log.get(1) is None
    entry = log.get(3)
    assert entry is not None
    assert entry.data["n"] == 3


def test_blank_oversized_and_non_json_lines() -> None:
    log = TrafficLog()
    log.record("in", b"\n")
    log.record("in", OversizedLine(99_999_999, 1024))
    log.record("in", b"not json \x1b[31m\n")
    oversized, text = log.entries()
    assert oversized.size == 99_999_999
    assert oversized.line is None
    assert not oversized.valid
    assert text.data is None
    assert text.raw == "not json \x1b[31m"
    assert not text.valid
    assert "\x1b" not in pretty_json(text)
    assert "\\x1b" in pretty_json(text)


def test_valid_and_invalid_agent_messages() -> None:
    log = TrafficLog()
    log.record("out", line(INIT_REQUEST))
    log.record("in", line(INIT_RESPONSE))
    assert log.version == 1
    log.record("in", line(CHUNK))
    bad = {**CHUNK, "params": {"sessionId": "s1", "update": {"sessionUpdate": 7}}}
    log.record("in", line(bad))
    request, response, chunk, invalid = log.entries()
    assert request.valid
    assert response.valid
    assert chunk.valid
    assert not invalid.valid
    assert invalid.problem is not None
    assert "session/update" in invalid.problem


def test_a_response_nobody_asked_for_is_invalid() -> None:
    log = TrafficLog()
    log.record("in", line({"jsonrpc": "2.0", "id": 42, "result": {}}))
    assert log.entries()[0].problem is not None


def test_filters_by_method_substring_and_direction() -> None:
    log = TrafficLog()
    log.record("out", line(INIT_REQUEST))
    log.record("in", line(INIT_RESPONSE))
    log.record("in", line(CHUNK))
    log.record("in", b"garbage\n")
    entries = log.entries()
    assert [e.method for e in filter_entries(entries, "INIT")] == ["initialize"] * 2
    assert [e.direction for e in filter_entries(entries, "init", "in")] == ["in"]
    assert len(filter_entries(entries, "", "in")) == 3
    assert len(filter_entries(entries, "", "out")) == 1
    assert len(filter_entries(entries)) == 4
    assert not matches(entries[3], "update")
    assert matches(entries[2], " update ")


def test_pretty_json_is_indented_and_escaped() -> None:
    log = TrafficLog()
    text = "evil \x1b]0;title\x07 \u202e rtl\nline"
    log.record("in", line({**CHUNK, "params": {"text": text}}))
    pretty = pretty_json(log.entries()[0])
    assert pretty.startswith("{\n  ")
    assert "\x1b" not in pretty
    assert "\x07" not in pretty
    assert "\u202e" not in pretty
    assert json.loads(pretty)["params"]["text"] == text


def test_formatting() -> None:
    assert format_size(12) == "12 B"
    assert format_size(1536) == "1.5 KB"
    assert format_size(3 * 1024 * 1024) == "3.0 MB"
    assert format_latency(None) == ""
    assert format_latency(0.0123) == "12 ms"
    assert format_latency(1.5) == "1.50 s"


class ListStream:
    def __init__(self, incoming: list[bytes]) -> None:
        self.incoming = incoming
        self.sent: list[bytes] = []

    async def receive(self) -> Line | OversizedLine:
        return self.incoming.pop(0)

    async def send(self, data: bytes) -> None:
        self.sent.append(data)

    async def aclose(self) -> None:
        pass


async def test_wrap_logs_both_directions_and_passes_lines_on() -> None:
    inner = ListStream([line(INIT_RESPONSE)])

    @asynccontextmanager
    async def factory() -> AsyncIterator[MessageStream]:
        yield inner

    log = TrafficLog()
    async with log.wrap(factory)() as stream:
        await stream.send(line(INIT_REQUEST))
        assert await stream.receive() == line(INIT_RESPONSE)
    assert inner.sent == [line(INIT_REQUEST)]
    assert [(e.direction, e.method) for e in log.entries()] == [
        ("out", "initialize"),
        ("in", "initialize"),
    ]
    assert log.entries()[1].latency is not None


def test_byte_budget_drops_the_oldest_but_keeps_the_newest() -> None:
    log = TrafficLog(max_bytes=250)
    for n in range(4):
        log.record("in", line({**CHUNK, "n": n}))  # about 150 bytes each
    assert [entry.data["n"] for entry in log.entries()] == [3]
    log.record("in", b"x" * 1000 + b"\n")
    assert [entry.size for entry in log.entries()] == [1000]


def test_a_new_connection_does_not_match_old_requests() -> None:
    log = TrafficLog()
    log.begin_connection()
    log.record("out", line(INIT_REQUEST))
    log.record("in", line(INIT_RESPONSE))
    assert log.version == 1
    log.begin_connection()
    log.record("out", line({**INIT_REQUEST, "id": 1}))
    log.record("in", line(INIT_RESPONSE))  # id 0: answered on the old connection
    entries = log.entries()
    assert entries[3].latency is None
    assert entries[3].method is None
    assert entries[3].version == 2  # the version starts over with the connection


def test_our_own_messages_are_validated_too() -> None:
    log = TrafficLog()
    log.record("out", line(INIT_REQUEST))
    log.record("in", line(INIT_RESPONSE))
    cancel = {
        "jsonrpc": "2.0",
        "method": "session/cancel",
        "params": {"sessionId": "s1"},
    }
    log.record("out", line(cancel))
    log.record("out", line({**cancel, "params": {}}))  # no sessionId
    log.record("out", line({"jsonrpc": "2.0", "id": 5, "method": "session/nope"}))
    initialize, _, good, bad, unknown = log.entries()
    assert initialize.valid  # checked as the v1 it offers
    assert good.valid
    assert bad.problem is not None
    assert "sessionId missing" in bad.problem
    assert unknown.problem is not None
    assert "not a v1 agent method" in unknown.problem


def test_our_response_is_checked_against_the_agents_request() -> None:
    log = TrafficLog()
    log.record("out", line(INIT_REQUEST))
    log.record("in", line(INIT_RESPONSE))
    read = {
        "jsonrpc": "2.0",
        "id": "r1",
        "method": "fs/read_text_file",
        "params": {"sessionId": "s1", "path": "/tmp/x"},
    }
    log.record("in", line(read))
    log.record("out", line({"jsonrpc": "2.0", "id": "r1", "result": {"content": "x"}}))
    log.record("in", line({**read, "id": "r2"}))
    log.record("out", line({"jsonrpc": "2.0", "id": "r2", "result": {"text": "x"}}))
    log.record("out", line({"jsonrpc": "2.0", "id": "r9", "result": {}}))
    _, _, _, answer, _, wrong, stray = log.entries()
    assert answer.method == "fs/read_text_file"
    assert answer.valid
    assert wrong.problem is not None
    assert "content missing" in wrong.problem
    assert stray.problem is not None
    assert "answers no request the agent sent" in stray.problem


def test_recording_leaves_nothing_for_the_garbage_collector() -> None:
    """A line is kept as untracked values until a reader asks: a flood of lines
    (a replayed session) tenures no objects the collector walks."""
    log = TrafficLog()
    lines = [line({**CHUNK, "n": n}) for n in range(1000)]
    gc.collect()
    before = len(gc.get_objects())
    for each in lines:
        log.received(each)
    gc.collect()  # (a tuple of untracked values is untracked when collected)
    assert len(gc.get_objects()) - before < 50
    assert [entry.data["n"] for entry in log.entries()] == list(range(1000))
    assert len(gc.get_objects()) - before >= 1000  # entries once read


def test_the_byte_budget_counts_lines_not_read_yet() -> None:
    log = TrafficLog(max_bytes=250)
    log.record("in", line({**CHUNK, "n": 0}))
    assert [entry.data["n"] for entry in log.entries()] == [0]  # an entry now
    for n in range(1, 4):
        log.record("in", line({**CHUNK, "n": n}))  # about 150 bytes each
    log.record("in", OversizedLine(10**9, 1024))  # counts no bytes
    assert len(log) == 2
    assert [entry.size for entry in log.entries()] == [
        len(line({**CHUNK, "n": 3})) - 1,
        10**9,
    ]


def test_a_full_log_drops_its_oldest_lines_in_batches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not one drop per line once full (a replay's 100,000 lines), and a reader
    still sees only the newest `max_entries`."""
    log = TrafficLog(max_entries=100)
    drops: list[int] = []
    drop = log._drop_oldest

    def counted() -> None:
        drops.append(log.total)
        drop()

    monkeypatch.setattr(log, "_drop_oldest", counted)
    for n in range(100 + 10 * SLACK):
        log.received(line({**CHUNK, "n": n}))
    assert len(drops) <= 10
    assert len(log) == 100
    assert [entry.data["n"] for entry in log.entries()] == list(
        range(10 * SLACK, 100 + 10 * SLACK)
    )
