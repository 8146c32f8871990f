"""The dispatcher decodes a long line in steps, and the rest of the loop runs between.

A 200 MB message took one step of seconds to decode (`json.loads`); decoded in
steps with `yield_to_busy_loop` between them, the UI's turns come in the middle
of it. Its long strings reach a handler as `LongText` only where the handler
said it takes them; everywhere else they are strings, as before. Sizes are made
small here (the same code runs for megabytes).
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import anyio
import pytest

from acp_tui.protocol import dispatcher as dispatcher_module
from acp_tui.protocol import framing
from acp_tui.protocol.dispatcher import Dispatcher, RequestContext
from acp_tui.protocol.framing import LongText
from acp_tui.protocol.transport import memory_pair

TIMEOUT = 10
PATH = ("update", "content", "text")


@pytest.fixture(autouse=True)
def _small_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dispatcher_module, "LONG_LINE_BYTES", 1_000)
    monkeypatch.setattr(framing, "LONG_STRING_BYTES", 200)
    monkeypatch.setattr(framing, "DECODE_PIECE_BYTES", 100)


def update(text: str, **more: Any) -> dict[str, Any]:
    params = {"update": {"content": {"type": "text", "text": text}}, **more}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


class OneLine:
    """A stream with one buffered line: `receive` hands it over at once, and
    notes how many turns the other task had taken by then."""

    def __init__(self, line: bytes, turns: list[int]) -> None:
        self.lines = deque([line])
        self.turns = turns
        self.handed_at: int | None = None
        self.done = anyio.Event()

    async def receive(self) -> bytes:
        if not self.lines:
            await self.done.wait()
            raise anyio.EndOfStream
        self.handed_at = self.turns[0]
        return self.lines.popleft()

    async def send(self, line: bytes) -> None:
        pass

    async def aclose(self) -> None:
        self.done.set()


async def test_the_loop_turns_while_a_long_line_is_decoded() -> None:
    """Between the line read and its handler, another task (the UI: a key, a
    frame) gets many turns: one or more per step of about 100 bytes here."""
    turns = [0]
    text = "word " * 2_000  # 10,000 bytes: about 100 steps
    stream = OneLine(json.dumps(update(text)).encode(), turns)
    got: list[tuple[int, Any]] = []

    async def on_notification(method: str, params: Any) -> None:
        got.append((turns[0], params))

    dispatcher = Dispatcher(stream, on_notification=on_notification)
    with anyio.fail_after(TIMEOUT):
        async with anyio.create_task_group() as group:

            async def other_task() -> None:
                while not got:
                    turns[0] += 1
                    await anyio.lowlevel.checkpoint()
                await stream.aclose()

            group.start_soon(other_task)
            await dispatcher.run()
    ((handled_at, params),) = got
    assert stream.handed_at is not None
    assert handled_at - stream.handed_at >= 50
    assert params["update"]["content"]["text"] == text  # joined: no paths named


async def test_long_text_reaches_only_the_paths_the_handler_takes() -> None:
    long_text = "x" * 5_000
    other = "y" * 3_000
    notifications: list[Any] = []
    requests: list[Any] = []

    async def on_notification(method: str, params: Any) -> None:
        notifications.append(params)

    async def on_request(method: str, params: Any, context: RequestContext) -> Any:
        requests.append(params)
        return {}

    ours, theirs = memory_pair()
    async with ours, theirs:
        dispatcher = Dispatcher(
            ours,
            on_request=on_request,
            on_notification=on_notification,
            long_text_paths=[PATH],
        )
        with anyio.fail_after(TIMEOUT):
            async with dispatcher.running():
                message = update(long_text, other=other)
                await theirs.send((json.dumps(message) + "\n").encode())
                request = {**update(long_text), "id": 1, "method": "fs/write"}
                await theirs.send((json.dumps(request) + "\n").encode())
                await theirs.receive()  # the reply: both lines were handled
    (params,) = notifications
    kept = params["update"]["content"]["text"]
    assert isinstance(kept, LongText)
    assert kept.text() == long_text
    assert len(kept.pieces) > 1
    assert params["other"] == other
    assert params["update"]["content"]["type"] == "text"
    (request_params,) = requests
    assert request_params["update"]["content"]["text"] == long_text  # a string


async def test_a_long_blank_line_is_skipped() -> None:
    notifications: list[Any] = []

    async def on_notification(method: str, params: Any) -> None:
        notifications.append(params)

    ours, theirs = memory_pair()
    async with ours, theirs:
        diagnostics: list[Any] = []
        dispatcher = Dispatcher(
            ours, on_notification=on_notification, on_diagnostic=diagnostics.append
        )
        with anyio.fail_after(TIMEOUT):
            async with dispatcher.running():
                await theirs.send(b" " * 2_000 + b"\n")
                await theirs.send((json.dumps(update("short")) + "\n").encode())
                while not notifications:
                    await anyio.lowlevel.checkpoint()
    assert diagnostics == []
