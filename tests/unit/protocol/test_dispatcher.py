"""Dispatcher behaviour, over the in-memory link and over a real subprocess.

Every test runs twice (the `link` fixture): once over `memory_pair()`, and once over
a `StdioTransport` to a real child process (`tests/fakes/relay.py`) that relays the
agent side to a Unix socket the test holds, so the far end is still scripted by the
test while the bytes cross real pipes and a real process.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio
import pytest
from anyio.abc import SocketStream
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from acp_tui.protocol.dispatcher import (
    BUSY_TURN,
    BUSY_TURNS,
    CANCELLED_IDS_KEPT,
    Diagnostic,
    Dispatcher,
    RequestContext,
    RequestTimeout,
    yield_to_busy_loop,
)
from acp_tui.protocol.framing import (
    DEFAULT_MAX_LINE_BYTES,
    Line,
    LineReader,
    OversizedLine,
)
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import (
    AgentCommand,
    ConnectionClosed,
    MessageStream,
    StdioTransport,
    memory_pair,
)

TIMEOUT = 10
RELAY = Path(__file__).resolve().parents[2] / "fakes" / "relay.py"


class FarEnd(Protocol):
    async def receive(self) -> Line | OversizedLine: ...
    async def send(self, line: bytes) -> None: ...
    async def send_raw(self, data: bytes) -> None: ...
    async def aclose(self) -> None: ...


class SocketEnd:
    """The test's end of the relay: a Unix socket, framed like any transport."""

    def __init__(self, stream: SocketStream) -> None:
        self.stream = stream
        self.reader = LineReader(stream)

    async def receive(self) -> Line | OversizedLine:
        return await self.reader.receive()

    async def send(self, line: bytes) -> None:
        await self.stream.send(line)

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send(data)

    async def aclose(self) -> None:
        await self.stream.aclose()


@pytest.fixture(
    params=["memory", pytest.param("subprocess", marks=pytest.mark.subprocess)]
)
def link(request: pytest.FixtureRequest) -> str:
    result: str = request.param
    return result


@asynccontextmanager
async def open_link(
    link: str, max_line_bytes: int | None = None
) -> AsyncIterator[tuple[MessageStream, FarEnd]]:
    """Our end (for the dispatcher) and the far end (for the test), both open."""
    kwargs = {} if max_line_bytes is None else {"max_line_bytes": max_line_bytes}
    if link == "memory":
        ours, theirs = memory_pair(**kwargs)
        async with ours, theirs:
            yield ours, theirs
        return
    folder = tempfile.mkdtemp(prefix="acp-relay-")
    path = os.path.join(folder, "s")
    try:
        async with await anyio.create_unix_listener(path) as listener:
            command = AgentCommand(argv=(sys.executable, str(RELAY), path))
            limit = DEFAULT_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
            transport = StdioTransport(command, name="relay", max_line_bytes=limit)
            async with transport:
                far = SocketEnd(await listener.accept())
                try:
                    yield transport, far
                finally:
                    await far.aclose()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Peer:
    """The raw far end: writes and reads JSON lines by hand."""

    endpoint: FarEnd

    async def send(self, message: Any) -> None:
        await self.endpoint.send((json.dumps(message) + "\n").encode())

    async def send_raw(self, data: bytes) -> None:
        await self.endpoint.send_raw(data)

    async def receive(self) -> Any:
        line = await self.endpoint.receive()
        assert isinstance(line, bytes)
        return json.loads(line)


