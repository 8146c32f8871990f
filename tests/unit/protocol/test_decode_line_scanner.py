"""`decode_line` reads a plain line with json's C scanner, and else as json.loads.

A line that is one JSON value and nothing else costs no `json.loads`; every
other line (blanks around it, extra data, no value, a BOM) gets exactly what
`json.loads` gives: the same value, or a `DecodeError` with its message.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.protocol.framing import DecodeError, decode_line

_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
_AROUND = st.sampled_from(["", " ", "\t", "\r", "  \r", "x", ",1", "}", "\ufeff", "]"])


def _expected(text: str) -> Any:
    """What the line gives through json.loads (a value, or the error's message)."""
    try:
        return json.loads(text)
    except ValueError as error:
        return f"invalid JSON: {error}"


def _got(line: bytes) -> Any:
    result = decode_line(line)
    return result.message if isinstance(result, DecodeError) else result


@given(_VALUES, _AROUND, _AROUND, st.integers(min_value=0, max_value=4))
def test_any_line_decodes_as_json_loads_does(
    value: object, before: str, after: str, cut: int
) -> None:
    text = before + json.dumps(value, ensure_ascii=False) + after
    text = text[: len(text) - cut] if cut else text  # cut short too: no value
    assert _got(text.encode("utf-8", "surrogatepass")) == _expected(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "{",
        '{"a": 1',
        '{"a": 1}}',
        "[1,]",
        "nul",
        "-Infinity",
        "-",
        '"\\x"',
        "1 2",
    ],
)
def test_bad_and_odd_lines_give_json_loads_answer(text: str) -> None:
    assert _got(text.encode()) == _expected(text)


def test_a_plain_line_costs_no_json_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    loads = json.loads

    def spy(text: str) -> Any:
        calls.append(text)
        return loads(text)

    monkeypatch.setattr(json, "loads", spy)
    line = b'{"jsonrpc":"2.0","method":"session/update","params":{"a":[1,2.5,null]}}'
    assert decode_line(line) == loads(line)
    assert calls == []
    assert decode_line(b' {"a": 1}\r') == {"a": 1}  # blanks around: json.loads
    assert calls == [' {"a": 1}\r']
