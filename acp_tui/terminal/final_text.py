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

from acp_tui.terminal.line_offsets import line_tail_offset

__all__ = ["final_text", "tail_start"]

_UNSAFE_ESCAPE: Final = re.compile(rb"\x1b(?!\[[0-9;:]*[mKGCDXP@]|\[\?25[hl]|\(B)")
"""An ESC that starts none of the escape sequences allowed (module docstring)."""

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
    if escapes and _UNSAFE_ESCAPE.search(data) is not None:
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
    start = tail_start(data, lines, history)
    if start == 0:
        from acp_tui.terminal.emulator import TerminalEmulator

        emulator = TerminalEmulator(columns, lines, history)
        emulator.feed(data)
        return emulator.text()
    # Every row that can still show was made blank by a scroll and then written
    # by one line alone: each line's rows are worked out on their own, from the
    # last line back, until the scrollback and the screen are full.
    wanted = history + lines
    backwards: list[list[str]] = []
    count = 0
    tail = data[start:]
    raw = tail.split(b"\n")
    plain = _without_sgr(tail)
    last = len(raw) - 1
    for index in range(last, -1, -1):
        backwards.append(_line_rows(raw[index], columns, plain[index], index < last))
        count += len(backwards[-1])
        if count >= wanted:
            break
    rows = [row for line_rows in reversed(backwards) for row in line_rows]
    rows = rows[len(rows) - wanted :] if len(rows) > wanted else rows
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows)


_NARROW: Final = (
    "\x20-\x7e\xa1-\xac\xae-\u02ff\u2010-\u2027\u2190-\u21ff\u2500-\u25ff\u270c-\u2727"
    "\ufffd-\ufffd"
)
"""Characters one cell wide that draw as themselves: printable ASCII, Latin-1
and the Latin extensions (not the soft hyphen), general punctuation (dashes,
quotes, bullets), arrows, box drawing, blocks and geometric shapes, the
dingbats that test runners print (check marks and crosses, not the wide emoji
around them), and the replacement character, which the emulator draws for bytes
that are not UTF-8 (a test checks each against the emulator)."""

_ESCAPED_BYTE: Final = re.compile("[\udc80-\udcff]")
"""A byte that is not UTF-8, as `_without_sgr` decodes it (surrogateescape)."""

_PLAIN_LINE: Final = re.compile(rf"(?:[{_NARROW}\r]++|\x1b\[[012]?K)*")
"""A line, its SGR taken out, of narrow characters, carriage returns and
erase-in-line only.

Taking SGR out first is exact here: in a tail (`_only_row_local`) every ESC
starts one allowed sequence, so the SGR matches are exactly its SGR sequences,
and what is left keeps its other sequences whole."""

_SGR: Final = re.compile(r"\x1b\[[0-9;:]*m")

_PLAIN_TOKEN: Final = re.compile(rf"[{_NARROW}]+|\r|\x1b\[([012]?)K")


def _without_sgr(tail: bytes) -> list[str]:
    r"""The tail's lines as text without SGR, in one pass.

    Line for line with `tail.split(b"\\n")`: a line feed is one byte in UTF-8,
    and no SGR holds one. Bytes that are not UTF-8 become lone surrogates, which
    no plain line holds: such a line goes to the emulator, as its bytes.
    """
    return _SGR.sub("", tail.decode("utf-8", "surrogateescape")).split("\n")


def _line_rows(line: bytes, columns: int, plain: str, ended: bool = True) -> list[str]:
    """The rows one line (without its line feed) leaves, begun on a blank row.

    `plain`: the line as `_without_sgr` gives it. `ended`: a line feed follows the
    line; then its bytes that are not UTF-8 read as the emulator's decoder reads
    them (one U+FFFD per bad sequence, which the line feed ends). At the end of
    the output the decoder may still hold a sequence back: the emulator's business.
    """
    plain_line = _PLAIN_LINE.fullmatch(plain) is not None
    if not plain_line and ended and _ESCAPED_BYTE.search(plain) is not None:
        plain = _SGR.sub("", line.decode("utf-8", "replace"))
        plain_line = _PLAIN_LINE.fullmatch(plain) is not None
    if plain_line:
        row = _plain_row(plain, columns)
        if row is not None:
            return [row]
    # Anything else (wide or combining characters, tabs, wrapping, moves within
    # the row): the emulator, on a screen tall enough that nothing scrolls.
    # Imported here: plain output never needs pyte (nor its import time).
    from acp_tui.terminal.emulator import TerminalEmulator

    emulator = TerminalEmulator(columns, len(line) // columns + 2, 0)
    emulator.feed(line)
    return emulator.rows_to_cursor()


def _plain_row(line: str, columns: int) -> str | None:
    """The row a plain line (`_PLAIN_LINE`, no SGR) leaves; None if it would wrap."""
    text = line[:-1] if line.endswith("\r") else line
    if "\r" not in text and "\x1b" not in text:  # most lines: written once
        return None if len(text) > columns else text.rstrip(" ")
    # Progress bars: each `\r` part overwrites the row from column 0, erasing
    # the rest when it ends with an erase to the end of the row.
    row = ""
    for part in text.split("\r"):
        body = part.removesuffix("\x1b[K").removesuffix("\x1b[0K")
        if "\x1b" in body:
            return _token_row(line, columns)
        if len(body) > columns:
            return None  # it wraps: the emulator's business
        row = body if len(body) != len(part) else body + row[len(body) :]
    return row.rstrip(" ")


def _token_row(line: str, columns: int) -> str | None:
    """`_plain_row` token by token: any erase in line, anywhere in a part."""
    cells: list[str] = []
    cursor = 0
    for token in _PLAIN_TOKEN.finditer(line):
        text = token.group()
        first = text[0]
        if first == "\r":
            cursor = 0
        elif first != "\x1b":
            end = cursor + len(text)
            if end > columns:
                return None  # it wraps: the emulator's business
            if cursor > len(cells):
                cells.extend(" " * (cursor - len(cells)))
            cells[cursor:end] = text
            cursor = end
        elif text[-1] == "K":  # erase in line: 0 to its end, 1 to the cursor, 2 all
            mode = token.group(1)
            if mode in ("", "0"):
                del cells[cursor:]
            elif mode == "2":
                cells.clear()
            elif cursor >= columns:
                return None
            else:
                end = min(cursor + 1, len(cells))
                cells[:end] = " " * end
    return "".join(cells).rstrip(" ")
