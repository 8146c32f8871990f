"""A run of text chunks (`AppendMessageTexts`) is exactly its chunks, one by one.

The client's intake gathers a streamed run of plain text chunks into one op; the
store must end as the `AppendMessageChunk`s of the run would have left it, with
the same changes (one per text), the same revisions and snapshots, whatever
came before (other messages, whole-message updates, cut text) and whatever the
cap (a run that overflows the head is split where the chunks would have been).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import (
    AppendMessageChunk,
    MessageRole,
    SessionStore,
    UpsertMessage,
)
from acp_tui.store.changes import Change
from acp_tui.store.ops import AppendMessageTexts, CutMessageText, Op

MESSAGE_IDS = st.sampled_from(["m1", "m2"])
ROLES: st.SearchStrategy[MessageRole] = st.sampled_from(["user", "agent", "thought"])
TEXTS = st.text(alphabet="ab\u00e9\n\u2603", max_size=40)

OPS: st.SearchStrategy[Op] = st.one_of(
    st.builds(AppendMessageTexts, MESSAGE_IDS, ROLES, st.lists(TEXTS, max_size=8)),
    st.builds(
        AppendMessageChunk,
        MESSAGE_IDS,
        ROLES,
        st.one_of(
            TEXTS.map(lambda t: {"type": "text", "text": t}),
            st.just({"type": "image", "data": "AAAA"}),
        ),
    ),
    st.builds(
        UpsertMessage,
        MESSAGE_IDS,
        ROLES,
        content=st.lists(TEXTS.map(lambda t: {"type": "text", "text": t}), max_size=2),
    ),
    st.builds(CutMessageText, MESSAGE_IDS, ROLES, st.integers(0, 50), TEXTS),
)


def one_at_a_time(ops: list[Op]) -> list[Op]:
    """The ops with every run as its chunks."""
    out: list[Op] = []
    for op in ops:
        out.extend(op.chunks() if isinstance(op, AppendMessageTexts) else [op])
    return out


def state(store: SessionStore) -> Any:
    """What a reader of the store sees (snapshots with their revisions).

    A last message is added to read the store's revision counter from it.
    """
    store.apply(UpsertMessage("probe", "agent", content=[]))
    messages = [
        (m.key, m.role, list(m.content), m.text, m.revision, m.cut_chars, m.tail)
        for m in store.messages()
    ]
    return store.to_json(), messages, list(store.timeline())


def applied(ops: list[Op], cap: int, batched: bool) -> tuple[Any, list[Change]]:
    store = SessionStore("s", max_message_chars=cap)
    changes: list[Change] = []
    for op in ops:  # one batch per op, as the intake applies its pending ones
        changes += store.apply_many(one_at_a_time([op]) if not batched else [op])
    return state(store), changes


@settings(max_examples=300, deadline=None)
@given(
    st.lists(OPS, max_size=12),
    st.one_of(st.sampled_from([0, 7, 400, 16 * 1024 * 1024]), st.integers(1200, 1300)),
)
def test_a_run_applies_as_its_chunks(ops: list[Op], cap: int) -> None:
    assert applied(ops, cap, batched=True) == applied(ops, cap, batched=False)


def test_a_run_that_fills_the_head_is_cut_where_its_chunks_would_be() -> None:
    texts = ["x" * 100] * 80  # blocks of 404 each: the head of 4,000 overflows
    batched, _ = applied([AppendMessageTexts("m", "agent", texts)], 8000, True)
    chunks, _ = applied([AppendMessageTexts("m", "agent", texts)], 8000, False)
    assert batched == chunks
    message = batched[1][0]
    assert 0 < len(message[2]) < 80  # some blocks in the head, the rest past it
    assert message[5] > 0  # characters cut


@pytest.mark.parametrize("cap", range(1210, 1240, 3))
def test_a_run_just_fitting_the_head_or_not(cap: int) -> None:
    """Two blocks of 300 + 4 + 4 each: a head of 616 holds them, 615 does not."""
    ops: list[Op] = [AppendMessageTexts("m", "agent", ["abcd", "efgh"])]
    assert applied(ops, cap, batched=True) == applied(ops, cap, batched=False)


def test_an_empty_run_changes_nothing() -> None:
    store = SessionStore("s")
    assert store.apply(AppendMessageTexts("m", "agent", [])) == ()
    assert store.messages() == ()
    assert state(store)[1][0][4] == 1  # the probe's: no revision taken


def test_the_changes_name_each_chunk_block() -> None:
    store = SessionStore("s")
    changes = store.apply_many([AppendMessageTexts("m", "agent", ["a", "b"])])
    assert changes == (
        Change("message", "m", "added", {"type": "text", "text": "a"}),
        Change("message", "m", "appended", {"type": "text", "text": "b"}),
    )
    message = store.message("m")
    assert message is not None
    assert message.text == "ab"
    assert list(message.content) == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b"},
    ]
