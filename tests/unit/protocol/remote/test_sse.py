"""`SseDecoder`: SSE events as bytes, with a size limit, split anywhere."""

from __future__ import annotations

import pytest

from acp_tui.protocol.framing import OversizedLine
from acp_tui.protocol.remote.sse import SseDecoder

STREAM = (
    b": keepalive\n\n"
    b'data: {"a":1}\n\n'
    b"event: message\r\nid: 7\r\ndata: x\r\ndata:y\r\n\r\n"
    b"data\n\n"
    b"database: no\n\n"
    b'data: {"b":"\xff"}\n\n'
)
EXPECTED = [b'{"a":1}', b"x\ny", b'{"b":"\xff"}']


def test_events_comments_fields_and_line_ends() -> None:
    assert SseDecoder(1000).feed(STREAM) == EXPECTED


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_the_same_events_whatever_the_chunking(size: int) -> None:
    decoder = SseDecoder(1000)
    events = []
    for start in range(0, len(STREAM), size):
        events += decoder.feed(STREAM[start : start + size])
    assert events == EXPECTED


def test_an_oversized_event_is_counted_and_the_stream_goes_on() -> None:
    decoder = SseDecoder(100)
    events = decoder.feed(b"data: " + b"q" * 50)
    events += decoder.feed(b"q" * 500 + b"\n")
    events += decoder.feed(b"data: more\n\ndata: ok\n\n")
    assert events == [OversizedLine(size=550 + 1 + 4, limit=100), b"ok"]


def test_an_event_over_the_limit_by_its_lines() -> None:
    decoder = SseDecoder(10)
    assert decoder.feed(b"data: 123456\ndata: 123456\n\ndata: 1\n\n") == [
        OversizedLine(size=13, limit=10),
        b"1",
    ]
