"""A message keeps at most `max_message_chars`: its head, its tail, what was cut.

The cap bounds what one entity holds whatever an agent streams (one 200 MB
chunk, a million tiny ones): the head keeps blocks as received while they fit
half the cap (each costing `BLOCK_COST` beside its text), the tail the last
half-cap characters after it; `cut_chars` and `cut_blocks` say exactly what is
missing, so the UI can tell the user.
"""

from __future__ import annotations

import json
import tracemalloc

import pytest

from acp_tui.export import session_markdown
from acp_tui.store import AppendMessageChunk, SessionStore, UpsertMessage
from acp_tui.store.journal import op_from_record, op_to_record
from acp_tui.store.model import Message
from acp_tui.store.store import BLOCK_COST, DEFAULT_MAX_MESSAGE_CHARS
from tests.unit.store.helpers import image, text

CAP = 10_000
HALF = CAP // 2


def chunk(value: str, message_id: str = "m") -> AppendMessageChunk:
    return AppendMessageChunk(message_id, "agent", text(value))


def message(store: SessionStore, message_id: str = "m") -> Message:
    found = store.message(message_id)
    assert found is not None
    return found


def test_a_short_message_is_kept_whole() -> None:
    store = SessionStore("s", max_message_chars=CAP)
    store.apply(chunk("hello "))
    store.apply(chunk("world"))
    shown = message(store)
    assert not shown.capped
    assert shown.tail is None
    assert (shown.cut_chars, shown.cut_blocks) == (0, 0)
    assert shown.text == "hello world"
    assert shown.text_size == 11
    assert list(shown.content) == [text("hello "), text("world")]


def test_one_huge_chunk_keeps_its_head_and_tail_and_counts_the_cut() -> None:
    body = "".join(chr(ord("a") + n % 26) for n in range(50_000))
    store = SessionStore("s", max_message_chars=CAP)
    store.apply(chunk(body))
    shown = message(store)
    head_chars = HALF - BLOCK_COST - len("text")
    assert shown.capped
    assert shown.head_text == body[:head_chars]
    assert shown.tail == body[-HALF:]
    assert shown.cut_chars == len(body) - head_chars - HALF
    assert shown.text == body[:head_chars] + body[-HALF:]
    assert shown.text_size == len(body)
    # The head's block is a cut copy (the received one is left alone).
    assert list(shown.content) == [text(body[:head_chars])]


def test_tiny_chunks_fill_the_head_by_their_count_then_the_tail_keeps_the_rest() -> (
    None
):
    store = SessionStore("s", max_message_chars=CAP)
    words = [f"w{n} " for n in range(3_000)]
    for word in words:
        store.apply(chunk(word))
    shown = message(store)
    whole = "".join(words)
    assert shown.capped
    # Each block costs BLOCK_COST beside its text: few fit the head.
    assert len(shown.content) == HALF // (BLOCK_COST + len("text") + 4)
    assert len(shown.content) < 20
    assert shown.tail == whole[-HALF:]
    assert shown.cut_chars == len(whole) - len(shown.head_text) - HALF
    assert shown.text_size == len(whole)


def test_nothing_is_cut_while_the_tail_has_room() -> None:
    store = SessionStore("s", max_message_chars=CAP)
    words = [f"w{n} " for n in range(500)]
    for word in words:
        store.apply(chunk(word))
    shown = message(store)
    assert shown.capped
    assert shown.cut_chars == 0
    assert shown.text == "".join(words)


def test_non_text_blocks_past_the_head_are_counted() -> None:
    store = SessionStore("s", max_message_chars=CAP)
    store.apply(chunk("x" * CAP))
    store.apply(AppendMessageChunk("m", "agent", image()))
    store.apply(AppendMessageChunk("m", "agent", image()))
    store.apply(chunk("end"))
    shown = message(store)
    assert shown.cut_blocks == 2
    tail = shown.tail
    assert tail is not None
    assert tail.endswith("end")
    assert shown.runs() == (shown.head_text, shown.cut_notice(), tail)
    assert "2 non-text blocks" in shown.cut_notice()