@dataclass
class Recorder:
    notifications: list[tuple[str, Any]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    async def on_notification(self, method: str, params: Any) -> None:
        self.notifications.append((method, params))


@asynccontextmanager
async def connected(
    link: str, on_request: Any = None, max_line_bytes: int | None = None
) -> AsyncIterator[tuple[Dispatcher, Peer, Recorder]]:
    recorder = Recorder()
    with anyio.fail_after(TIMEOUT):
        async with open_link(link, max_line_bytes) as (ours, theirs):
            dispatcher = Dispatcher(
                ours,
                on_request=on_request,
                on_notification=recorder.on_notification,
                on_diagnostic=recorder.diagnostics.append,
            )
            async with dispatcher.running():
                yield dispatcher, Peer(theirs), recorder


async def ping(peer: Peer, request_id: Any = "ping") -> Any:
    """Send a request the dispatcher answers and return the reply.

    Replies are written in order, so once this returns every earlier line has been
    processed: a synchronisation point that needs no sleep.
    """
    await peer.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
    return await peer.receive()


async def echo(method: str, params: Any, context: RequestContext) -> Any:
    return {"method": method, "params": params}


async def test_responses_out_of_order_are_matched_by_id(link: str) -> None:
    async with connected(link) as (dispatcher, peer, _):
        results: dict[str, Any] = {}

        async def call(name: str) -> None:
            results[name] = await dispatcher.request(name, {"n": name})

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "first")
            first = await peer.receive()
            tg.start_soon(call, "second")
            second = await peer.receive()
            await peer.send({"jsonrpc": "2.0", "id": second["id"], "result": "B"})
            await peer.send({"jsonrpc": "2.0", "id": first["id"], "result": "A"})
        assert first["method"] == "first"
        assert first["params"] == {"n": "first"}
        assert results == {"first": "A", "second": "B"}


async def test_error_response_raises_rpc_error(link: str) -> None:
    async with connected(link) as (dispatcher, peer, _):
        async with anyio.create_task_group() as tg:

            async def answer() -> None:
                request = await peer.receive()
                await peer.send(
                    {
                        "jsonrpc": "2.0",
                        "id": request["id"],
                        "error": {"code": -32000, "message": "Auth required"},
                    }
                )

            tg.start_soon(answer)
            with pytest.raises(RpcError) as caught:
                await dispatcher.request("session/new", {})
        assert caught.value.code == -32000
        assert caught.value.message == "Auth required"


async def test_inbound_requests_run_concurrently(link: str) -> None:
    second_started = anyio.Event()

    async def handler(method: str, params: Any, context: RequestContext) -> Any:
        if method == "first":
            await second_started.wait()  # deadlocks if requests were served serially
            return "one"
        second_started.set()
        return "two"

    async with connected(link, handler) as (_, peer, _):
        await peer.send({"jsonrpc": "2.0", "id": 1, "method": "first"})
        await peer.send({"jsonrpc": "2.0", "id": 2, "method": "second"})
        replies = [await peer.receive(), await peer.receive()]
    assert {r["id"]: r["result"] for r in replies} == {1: "one", 2: "two"}
    assert replies[0]["id"] == 2  # the second answered first: not serial


async def test_notifications_are_never_answered_and_keep_their_order(link: str) -> None:
    async with connected(link, echo) as (_, peer, recorder):
        for n in range(5):
            await peer.send(
                {"jsonrpc": "2.0", "method": "session/update", "params": {"n": n}}
            )
        await peer.send({"jsonrpc": "2.0", "method": "_vendor/unknown"})
        reply = await ping(peer)
    assert reply["id"] == "ping"  # the first line back answers the ping
    assert [p for _, p in recorder.notifications[:5]] == [{"n": n} for n in range(5)]
    assert recorder.notifications[5] == ("_vendor/unknown", None)


async def test_unknown_method_gets_method_not_found(link: str) -> None:
    async with connected(link) as (_, peer, _):
        reply = await ping(peer, 7)
    assert reply["id"] == 7
    assert reply["error"]["code"] == -32601


async def test_pydantic_results_are_dumped_in_wire_form(link: str) -> None:
    class Result(BaseModel):
        stop_reason: str

        model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)

    async def handler(method: str, params: Any, context: RequestContext) -> Any:
        return Result(stop_reason="end_turn")

    async with connected(link, handler) as (_, peer, _):
        reply = await ping(peer)
    assert reply["result"] == {"stopReason": "end_turn"}


