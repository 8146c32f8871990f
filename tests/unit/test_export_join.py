"""The JSON document joins a message's adjacent text chunks (issue 23)."""

from __future__ import annotations

from typing import Any

from acp_tui.export import _join_messages, join_text_chunks


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def test_adjacent_plain_text_chunks_become_one_block() -> None:
    image = {"type": "image", "mimeType": "image/png", "data": "AA=="}
    noted = {"type": "text", "text": "!", "annotations": {"priority": 1}}
    content = [text("Hel"), text("lo"), image, text(" a"), noted, text("b"), text("c")]
    assert join_text_chunks(content) == [
        text("Hello"),
        image,
        text(" a"),
        noted,
        text("bc"),
    ]


def test_a_truncated_messages_tail_stays_after_the_cut() -> None:
    messages: list[dict[str, Any]] = [
        {"content": [text("head "), text("more"), text("tail")], "truncated": {}},
        {"content": [text("a"), text("b")]},
    ]
    _join_messages(messages)
    assert messages[0]["content"] == [text("head more"), text("tail")]
    assert messages[1]["content"] == [text("ab")]
