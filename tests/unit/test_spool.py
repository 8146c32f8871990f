"""The line spool: short lines written at once, long ones off the caller's thread,
every line in order (acp_tui/storage/spool.py)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.storage.spool import LineSpool, LongLine, json_string_pieces

BOUND = 10.0


@given(st.text(), st.integers(min_value=1, max_value=7))
def test_a_text_encoded_in_pieces_is_its_json_string(text: str, size: int) -> None:
    """Any cut, even between the halves of what was a surrogate pair on the
    wire, or beside a lone surrogate: each code point is escaped on its own."""
    joined = b"".join(json_string_pieces(text, piece_chars=size))
    assert joined == json.dumps(text).encode("ascii")
    assert json.loads(joined) == text


@pytest.fixture
def fd(tmp_path: Path) -> Iterator[int]:
    number = os.open(tmp_path / "out.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    yield number
    with contextlib.suppress(OSError):  # the test may have closed it
        os.close(number)


def records(tmp_path: Path) -> list[object]:
    data = (tmp_path / "out.jsonl").read_bytes()
    return [json.loads(line) for line in data.splitlines()]


def long_line(n: int, text: str) -> LongLine:
    return LongLine(b'{"n":%d,"text":' % n, text, b"}")


def errors() -> tuple[LineSpool, list[OSError]]:
    seen: list[OSError] = []
    return LineSpool(seen.append), seen


def hold(spool: LineSpool) -> threading.Event:
    """Make `spool`'s thread wait for the event before it encodes a long line."""
    gate = threading.Event()
    encode = spool._encode

    def held(text: str) -> Iterator[bytes]:
        assert gate.wait(BOUND)
        return encode(text)

    spool._encode = held
    return gate


def test_short_lines_are_on_disk_when_write_returns(tmp_path: Path, fd: int) -> None:
    spool, seen = errors()
    spool.write(fd, [b'{"n":1}', b'{"n":2}'])
    assert not spool.busy
    assert records(tmp_path) == [{"n": 1}, {"n": 2}]
    assert seen == []


def test_a_long_line_is_encoded_off_the_callers_thread(tmp_path: Path, fd: int) -> None:
    spool, seen = errors()
    threads: list[threading.Thread] = []
    encode = spool._encode

    def noting(text: str) -> Iterator[bytes]:
        threads.append(threading.current_thread())
        return encode(text)

    spool._encode = noting
    body = 'é "quoted" \\ \n\x00 \ud800 ' * 50_000
    spool.write(fd, [long_line(1, body)])
    assert spool.wait(BOUND)
    assert threads
    assert threading.current_thread() not in threads
    assert records(tmp_path) == [{"n": 1, "text": body}]
    assert seen == []


def test_lines_after_a_long_one_wait_their_turn(tmp_path: Path, fd: int) -> None:
    """Short lines given while a long one is queued are queued behind it, and
    once the spool is idle short lines go inline again, still in order."""
    spool, seen = errors()
    gate = hold(spool)
    spool.write(fd, [b'{"n":1}', long_line(2, "x" * 300_000), b'{"n":3}'])
    spool.write(fd, [b'{"n":4}'])
    assert spool.busy
    assert records(tmp_path) == []  # the first batch waits for its long line
    gate.set()
    assert spool.wait(BOUND)
    spool.write(fd, [b'{"n":5}'])
    assert [r["n"] for r in records(tmp_path)] == [1, 2, 3, 4, 5]  # type: ignore[index]
    assert seen == []


def test_closing_waits_for_the_queued_lines(tmp_path: Path, fd: int) -> None:
    spool, seen = errors()
    gate = hold(spool)
    spool.write(fd, [long_line(1, "y" * 1_000)])
    spool.close(fd)
    os.fstat(fd)  # still open: its line is queued
    gate.set()
    assert spool.wait(BOUND)
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.fstat(fd)  # closed after the line
    assert records(tmp_path) == [{"n": 1, "text": "y" * 1_000}]
    assert seen == []


def test_an_idle_spool_closes_at_once(fd: int) -> None:
    spool, _ = errors()
    spool.close(fd)
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.fstat(fd)


def test_a_write_error_on_the_thread_is_reported_and_later_lines_tried(
    tmp_path: Path,
) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"")
    read_only = os.open(path, os.O_RDONLY)
    writable = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        spool, seen = errors()
        spool.write(read_only, [long_line(1, "z" * 10)])
        spool.write(writable, [b'{"n":2}'])
        assert spool.wait(BOUND)
        assert len(seen) == 1
        assert isinstance(seen[0], OSError)
        assert records(tmp_path) == [{"n": 2}]
    finally:
        os.close(read_only)
        os.close(writable)


def test_an_inline_write_error_is_raised(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"")
    read_only = os.open(path, os.O_RDONLY)
    try:
        spool, seen = errors()
        with pytest.raises(OSError, match="Bad file descriptor"):
            spool.write(read_only, [b'{"n":1}'])
        assert seen == []
    finally:
        os.close(read_only)
