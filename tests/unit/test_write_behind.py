"""Transcript lines held until the event loop turns (acp_tui/storage/write_behind.py),
and a run of plain chunks encoded as one buffer: fewer writes, the same bytes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.storage import transcripts
from acp_tui.storage.chunk_lines import ChunkLines, plain_chunk_line
from acp_tui.storage.transcripts import (
    close_transcript,
    journaled_store,
    transcript_file,
)
from acp_tui.store import (
    AppendMessageChunk,
    SetState,
    UpsertMessage,
)
from acp_tui.store.journal import JournaledStore, encode_op
from acp_tui.store.ops import Op, PatchToolCall

HARD = [
    "",
    "plain",
    'quote " back \\ slash',
    "\x00\x1f\x7f",
    "\ud800 lone",
    "\U0001f600",
]


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


class Writes:
    """Counts the system calls the spool writes with, and their buffers."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        self.buffers = 0
        write, writev = os.write, os.writev

        def counted_write(fd: int, data: Any) -> int:
            self.calls += 1
            self.buffers += 1
            return write(fd, data)

        def counted_writev(fd: int, buffers: Sequence[Any]) -> int:
            self.calls += 1
            self.buffers += len(buffers)
            return writev(fd, buffers)

        monkeypatch.setattr(os, "write", counted_write)  # (what the spool calls)
        monkeypatch.setattr(os, "writev", counted_writev)


def open_store(session_id: str = "s1", how: Any = "new") -> JournaledStore:
    return journaled_store("fake", session_id, cwd="/work", how=how, protocol_version=2)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def replay_ops() -> list[list[Op]]:
    """The apply calls of a replayed turn: a user message, then chunks (runs of
    several per call, as `UpdateIntake` batches them) between tool calls."""
    calls: list[list[Op]] = [[UpsertMessage("u1", "user", content=[text("go")])]]
    for n in range(20):
        calls.append(
            [
                AppendMessageChunk(f"a{n}", "agent", text(f"{word} {n} é\n"))
                for word in HARD
            ]
        )
        calls.append([PatchToolCall(f"t{n}", title=f"run {n}", status="pending")])
        calls.append([PatchToolCall(f"t{n}", status="completed")])
    calls.append([SetState("idle", "end_turn")])
    return calls


def body(path: Path) -> list[bytes]:
    """The op lines of a transcript (its header, which holds a time, left out)."""
    return path.read_bytes().splitlines()[1:]


def expected_lines(calls: list[list[Op]]) -> list[bytes]:
    return [encode_op(op).encode("ascii") for ops in calls for op in ops]


async def test_the_calls_made_while_the_loop_does_not_turn_are_one_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """60 apply calls, one `os.writev` once the loop turns; the same bytes as
    each op's own encoding."""
    store = open_store()
    calls = replay_ops()
    store.apply_many(calls[0])  # (its summary, written at once, writes it first)
    writes = Writes(monkeypatch)
    for ops in calls[1:]:
        store.apply_many(ops)
    assert writes.calls == 0  # held: nothing written while the loop did not turn
    await asyncio.sleep(0)
    assert writes.calls == 1
    assert body(transcript_file("fake", "s1")) == expected_lines(calls)
    close_transcript(store)


def test_without_a_running_loop_each_call_is_written_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = open_store()
    calls = replay_ops()
    writes = Writes(monkeypatch)
    for ops in calls:
        store.apply_many(ops)
    assert writes.calls == len(calls)
    assert body(transcript_file("fake", "s1")) == expected_lines(calls)


