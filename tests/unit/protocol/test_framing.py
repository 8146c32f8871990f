"""Line framing: splitting, limits, decoding and encoding never raise on bad input."""

from __future__ import annotations

import json
import tracemalloc

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.protocol.framing import (
    LONG_LINE_BYTES,
    DecodeError,
    Line,
    LineReader,
    OversizedLine,
    decode_line,
    encode_message,
    excerpt,
)
from acp_tui.safe_text import printable


class ChunkStream:
    """A ByteReceiveStream stand-in that returns fixed chunks, then EOF."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.reads = 0

    async def receive(self, max_bytes: int = 65536) -> bytes:
        self.reads += 1
        if not self.chunks:
            raise anyio.EndOfStream
        return self.chunks.pop(0)

    async def aclose(self) -> None:
        self.chunks.clear()


async def read_all(reader: LineReader) -> list[Line | OversizedLine]:
    lines: list[Line | OversizedLine] = []
    with anyio.fail_after(5):
        while True:
            try:
                lines.append(await reader.receive())
            except anyio.EndOfStream:
                return lines


async def test_lines_split_across_chunks_are_joined() -> None:
    stream = ChunkStream([b"ab", b"c\nde", b"f\n\ng", b"h"])
    lines = await read_all(LineReader(stream))  # type: ignore[arg-type]
    assert lines == [b"abc", b"def", b"", b"gh"]


async def test_oversized_line_is_reported_and_the_next_line_survives() -> None:
    stream = ChunkStream([b"x" * 30, b"y" * 30 + b"\nok\n", b"z" * 50 + b"\n", b"tail"])
    lines = await read_all(LineReader(stream, max_line_bytes=20))  # type: ignore[arg-type]
    assert lines == [
        OversizedLine(size=60, limit=20),
        b"ok",
        OversizedLine(size=50, limit=20),
        b"tail",
    ]


async def test_oversized_unterminated_line_at_eof() -> None:
    stream = ChunkStream([b"x" * 100])
    lines = await read_all(LineReader(stream, max_line_bytes=10))  # type: ignore[arg-type]
    assert lines == [OversizedLine(size=100, limit=10)]


async def test_long_line_in_many_chunks_is_read_in_linear_passes() -> None:
    chunk = b"a" * 65536
    count = 256  # 16 MiB in 64 KiB pieces
    stream = ChunkStream([chunk] * count + [b"\n"])
    reader = LineReader(stream)  # type: ignore[arg-type]
    line = await reader.receive()
    assert isinstance(line, bytearray)  # long: the buffer itself (see below)
    assert len(line) == len(chunk) * count
    # The search resumes where it stopped: no rescan of earlier bytes.
    assert reader._scanned == 0


async def receive_traced(reader: LineReader) -> tuple[Line | OversizedLine, int]:
    """The next line, and the most memory allocated meanwhile (bytes)."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        line = await reader.receive()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return line, peak - before


async def test_a_long_line_is_taken_out_with_one_copy() -> None:
    """Reading a line holds, beside what was read, one copy of the line at most:
    no second one on the way (for a 200 MB message line, 200 MB more at once),
    and the buffer keeps only the bytes after the line."""
    size = LONG_LINE_BYTES - 2**20
    stream = ChunkStream([b"a" * size + b"\nnext", b" line\n"])
    reader = LineReader(stream)  # type: ignore[arg-type]
    line, peak = await receive_traced(reader)
    assert isinstance(line, bytes)
    assert len(line) == size
    assert peak < 2.5 * size
    assert reader._buffer == b"next"
    assert await reader.receive() == b"next line"


async def test_a_line_of_long_line_bytes_is_the_buffer_itself() -> None:
    """From `LONG_LINE_BYTES` on, the line is not copied at all: the buffer it
    was read into is handed over, cut at the newline, and a new one holds what
    follows (copying a 200 MB line was a step of 150-300 ms)."""
    size = LONG_LINE_BYTES + 5
    stream = ChunkStream([b"a" * 2**20] * (size // 2**20) + [b"a" * 5 + b"\nnext"])
    reader = LineReader(stream)  # type: ignore[arg-type]
    buffer = reader._buffer
    line, peak = await receive_traced(reader)
    assert line is buffer
    assert line == b"a" * size
    assert peak < 1.5 * size
    assert reader._buffer == b"next"
    assert await reader.receive() == b"next"


def test_printable_in_pieces_equals_character_by_character() -> None:
    """A long text is checked in pieces: the result is the same, escapes
    straddling or filling pieces included."""
    text = ("line\t one\n" * 1000 + "\x1b[31m\u200d\u00a0\u202e") * 5
    expected = "".join(printable(ch, keep="\n\t") for ch in text)
    assert printable(text, keep="\n\t") == expected
    assert printable(text) == "".join(printable(ch) for ch in text)


@given(
    st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b), max_size=10),
    st.integers(min_value=1, max_value=17),
)
def test_any_chunking_gives_the_same_lines(lines: list[bytes], size: int) -> None:
    data = b"".join(line + b"\n" for line in lines)
    chunks = [data[i : i + size] for i in range(0, len(data), size)]

    async def run() -> list[Line | OversizedLine]:
        return await read_all(LineReader(ChunkStream(chunks)))  # type: ignore[arg-type]

    assert anyio.run(run) == lines


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        (b"{", "invalid JSON"),
        (b"not json", "invalid JSON"),
        (b'{"a": "\xff"}', "invalid UTF-8"),
        (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    ],
)
def test_decode_errors_are_values(line: bytes, fragment: str) -> None:
    result = decode_line(line)
    assert isinstance(result, DecodeError)
    assert fragment in result.message


