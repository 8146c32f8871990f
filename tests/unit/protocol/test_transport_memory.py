"""The in-memory duplex link: framing behaves exactly as over a pipe."""

from __future__ import annotations

import hashlib

import anyio
import anyio.lowlevel
import pytest
from anyio.abc import AsyncResource

from acp_tui.protocol.framing import Line, OversizedLine, encode_message
from acp_tui.protocol.transport import ConnectionClosed, MessageStream, memory_pair

TIMEOUT = 5


async def test_lines_flow_both_ways() -> None:
    a, b = memory_pair()
    async with a, b:
        with anyio.fail_after(TIMEOUT):
            await a.send(encode_message({"jsonrpc": "2.0", "method": "ping"}))
            await b.send(b"pong\n")
            await a.send(b"second\n")
            assert await b.receive() == b'{"jsonrpc":"2.0","method":"ping"}'
            assert await b.receive() == b"second"
            assert await a.receive() == b"pong"


async def test_endpoints_satisfy_message_stream() -> None:
    a, b = memory_pair()
    async with a, b:
        stream: MessageStream = a
        with anyio.fail_after(TIMEOUT):
            await stream.send(b"x\n")
            assert await b.receive() == b"x"


async def test_endpoints_are_anyio_resources_closed_on_leaving() -> None:
    a, b = memory_pair()
    assert isinstance(a, AsyncResource)
    with anyio.fail_after(TIMEOUT):
        async with a as entered:
            assert entered is a
        with pytest.raises(ConnectionClosed):  # leaving closed this end
            await a.send(b"late\n")
        with pytest.raises(anyio.EndOfStream):  # and the other end sees it
            await b.receive()
        await b.aclose()


async def test_partial_line_sent_in_pieces_arrives_whole() -> None:
    a, b = memory_pair()
    async with a, b:
        with anyio.fail_after(TIMEOUT):
            await a.send_raw(b'{"jsonrpc":')
            await a.send_raw(b"")  # empty writes are no-ops
            await a.send_raw(b'"2.0"')
            await a.send_raw(b"}\nnext")
            await a.send_raw(b" line\n")
            assert await b.receive() == b'{"jsonrpc":"2.0"}'
            assert await b.receive() == b"next line"


async def test_partial_line_completes_while_reader_waits() -> None:
    a, b = memory_pair()
    async with a, b:
        received: list[Line | OversizedLine] = []

        async def read_one() -> None:
            received.append(await b.receive())

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(read_one)
                await a.send_raw(b"hel")
                await anyio.lowlevel.checkpoint()
                await a.send_raw(b"lo\n")
        assert received == [b"hello"]


async def test_garbage_and_invalid_utf8_arrive_as_raw_bytes() -> None:
    a, b = memory_pair()
    async with a, b:
        with anyio.fail_after(TIMEOUT):
            await a.send_raw(
                b"not json at all\n\xff\xfe\x80 bad utf-8\n\r\n\x00\x1b[2J\n"
            )
            assert await b.receive() == b"not json at all"
            assert await b.receive() == b"\xff\xfe\x80 bad utf-8"
            assert await b.receive() == b"\r"
            assert await b.receive() == b"\x00\x1b[2J"


async def test_oversized_line_is_reported_and_the_next_line_still_arrives() -> None:
    a, b = memory_pair(max_line_bytes=16)
    async with a, b:
        with anyio.fail_after(TIMEOUT):
            await a.send_raw(b"x" * 100)
            await a.send_raw(b"y" * 100 + b"\n")
            await a.send(b'{"ok":true}\n')
            assert await b.receive() == OversizedLine(size=200, limit=16)
            assert await b.receive() == b'{"ok":true}'


async def test_large_line_is_sliced_and_reassembled_intact() -> None:
    a, b = memory_pair()
    payload = bytes(range(256)).replace(b"\n", b"!") * (8 * 4096)  # 8 MiB
    async with a, b:
        with anyio.fail_after(TIMEOUT):
            await a.send(payload + b"\n")
            line = await b.receive()
    assert isinstance(line, bytes | bytearray)
    assert len(line) == len(payload)
    assert hashlib.sha256(line).digest() == hashlib.sha256(payload).digest()


async def test_close_gives_end_of_stream_after_buffered_lines() -> None:
    a, b = memory_pair()
    async with b:
        with anyio.fail_after(TIMEOUT):
            await a.send(b"one\n")
            await a.send_raw(b"two\nunterminated")
            await a.aclose()
            await a.aclose()  # idempotent
            assert await b.receive() == b"one"
            assert await b.receive() == b"two"
            assert await b.receive() == b"unterminated"
            with pytest.raises(anyio.EndOfStream):
                await b.receive()
            with pytest.raises(anyio.EndOfStream):
                await b.receive()


async def test_close_wakes_a_waiting_reader() -> None:
    a, b = memory_pair()
    async with b:
        outcome: list[str] = []

        async def read() -> None:
            try:
                await b.receive()
            except anyio.EndOfStream:
                outcome.append("eof")

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(read)
                await anyio.lowlevel.checkpoint()
                await a.aclose()
        assert outcome == ["eof"]


async def test_send_to_a_closed_peer_raises_connection_closed() -> None:
    a, b = memory_pair()
    async with a:
        await b.aclose()
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionClosed) as info:
            await a.send(b"hello\n")
        assert "other end" in info.value.reason


async def test_send_after_own_close_raises_connection_closed() -> None:
    a, b = memory_pair()
    async with b:
        await a.aclose()
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionClosed) as info:
            await a.send_raw(b"hello\n")
        assert "this end" in info.value.reason
        with pytest.raises(anyio.EndOfStream):
            await a.receive()


@pytest.mark.parametrize("line", [b"no newline", b"two\nlines\n", b"", b"\n\n"])
async def test_send_rejects_lines_that_would_break_framing(line: bytes) -> None:
    a, b = memory_pair()
    async with a, b:
        with pytest.raises(ValueError, match="must end with one"):
            await a.send(line)


async def test_empty_line_is_allowed_and_delivered() -> None:
    a, b = memory_pair()
    async with a, b:
        with anyio.fail_after(TIMEOUT):
            await a.send(b"\n")
            assert await b.receive() == b""
