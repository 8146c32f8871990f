"""`acp-tui print --format json` writes its document without one string of it all.

`export.json_text` is the document as one string, which the output stream then
encodes whole. A terminal's output (base64, ASCII) and its text (box drawing,
accents) end up in the same string there, so all of it is stored at the width of
its widest character, and scanned, copied and encoded at that width: for
`bench/print.py`'s stress stream, 7.4 MB, ~44 ms of the run (issue 28).

`write_document` writes the same text, made from the same encoder's pieces
(`json.JSONEncoder.iterencode`, what `json.dumps` joins): the runs of small pieces
joined, each piece of at least `ALONE` characters (a terminal's output, a long
message) on its own, and each made terminal-safe as `json_text` makes the whole
(its escapes are per character, so the parts give the same text): ~20 ms.
"""

from __future__ import annotations

import json
from typing import Any, Final, TextIO

from acp_tui.export_json import terminal_safe

__all__ = ["ALONE", "write_document"]

ALONE: Final = 1 << 16
"""A piece at least this long (characters) is written on its own."""


def write_document(value: Any, out: TextIO) -> None:
    r"""`export.json_text(value)` written to `out` in parts (module docstring)."""
    pieces = list(json.JSONEncoder(ensure_ascii=False, indent=2).iterencode(value))
    start = 0
    for n, piece in enumerate(pieces):
        if len(piece) >= ALONE:
            _write(out, "".join(pieces[start:n]))
            _write(out, piece)
            start = n + 1
    _write(out, "".join(pieces[start:]) + "\n")


def _write(out: TextIO, text: str) -> None:
    if text:
        out.write(terminal_safe(text))