async def test_a_run_of_plain_chunks_reaches_the_kernel_as_one_buffer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A batch of 100 chunks: one buffer, not a line and a newline per chunk."""
    store = open_store()
    store.apply_many([UpsertMessage("a0", "agent", content=[text("start")])])
    await asyncio.sleep(0)
    writes = Writes(monkeypatch)
    chunks: list[Op] = [
        AppendMessageChunk("a0", "agent", text(f"word {n} ")) for n in range(100)
    ]
    store.apply_many(chunks)
    await asyncio.sleep(0)
    assert (writes.calls, writes.buffers) == (1, 1)  # the run, its newline added
    assert body(transcript_file("fake", "s1"))[1:] == expected_lines([chunks])
    close_transcript(store)


async def test_closing_writes_the_held_lines_at_once() -> None:
    store = open_store()
    calls = replay_ops()
    for ops in calls:
        store.apply_many(ops)
    close_transcript(store)  # (the loop has not turned)
    assert body(transcript_file("fake", "s1")) == expected_lines(calls)


async def test_a_reopened_session_writes_after_the_old_stores_held_lines() -> None:
    """One queue for every file: the new segment's header comes after the old
    store's lines, never between them."""
    old = open_store()
    calls = replay_ops()
    for ops in calls:
        old.apply_many(ops)
    new = open_store(how="load")
    new.apply_many([UpsertMessage("u2", "user", content=[text("again")])])
    await asyncio.sleep(0)
    records = [json.loads(line) for line in body(transcript_file("fake", "s1"))]
    opened = [n for n, record in enumerate(records) if "open" in record]
    assert opened == [len(expected_lines(calls))]
    assert records[-1]["message_id"] == "u2"
    close_transcript(old)
    close_transcript(new)


async def test_past_the_bound_held_lines_are_written_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("acp_tui.storage.write_behind.HELD_LINES", 10)
    store = open_store()
    store.apply_many([UpsertMessage("a0", "agent", content=[text("start")])])
    await asyncio.sleep(0)
    writes = Writes(monkeypatch)
    for n in range(12):
        store.apply_many([PatchToolCall(f"t{n}", title="x", status="pending")])
    assert writes.calls == 1  # 10 lines held at most, then written
    close_transcript(store)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(HARD) | st.text(),
            st.sampled_from(["m1", "m2", 'q"', *HARD]),
            st.sampled_from(["agent", "thought", "user"]),
        ),
        max_size=8,
    )
)
def test_chunk_lines_are_plain_chunk_lines(chunks: list[tuple[str, str, Any]]) -> None:
    """Each message's head kept between chunks: the same bytes as each alone."""
    lines = ChunkLines()
    for value, message_id, role in chunks:
        op = AppendMessageChunk(message_id, role, text(value))
        line = lines.line(op, transcripts.LONG_LINE_CHARS)
        assert line is not None
        assert line.encode("ascii") == plain_chunk_line(op)


@pytest.mark.parametrize(
    "block",
    [
        {"text": "x", "type": "text"},
        {"type": "text", "text": 5},
        {"type": "image", "text": "x"},
        {"type": "text", "text": "x", "_meta": {}},
        {"type": "text", "text": "x" * 11},  # the limit
    ],
)
def test_chunk_lines_leave_anything_else(block: dict[str, Any]) -> None:
    assert ChunkLines().line(AppendMessageChunk("m", "agent", block), 11) is None


EXIT_SCRIPT = """
import asyncio, sys
from acp_tui.storage.transcripts import journaled_store
from acp_tui.store import AppendMessageChunk, UpsertMessage

store = journaled_store("fake", "s1", cwd="/work", how="new", protocol_version=2)
store.apply_many([UpsertMessage("a0", "agent", content=[])])
loop = asyncio.new_event_loop()

def apply() -> None:  # held, and the loop stops before it turns again
    for n in range(int(sys.argv[1])):
        chunk = {"type": "text", "text": str(n)}
        store.apply_many([AppendMessageChunk("a0", "agent", chunk)])
    loop.stop()

loop.call_soon(apply)
loop.run_forever()
"""


@pytest.mark.subprocess
def test_lines_held_when_the_process_exits_are_written(tmp_path: Path) -> None:
    """The loop never turned again: the exit writes them (before the file closes)."""
    done = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT, "50"],
        env={**os.environ, "ACP_TUI_HOME": str(tmp_path / "home")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "cannot write" not in done.stderr
    records = [json.loads(line) for line in body(transcript_file("fake", "s1"))]
    assert [r["block"]["text"] for r in records[1:]] == [str(n) for n in range(50)]
