"""Recording a connection's lines to JSONL, reading them back, and replaying them.

The replay agent (`acp_tui.demo.replay.replay`) runs in-process here, on one end
of a `memory_pair`, with the test playing the client on the other end.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from acp_tui.demo.replay import NOT_RECORDED, replay
from acp_tui.protocol.framing import OversizedLine, decode_line, encode_message
from acp_tui.protocol.observed import ObservedStream
from acp_tui.protocol.recording import (
    FORMAT,
    RecordedLine,
    Recorder,
    RecordingError,
    read_recording,
)
from acp_tui.protocol.transport import MemoryEndpoint, MessageStream, memory_pair

TIMEOUT = 5


def ticking_clock() -> Iterator[float]:
    value = 100.0
    while True:
        yield value
        value += 0.5


def fake_clock() -> Any:
    ticks = ticking_clock()
    return lambda: next(ticks)


def read_entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


async def test_both_directions_are_recorded_in_order(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    recorder = Recorder(path, agent="demo --fast", clock=fake_clock())
    client, agent = memory_pair()
    async with client, agent:

        @asynccontextmanager
        async def factory() -> AsyncIterator[MessageStream]:
            yield client

        with anyio.fail_after(TIMEOUT):
            async with recorder.wrap(factory)() as stream:
                assert isinstance(stream, ObservedStream)
                await stream.send(b'{"id":1}\n')
                assert await agent.receive() == b'{"id":1}'
                await agent.send(b"\xff\xfe not utf-8\n")
                assert await stream.receive() == b"\xff\xfe not utf-8"
                await agent.send('{"text":"h\u00e9"}\n'.encode())
                assert await stream.receive() == '{"text":"h\u00e9"}'.encode()
    entries = read_entries(path)
    assert entries[0]["format"] == FORMAT
    assert entries[0]["version"] == 1
    assert entries[0]["agent"] == "demo --fast"
    assert entries[1] == {"t": 0.5, "event": "connect"}
    assert entries[2] == {"t": 1.0, "dir": "out", "line": '{"id":1}'}
    assert entries[3] == {
        "t": 1.5,
        "dir": "in",
        "b64": base64.b64encode(b"\xff\xfe not utf-8").decode(),
    }
    assert entries[4] == {"t": 2.0, "dir": "in", "line": '{"text":"h\u00e9"}'}
    recording = read_recording(path)
    assert recording.header["agent"] == "demo --fast"
    assert recording.connections == [
        [
            RecordedLine(1.0, "out", b'{"id":1}', 8),
            RecordedLine(1.5, "in", b"\xff\xfe not utf-8", 12),
            RecordedLine(2.0, "in", '{"text":"h\u00e9"}'.encode(), 14),
        ]
    ]


async def test_oversized_lines_are_recorded_by_size(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    recorder = Recorder(path)
    client, agent = memory_pair(max_line_bytes=8)
    async with client, agent:
        stream = ObservedStream(client, recorder)
        recorder.begin_connection()
        with anyio.fail_after(TIMEOUT):
            await agent.send(b"0123456789abcdef\n")
            line = await stream.receive()
        recorder.end_connection()
    assert line == OversizedLine(size=16, limit=8)
    assert read_recording(path).connections[0][0].data is None
    assert read_recording(path).connections[0][0].size == 16


def test_each_connection_is_a_section_of_one_file(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text("old content\n")
    recorder = Recorder(path, clock=fake_clock())
    for text in (b"first", b"second"):
        recorder.begin_connection()
        recorder.record("in", text + b"\n")
        recorder.end_connection()
    recorder.record("in", b"after the end is dropped")
    recording = read_recording(path)
    assert [[line.data for line in c] for c in recording.connections] == [
        [b"first"],
        [b"second"],
    ]


def test_write_errors_stop_recording_without_raising(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "missing-dir" / "rec.jsonl")
    recorder.begin_connection()
    recorder.record("out", b"{}\n")
    recorder.end_connection()
    assert recorder.failed
    assert not (tmp_path / "missing-dir").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty file"),
        ('{"format": "other"}\n', "not an acp-tui recording"),
        (f'{{"format": "{FORMAT}", "version": 9}}\n', "version 9"),
        (f'{{"format": "{FORMAT}", "version": 1}}\nnot json\n', ":2: not JSON"),
        (f'{{"format": "{FORMAT}", "version": 1}}\n{{"t": 1, "dir": "x"}}\n', "dir"),
        (f'{{"format": "{FORMAT}", "version": 1}}\n{{"dir": "in"}}\n', "no time"),
        (f'{{"format": "{FORMAT}", "version": 1}}\n{{"t": 1, "dir": "in"}}\n', "no"),
        (
            f'{{"format": "{FORMAT}", "version": 1}}\n'
            '{"t": 1, "dir": "in", "b64": "!!"}\n',
            "bad base64",
        ),
    ],
)
def test_damaged_files_are_rejected_with_a_reason(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text(content)
    with pytest.raises(RecordingError, match=message):
        read_recording(path)


# --- The replay agent, in-process. -------------------------------------------------


def rec(t: float, direction: str, message: Any) -> RecordedLine:
    data = message if isinstance(message, bytes) else encode_message(message)[:-1]
    assert direction in ("in", "out")
    return RecordedLine(t, "in" if direction == "in" else "out", data, len(data))


RECORDED = [
    rec(0.0, "out", {"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
    rec(0.1, "in", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 2}}),
    rec(0.2, "out", {"jsonrpc": "2.0", "id": 1, "method": "session/prompt"}),
    rec(0.3, "in", {"jsonrpc": "2.0", "method": "session/update", "params": 1}),
    rec(0.4, "in", b"\xff garbage"),
    rec(0.5, "in", {"jsonrpc": "2.0", "id": 7, "method": "session/request_permission"}),
    rec(0.6, "out", {"jsonrpc": "2.0", "id": 7, "result": {"outcome": "allow"}}),
    rec(0.7, "in", {"jsonrpc": "2.0", "id": 8, "method": "terminal/create"}),
    rec(0.8, "out", {"jsonrpc": "2.0", "id": 8, "result": {"terminalId": "t"}}),
    rec(0.9, "in", {"jsonrpc": "2.0", "method": "session/update", "params": 2}),
    rec(1.0, "in", {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}),
]


async def receive_json(stream: MemoryEndpoint) -> Any:
    line = await stream.receive()
    assert isinstance(line, bytes)
    return decode_line(line)


async def test_replay_maps_ids_and_waits_for_the_client() -> None:
    client, agent = memory_pair()
    async with client, agent, anyio.create_task_group() as group:
        group.start_soon(lambda: replay(agent, RECORDED, speed=None))
        with anyio.fail_after(TIMEOUT):
            await client.send(
                encode_message({"jsonrpc": "2.0", "id": "a", "method": "initialize"})
            )
            assert await receive_json(client) == {
                "jsonrpc": "2.0",
                "id": "a",
                "result": {"protocolVersion": 2},
            }
            await client.send(
                encode_message({"jsonrpc": "2.0", "id": 42, "method": "session/prompt"})
            )
            assert (await receive_json(client))["params"] == 1
            assert await client.receive() == b"\xff garbage"
            request = await receive_json(client)
            assert request["method"] == "session/request_permission"
            # The agent waits for the answer (whatever it is) before going on.
            await client.send(
                encode_message({"jsonrpc": "2.0", "id": 7, "result": {"x": 0}})
            )
            # terminal/create is a client effect: not sent by default.
            assert (await receive_json(client))["params"] == 2
            assert await receive_json(client) == {
                "jsonrpc": "2.0",
                "id": 42,
                "result": {"stopReason": "end_turn"},
            }
            # Played out: an unknown request gets an error, then the client leaves.
            await client.send(
                encode_message({"jsonrpc": "2.0", "id": 43, "method": "session/list"})
            )
            answer = await receive_json(client)
            assert answer["id"] == 43
            assert answer["error"]["code"] == NOT_RECORDED
            await client.aclose()


async def test_replay_with_client_effects_sends_terminal_requests() -> None:
    client, agent = memory_pair()
    async with client, agent, anyio.create_task_group() as group:
        group.start_soon(
            lambda: replay(agent, RECORDED[:9], speed=None, client_effects=True)
        )
        with anyio.fail_after(TIMEOUT):
            for message_id, method in ((0, "initialize"), (1, "session/prompt")):
                await client.send(
                    encode_message(
                        {"jsonrpc": "2.0", "id": message_id, "method": method}
                    )
                )
            methods = []
            for _ in range(4):
                line = await client.receive()
                assert isinstance(line, bytes)
                message = decode_line(line)
                if isinstance(message, dict):
                    methods.append(message.get("method"))
            assert methods == [None, "session/update", "session/request_permission"]
            await client.send(encode_message({"jsonrpc": "2.0", "id": 7, "result": {}}))
            assert (await receive_json(client))["method"] == "terminal/create"
            await client.aclose()


async def test_replay_ends_when_the_client_leaves_early() -> None:
    client, agent = memory_pair()
    async with client, agent:
        await client.aclose()
        with anyio.fail_after(TIMEOUT):
            await replay(agent, RECORDED, speed=1.0)


async def test_replay_paces_agent_lines_by_the_recorded_gaps_over_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The gap after a client message counts from it; the client's own time never."""
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)
        await anyio.lowlevel.checkpoint()

    monkeypatch.setattr(anyio, "sleep", fake_sleep)
    lines = [
        rec(1.0, "out", {"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
        rec(2.0, "in", {"jsonrpc": "2.0", "method": "a"}),
        rec(2.5, "in", {"jsonrpc": "2.0", "method": "b"}),
        rec(9.0, "out", {"jsonrpc": "2.0", "method": "session/cancel"}),
        rec(10.0, "in", {"jsonrpc": "2.0", "id": 0, "result": {}}),
    ]
    client, agent = memory_pair()
    async with client, agent, anyio.create_task_group() as group:
        group.start_soon(lambda: replay(agent, lines, speed=2.0))
        with anyio.fail_after(TIMEOUT):
            await client.send(
                encode_message({"jsonrpc": "2.0", "id": 5, "method": "initialize"})
            )
            for _ in range(3):
                await client.receive()
            await client.aclose()
    assert delays == [0.5, 0.25, 0.5]
