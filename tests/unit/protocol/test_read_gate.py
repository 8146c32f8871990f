"""The read loop waits while the UI makes a frame of what it read, and no longer.

`ReadGate` is held by the UI when a batch goes to its widgets and opened once it
is painted; a read loop at the end of a flood's slice waits for it. The wait is
bounded by what the reader read since its last wait and by `max_hold`, so a UI
that never opens the gate slows reading but cannot stop it.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import anyio
import anyio.lowlevel
import pytest

from acp_tui.protocol import dispatcher as dispatcher_module
from acp_tui.protocol import read_gate as read_gate_module
from acp_tui.protocol.dispatcher import Dispatcher
from acp_tui.protocol.read_gate import ReadGate
from tests.unit.protocol.test_dispatcher import TIMEOUT, BufferedLines, Recorder

NOW = 1000.0


def clock_at(monkeypatch: pytest.MonkeyPatch, now: list[float]) -> None:
    """The gate's clock reads `now[0]`."""
    monkeypatch.setattr(
        read_gate_module, "time", SimpleNamespace(monotonic=lambda: now[0])
    )


async def turns(count: int) -> None:
    for _ in range(count):
        await anyio.lowlevel.checkpoint()


async def test_an_open_gate_lets_the_reader_on() -> None:
    gate = ReadGate()
    with anyio.fail_after(TIMEOUT):
        await gate.wait()
    assert not gate.held


async def test_a_held_gate_keeps_the_reader_until_it_opens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [NOW]
    clock_at(monkeypatch, now)
    gate = ReadGate(max_hold=TIMEOUT * 2)
    assert not gate.held  # (its state in this loop starts now)
    now[0] += TIMEOUT * 2  # the reader read all that time: it may wait as long
    gate.hold()
    done = anyio.Event()

    async def reader() -> None:
        await gate.wait()
        done.set()

    with anyio.fail_after(TIMEOUT):
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            await turns(20)
            assert not done.is_set()
            gate.release()
            await done.wait()
    assert not gate.held


async def test_the_wait_is_no_longer_than_what_was_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [NOW]
    clock_at(monkeypatch, now)
    gate = ReadGate(max_hold=TIMEOUT * 2)
    assert not gate.held  # (its state in this loop starts now)
    now[0] += 0.001  # a millisecond of reading since the gate was made
    gate.hold()
    with anyio.fail_after(TIMEOUT):
        await gate.wait()  # never opened: back after about a millisecond
    assert gate.held  # still held: the wait ended, the frame did not


async def test_the_wait_is_no_longer_than_max_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [NOW]
    clock_at(monkeypatch, now)
    gate = ReadGate(max_hold=0.001)
    assert not gate.held
    now[0] += TIMEOUT * 2  # read for long: max_hold bounds the wait
    gate.hold()
    with anyio.fail_after(TIMEOUT):
        await gate.wait()
    assert gate.held


def test_each_event_loop_has_its_own_gate() -> None:
    gate = ReadGate()

    async def hold() -> bool:
        gate.hold()
        return gate.held

    async def look() -> bool:
        return gate.held

    assert anyio.run(hold)
    assert not anyio.run(look)  # a new loop: not held by the last one's frame


async def test_a_flood_is_read_no_further_while_the_gate_is_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [NOW]
    clock_at(monkeypatch, now)
    gate = ReadGate(max_hold=TIMEOUT * 2)
    assert not gate.held  # (its state in this loop starts now)
    now[0] += TIMEOUT * 2
    monkeypatch.setattr(dispatcher_module, "READ_GATE", gate)
    line = json.dumps({"jsonrpc": "2.0", "method": "note", "params": {"n": 1}})
    stream = BufferedLines([line.encode()] * 200_000)
    recorder = Recorder()
    dispatcher = Dispatcher(stream, on_notification=recorder.on_notification)
    gate.hold()
    with anyio.fail_after(TIMEOUT):
        async with dispatcher.running():
            while not recorder.notifications:  # the first slice is read
                await anyio.lowlevel.checkpoint()
            await turns(50)  # its end passed: the reader waits at the gate
            held = len(recorder.notifications)
            await turns(50)
            assert len(recorder.notifications) == held < 200_000
            gate.release()
            while len(recorder.notifications) == held:
                await anyio.lowlevel.checkpoint()
            await stream.aclose()