async def test_handler_errors_become_json_rpc_errors(link: str) -> None:
    class Params(BaseModel):
        path: str

    async def handler(method: str, params: Any, context: RequestContext) -> Any:
        if method == "validate":
            return Params.model_validate(params)
        if method == "rpc":
            raise RpcError(-32002, "Resource not found", "/nope")
        raise RuntimeError("boom")

    async with connected(link, handler) as (_, peer, recorder):
        await peer.send({"jsonrpc": "2.0", "id": 1, "method": "validate", "params": {}})
        invalid = await peer.receive()
        await peer.send({"jsonrpc": "2.0", "id": 2, "method": "rpc"})
        rpc = await peer.receive()
        await peer.send({"jsonrpc": "2.0", "id": 3, "method": "crash"})
        crash = await peer.receive()
    assert invalid["error"]["code"] == -32602
    assert "path" in invalid["error"]["data"]
    assert rpc["error"] == {
        "code": -32002,
        "message": "Resource not found",
        "data": "/nope",
    }
    assert crash["error"]["code"] == -32603
    assert "RuntimeError: boom" in crash["error"]["data"]
    assert [d.kind for d in recorder.diagnostics] == ["handler_error"]


async def test_inbound_cancel_request_cancels_the_handler(link: str) -> None:
    started = anyio.Event()

    async def handler(method: str, params: Any, context: RequestContext) -> Any:
        started.set()
        await anyio.sleep_forever()

    async with connected(link, handler) as (_, peer, _):
        await peer.send({"jsonrpc": "2.0", "id": "slow", "method": "slow"})
        await started.wait()
        await peer.send(
            {
                "jsonrpc": "2.0",
                "method": "$/cancel_request",
                "params": {"requestId": "slow"},
            }
        )
        reply = await peer.receive()
    assert reply["id"] == "slow"
    assert reply["error"]["code"] == -32800


async def test_inbound_cancel_request_lets_an_opted_in_handler_answer(
    link: str,
) -> None:
    async def handler(method: str, params: Any, context: RequestContext) -> Any:
        context.handles_cancellation = True
        await context.cancel_requested.wait()
        return {"outcome": {"outcome": "cancelled"}}

    async with connected(link, handler) as (_, peer, _):
        await peer.send(
            {"jsonrpc": "2.0", "id": 4, "method": "session/request_permission"}
        )
        await peer.send(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 4}}
        )
        reply = await peer.receive()
    assert reply == {
        "jsonrpc": "2.0",
        "id": 4,
        "result": {"outcome": {"outcome": "cancelled"}},
    }


async def test_outbound_timeout_sends_cancel_request(link: str) -> None:
    async with connected(link) as (dispatcher, peer, _):
        with pytest.raises(RequestTimeout):
            await dispatcher.request("session/prompt", {}, timeout=0.05)
        request = await peer.receive()
        cancel = await peer.receive()
    assert cancel == {
        "jsonrpc": "2.0",
        "method": "$/cancel_request",
        "params": {"requestId": request["id"]},
    }


@pytest.mark.parametrize(
    "late",
    [{"result": {}}, {"error": {"code": -32800, "message": "Request cancelled"}}],
    ids=["late-result", "cancelled-error"],
)
async def test_cancelling_the_caller_sends_cancel_request(
    link: str, late: dict[str, Any]
) -> None:
    async with connected(link) as (dispatcher, peer, recorder):
        async with anyio.create_task_group() as tg:
            tg.start_soon(dispatcher.request, "session/list", {})
            request = await peer.receive()
            tg.cancel_scope.cancel()
        cancel = await peer.receive()
        # The agent MUST answer it: that answer is expected, not a bad message.
        await peer.send({"jsonrpc": "2.0", "id": request["id"], **late})
        await ping(peer)
    assert cancel["method"] == "$/cancel_request"
    assert cancel["params"] == {"requestId": request["id"]}
    assert recorder.diagnostics == []


async def cancel_by_timeout(dispatcher: Dispatcher, peer: Peer) -> Any:
    """Time out one request; returns its id once `$/cancel_request` went out."""
    with pytest.raises(RequestTimeout):
        await dispatcher.request("session/list", {}, timeout=0.05)
    request = await peer.receive()
    cancel = await peer.receive()
    assert cancel["params"] == {"requestId": request["id"]}
    return request["id"]


CANCELLED_ERROR = {"code": -32800, "message": "Request cancelled"}


