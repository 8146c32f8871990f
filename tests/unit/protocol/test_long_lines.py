"""A long line is decoded in steps, and gives what `decode_line` gives.

`decode_long_line` never builds a string the size of the line: each long JSON
string comes as a `LongText` of pieces, each step decodes about
`DECODE_PIECE_BYTES`, and anything it cannot take in pieces (not JSON, invalid
UTF-8, a pathological run of backslashes) is decoded whole, with the same
result or `DecodeError`. Here the sizes are made tiny, so that pieces are cut
everywhere a string can be cut: inside runs of escapes, surrogate pairs and
multi-byte characters.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.protocol import framing
from acp_tui.protocol.framing import (
    DecodeError,
    LongText,
    decode_line,
    decode_long_line,
    decode_steps,
    join_long_text,
)


@pytest.fixture(autouse=True)
def _tiny_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "LONG_STRING_BYTES", 12)
    monkeypatch.setattr(framing, "DECODE_PIECE_BYTES", 17)  # > 16: see _split_point


def run_steps(line: bytes) -> tuple[Any, int]:
    """The decoded value and how many steps it took."""
    steps = decode_steps(line)
    count = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value, count
        count += 1


def long_texts(value: Any) -> list[LongText]:
    if isinstance(value, LongText):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in long_texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in long_texts(v)]
    return []


CHARACTERS = st.one_of(
    st.sampled_from(list('"\\/\b\f\n\r\t\x00\x1f\x7f u é€😀\u2028')),
    st.characters(codec="utf-8"),
    st.sampled_from(["\ud83d", "\ude00", "\udbff"]),  # lone surrogates
)
TEXTS = st.text(CHARACTERS, max_size=60)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXTS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(TEXTS, inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(JSON, st.booleans())
def test_the_value_is_decode_lines_with_long_strings_in_pieces(
    value: Any, ascii_only: bool
) -> None:
    try:
        line = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates need the escapes
        ascii_only = True
        line = json.dumps(value).encode("utf-8")
    expected = decode_line(line)
    got, _ = run_steps(line)
    assert join_long_text(got) == expected
    # Nothing fell back to decoding the line whole: each long string is in pieces.
    wire = line.decode("utf-8")
    assert len(long_texts(got)) == len(long_strings(json.loads(wire), ascii_only))


def long_strings(value: Any, ascii_only: bool) -> list[str]:
    """The string values encoded in at least `LONG_STRING_BYTES` (12) bytes."""
    if isinstance(value, str):
        encoded = json.dumps(value, ensure_ascii=ascii_only)
        return (
            [value] if len(encoded.encode("utf-8", "surrogatepass")) - 2 >= 12 else []
        )
    if isinstance(value, dict):
        return [t for v in value.values() for t in long_strings(v, ascii_only)]
    if isinstance(value, list):
        return [t for v in value for t in long_strings(v, ascii_only)]
    return []


@settings(max_examples=300, deadline=None)
@given(JSON, st.data())
def test_a_damaged_line_gives_the_same_error_or_value(
    value: Any, data: st.DataObject
) -> None:
    line = bytearray(json.dumps(value, ensure_ascii=False).encode("utf-8", "replace"))
    for _ in range(data.draw(st.integers(1, 3))):
        if not line:
            break
        at = data.draw(st.integers(0, len(line) - 1))
        line[at] = data.draw(st.sampled_from(b'"\\u\x00\xff\xc3{}[],: a'))
    expected = decode_line(bytes(line))
    got, _ = run_steps(bytes(line))
    if isinstance(expected, DecodeError):
        assert got == expected
    else:
        assert join_long_text(got) == expected


def test_escapes_pairs_and_wide_characters_are_never_cut() -> None:
    """Every cut point of these strings falls next to an escape, a surrogate
    pair or a multi-byte character; each one is decoded as `json.loads` does."""
    for text in [
        "😀" * 40,
        "\\" * 41,
        '"' * 33 + "\\n",
        "\ud83d\ude00" * 20,
        "a\ud83d" + "\ude00b" * 15,
        "é€" * 30,
        "\x01\x1f" * 20,
    ]:
        for ascii_only in (True, False):
            line = json.dumps({"text": text}, ensure_ascii=ascii_only).encode(
                "utf-8",
                "surrogatepass",  # invalid UTF-8 for lone surrogates
            )
            got, steps = run_steps(line)
            if isinstance(decode_line(line), DecodeError):
                assert got == decode_line(line)
                continue
            assert isinstance(got["text"], LongText), text
            expected = decode_line(line)
            assert isinstance(expected, dict)
            assert got["text"].text() == expected["text"]
            assert len(got["text"].pieces) > 2
            assert steps > 2


def test_a_long_string_is_decoded_in_steps_and_small_values_stay() -> None:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"update": {"content": {"type": "text", "text": "word " * 100}}},
    }
    line = json.dumps(message).encode()
    got, steps = run_steps(line)
    text = got["params"]["update"]["content"]["text"]
    assert isinstance(text, LongText)
    assert len(text) == 500
    assert (text.head(7), text.tail(7)) == ("word wo", "d word ")
    assert text.head(10_000) == text.tail(10_000) == "word " * 100
    assert steps >= 500 // 17
    assert got["jsonrpc"] == "2.0"
    assert got["params"]["update"]["content"]["type"] == "text"
    assert join_long_text(got) == message
    kept = join_long_text(got, {("params", "update", "content", "text")})
    assert kept["params"]["update"]["content"]["text"] is text


def test_a_long_key_is_joined() -> None:
    line = json.dumps({"k" * 40: ["v" * 40]}).encode()
    got, _ = run_steps(line)
    ((key, value),) = got.items()
    assert key == "k" * 40
    assert value == [LongText(["v" * 40])]


@pytest.mark.parametrize(
    "line",
    [
        b'{"a": "' + b"x" * 40,  # no closing quote
        b'{"a": "' + b"x" * 40 + b'\xff"}',  # invalid UTF-8 in a piece
        b'{"a": "' + b"x" * 40 + b'\\q"}',  # an invalid escape
        b'{"a": "' + b"x" * 40 + b'" oops}',  # invalid around the string
        b"X" * 100,
    ],
)
def test_errors_are_decode_lines(line: bytes) -> None:
    got, _ = run_steps(line)
    assert isinstance(got, DecodeError)
    assert got == decode_line(line)


def test_a_very_long_run_of_backslashes_is_decoded_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(framing, "_LONG_BACKSLASH_RUN", 8)
    line = json.dumps({"a": "x" * 30 + "\\" * 10 + '"'}).encode()
    got, steps = run_steps(line)
    assert got == decode_line(line)
    assert steps < 5


def test_decode_long_line_pauses_between_steps() -> None:
    """The caller's pause runs between the steps: another task gets turns while
    a long line is decoded, not only before and after."""
    line = json.dumps({"text": "x" * 300}).encode()
    seen: list[int] = []

    async def main() -> None:
        decoded_steps = 0

        async def pause() -> None:
            nonlocal decoded_steps
            decoded_steps += 1
            await anyio.lowlevel.checkpoint()

        async def other() -> None:
            for _ in range(5):
                seen.append(decoded_steps)
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as group:
            group.start_soon(other)
            value = await decode_long_line(line, pause)
        assert join_long_text(value) == {"text": "x" * 300}

    anyio.run(main)
    assert any(steps > 0 for steps in seen[1:])
