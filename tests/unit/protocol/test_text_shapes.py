"""A line read by its learnt shape decodes as `json.loads` decodes the whole line.

`TextShape.text(line)` says a string only where the line is the learnt one but
for its last string: then `json.loads(line)` is the learnt value with that
string in place of the last. Lines written every way an agent may write them
(compact or spaced, keys in any order or repeated, hard strings), and lines
that differ anywhere else, or end otherwise, or are not valid, are checked.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.protocol.text_shapes import TextShape

HEAD = b'{"jsonrpc":"2.0","method":"m","params":'
HARD = ["", "plain", 'q " \\ \\\\', "\\", '"', "\x00\x1f", "\u00e9\u4e2d", "\ud800"]
TEXTS = st.sampled_from(HARD) | st.text(max_size=20)
SEPARATORS = st.sampled_from([(",", ":"), (", ", ": "), (",", ": "), (" , ", " :  ")])


def chunk(text: str, message_id: str = "m1") -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "s1",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "messageId": message_id,
                "content": {"type": "text", "text": text},
            },
        },
    }


def with_text(value: dict[str, Any], text: str) -> dict[str, Any]:
    out = copy.deepcopy(value)
    out["params"]["update"]["content"]["text"] = text
    return out


def line(value: Any, separators: tuple[str, str], ascii_only: bool) -> bytes:
    text = json.dumps(value, separators=separators, ensure_ascii=ascii_only)
    return text.encode("utf-8", "surrogatepass")


def learnt(template: bytes) -> TextShape:
    shape = TextShape.learn(template, "text", "session/update", "token")
    assert shape is not None
    return shape


@settings(max_examples=400, deadline=None)
@given(TEXTS, TEXTS, SEPARATORS, st.booleans(), st.booleans())
def test_a_repeated_line_gives_its_text(
    first: str, second: str, separators: tuple[str, str], ascii_only: bool, same: bool
) -> None:
    template = line(chunk(first), separators, ascii_only)
    if not ascii_only and any(0xD800 <= ord(c) < 0xE000 for c in first + second):
        return  # (not UTF-8: the general path reports it)
    shape = learnt(template)
    candidate = line(chunk(second, "m1" if same else "m2"), separators, ascii_only)
    found = shape.text(candidate)
    if same:
        assert found == second
        assert json.loads(candidate) == with_text(json.loads(template), found)
    else:
        assert found is None


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.binary(max_size=30), st.integers(0, 200), st.binary(max_size=6))
def test_whatever_a_line_is_its_text_is_only_given_if_it_decodes_so(
    text: str, noise: bytes, cut: int, tail: bytes
) -> None:
    """Any line made of the learnt line's bytes spliced with noise: where a
    string is given, json.loads gives the learnt value with it (or fails the
    same way the general path would not: never)."""
    template = line(chunk(text), (",", ":"), True)
    shape = learnt(template)
    cut = min(cut, len(template))
    candidate = template[:cut] + noise + template[cut:] + tail
    found = shape.text(candidate)
    if found is not None:
        assert json.loads(candidate) == with_text(json.loads(template), found)


@pytest.mark.parametrize(
    "template",
    [
        # The last string is not the key's value, or not last, or not a string.
        b'{"jsonrpc":"2.0","method":"m","params":{"content":{"text":"x","type":"text"}}}',
        b'{"jsonrpc":"2.0","method":"m","params":{"content":{"type":"text","text":"x"}},"id":"1"}',
        b'{"jsonrpc":"2.0","method":"m","params":{"content":{"type":"text","text":5}}}',
        HEAD + b'{"content":{"type":"text","text":"x"}}} ',
        HEAD + b'{"content":{"type":"text","text":"x" }}}',
        b'{"jsonrpc":"2.0","method":"m","params":{"content":{"type":"text","xtext":"x"}}}',
        b'{"jsonrpc":"2.0","method":"m","params":{"content":{"type":"text","te\\u0078t":"x"}}}',
        b'{"jsonrpc":"2.0","method":"m","params":{"content":["text","x"]}}',
        b'{"a":"b\\",\\"text\\":\\"c"}',
        b'{"jsonrpc":"2.0","method":"m","params":{"content":{"a\\"text":"x"}}}',
    ],
)
def test_lines_that_do_not_end_in_the_keys_string_have_no_shape(
    template: bytes,
) -> None:
    assert TextShape.learn(template, "text", "m", None) is None


def test_a_repeated_key_ends_in_the_value_the_decoder_keeps() -> None:
    template = (
        b'{"jsonrpc":"2.0","method":"m","params":{"content":'
        b'{"type":"text","text":"a","text":"b"}}}'
    )
    shape = learnt(template)
    candidate = template.replace(b'"b"', b'"c\\n"')
    assert shape.text(candidate) == "c\n"
    assert json.loads(candidate)["params"]["content"]["text"] == "c\n"


@pytest.mark.parametrize(
    "candidate",
    [
        b'"x\\q"}}}}',  # an invalid escape
        b'"x\x01"}}}}',  # a control character
        b'"\xff"}}}}',  # not UTF-8
        b'"x","y":"z"}}}}',  # two strings
        b'"x"}}}',  # fewer braces
        b'"x"}}}}}',  # more
        b'"x"}}}}\r',
        b'"x"}}}} ',
        b"}}}}",
    ],
)
def test_anything_but_one_string_then_the_braces_takes_the_general_path(
    candidate: bytes,
) -> None:
    template = line(chunk("t"), (",", ":"), True)
    shape = learnt(template)
    prefix = template[: template.rindex(b'"t"')]
    assert shape.text(prefix + candidate) is None