@pytest.mark.parametrize(
    "late",
    [{"error": CANCELLED_ERROR}, {"result": {"sessions": []}}],
    ids=["cancelled-error", "late-result"],
)
async def test_the_reply_to_our_cancel_request_is_expected(
    link: str, late: dict[str, Any]
) -> None:
    """The agent MUST answer a request we cancelled (-32800, or a late result)."""
    async with connected(link) as (dispatcher, peer, recorder):
        request_id = await cancel_by_timeout(dispatcher, peer)
        await peer.send({"jsonrpc": "2.0", "id": request_id, **late})
        await ping(peer)
        assert recorder.diagnostics == []
        # The record is used up: a second answer for the id is a bad message.
        await peer.send({"jsonrpc": "2.0", "id": request_id, **late})
        await ping(peer)
    assert [d.kind for d in recorder.diagnostics] == ["unknown_response"]


async def test_cancelled_ids_are_kept_only_for_a_while(link: str) -> None:
    async with connected(link) as (dispatcher, peer, recorder):
        dispatcher.cancelled_reply_window = 0.0
        request_id = await cancel_by_timeout(dispatcher, peer)
        await peer.send({"jsonrpc": "2.0", "id": request_id, "error": CANCELLED_ERROR})
        await ping(peer)
    assert [d.kind for d in recorder.diagnostics] == ["unknown_response"]


async def test_cancelled_ids_kept_are_bounded() -> None:
    assert CANCELLED_IDS_KEPT >= 100
    async with connected("memory") as (dispatcher, peer, recorder):
        dispatcher.cancelled_ids_kept = 3
        first = await cancel_by_timeout(dispatcher, peer)
        for _ in range(3):
            last = await cancel_by_timeout(dispatcher, peer)
        for request_id in (first, last):
            error = {"jsonrpc": "2.0", "id": request_id, "error": CANCELLED_ERROR}
            await peer.send(error)
        await ping(peer)
    # The oldest record made way for the newer ones; the newest is still expected.
    assert [d.kind for d in recorder.diagnostics] == ["unknown_response"]


async def test_a_request_id_already_in_flight_is_rejected(link: str) -> None:
    release = anyio.Event()
    calls: list[Any] = []

    async def handler(method: str, params: Any, context: RequestContext) -> Any:
        calls.append(params["n"])
        if method == "slow":
            await release.wait()
        return params

    def call(method: str, n: int) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": 7, "method": method, "params": {"n": n}}

    async with connected(link, handler) as (_, peer, recorder):
        await peer.send(call("slow", 1))
        await peer.send(call("slow", 2))
        duplicate = await peer.receive()
        assert duplicate["id"] == 7
        assert duplicate["error"]["code"] == -32600
        assert "7" in duplicate["error"]["data"]
        release.set()
        first = await peer.receive()
        assert first == {"jsonrpc": "2.0", "id": 7, "result": {"n": 1}}
        # Once answered, the id may be used again.
        await peer.send(call("fast", 3))
        again = await peer.receive()
    assert again["result"] == {"n": 3}
    assert calls == [1, 3]  # the duplicate never reached the handler
    assert [d.kind for d in recorder.diagnostics] == ["invalid_message"]


async def test_a_duplicate_id_inside_a_batch_is_rejected(link: str) -> None:
    release = anyio.Event()

    async def handler(method: str, params: Any, context: RequestContext) -> Any:
        if params == {"n": 1}:
            await release.wait()
        return params

    def call(request_id: str, n: int) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": request_id, "method": "m", "params": {"n": n}}

    async with connected(link, handler) as (_, peer, _):
        await peer.send([call("a", 1), call("a", 2), call("b", 3)])
        await ping(peer)  # the batch's answer waits for its slow request
        release.set()
        reply = await peer.receive()
    answers = {
        (r["id"], json.dumps(r.get("result") or r["error"]["code"])) for r in reply
    }
    assert answers == {("a", '{"n": 1}'), ("a", "-32600"), ("b", '{"n": 3}')}


async def test_batch_mixed_array_gets_one_array_reply(link: str) -> None:
    async with connected(link, echo) as (_, peer, recorder):
        await peer.send(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "a", "params": {"x": 1}},
                {"jsonrpc": "2.0", "method": "session/update", "params": {"n": 1}},
                {"foo": "bar"},
                {"jsonrpc": "2.0", "id": 2, "method": "b"},
            ]
        )
        reply = await peer.receive()
    assert isinstance(reply, list)
    by_id = {entry["id"]: entry for entry in reply}
    assert by_id[1]["result"] == {"method": "a", "params": {"x": 1}}
    assert by_id[2]["result"] == {"method": "b", "params": None}
    assert by_id[None]["error"]["code"] == -32600
    assert len(reply) == 3
    assert recorder.notifications == [("session/update", {"n": 1})]


