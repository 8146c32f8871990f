"""A sandboxed terminal emulator over pyte: agent output in, screen text out.

`TerminalEmulator` interprets the bytes a terminal produced (a v1 client-owned
terminal's process output, or a v2 agent's `terminal_output_chunk`s and snapshots)
into a screen plus scrollback. It only *interprets*: nothing an agent sends ever
reaches the user's real terminal or any process.

Sandboxing:

- Requests that a real terminal answers (device attributes `ESC[c`, device status and
  cursor position `ESC[5n` / `ESC[6n`) are ignored, and the reply path
  (`write_process_input`) drops everything: there is no process input to write to.
- OSC sequences are data only: a window title (`ESC]0;…BEL`, `ESC]2;…BEL`) is kept as
  `title`, capped in length, and other OSC commands are dropped by the parser.
- Control strings (DCS such as a DECRQSS query `ESC P $ q … ST`, and SOS, PM,
  APC, in their ESC and C1 forms) are skipped whole, even split across chunks: pyte
  would print their contents as text.
- Malformed sequences (too many parameters, odd digits) make pyte raise; the stream
  drops the broken sequence and carries on with the next character, so no agent
  output can raise out of `feed`.
- Input is always UTF-8, decoded incrementally: chunks may split a code point or an
  escape sequence anywhere, and invalid bytes show as U+FFFD. The `ESC % @` switch to
  Latin-1 is ignored.

A line feed also returns the carriage (LNM always on): output from a pipe has bare
LFs, which a terminal's user only ever sees through the tty's `onlcr`, so every
line starts at column 0 whichever way the bytes came.

Cells keep pyte's attributes (colours, bold, reverse…) for the renderer; `text()`
exposes the plain text only.

Beyond plain pyte 0.8.2, the screen here draws text through its own fast path (cells
are cached per attribute set, runs of ASCII or other one-cell characters are written a
line segment at a time), the stream caches what each SGR sequence does to each
attribute set (colour changes are mostly the same few transitions), the screen skips
`HistoryScreen`'s per-attribute event wrapper (it only serves paging, which is never
used), and no longer stops drawing a chunk at the first zero-width or unprintable
character (pyte drops the rest of the chunk there; here a zero-width character joins
the previous cell and an unprintable one is skipped).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from acp_tui.terminal.line_offsets import line_tail_offset

if TYPE_CHECKING:
    import pyte
    from pyte.screens import Char

__all__ = ["MAX_TITLE_LENGTH", "TerminalEmulator", "line_tail_offset", "tail_offset"]

MAX_TITLE_LENGTH: Final = 1024
"""Longest window title or icon name kept (an OSC title is agent-controlled data)."""

_EMPTY_LINE: Final[Mapping[int, Char]] = {}


class TerminalEmulator:
    """A sandboxed terminal: feed it bytes, read back the screen and scrollback.

    Wraps a `pyte.HistoryScreen` and a `pyte.ByteStream` (both hardened, see the
    module docstring). Carriage returns overwrite in place, so a progress bar ends up
    showing its final state; colours and other attributes stay on the screen's cells.

    Args:
        columns: Screen width in cells.
        lines: Screen height in lines.
        history: Most lines kept in the scrollback above the screen.
    """

    def __init__(
        self, columns: int = 120, lines: int = 40, history: int = 10_000
    ) -> None:
        if columns < 1 or lines < 1:
            raise ValueError(
                f"a terminal needs at least 1x1 cells, got {columns}x{lines}"
            )
        if history < 0:
            raise ValueError(f"history must not be negative, got {history}")
        self._history = history
        self._size = (columns, lines)
        # pyte is imported here, with the first terminal emulated (see `sandbox`).
        from acp_tui.terminal.sandbox import SandboxScreen, SandboxStream

        self._screen = SandboxScreen(columns, lines, history)
        self._stream = SandboxStream(self._screen)

    @property
    def columns(self) -> int:
        """Screen width in cells."""
        columns: int = self._screen.columns
        return columns

    @property
    def lines(self) -> int:
        """Screen height in lines."""
        lines: int = self._screen.lines
        return lines

    @property
    def title(self) -> str:
        """The last window title the output set (OSC 0 or 2), or ""."""
        title: str = self._screen.title
        return title

    @property
    def screen(self) -> pyte.HistoryScreen:
        """The underlying pyte screen, read-only by convention (for renderers).

        Cells (`screen.buffer[y][x]`, `screen.history.top`) carry pyte's colours and
        attributes; `screen.dirty` lists the screen lines changed since it was last
        cleared. `reset()` replaces the screen object.
        """
        return self._screen

    def feed(self, data: bytes) -> None:
        """Interpret a chunk of output: it may end anywhere, and it never raises.

        Args:
            data: Raw bytes, in the order the terminal produced them.
        """
        self._stream.feed(data)

    def reset(self) -> None:
        """Start afresh at the same size: empty screen and scrollback, no parser state.

        Use it when an authoritative snapshot replaces all earlier output.
        """
        columns, lines = self._size
        from acp_tui.terminal.sandbox import SandboxScreen, SandboxStream

        self._screen = SandboxScreen(columns, lines, self._history)
        self._stream = SandboxStream(self._screen)

    def resize(self, columns: int, lines: int) -> None:
        """Change the screen size; lines scrolled off the top go to the scrollback.

        Args:
            columns: New width in cells.
            lines: New height in lines.
        """
        if columns < 1 or lines < 1:
            raise ValueError(
                f"a terminal needs at least 1x1 cells, got {columns}x{lines}"
            )
        self._size = (columns, lines)
        self._screen.resize(lines, columns)

    @property
    def history_size(self) -> int:
        """Lines in the scrollback above the screen (at most `history`)."""
        return len(self._screen.history.top)

    @property
    def row_count(self) -> int:
        """Lines with output: the scrollback, then the screen to its last text.

        Blank lines below the output are not counted.
        """
        screen = self._screen
        buffer = screen.buffer
        used = 0
        for y in range(screen.lines - 1, -1, -1):
            line = buffer.get(y)
            if line and _line_text(line):
                used = y + 1
                break
        return len(screen.history.top) + used

    def row(self, index: int) -> Mapping[int, Char]:
        """The cells of one line, counting the scrollback first, then the screen.

        Args:
            index: 0 is the oldest scrollback line; `history_size` the screen's top.

        Returns:
            Cells by column (gaps are blanks); empty for a line never written.
        """
        screen = self._screen
        history = screen.history.top
        if 0 <= index < len(history):
            line: Mapping[int, Char] = history[index]
            return line
        line = screen.buffer.get(index - len(history), _EMPTY_LINE)
        return line

    def rows_to_cursor(self) -> list[str]:
        """The text of every line from the oldest scrollback line to the cursor's.

        Trailing blanks are cut from each line; blank lines are kept.
        """
        return self._rows(self._screen.cursor.y + 1)

    def text(self) -> str:
        """The scrollback and the screen as plain text.

        Each line loses its trailing blanks, trailing empty lines are dropped, and the
        lines are joined with newlines (no final newline).
        """
        rows = self._rows(self._screen.lines)
        while rows and not rows[-1]:
            rows.pop()
        return "\n".join(rows)

    def _rows(self, screen_rows: int) -> list[str]:
        """The scrollback's lines, then the screen's first `screen_rows`, as text."""
        screen = self._screen
        buffer = screen.buffer
        rows = [_line_text(line) for line in screen.history.top]
        rows.extend(
            _line_text(buffer[y]) if y in buffer else "" for y in range(screen_rows)
        )
        return rows


def tail_offset(data: bytes, limit: int) -> int:
    """Where to start feeding `data` to emulate only about its last `limit` bytes.

    This catches up at a bounded cost when far behind.
    The start is just after a line feed (else a carriage return) in the tail, so
    emulation begins at a line boundary and never inside a UTF-8 sequence. What
    was before it only mattered to lines that scroll off anyway, except for
    attributes set earlier and still in effect, and cursor moves back into
    earlier lines: the tail is an approximation of the full emulation.

    Args:
        data: All the output.
        limit: The most bytes to emulate (at least 1).

    Returns:
        An offset into `data`: 0 if it is no longer than `limit`.
    """
    size = len(data)
    if size <= limit:
        return 0
    start = size - max(1, limit)
    for boundary in (b"\n", b"\r"):
        found = data.find(boundary, start)
        if found != -1:
            return found + 1
    while start < size and 0x80 <= data[start] < 0xC0:
        start += 1  # Not inside a UTF-8 sequence.
    return start


def _line_text(line: Mapping[int, Char]) -> str:
    """One line's characters, gaps as spaces, trailing blanks stripped."""
    if not line:
        return ""
    chars = [" "] * (max(line) + 1)
    for x, cell in line.items():
        chars[x] = cell.data
    return "".join(chars).rstrip(" ")
