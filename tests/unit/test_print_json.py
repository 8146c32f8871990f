"""`acp-tui print --format json` writes `json_text`'s text in parts (`print_json`).

The whole document was one string: a terminal's output (base64, ASCII) and its
text (non-ASCII) in the same string made all of it as wide as its widest
character, scanned, copied and encoded at that width (issue 28). Now a long
piece is written on its own, and every part is made terminal-safe as the whole
was: the text written is `json_text`'s, whatever must be escaped and wherever.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from acp_tui.export_json import json_text
from acp_tui.frontends.print_json import ALONE
from acp_tui.frontends.print_turn import write_json

_BAD = ["\x7f", "\x85", "\u202e", "\ud800", "\u2028", "\x1b"]


class Writes(io.StringIO):
    """A text stream that keeps each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def _written(value: Any) -> Writes:
    out = Writes()
    write_json(value, out)
    return out


def _terminal_document(text: str) -> dict[str, Any]:
    """A print document's shape: a terminal's base64 output and its text."""
    return {
        "sessionId": "s1",
        "messages": [{"messageId": "m1", "content": [{"type": "text", "text": "hi"}]}],
        "terminals": [{"output": "QUJD" * ALONE, "text": text, "exitStatus": None}],
        "state": "idle",
    }


def test_a_long_ascii_piece_is_written_apart_from_wide_text() -> None:
    document = _terminal_document("┌─ build ─┐ é\n" * 10)
    out = _written(document)
    assert out.getvalue() == json_text(document)
    longest = max(out.writes, key=len)
    assert longest == '"' + "QUJD" * ALONE + '"'  # on its own, ASCII: not widened
    assert all(write.isascii() for write in out.writes if len(write) >= ALONE)


@pytest.mark.parametrize("bad", _BAD)
@pytest.mark.parametrize("where", ["before", "in", "after"])
def test_what_must_be_escaped_is_escaped_in_every_part(bad: str, where: str) -> None:
    long = "é" * ALONE
    parts = {"before": ["x" + bad, long, "y"], "in": ["x", long + bad, "y"]}
    parts["after"] = ["x", long, bad + "y"]
    document = {"a": parts[where][0], "b": [parts[where][1]], "c": parts[where][2]}
    out = _written(document)
    assert out.getvalue() == json_text(document)
    assert len(out.writes) > 1


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        "text",
        None,
        {"a": [1, 2.5, True, None, {"b": []}], "c": "\U0001f600 ok"},
        {"many": [{"type": "text", "text": f"w{n} "} for n in range(5000)]},
        ["\x7f" * ALONE, "A" * ALONE, "é"],
    ],
)
def test_the_text_is_json_texts(value: Any) -> None:
    assert _written(value).getvalue() == json_text(value)