async def test_batch_of_notifications_gets_no_reply(link: str) -> None:
    async with connected(link, echo) as (_, peer, recorder):
        await peer.send(
            [
                {"jsonrpc": "2.0", "method": "session/update", "params": {"n": 1}},
                {"jsonrpc": "2.0", "method": "session/update", "params": {"n": 2}},
            ]
        )
        reply = await ping(peer)
    assert reply["id"] == "ping"  # nothing (not even []) came before it
    assert [p for _, p in recorder.notifications] == [{"n": 1}, {"n": 2}]


async def test_empty_batch_gets_one_invalid_request(link: str) -> None:
    async with connected(link) as (_, peer, _):
        await peer.send([])
        reply = await peer.receive()
    assert reply["id"] is None
    assert reply["error"]["code"] == -32600
    assert not isinstance(reply, list)


async def test_batch_of_invalid_entries_answers_each(link: str) -> None:
    async with connected(link) as (_, peer, _):
        await peer.send([1, "x"])
        reply = await peer.receive()
    assert [(r["id"], r["error"]["code"]) for r in reply] == [(None, -32600)] * 2


async def test_responses_inside_a_batch_are_matched_by_id(link: str) -> None:
    async with connected(link) as (dispatcher, peer, _):
        results: list[Any] = []

        async def call(name: str) -> None:
            results.append((name, await dispatcher.request(name)))

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "one")
            first = await peer.receive()
            tg.start_soon(call, "two")
            second = await peer.receive()
            await peer.send(
                [
                    {"jsonrpc": "2.0", "id": second["id"], "result": 2},
                    {"jsonrpc": "2.0", "id": first["id"], "result": 1},
                ]
            )
        assert sorted(results) == [("one", 1), ("two", 2)]


