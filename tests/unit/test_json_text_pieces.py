"""`json_text` checks a long document in pieces, and misses nothing in any of them.

The document is checked piece by piece (an ASCII piece for DEL only, another
character by character); what must be escaped is escaped wherever it falls:
in the first piece, the last, across a boundary, in an ASCII or a non-ASCII
piece. A document with nothing to escape is `json.dumps`'s text as it is.
"""

from __future__ import annotations

import json

import pytest

from acp_tui.export_json import _PRINTABLE_PIECE, json_text

_BAD = ["\x7f", "\x85", "\u202e", "\ud800", "\u2028"]


@pytest.mark.parametrize("bad", _BAD)
@pytest.mark.parametrize("filler", ["a", "é"])
@pytest.mark.parametrize(
    "where", [0, _PRINTABLE_PIECE - 12, _PRINTABLE_PIECE - 11, 3 * _PRINTABLE_PIECE]
)
def test_what_must_be_escaped_is_escaped_in_any_piece(
    bad: str, filler: str, where: int
) -> None:
    text = filler * where + bad + filler * 100
    value = {"base64": "QUJD" * _PRINTABLE_PIECE, "text": text}
    out = json_text(value)
    assert all(ch.isprintable() or ch == "\n" for ch in out)
    assert json.loads(out) == value
    assert out.count("\\u") == 1


@pytest.mark.parametrize("filler", ["a", "é ⋯ �"])
def test_a_printable_document_is_the_dumps_text(filler: str) -> None:
    value = {"output": "QUJD" * _PRINTABLE_PIECE, "text": filler * _PRINTABLE_PIECE}
    assert json_text(value) == json.dumps(value, ensure_ascii=False, indent=2) + "\n"
