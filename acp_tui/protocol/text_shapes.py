"""A line that repeats a learnt notification but for its last string: read as that.

A streamed message is thousands of lines that differ only in their text: an
agent writes `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":
"s1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":
{"type":"text","text":"..."}}}}` again and again. Once a handler has taken such a
line and asked for its shape (`Dispatcher.learn_text_shape`), `TextShape` keeps
the line's bytes up to the opening quote of its last string and the closing
braces after it; a later line with the same prefix and the same closing braces,
and exactly one JSON string between them, decodes (as `json.loads` would) to the
same value with only that string changed, so only the string is decoded
(`TextShape.text`).

Why the value is the same: JSON is read left to right, so after the same bytes
the reader is in the same state (the same containers open, the same key read);
then one string, then braces that close every open container, as the learnt
line's did. The learnt line must end with `,"<key>":"<string>"}...}` or
`{"<key>":"<string>"}...}` (blanks allowed around the key and the colon, none
after the string): the string is then the value of the last member of the
innermost object, whose key is `<key>` (the quote after `,` or `{` cannot be
inside a string of a valid line: it would end it). Which object
that is, the handler knows from the value it took: it asks only for lines whose
every object has exactly the keys it expects, so that the last member's value
of each is the next object down (a repeated key keeps its last value, which is
the one the line ends in).

Anything else (a carriage return or blanks at the end, invalid UTF-8 or escapes in the
string, more than one string) is not read here: the line takes the general path
and gets whatever error or value it gets there.
"""

from __future__ import annotations

import json.decoder
from collections.abc import Callable
from typing import Any, Final

__all__ = ["TextShape"]

_scanstring: Final[Callable[[str, int, bool], tuple[str, int]]] = (
    json.decoder.scanstring  # type: ignore[attr-defined]
)
"""`json.loads`'s string reader (the C one where there is one), strict as it."""

_QUOTE: Final = 0x22
_BACKSLASH: Final = 0x5C
_CLOSE: Final = 0x7D
_COLON: Final = 0x3A
_BLANKS: Final = b" \t\n\r"
"""JSON's whitespace."""


def _string(line: bytes, start: int, end: int) -> str | None:
    """The JSON string that is exactly `line[start:end]`, decoded; else None."""
    try:
        text = line[start:end].decode("utf-8")
        value, stop = _scanstring(text, 1, True)
    except ValueError:  # (UnicodeDecodeError too) the general path says why
        return None
    return value if stop == len(text) else None


def _after_member_key(line: bytes, at: int, key: bytes) -> bool:
    """Whether `line[:at]` ends with `,` or `{`, `key` (quoted), `:`, in JSON blanks."""
    at = len(line[:at].rstrip(_BLANKS))
    if not at or line[at - 1] != _COLON:
        return False
    at = len(line[: at - 1].rstrip(_BLANKS)) - len(key)
    if at < 1 or line[at : at + len(key)] != key:
        return False
    at = len(line[:at].rstrip(_BLANKS))
    return at > 0 and line[at - 1] in b",{"


class TextShape:
    """The shape of a learnt line: its bytes before its last string, and after.

    Args:
        prefix: The line up to and with the opening quote of its last string.
        closing: The closing braces after that string (at least one).
        method: The notification's method.
        token: What the handler gave to be handed back with each string.
    """

    __slots__ = ("_closing", "_start", "method", "prefix", "token")

    def __init__(self, prefix: bytes, closing: int, method: str, token: Any) -> None:
        self.prefix = prefix
        self._start = len(prefix) - 1
        self._closing = b'"' + b"}" * closing
        self.method = method
        self.token = token

    @classmethod
    def learn(cls, line: bytes, key: str, method: str, token: Any) -> TextShape | None:
        """The shape of `line` (a valid JSON notification) ending in `key`'s string.

        None where the line does not end as the module docstring says.
        """
        end = len(line)
        while end and line[end - 1] == _CLOSE:
            end -= 1
        closing = len(line) - end
        if not closing or not end or line[end - 1] != _QUOTE:
            return None
        start = end - 1
        while True:  # back to the string's opening quote: the first unescaped one
            start = line.rfind(b'"', 0, start)
            if start < 0:
                return None
            slashes = start
            while slashes and line[slashes - 1] == _BACKSLASH:
                slashes -= 1
            if (start - slashes) % 2 == 0:
                break
        if not _after_member_key(line, start, b'"' + key.encode("ascii") + b'"'):
            return None
        if _string(line, start, end) is None:
            return None
        return cls(line[: start + 1], closing, method, token)

    def text(self, line: bytes) -> str | None:
        """The last string of `line` if it has this shape (module docstring)."""
        if not (line.startswith(self.prefix) and line.endswith(self._closing)):
            return None
        return _string(line, self._start, len(line) - len(self._closing) + 1)
