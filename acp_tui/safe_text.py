r"""Agent text made safe to show: `printable` escapes what could act on a terminal.

Everything an agent sends is data. Before any of it is written to a real
terminal other than through the sandboxed terminal emulator (a card's title, a
log line, `acp-tui print`'s transcript, a notice, an excerpt of a bad line), it
passes through `printable`, which escapes every character that is not printable:
ESC, BEL, CR, C1 controls, bidi overrides. So no byte sequence from an agent can
move the cursor, set a title, write an OSC 8 link or reorder the text around it.

Invariants:
* `printable(text)` contains no character for which `str.isprintable()` is
  false, except those named in `keep` (such as "\n" for multi-line text).
* Text that is already printable is returned as is (the same object).
* Standard library only: the protocol, render and UI layers all import it.
"""

from __future__ import annotations

import unicodedata
from typing import Final

__all__ = ["JOINERS", "printable"]


JOINERS: Final = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: dropped by `printable`. An emoji sequence joined
with ZWJ is drawn as one glyph by some terminals and as its parts by others, so
its width is unknowable; its parts side by side are the same emoji, at a width
every terminal agrees on."""


def _made_printable(ch: str, keep: str) -> str:
    if ch.isprintable() or ch in keep:
        return ch
    if ch in JOINERS:
        return ""
    if unicodedata.category(ch) == "Zs":  # no-break and other spaces
        return " "
    return ch.encode("unicode_escape").decode("ascii")


def printable(text: str, keep: str = "") -> str:
    r"""Escape every non-printable character (ESC, BEL, CR, bidi controls...).

    Agent-supplied text passes through this before it is written to a real terminal
    by anything other than the sandboxed UI, so it can never act as a control code.
    Two kinds of character are not escaped, since they are common in ordinary
    text (a model's "10\u00a0000", an emoji with a skin tone or a job) and cannot
    act on a terminal: spaces other than U+0020 become a plain space, and
    zero-width joiners are dropped (see `JOINERS`).

    Args:
        text: The text to make safe.
        keep: Characters to leave alone (e.g. `"\n\t"` for multi-line text).
    """
    if text.isprintable():
        return text
    if len(text) <= _PIECE:
        return "".join([_made_printable(ch, keep) for ch in text])
    # Long text (a message of megabytes, with line breaks to keep): only the
    # pieces holding something to escape are rebuilt character by character.
    pieces = []
    for start in range(0, len(text), _PIECE):
        piece = text[start : start + _PIECE]
        clean = piece
        for ch in keep:
            clean = clean.replace(ch, "")
        if clean.isprintable():
            pieces.append(piece)
        else:
            pieces.append("".join([_made_printable(ch, keep) for ch in piece]))
    return "".join(pieces)


_PIECE: Final = 4096
"""`printable` checks a long text in pieces of this many characters."""
