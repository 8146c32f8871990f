"""The JSON document joins a message's adjacent text chunks (issue 23).

`join_text_chunks` does it on the store's blocks as they are (issue 28: the
streamed chunks are not copied first); what it gives must be exactly what the
document held before: a plain copy of the blocks, then joined (`_old_join`, the
code it replaced), to the key order.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.export import join_text_chunks, session_document
from acp_tui.store import AppendMessageChunk, SessionStore
from acp_tui.store.values import plain_json


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


class Text(str):
    """A str subclass: copied as it is, so still plain text after the copy."""


def test_adjacent_plain_text_chunks_become_one_block() -> None:
    image = {"type": "image", "mimeType": "image/png", "data": "AA=="}
    noted = {"type": "text", "text": "!", "annotations": {"priority": 1}}
    content = [text("Hel"), text("lo"), image, text(" a"), noted, text("b"), text("c")]
    expected = [text("Hello"), image, text(" a"), noted, text("bc")]
    assert join_text_chunks(content) == expected


def _old_join(content: list[Any]) -> list[Any]:
    """The join before issue 28, on blocks already copied (the reference)."""
    joined: list[Any] = []
    run: list[Any] = []
    for block in content:
        if (
            isinstance(block, dict)
            and len(block) == 2
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ):
            run.append(block)
            continue
        if run:
            joined.append(_old_joined(run))
            run = []
        joined.append(block)
    if run:
        joined.append(_old_joined(run))
    return joined


def _old_joined(run: list[Any]) -> Any:
    if len(run) == 1:
        return run[0]
    return {"type": "text", "text": "".join(block["text"] for block in run)}


def _old_document_content(content: list[Any]) -> list[Any]:
    """What the document held before: a plain copy of the blocks, then joined."""
    copied = plain_json(content)
    assert isinstance(copied, list)
    return _old_join(copied)


_TEXTS = st.text(alphabet="ab \n", max_size=3)
_BLOCKS = st.one_of(
    _TEXTS.map(text),
    _TEXTS.map(lambda t: {"text": t, "type": "text"}),  # its own key order
    _TEXTS.map(lambda t: MappingProxyType(text(t))),  # a read-only view
    _TEXTS.map(lambda t: {"type": "text", "text": Text(t)}),
    _TEXTS.map(lambda t: {"type": Text("text"), "text": t}),
    _TEXTS.map(lambda t: {"type": "text", "text": t, "annotations": {"p": 1}}),
    st.just({"type": "text", "text": 3}),
    st.just({"type": "text"}),
    st.just({"type": "image", "text": "x"}),
    st.just({"type": "image", "mimeType": "image/png", "data": "AA=="}),
    st.just({"type": "resource", "resource": {"uri": "f", "text": "t"}}),
    _TEXTS.map(lambda t: (t, t)),
)


@given(st.lists(_BLOCKS, max_size=12))
def test_the_join_is_the_copy_joined_to_the_key_order(content: list[Any]) -> None:
    expected = _old_document_content(content)
    got = join_text_chunks(content)
    assert json.dumps(got) == json.dumps(expected)
    assert [type(block) for block in got] == [type(block) for block in expected]


@given(st.lists(_BLOCKS, max_size=12))
def test_the_join_shares_no_container_with_the_store(content: list[Any]) -> None:
    before = json.dumps(plain_json(content))
    got = join_text_chunks(content)
    for block in got:
        for value in (block, *(block.values() if isinstance(block, dict) else ())):
            if isinstance(value, dict | list):
                value.clear()  # changing the document ...
    assert json.dumps(plain_json(content)) == before  # ... leaves the blocks


def _capped_store() -> SessionStore:
    store = SessionStore("s", max_message_chars=10_000)
    store.apply_many(
        [AppendMessageChunk("m", "agent", text(f"{n} ")) for n in range(3_000)]
    )
    store.apply(AppendMessageChunk("n", "agent", text("a")))
    store.apply(AppendMessageChunk("n", "agent", text("b")))
    return store


def test_a_truncated_messages_tail_stays_after_the_cut() -> None:
    store = _capped_store()
    document = session_document(protocol_version=2, agent=None, store=store)
    capped, short = document["messages"]
    assert "truncated" in capped
    head, tail = capped["content"]
    raw = store.to_json()["messages"]
    assert isinstance(raw, list)
    assert isinstance(raw[0], dict)
    raw_content = raw[0]["content"]
    assert isinstance(raw_content, list)
    # the head's blocks joined, the tail (after the cut) a block of its own
    assert head == text("".join(block["text"] for block in raw_content[:-1]))
    assert tail == raw_content[-1]
    assert short["content"] == [text("ab")]


def test_the_document_is_the_one_joined_after_copying() -> None:
    store = _capped_store()
    document = session_document(protocol_version=2, agent=None, store=store)
    old = store.to_json()
    messages = old["messages"]
    assert isinstance(messages, list)
    for message in messages:
        assert isinstance(message, dict)
        content = message["content"]
        assert isinstance(content, list)
        if "truncated" in message:
            message["content"] = [*_old_join(content[:-1]), content[-1]]
        else:
            message["content"] = _old_join(content)
    assert json.dumps(document["messages"]) == json.dumps(messages)
    raw = session_document(protocol_version=2, agent=None, store=store, raw_chunks=True)
    assert raw["messages"] == store.to_json()["messages"]
