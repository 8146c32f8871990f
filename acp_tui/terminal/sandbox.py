"""The pyte screen and stream behind `TerminalEmulator` (see `terminal.emulator`).

Apart from `terminal.emulator` so that importing the emulator's module (the app's
terminal cards do, at start) does not load pyte and wcwidth's tables: they are
imported when the first terminal is emulated.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Final

import pyte
from pyte import charsets, control, modes
from pyte.screens import Char, wcwidth

from acp_tui.terminal.emulator import MAX_TITLE_LENGTH

__all__ = ["SandboxScreen", "SandboxStream"]

_MAX_CELL_CACHES: Final = 256
"""Distinct attribute sets whose cells are cached before the cache starts afresh."""

_IDENTITY_CHARSET: Final = charsets.LAT1_MAP


class _Cells(dict[str, Char]):
    """The cells for one attribute set, keyed by character, built on first use.

    `Char` is an immutable named tuple, so one cell object can fill many positions.
    """

    __slots__ = ("attrs",)

    def __init__(self, attrs: Char) -> None:
        super().__init__()
        self.attrs = attrs

    def __missing__(self, char: str) -> Char:
        cell: Char = self.attrs._replace(data=char)
        self[char] = cell
        return cell


class _Widths(dict[str, int]):
    """Each character's cell width (`wcwidth`), computed on first use."""

    __slots__ = ()

    def __missing__(self, char: str) -> int:
        width: int = wcwidth(char)
        if len(self) < _MAX_WIDTHS:
            self[char] = width
        return width


_MAX_WIDTHS: Final = 65_536
"""Distinct characters whose width is remembered."""

_WIDTHS: Final = _Widths()


def _all_narrow(text: str) -> bool:
    """Whether every character of `text` takes exactly one cell."""
    return set(map(_WIDTHS.__getitem__, text)) == {1}


def _without_deccolm(modes_: tuple[int, ...], kwargs: dict[str, Any]) -> list[int]:
    """The modes of a set/reset mode sequence without DECCOLM (`ESC[?3h`)."""
    if not kwargs.get("private"):
        return list(modes_)
    return [mode for mode in modes_ if mode << 5 != modes.DECCOLM]


