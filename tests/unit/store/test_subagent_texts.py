"""Subagents' runs of text chunks are exactly their chunks, one by one.

The client's intake gathers subagents' (lanes') interleaved plain text chunks
into one `InterleavedTexts`: a run per subagent (`InSubagent` of
`AppendMessageTexts`, nested as deep as the subagent) and the order the chunks
came in. The store must end as those chunks, one by one in that order, would
have left it: the same subagents and their stores (content, revisions,
timelines), the same changes in the same order told by the parent (a
`subagent` change per chunk, with that chunk's change inside) and by the
subagents' own stores to their listeners; whatever the runs (the session's
own, a new subagent's, two of one store) and the order (one that names a run
more or fewer times than it has texts).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.store import (
    AppendMessageChunk,
    MessageRole,
    SessionStore,
    UpsertMessage,
)
from acp_tui.store.changes import Change
from acp_tui.store.ops import (
    AppendMessageTexts,
    CutMessageText,
    InSubagent,
    InterleavedTexts,
    Op,
    PatchSubagent,
    PatchToolCall,
)
from acp_tui.store.subagents import texts_in_subagent

PATHS = st.sampled_from([("a",), ("b",), ("a", "c"), ("new",), ("a", "new")])
MESSAGE_IDS = st.sampled_from(["m1", "m2"])
ROLES: st.SearchStrategy[MessageRole] = st.sampled_from(["user", "agent", "thought"])
TEXTS = st.text(alphabet="ab\u00e9\n\u2603", max_size=40)

INNER: st.SearchStrategy[Op] = st.one_of(
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
    st.builds(PatchToolCall, st.sampled_from(["t1", "t2"]), title=TEXTS),
)


def wrapped(path: tuple[str, ...], op: Op) -> Op:
    for subagent_id in reversed(path):
        op = InSubagent(subagent_id, op)
    return op


RUNS = st.builds(
    wrapped,
    st.one_of(PATHS, st.just(())),
    st.builds(AppendMessageTexts, MESSAGE_IDS, ROLES, st.lists(TEXTS, max_size=4)),
)


@st.composite
def interleaved(draw: st.DrawFn) -> InterleavedTexts:
    """Runs and the order of their chunks: shuffled, or else any indices."""
    runs = draw(st.lists(RUNS, max_size=4))
    order = [i for i, run in enumerate(runs) for _ in texts_of(run)]
    order = draw(st.permutations(order))
    if draw(st.integers(0, 4)) == 0:
        order = draw(st.lists(st.integers(-1, len(runs)), max_size=12))
    return InterleavedTexts(runs, order)


def texts_of(run: Op) -> Any:
    texts = texts_in_subagent(run)
    assert texts is not None
    return texts.texts


OPS: st.SearchStrategy[Op] = st.one_of(
    st.builds(wrapped, PATHS, INNER),
    st.builds(wrapped, PATHS, INNER),
    interleaved(),
    interleaved(),
    st.builds(AppendMessageTexts, MESSAGE_IDS, ROLES, st.lists(TEXTS, max_size=3)),
    st.builds(PatchSubagent, st.sampled_from(["a", "b"]), title=TEXTS),
)
"""Subagents' ops (a new subagent's too), the root's own, announcements."""


def one_at_a_time(op: Op) -> list[Op]:
    """The op with its runs, if any, as their chunks (each in its subagent)."""
    if isinstance(op, InterleavedTexts):
        return op.chunks()
    if isinstance(op, AppendMessageTexts):
        return list(op.chunks())
    run = texts_in_subagent(op)
    if run is None:
        return [op]
    path: list[str] = []
    while isinstance(op, InSubagent):
        path.append(op.subagent_id)
        op = op.inner
    return [wrapped(tuple(path), chunk) for chunk in run.chunks()]


def state(store: SessionStore) -> Any:
    """What a reader sees: the document, and every store's snapshots."""
    store.apply(UpsertMessage("probe", "agent", content=[]))  # the revision counter
    messages = [
        (m.key, m.role, list(m.content), m.text, m.revision, m.cut_chars, m.tail)
        for m in store.messages()
    ]
    inner = {}
    for subagent in store.subagents():
        own = store.subagent_store(subagent.subagent_id)
        assert own is not None
        inner[subagent.subagent_id] = (subagent, state(own))
    return store.to_json(), messages, list(store.timeline()), inner


def applied(
    batches: list[list[Op]], cap: int, batched: bool
) -> tuple[Any, list[Change], list[list[Change]]]:
    """The state, the changes the parent told, and those `a` and `c` told."""
    store = SessionStore("s", max_message_chars=cap)
    store.apply(PatchSubagent("a"))
    store.apply(InSubagent("a", PatchSubagent("c")))
    told: list[list[Change]] = [[], []]  # each store's listener's (`a`, `c`)
    for path, seen in zip((["a"], ["a", "c"]), told, strict=True):
        own: SessionStore | None = store
        for subagent_id in path:
            own = own.subagent_store(subagent_id) if own is not None else None
        assert own is not None
        own.subscribe(seen.extend)
    changes: list[Change] = []
    for batch in batches:
        ops = batch if batched else [c for op in batch for c in one_at_a_time(op)]
        changes += store.apply_many(ops)
    return state(store), changes, told


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(OPS, max_size=6), max_size=6),
    st.sampled_from([0, 7, 400, 1250, 16 * 1024 * 1024]),
)
def test_a_subagents_run_applies_as_its_chunks(
    batches: list[list[Op]], cap: int
) -> None:
    assert applied(batches, cap, batched=True) == applied(batches, cap, batched=False)


def test_a_run_tells_a_change_per_chunk() -> None:
    store = SessionStore("s")
    run = AppendMessageTexts("m", "agent", ["x", "y"])
    changes = store.apply_many([InSubagent("a", InSubagent("c", run))])
    x = Change("message", "m", "added", {"type": "text", "text": "x"})
    y = Change("message", "m", "appended", {"type": "text", "text": "y"})
    assert changes == (
        Change(
            "subagent",
            "a",
            "added",
            inner=(Change("subagent", "c", "added", inner=(x,)),),
        ),
        Change(
            "subagent",
            "a",
            "appended",
            inner=(Change("subagent", "c", "appended", inner=(y,)),),
        ),
    )


def test_an_empty_run_makes_no_subagent() -> None:
    store = SessionStore("s")
    assert store.apply(InSubagent("a", AppendMessageTexts("m", "agent", []))) == ()
    assert store.subagents() == ()
    assert store.timeline() == ()


def test_interleaved_runs_tell_their_changes_in_order() -> None:
    store = SessionStore("s")
    store.apply_many([PatchSubagent("a"), PatchSubagent("b")])
    op = InterleavedTexts(
        [
            InSubagent("a", AppendMessageTexts("m", "agent", ["a1", "a2"])),
            InSubagent("b", AppendMessageTexts("m", "agent", ["b1"])),
        ],
        [0, 1, 0],
    )
    changes = store.apply(op)
    assert [(c.id, c.inner[0].payload) for c in changes] == [
        ("a", {"type": "text", "text": "a1"}),
        ("b", {"type": "text", "text": "b1"}),
        ("a", {"type": "text", "text": "a2"}),
    ]
    chunked = SessionStore("s")
    chunked.apply_many([PatchSubagent("a"), PatchSubagent("b")])
    assert changes == chunked.apply_many(op.chunks())