def test_decode_accepts_crlf() -> None:
    assert decode_line(b'{"a": 1}\r') == {"a": 1}


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda children: st.lists(children) | st.dictionaries(st.text(), children),
        max_leaves=20,
    )
)
def test_encode_is_one_line_and_decodes_back(value: object) -> None:
    line = encode_message(value)
    assert line.endswith(b"\n")
    assert b"\n" not in line[:-1]
    assert decode_line(line[:-1]) == value


def test_encode_lone_surrogates_falls_back_to_escapes() -> None:
    line = encode_message({"text": "a\ud800b"})
    assert line == b'{"text":"a\\ud800b"}\n'
    assert json.loads(line) == {"text": "a\ud800b"}


def test_excerpt_neutralises_escape_sequences_and_truncates() -> None:
    shown = excerpt(b"\x1b]0;pwned\x07\x1b[31mred\xff" + b"x" * 300, limit=30)
    assert "\x1b" not in shown
    assert "\x07" not in shown
    assert "\\x1b" in shown
    assert shown.endswith("(319 bytes)")


def test_printable_keeps_ordinary_text_and_escapes_controls() -> None:
    assert printable("plain text") == "plain text"
    assert printable("red\x1b[31m\x07") == "red\\x1b[31m\\x07"
    assert printable("a\u202eb") == "a\\u202eb"  # a bidi override is escaped
    assert printable("a\nb\tc", keep="\n\t") == "a\nb\tc"
    assert printable("a\nb") == "a\\nb"


def test_printable_turns_other_spaces_into_spaces_and_drops_joiners() -> None:
    # A model's "10 000" with a no-break space, and a thin space.
    assert printable("10\u00a0000 km\u2009h") == "10 000 km h"
    # The woman-technologist emoji: ZWJ dropped, both emoji kept side by side.
    assert printable("\U0001f469\u200d\U0001f4bb done") == "\U0001f469\U0001f4bb done"
    # Zero-width space and byte-order mark can hide text: still escaped.
    assert printable("a\u200bb\ufeff") == "a\\u200bb\\ufeff"


@given(st.text())
def test_printable_output_is_always_printable(text: str) -> None:
    shown = printable(text)
    assert shown.isprintable()


async def test_the_short_lines_of_a_read_are_split_off_at_once() -> None:
    """A read of 500 short lines (a replayed session's updates) is split in one
    go: after the first line, the buffer holds only the unterminated rest."""
    lines = [b'{"n":%d}' % n for n in range(500)]
    stream = ChunkStream([b"\n".join(lines) + b"\npart", b"ial\n"])
    reader = LineReader(stream)  # type: ignore[arg-type]
    with anyio.fail_after(5):
        assert await reader.receive() == lines[0]
    assert bytes(reader._buffer) == b"part"
    rest = await read_all(reader)
    assert rest == [*lines[1:], b"partial"]
    assert all(type(line) is bytes for line in rest)


@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=8),
    st.integers(min_value=1, max_value=50),
)
async def test_lines_split_at_once_are_the_lines_found_one_by_one(
    lines: list[bytes], cuts: list[int], limit: int
) -> None:
    """Whatever the reads and the limit: each line whole, or an `OversizedLine`."""
    data = b"".join(line + b"\n" for line in lines)
    chunks = []
    position = 0
    for cut in cuts * (len(data) // sum(cuts) + 1):
        if position >= len(data):
            break
        chunks.append(data[position : position + cut])
        position += cut
    read = await read_all(LineReader(ChunkStream(chunks), max_line_bytes=limit))  # type: ignore[arg-type]
    assert read == [
        line if len(line) <= limit else OversizedLine(size=len(line), limit=limit)
        for line in lines
    ]


async def test_lines_split_off_already_are_ready_without_waiting() -> None:
    """`receive_ready` gives the lines a read split off, in order, then None
    (the next read is `receive`'s); mixed with `receive`, no line is lost."""
    stream = ChunkStream([b"a\nb\nc\nd", b"e\nf\n"])
    reader = LineReader(stream)  # type: ignore[arg-type]
    assert reader.receive_ready() is None  # nothing read yet
    assert await reader.receive() == b"a"
    assert stream.reads == 1
    assert reader.receive_ready() == b"b"
    assert reader.receive_ready() == b"c"
    assert reader.receive_ready() is None  # "d" waits for its newline
    assert stream.reads == 1
    assert await read_all(reader) == [b"de", b"f"]
