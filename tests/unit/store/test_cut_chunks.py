"""A chunk longer than a message keeps is handled as its ends and a count.

`kept_ends` says which of a huge chunk's characters a store may keep whatever
came before (its head budget first, its tail cap last), and `cut_chunk` turns
the chunk into an `AppendMessageChunk` of the first ones and a `CutMessageText`
with the count left out and the last ones. Applied, they leave the store exactly
as the whole chunk would have: the client hands a 200 MB chunk over this way
without building its text, and the journal writes only this much of it.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import AppendMessageChunk, CutMessageText, Op, SessionStore
from acp_tui.store.journal import op_from_record, op_to_record
from acp_tui.store.model import block_text
from acp_tui.store.store import BLOCK_COST, cut_chunk, kept_ends
from tests.unit.store.helpers import Recorder, image, text


def cut(op: Op, cap: int) -> tuple[Op, ...]:
    """`op` as the client and the journal hand it over to a store of `cap`."""
    if not isinstance(op, AppendMessageChunk):
        return (op,)
    whole = block_text(op.block)
    ends = None if whole is None else kept_ends(cap, len(whole))
    if whole is None or ends is None:
        return (op,)
    first, last = ends
    return cut_chunk(
        op, whole[:first], len(whole) - first - last, whole[len(whole) - last :]
    )


def letters(size: int, seed: int) -> str:
    return "".join(chr(ord("a") + (seed + n) % 26) for n in range(size))


@st.composite
def streams(draw: st.DrawFn) -> tuple[int, list[Op]]:
    """A cap and the chunks of one or two messages, some over the cap."""
    cap = draw(st.integers(2 * BLOCK_COST + 10, 4_000))
    ops: list[Op] = []
    for index in range(draw(st.integers(1, 12))):
        message_id = draw(st.sampled_from(["m", "m", "n"]))
        kind = draw(st.sampled_from(["small", "small", "huge", "image"]))
        if kind == "image":
            block = image()
        else:
            size = draw(
                st.integers(0, 200) if kind == "small" else st.integers(cap, 3 * cap)
            )
            block = text(letters(size, index))
            if draw(st.booleans()):
                block = {**block, "annotations": {"audience": ["user"]}}
        ops.append(AppendMessageChunk(message_id, "agent", block))
    return cap, ops


@settings(max_examples=300, deadline=None)
@given(streams())
def test_the_cut_ops_leave_the_store_as_the_whole_chunk_would(
    stream: tuple[int, list[Op]],
) -> None:
    cap, ops = stream
    whole = SessionStore("s", max_message_chars=cap)
    cut_store = SessionStore("s", max_message_chars=cap)
    for op in ops:
        whole.apply(op)
        cut_store.apply_many(cut(op, cap))
    assert cut_store.to_json() == whole.to_json()
    for expected, got in zip(whole.messages(), cut_store.messages(), strict=True):
        assert got == expected
        assert (got.text, got.text_size, got.tail) == (
            expected.text,
            expected.text_size,
            expected.tail,
        )
        assert (got.cut_chars, got.cut_blocks) == (
            expected.cut_chars,
            expected.cut_blocks,
        )


def test_a_chunk_within_the_cap_is_not_cut() -> None:
    assert kept_ends(1_000, 1_000) is None
    assert kept_ends(1_000, 1_001) == (500, 500)
    assert kept_ends(1_001, 5_000) == (501, 500)


def test_the_cut_text_of_a_new_message_is_counted_and_closes_its_head() -> None:
    store = SessionStore("s", max_message_chars=10_000)
    recorder = Recorder()
    store.subscribe(recorder)
    store.apply(CutMessageText("m", "agent", 7, "end"))
    store.apply(AppendMessageChunk("m", "agent", text(" more")))
    shown = store.message("m")
    assert shown is not None
    assert shown.capped
    assert list(shown.content) == []
    assert shown.tail == "end more"
    assert (shown.cut_chars, shown.text_size) == (7, 15)
    assert shown.text_after(7) == "end more"
    assert shown.text_after(6) is None
    assert [(c.action, c.payload) for c in recorder.changes] == [
        ("added", None),
        ("appended", text(" more")),
    ]


def test_a_journaled_cut_rebuilds_the_same_store() -> None:
    cap = 2_000
    body = letters(50_000, 3)
    ops = [
        AppendMessageChunk("m", "agent", text("hello ")),
        *cut(AppendMessageChunk("m", "agent", text(body)), cap),
    ]
    assert isinstance(ops[-1], CutMessageText)
    live = SessionStore("s", max_message_chars=cap)
    live.apply_many(ops)
    lines = [json.dumps(op_to_record(op)) for op in ops]
    assert sum(map(len, lines)) < 2 * cap  # the ends, not the 50,000 characters
    replayed = SessionStore("s", max_message_chars=cap)
    for line in lines:
        replayed.apply(op_from_record(json.loads(line)))
    assert replayed.to_json() == live.to_json()
    whole = SessionStore("s", max_message_chars=cap)
    whole.apply_many(
        [
            AppendMessageChunk("m", "agent", text("hello ")),
            AppendMessageChunk("m", "agent", text(body)),
        ]
    )
    assert replayed.to_json() == whole.to_json()


def test_the_head_of_one_huge_block_is_not_copied_to_be_read() -> None:
    """A message whose head is one cut block reads its head text as that block's
    text itself: a view showing the first characters of an 8 Mi-character head
    copied all of it on every read."""
    store = SessionStore("s", max_message_chars=2_000)
    store.apply_many(
        cut(AppendMessageChunk("m", "agent", text(letters(9_000, 1))), 2_000)
    )
    shown = store.message("m")
    assert shown is not None
    (block,) = shown.content
    assert shown.head_text is block["text"]