def test_the_markdown_export_says_what_was_cut() -> None:
    store = SessionStore("s", max_message_chars=CAP)
    store.apply(chunk("a" * 20_000 + "b" * 20_000))
    shown = message(store)
    exported = session_markdown(store)
    head, cut, tail = shown.runs()
    assert cut == (
        f"[⋯ {shown.cut_chars:,} characters of this message are no longer kept "
        "here: the app keeps the start and the end of a very long message]"
    )
    assert f"{head}\n\n{cut}\n\n{tail}" in exported


def test_text_after_gives_what_is_new_or_none_once_cut() -> None:
    store = SessionStore("s", max_message_chars=CAP)
    store.apply(chunk("a" * 4_000))
    first = message(store)
    assert first.text_after(3_990) == "a" * 10
    store.apply(chunk("b" * 3_000))
    second = message(store)
    assert second.capped
    seen = first.text_size
    assert second.text_after(seen) == "b" * 3_000
    store.apply(chunk("c" * 20_000))
    third = message(store)
    assert third.text_after(second.text_size) is None  # some of it was cut
    assert third.text_after(third.text_size - 5) == "c" * 5


def test_snapshots_stay_as_they_were() -> None:
    store = SessionStore("s", max_message_chars=CAP)
    for n in range(200):
        store.apply(chunk(f"{n:04d}" * 10))
    before = message(store)
    text_before = before.text
    for n in range(2_000):
        store.apply(chunk(f"{n:04d}" * 10))
    after = message(store)
    assert before.text == text_before
    assert after.text != text_before
    assert after.cut_chars > before.cut_chars


def test_replacing_the_content_starts_over() -> None:
    store = SessionStore("s", max_message_chars=CAP)
    store.apply(chunk("x" * 30_000))
    assert message(store).cut_chars
    store.apply(UpsertMessage("m", "agent", content=[text("short")]))
    shown = message(store)
    assert not shown.capped
    assert (shown.text, shown.cut_chars, shown.cut_blocks) == ("short", 0, 0)
    store.apply(UpsertMessage("m", "agent", content=[text("y" * 30_000)]))
    assert message(store).cut_chars == 30_000 - len(message(store).text)


def test_the_json_document_says_what_was_cut() -> None:
    store = SessionStore("s", max_message_chars=CAP)
    store.apply(chunk("x" * 30_000))
    store.apply(AppendMessageChunk("m", "agent", image()))
    document = store.to_json()
    messages = document["messages"]
    assert isinstance(messages, list)
    (entry,) = messages
    assert isinstance(entry, dict)
    shown = message(store)
    assert entry["truncated"] == {
        "cutChars": shown.cut_chars,
        "cutBlocks": 1,
    }
    assert entry["content"] == [text(shown.head_text), text(shown.tail or "")]


def test_a_replayed_journal_rebuilds_the_same_capped_message() -> None:
    ops = [chunk("x" * 7_000), chunk("y" * 9_000), chunk("z" * 11)]
    live = SessionStore("s", max_message_chars=CAP)
    live.apply_many(ops)
    replayed = SessionStore("s", max_message_chars=CAP)
    for op in ops:
        replayed.apply(op_from_record(json.loads(json.dumps(op_to_record(op)))))
    assert replayed.to_json() == live.to_json()
    assert message(replayed) == message(live)


@pytest.mark.parametrize("count", [20_000, 60_000])
def test_memory_stays_bounded_whatever_the_count(count: int) -> None:
    """A cap of 100,000: however many tiny chunks come, the store holds about
    the cap's worth (the tail's text, the head's few blocks), not the flood's."""
    cap = 100_000
    tracemalloc.start()
    try:
        store = SessionStore("s", max_message_chars=cap)
        before, _ = tracemalloc.get_traced_memory()
        for n in range(count):
            store.apply(chunk(f"w{n} "))
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    shown = message(store)
    assert shown.text_size == sum(len(f"w{n} ") for n in range(count))
    assert kept - before < 4 * cap


def test_the_default_cap_and_validation() -> None:
    assert SessionStore("s").max_message_chars == DEFAULT_MAX_MESSAGE_CHARS
    with pytest.raises(ValueError, match="max_message_chars"):
        SessionStore("s", max_message_chars=-1)