class SandboxScreen(pyte.HistoryScreen):
    """`pyte.HistoryScreen` with the sandboxing and the fast drawing path."""

    # HistoryScreen wraps every event in `before_event`/`after_event` by overriding
    # `__getattribute__`, which makes *every* attribute access a Python call (about
    # 4x slower overall). The wrappers only matter for paging (`prev_page` and
    # `next_page`), which this screen never does, so use the plain C slot.
    __getattribute__ = object.__getattribute__

    def __init__(self, columns: int, lines: int, history: int) -> None:
        self._cell_caches: dict[Char, _Cells] = {}
        self._last_cells: _Cells | None = None
        super().__init__(columns, lines, history=history)

    # -- sandboxing -------------------------------------------------------------------

    def write_process_input(self, data: str) -> None:
        """Drop replies meant for the process: there is no process input here."""

    def report_device_attributes(self, mode: int = 0, **kwargs: bool) -> None:
        """Ignore a device attributes request (`ESC[c`): nothing may answer."""

    def report_device_status(self, mode: int) -> None:
        """Ignore a status or cursor position request (`ESC[5n`, `ESC[6n`)."""

    def set_title(self, param: str) -> None:
        """Keep the window title as data (capped), never pass it on."""
        self.title = param[:MAX_TITLE_LENGTH]

    def set_icon_name(self, param: str) -> None:
        """Keep the icon name as data (capped), never pass it on."""
        self.icon_name = param[:MAX_TITLE_LENGTH]

    def set_mode(self, *modes_: int, **kwargs: Any) -> None:
        """Set modes, except DECCOLM: the host sets the size (xterm's default too)."""
        super().set_mode(*_without_deccolm(modes_, kwargs), **kwargs)

    def reset_mode(self, *modes_: int, **kwargs: Any) -> None:
        """Reset modes, except DECCOLM (see `set_mode`)."""
        super().reset_mode(*_without_deccolm(modes_, kwargs), **kwargs)

    def linefeed(self) -> None:
        """A line feed always starts a new line, as if LNM were set.

        On a PTY the tty driver's `onlcr` turns each LF a program writes into
        CR LF; output read from a pipe (what claude-agent-acp sends) has bare
        LFs. A terminal's user sees the former, so LF returns the carriage too:
        CR LF from a PTY is unchanged, and a bare LF no longer makes a staircase.
        """
        self.index()
        self.carriage_return()

    # -- drawing ----------------------------------------------------------------------

    def _cells(self, attrs: Char) -> _Cells:
        cells = self._last_cells
        if cells is not None and cells.attrs is attrs:
            return cells
        caches = self._cell_caches
        cells = caches.get(attrs)
        if cells is None:
            if len(caches) >= _MAX_CELL_CACHES:
                caches.clear()
            cells = caches[attrs] = _Cells(attrs)
        self._last_cells = cells
        return cells

    def draw(self, data: str) -> None:
        """Display text at the cursor, wrapping at the right margin under DECAWM.

        Same effect as `pyte.Screen.draw`, except that zero-width characters join the
        previous cell and unprintable ones are skipped instead of ending the chunk.
        """
        table = self.g1_charset if self.charset else self.g0_charset
        if table is not _IDENTITY_CHARSET:
            data = data.translate(table)
        if modes.IRM in self.mode:
            self._draw_any(data)
        elif data.isascii():
            if data.isprintable():
                self._draw_ascii(data)
            else:
                self._draw_any(data)
        elif data.isprintable() and _all_narrow(data):
            self._draw_narrow(data)
        else:
            self._draw_any(data)

    def _draw_ascii(self, data: str) -> None:
        """Draw printable ASCII in replace mode (the usual case)."""
        cursor = self.cursor
        x = cursor.x
        end = x + len(data)
        if end <= self.columns:  # The usual case: it fits on the cursor's line.
            cells = self._cells(cursor.attrs)
            line = self.buffer[cursor.y]
            line.update(zip(range(x, end), map(cells.__getitem__, data), strict=True))
            cursor.x = end
            self.dirty.add(cursor.y)
        else:
            self._draw_narrow(data)

    def _draw_narrow(self, data: str) -> None:
        """Draw characters one cell wide each (replace mode), wrapping lines."""
        cursor = self.cursor
        cells = self._cells(cursor.attrs)
        columns = self.columns
        dirty = self.dirty
        pos, end = 0, len(data)
        while pos < end:
            x = cursor.x
            if x >= columns:
                if modes.DECAWM not in self.mode:
                    # Without autowrap, every further character lands on the last
                    # column, so only the final one remains there.
                    self.buffer[cursor.y][columns - 1] = cells[data[-1]]
                    break
                dirty.add(cursor.y)
                self.carriage_return()
                self.linefeed()
                x = 0
            segment = data[pos : pos + columns - x]
            line = self.buffer[cursor.y]
            line.update(
                zip(
                    range(x, x + len(segment)),
                    map(cells.__getitem__, segment),
                    strict=True,
                )
            )
            cursor.x = x + len(segment)
            pos += len(segment)
        dirty.add(cursor.y)

    def _draw_any(self, data: str) -> None:
        """Draw any text: wide, zero-width and unprintable characters included."""
        cursor = self.cursor
        columns = self.columns
        for char in data:
            width = wcwidth(char)
            if width < 0:
                continue  # Unprintable (a stray control character): no effect.
            if width == 0:
                self._join_previous(char)
                continue
            if cursor.x >= columns:
                if modes.DECAWM in self.mode:
                    self.dirty.add(cursor.y)
                    self.carriage_return()
                    self.linefeed()
                else:
                    cursor.x = max(0, columns - width)
            if modes.IRM in self.mode:
                self.insert_characters(width)
            cells = self._cells(cursor.attrs)
            line = self.buffer[cursor.y]
            x = cursor.x
            line[x] = cells[char]
            if width == 2 and x + 1 < columns:
                line[x + 1] = cells[""]  # The stub cell after a wide character.
            cursor.x = min(x + width, columns)
        self.dirty.add(cursor.y)

    def _join_previous(self, char: str) -> None:
        """Append a zero-width character to the cell before the cursor."""
        cursor = self.cursor
        if cursor.x:
            y, x = cursor.y, cursor.x - 1
        elif cursor.y:
            y, x = cursor.y - 1, self.columns - 1
        else:
            return
        line = self.buffer[y]
        if x > 0 and line[x].data == "":
            x -= 1  # The stub of a wide character: join the character itself.
        last = line[x]
        joined = last.data + char
        if unicodedata.combining(char):
            joined = unicodedata.normalize("NFC", joined)
        line[x] = last._replace(data=joined)
        self.dirty.add(y)

    # -- scrolling --------------------------------------------------------------------

    def index(self) -> None:
        """Move down a line; at the bottom margin, scroll (the top line to history).

        `HistoryScreen.index` and `Screen.index` in one call (it runs once per line
        of output).
        """
        cursor = self.cursor
        last = self.lines - 1
        top, bottom = self.margins or (0, last)
        if cursor.y != bottom:
            self.cursor_down()
            return
        buffer = self.buffer
        self.history.top.append(buffer[top])
        self.dirty.update(range(self.lines))
        for y in range(top, bottom):
            buffer[y] = buffer[y + 1]
        buffer.pop(bottom, None)

    # -- geometry ---------------------------------------------------------------------

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Resize the screen, keeping the cursor's line and the scrollback.

        Unlike pyte, shrinking the height scrolls the lines above the cursor into the
        scrollback (as xterm does) instead of deleting them, and empty lines below
        the cursor go first.
        """
        lines = lines or self.lines
        columns = columns or self.columns
        if lines == self.lines and columns == self.columns:
            return
        buffer = self.buffer
        cursor = self.cursor
        if lines < self.lines:
            scroll = max(0, cursor.y - (lines - 1))
            if scroll:
                self.history.top.extend(buffer[y] for y in range(scroll))
                for y in range(self.lines - scroll):
                    buffer[y] = buffer[y + scroll]
                cursor.y -= scroll
            for y in [y for y in buffer if y >= lines]:
                del buffer[y]
        if columns < self.columns:
            for line in buffer.values():
                for x in [x for x in line if x >= columns]:
                    del line[x]
        elif columns > self.columns:
            self.tabstops.update(range(8 * ((self.columns + 7) // 8), columns, 8))
        self.lines, self.columns = lines, columns
        self.margins = None
        cursor.x = min(cursor.x, columns)
        cursor.y = min(cursor.y, lines - 1)
        self.dirty.update(range(lines))


_SHIFTS: Final = (control.SO, control.SI)

_STRING_INTRODUCERS: Final = frozenset("P_^X")
"""After ESC: DCS, APC, PM and SOS, control strings that run up to ST (`ESC \\`)."""

_STRING_STARTS: Final = frozenset("\x90\x9f\x9e\x98")
"""The same four as C1 controls."""

_STRING_END: Final = re.compile("[\x1b\x9c]")
"""What ends a control string: ESC (ST is `ESC \\`; any other ESC aborts it) or
C1 ST."""

_PYTE_SPECIAL: Final = frozenset(
    (control.ESC, control.CSI_C1, control.NUL, control.DEL, control.OSC_C1)
)
"""What pyte's own text pattern stops at, besides the basic controls."""

