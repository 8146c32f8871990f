"""A terminal's final text, emulating only the output that can still show in it.

`final_text(data)` is `TerminalEmulator.text()` after feeding all of `data` (the
scrollback, at most `history` lines, plus the screen), the same to the letter,
but for long output it emulates only a tail of it when that is provably enough.
`acp-tui print` and the exports ask it for every terminal: a build log of
megabytes was emulated whole at the end of a turn (about 0.35 s per MB here).

When a tail is enough. The tail starts just after a line feed (LNM is always on,
so the cursor is then at column 0 whatever came before), and holds at least
`history + 2 * lines` line feeds. Emulated from there, on a fresh screen or on the
real one, the cursor reaches the bottom row within `lines - 1` line feeds and
every later one scrolls, so every row of the final scrollback and screen was
made blank by a scroll during the tail and then received the same input in both.
That holds only if nothing in the whole output can reach beyond the cursor's row
or change how later input is drawn, so all of `data` is checked first: the only
controls allowed are BEL, BS, HT, LF and CR, and the only escape sequences SGR
(`ESC[...m`), the ones that act on the cursor's row alone (`ESC[...K` erase in
line, `G` column, `C`/`D` right/left, `X` erase, `P` delete, `@` insert
characters), cursor show/hide (`ESC[?25h`/`l`) and `ESC(B` (the default
character set). Anything else (cursor moves up or to a position, clearing the
screen, scroll regions, modes, the alternate screen, OSC and other control
strings, C1 controls) means the whole output is emulated, as before.
"""

from __future__ import annotations

import re
from typing import Final

from acp_tui.terminal.emulator import TerminalEmulator, line_tail_offset

__all__ = ["final_text", "tail_start"]

_SAFE_ESCAPES: Final = re.compile(rb"\x1b(?:\[[0-9;:]*[mKGCDXP@]|\[\?25[hl]|\(B)")
"""The escape sequences allowed (see the module docstring): each holds one ESC."""

_C1: Final = re.compile(rb"\xc2[\x80-\x9f]")
"""A C1 control (such as CSI, U+009B) in its UTF-8 form."""

_CHECKED: Final = bytes([*range(0x07), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
"""Every control but BEL, BS, HT, LF and CR; ESC among them."""

_NOT_CHECKED: Final = bytes(b for b in range(256) if b not in _CHECKED)


def _only_row_local(data: bytes) -> bool:
    """Whether `data` holds only what acts on the cursor's row (module docstring)."""
    checked = data.translate(None, _NOT_CHECKED)  # its controls, in C: fast
    escapes = checked.count(0x1B)
    if escapes != len(checked):
        return False  # a control other than ESC
    if escapes and sum(1 for _ in _SAFE_ESCAPES.finditer(data)) != escapes:
        return False  # an ESC that starts no allowed sequence
    return _C1.search(data) is None


def tail_start(data: bytes, lines: int, history: int) -> int:
    """Where emulating `data` may start and still end with the same text (or 0).

    Args:
        data: All the output.
        lines: The screen's height.
        history: The most scrollback lines kept.
    """
    start = line_tail_offset(data, history + 2 * lines + 1)
    if start == 0 or not _only_row_local(data):
        return 0
    return start


def final_text(
    data: bytes, columns: int = 120, lines: int = 40, history: int = 10_000
) -> str:
    """The scrollback and screen as plain text after all of `data` (see the module).

    Args:
        data: All the output, as the terminal produced it.
        columns: Screen width in cells.
        lines: Screen height in lines.
        history: Most lines kept in the scrollback above the screen.
    """
    emulator = TerminalEmulator(columns, lines, history)
    start = tail_start(data, lines, history)
    emulator.feed(data[start:] if start else data)
    return emulator.text()
