"""The JSON document as text that is safe to show on a terminal (`json_text`).

`acp-tui print --format json` and `acp-tui export --format json` write it; the
document itself is built by `acp_tui.export.session_document`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

__all__ = ["json_text", "terminal_safe"]


def json_text(value: Any) -> str:
    r"""`value` as indented JSON that is safe to show on a terminal (ends in `\n`).

    `json.dumps` escapes the C0 controls but, with `ensure_ascii=False`, writes
    C1 controls, bidi overrides and lone surrogates raw: those become `\u`
    escapes too (the same JSON value; readable text stays readable).
    """
    return terminal_safe(json.dumps(value, ensure_ascii=False, indent=2)) + "\n"


def terminal_safe(text: str) -> str:
    r"""JSON `text` with what a terminal would act on escaped (`json_text`'s rule).

    The escapes are per character, so a text split anywhere and each part made
    safe gives the same text as the whole made safe (`print_json` writes so).
    """
    if _json_printable(text):
        return text
    return _UNPRINTABLE_JSON.sub(_json_escape, text)


_PRINTABLE_PIECE: Final = 1 << 16
"""`_json_printable` checks a long text in pieces of this many characters."""


def _json_printable(text: str) -> bool:
    """Whether JSON `text` holds nothing `json_text` escapes (no copy of it all).

    ASCII (a flag of the string: no scan) holds no control but the ones JSON
    escapes, line feeds (the indent's own: those in strings are escaped) and
    DEL: one search for DEL then. A long text is checked in pieces, each its
    own string, so only the pieces that hold other characters (a terminal's
    text, in a document that is mostly base64) are scanned character by
    character: 7 MB with 0.6 MB of such text, 23 -> 5 ms.
    """
    for start in range(0, len(text), _PRINTABLE_PIECE):
        piece = text[start : start + _PRINTABLE_PIECE]
        if piece.isascii():
            if "\x7f" in piece:
                return False
        elif not piece.replace("\n", "").isprintable():  # one pass in C
            return False
    return True


_UNPRINTABLE_JSON: Final = re.compile(r"[^\n -~]")


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    if char.isprintable():
        return char
    code = ord(char)
    if code > 0xFFFF:  # a UTF-16 surrogate pair, as JSON spells it
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"