_NOT_IN_STRING: Final = 0
_IN_STRING: Final = 1

_MAX_SGR_CACHE: Final = 1024
"""Cached SGR transitions before the cache starts afresh."""

_SGR: Final = re.compile(r"\x1b\[([0-9;]*)m")
"""A complete SGR sequence without private markers, as pyte's parser reads it."""


def _ignore() -> None:
    pass


class SandboxStream(pyte.ByteStream):
    """`pyte.ByteStream` pinned to UTF-8 that survives malformed sequences."""

    _text_pattern = re.compile(
        "[^"
        + "".join(map(re.escape, {*pyte.Stream.basic, *_STRING_STARTS, *_PYTE_SPECIAL}))
        + "]+"
    )
    """Plain text: up to a control, an escape or a control string (C1 included)."""

    def __init__(self, screen: SandboxScreen) -> None:
        self._string_state = _NOT_IN_STRING
        """Whether a control string (DCS, SOS, PM, APC) is being skipped."""
        self._held = ""
        """An ESC that ended the previous chunk, fed with the next one."""
        self._sgr_cache: dict[tuple[Char, str], Char] = {}
        """The attributes an SGR sequence leads to from given attributes (SGR only
        ever changes the cursor's attributes, so the result is a function of both)."""
        super().__init__(screen)

    def select_other_charset(self, code: str) -> None:
        """Ignore `ESC % @` / `ESC % G`: input is always UTF-8."""

    def feed(self, data: bytes) -> None:  # type: ignore[override]  # as pyte's own
        """Decode a chunk (incrementally) and interpret it."""
        self._feed_text(self.utf8_decoder.decode(data))

    def _feed_text(self, data: str) -> None:
        # `pyte.Stream.feed`, except that:
        # - an exception from a handler or the parser (a malformed sequence) drops that
        #   sequence instead of the rest of the chunk;
        # - in the ground state, the single-character controls (CR, LF, BS, ...) and
        #   complete SGR sequences (`ESC[...m`) are dispatched directly rather than a
        #   character at a time through pyte's parser coroutine. A sequence split
        #   across chunks still goes through the parser, with the same effect.
        listener = self.listener
        if listener is None:
            raise RuntimeError("no screen attached")
        draw = listener.draw
        sgr = listener.select_graphic_rendition
        controls = {
            char: getattr(listener, name)
            for char, name in self.basic.items()
            if char not in _SHIFTS
        }
        controls.update(dict.fromkeys(_SHIFTS, _ignore))  # No G1 shifts under UTF-8.
        send = self._send_to_parser
        match_text = self._text_pattern.match
        match_sgr = _SGR.match
        sgr_cache = self._sgr_cache
        taking_plain_text = self._taking_plain_text
        string_state = self._string_state
        if self._held:
            data = self._held + data
            self._held = ""
        length = len(data)
        offset = 0
        while offset < length:
            try:
                if taking_plain_text and not string_state:
                    match = match_text(data, offset)
                    if match:
                        start, offset = match.span()
                        draw(data[start:offset])
                        continue
                    control = controls.get(data[offset])
                    if control is not None:
                        offset += 1
                        control()
                        continue
                    match = match_sgr(data, offset)
                    if match:
                        offset = match.end()
                        cursor = listener.cursor
                        key = (cursor.attrs, match[1])
                        attrs = sgr_cache.get(key)
                        if attrs is None:
                            sgr(*[min(int(p or 0), 9999) for p in match[1].split(";")])
                            if len(sgr_cache) >= _MAX_SGR_CACHE:
                                sgr_cache.clear()
                            sgr_cache[key] = cursor.attrs
                        else:
                            cursor.attrs = attrs
                        continue
                    char = data[offset]
                    if char in _STRING_STARTS:  # C1 DCS, SOS, PM or APC
                        offset += 1
                        string_state = _IN_STRING
                        continue
                    if char == "\x1b":
                        if offset + 1 == length:
                            # What the ESC starts is in the next chunk: hold it.
                            self._held = char
                            break
                        if data[offset + 1] in _STRING_INTRODUCERS:
                            offset += 2
                            string_state = _IN_STRING
                            continue
                    taking_plain_text = False
                elif string_state:
                    match = _STRING_END.search(data, offset)
                    if match is None:
                        offset = length  # All of it is the string's: dropped.
                        continue
                    end = match.start()
                    offset = end + 1
                    if data[end] == "\x1b":
                        if offset == length:
                            self._held = "\x1b"  # ST or another sequence: see next.
                            break
                        if data[offset] == "\\":
                            offset += 1  # ST
                        else:
                            offset = end  # Another sequence aborts the string.
                    string_state = _NOT_IN_STRING
                else:
                    offset += 1
                    taking_plain_text = send(data[offset - 1])
            except Exception:  # Agent bytes must never raise out of `feed`.
                # pyte restarted its parser (or the failure was in drawing): resume
                # with plain text at the next character.
                self._initialize_parser()
                taking_plain_text = self._taking_plain_text
        self._taking_plain_text = taking_plain_text
        self._string_state = string_state
