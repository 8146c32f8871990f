"""A plain text chunk's transcript line is `encode_op`'s, byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.storage import transcripts
from acp_tui.storage.chunk_lines import ChunkLines, plain_chunk_line
from acp_tui.store.journal import encode_op, op_from_record
from acp_tui.store.ops import (
    AppendMessageChunk,
    AppendMessageTexts,
    AppendTerminalOutput,
    InSubagent,
)

HARD = [
    "",
    "plain",
    'quote " back \\ slash',
    "\x00\x1f\x7f\u0085",
    "\u00e9\u4e2d",
    "\ud800 lone",
    "\U0001f600",
    "\u2028\u2029",
    "</script>",
]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(HARD) | st.text(),
    st.sampled_from(HARD) | st.text(),
    st.sampled_from(["agent", "user", "thought"]),
)
def test_the_line_is_encode_ops(text: str, message_id: str, role: Any) -> None:
    op = AppendMessageChunk(message_id, role, {"type": "text", "text": text})
    line = plain_chunk_line(op)
    assert line == encode_op(op).encode("ascii")
    assert line is not None
    assert op_from_record(json.loads(line)) == op


@pytest.mark.parametrize(
    "op",
    [
        AppendMessageChunk("m", "agent", {"text": "x", "type": "text"}),  # order
        AppendMessageChunk("m", "agent", {"type": "text", "text": 5}),
        AppendMessageChunk("m", "agent", {"type": "image", "text": "x"}),
        AppendMessageChunk("m", "agent", {"type": "text", "text": "x", "_meta": {}}),
        AppendTerminalOutput("t", b"x"),
    ],
)
def test_anything_else_is_left_to_encode_op(op: Any) -> None:
    assert plain_chunk_line(op) is None


def test_the_transcript_writes_chunks_without_the_general_encoder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """The streaming case skips `encode_op`; what is written reads back the same."""
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    store = transcripts.journaled_store(
        "agent", "s1", cwd=tmp_path, how="new", protocol_version=2
    )
    store.apply_many([AppendMessageChunk("m0", "agent", {"type": "text", "text": "a"})])
    encoded: list[object] = []

    def counting(op: object) -> str:
        encoded.append(op)
        return encode_op(op)  # type: ignore[arg-type]

    monkeypatch.setattr(transcripts, "encode_op", counting)
    chunks = [
        AppendMessageChunk("m1", "agent", {"type": "text", "text": f"w{n} \u00e9"})
        for n in range(50)
    ]
    for chunk in chunks:
        store.apply_many([chunk])
    transcripts.close_transcript(store)
    assert encoded == []
    loaded = transcripts.read_transcript(transcripts.transcript_file("agent", "s1"))
    assert loaded is not None
    assert loaded.store.message("m1") == store.message("m1")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(HARD) | st.text(), max_size=4),
    st.lists(st.sampled_from(HARD) | st.text(), min_size=1, max_size=3),
    st.sampled_from(HARD) | st.text(),
)
def test_a_subagents_run_has_its_chunks_lines(
    texts: list[str], path: list[str], message_id: str
) -> None:
    """Each chunk's line in its subagent(s), as `encode_op` writes it."""
    run = AppendMessageTexts(message_id, "agent", texts)
    op: Any = run
    wrapped: list[Any] = list(run.chunks())
    for subagent_id in reversed(path):
        op = InSubagent(subagent_id, op)
        wrapped = [InSubagent(subagent_id, chunk) for chunk in wrapped]
    lines = ChunkLines().lines_in_subagent(op, 1 << 30)
    assert lines == [encode_op(chunk) for chunk in wrapped]


def test_a_subagents_run_with_a_long_or_odd_text_has_no_lines() -> None:
    chunk_lines = ChunkLines()
    long = InSubagent("a", AppendMessageTexts("m", "agent", ["x", "y" * 10]))
    assert chunk_lines.lines_in_subagent(long, 10) is None
    odd = InSubagent("a", AppendMessageTexts("m", "agent", ["x", 5]))  # type: ignore[list-item]
    assert chunk_lines.lines_in_subagent(odd, 10) is None
    other = InSubagent(
        "a", AppendMessageChunk("m", "agent", {"type": "text", "text": "x"})
    )
    assert chunk_lines.lines_in_subagent(other, 10) is None