@pytest.mark.parametrize(
    ("raw", "code", "kind"),
    [
        (b"this is not json\n", -32700, "parse_error"),
        (
            b'{"jsonrpc": "2.0", "method": "x", "params": "\xff\xfe"}\n',
            -32700,
            "parse_error",
        ),
        (b'{"method": "no jsonrpc field", "id": 1}\n', -32600, "invalid_message"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": 5}\n', -32600, "invalid_message"),
        (b"42\n", -32600, "invalid_message"),
    ],
)
async def test_garbage_lines_are_reported_and_reading_continues(
    link: str, raw: bytes, code: int, kind: str
) -> None:
    async with connected(link, echo) as (_, peer, recorder):
        await peer.send_raw(raw)
        error = await peer.receive()
        reply = await ping(peer)
    assert error["id"] is None
    assert error["error"]["code"] == code
    assert reply["result"]["method"] == "ping"
    assert [d.kind for d in recorder.diagnostics] == [kind]
    assert "\x1b" not in str(recorder.diagnostics[0])


async def test_blank_lines_and_split_writes_are_tolerated(link: str) -> None:
    async with connected(link, echo) as (_, peer, recorder):
        await peer.send_raw(b"\n\r\n")
        await peer.send_raw(b'{"jsonrpc": "2.0", "method": "x", ')
        await peer.send_raw(b'"params": {"split": true}}\n')
        await ping(peer)
    assert recorder.notifications == [("x", {"split": True})]
    assert recorder.diagnostics == []


async def test_a_64_mib_line_arrives_intact(link: str) -> None:
    data = "A" * (64 * 1024 * 1024)
    async with connected(link, echo) as (_, peer, recorder):
        await peer.send(
            {"jsonrpc": "2.0", "method": "session/update", "params": {"data": data}}
        )
        await ping(peer)
    [(_, params)] = recorder.notifications
    assert len(params["data"]) == len(data)
    assert params["data"] == data


async def test_oversized_line_is_discarded_and_reading_continues(link: str) -> None:
    async with connected(link, echo, max_line_bytes=1024) as (_, peer, recorder):
        await peer.send(
            {"jsonrpc": "2.0", "method": "big", "params": {"d": "x" * 5000}}
        )
        error = await peer.receive()
        reply = await ping(peer)
    assert error["error"]["code"] == -32700
    assert reply["result"]["method"] == "ping"
    assert [d.kind for d in recorder.diagnostics] == ["oversized_line"]
    assert recorder.notifications == []


async def test_unknown_response_id_is_reported_not_fatal(link: str) -> None:
    async with connected(link, echo) as (_, peer, recorder):
        await peer.send({"jsonrpc": "2.0", "id": 999, "result": {}})
        await ping(peer)
    assert [d.kind for d in recorder.diagnostics] == ["unknown_response"]


async def test_peer_closing_fails_pending_requests(link: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with open_link(link) as (ours, theirs):
            dispatcher = Dispatcher(ours)
            async with dispatcher.running():
                async with anyio.create_task_group() as tg:

                    async def close_after_request() -> None:
                        await theirs.receive()
                        await theirs.aclose()

                    tg.start_soon(close_after_request)
                    with pytest.raises(ConnectionClosed):
                        await dispatcher.request("initialize", {})
                with pytest.raises(ConnectionClosed):
                    await dispatcher.request("session/new", {})
    assert dispatcher.closed


class BufferedLines:
    """A stream whose lines are all buffered: `receive` never waits or yields,
    as when a flooding agent filled the pipe (a memory stream checkpoints on
    every line)."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = deque(lines)
        self.done = anyio.Event()

    async def receive(self) -> bytes:
        if not self.lines:
            await self.done.wait()
            raise anyio.EndOfStream
        return self.lines.popleft()

    async def send(self, line: bytes) -> None:
        pass

    async def aclose(self) -> None:
        self.done.set()


async def lines_read_per_turn(turns: int, busy: float = 0.0) -> list[int]:
    """A flood (every line buffered) read while this task takes `turns` turns of
    the event loop, each working for `busy` seconds first: how many lines had
    been read at each."""
    line = json.dumps({"jsonrpc": "2.0", "method": "note", "params": {"n": 1}})
    stream = BufferedLines([line.encode()] * 200_000)
    recorder = Recorder()
    dispatcher = Dispatcher(stream, on_notification=recorder.on_notification)
    seen: list[int] = []
    with anyio.fail_after(TIMEOUT):
        async with dispatcher.running():
            await anyio.lowlevel.checkpoint()  # the reading has started
            for _ in range(turns):
                until = time.monotonic() + busy
                while time.monotonic() < until:
                    pass
                seen.append(len(recorder.notifications))
                await anyio.lowlevel.checkpoint()
            await stream.aclose()
    return seen


async def test_a_flood_gives_a_busy_loop_several_turns_per_slice() -> None:
    """Between two slices of reading, a busy event loop (a UI working through a
    chain of steps, one turn each) gets up to `BUSY_TURNS` turns, not one; and
    the flood is still read while the loop stays busy."""
    # Each step of a busy loop: a turn that takes longer than BUSY_TURN.
    seen = await lines_read_per_turn(4 * BUSY_TURNS, busy=3 * BUSY_TURN)
    # Read between steps only every BUSY_TURNS steps (one turn each: every step).
    reads = sum(1 for a, b in itertools.pairwise(seen) if b != a)
    assert 1 <= reads <= len(seen) // BUSY_TURNS + 1
    assert seen[-1] > seen[0]


async def test_an_idle_loop_gets_one_turn_a_busy_one_several(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The read loop's yield costs an idle event loop one turn; it goes on only
    while the turns are busy, and stops after `BUSY_TURNS`."""
    real = anyio.lowlevel.checkpoint
    turns = 0

    async def counted() -> None:
        nonlocal turns
        turns += 1
        await real()

    monkeypatch.setattr(anyio.lowlevel, "checkpoint", counted)
    with anyio.fail_after(TIMEOUT):
        await yield_to_busy_loop()
        assert turns < BUSY_TURNS  # one, unless the machine stalled this loop
        turns = 0
        done = anyio.Event()

        async def busy() -> None:
            while not done.is_set():
                until = time.monotonic() + 3 * BUSY_TURN
                while time.monotonic() < until:
                    pass
                await real()

        async with anyio.create_task_group() as tg:
            tg.start_soon(busy)
            await real()  # the busy task is running
            await yield_to_busy_loop()
            done.set()
        assert turns == BUSY_TURNS
