"""`final_text` equals full emulation, and emulates only a tail where it may.

Small screens and histories (10 columns, 4 lines, 20 lines of scrollback) make
the tail rule bite on short outputs; hypothesis builds outputs from the pieces
real tools write (text, wide and combining characters, `\\r` progress bars, SGR,
erase in line, tabs, backspaces, long lines that wrap) mixed with what must make
it emulate everything (cursor moves, clearing, scroll regions, the alternate
screen, OSC and DCS strings, C1 controls, other character sets).
"""

from __future__ import annotations

import re
from typing import Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.terminal import emulator as emulator_module
from acp_tui.terminal import final_text as module
from acp_tui.terminal.emulator import TerminalEmulator
from acp_tui.terminal.final_text import final_text, tail_start

COLUMNS: Final = 10
LINES: Final = 4
HISTORY: Final = 20
NEEDED: Final = HISTORY + 2 * LINES + 1


def full(data: bytes, chunks: int = 1) -> str:
    """The reference: every byte emulated (in `chunks` pieces)."""
    emulator = TerminalEmulator(COLUMNS, LINES, HISTORY)
    step = max(1, len(data) // chunks)
    for start in range(0, len(data), step):
        emulator.feed(data[start : start + step])
    return emulator.text()


def fast(data: bytes) -> str:
    return final_text(data, COLUMNS, LINES, HISTORY)


def lines(count: int, prefix: str = "line") -> bytes:
    return b"".join(f"{prefix} {n}\r\n".encode() for n in range(count))


def test_short_output_is_emulated_whole() -> None:
    data = lines(NEEDED - 1)
    assert tail_start(data, LINES, HISTORY) == 0
    assert fast(data) == full(data)


def test_long_plain_output_starts_at_a_line_feed_near_the_end() -> None:
    data = lines(500)
    start = tail_start(data, LINES, HISTORY)
    assert start > 0
    assert data[start - 1 : start] == b"\n"
    assert data[start:].count(b"\n") >= HISTORY + 2 * LINES
    assert fast(data) == full(data)


def test_progress_bars_colours_and_line_edits_keep_the_tail() -> None:
    bar = b"".join(
        b"\r\x1b[38;5;82m" + b"#" * n + b"\x1b[0m " + str(n * 10).encode() + b"%\x1b[K"
        for n in range(11)
    )
    data = (bar + b"\r\n\x1b[1mok\x1b[m\tdone\x08!\x1b[3G*\r\n") * 60
    assert tail_start(data, LINES, HISTORY) > 0
    assert fast(data) == full(data) == full(data, chunks=37)


def read_without_the_emulator(data: bytes, monkeypatch: pytest.MonkeyPatch) -> str:
    """`data`'s full emulation, which `fast` gives with no line emulated."""
    expected = full(data)

    def no_emulator(*args: object) -> None:
        raise AssertionError("a line was emulated")

    monkeypatch.setattr(emulator_module, "TerminalEmulator", no_emulator)
    assert tail_start(data, LINES, HISTORY) > 0
    assert fast(data) == expected
    return expected


def test_progress_bars_and_check_marks_are_read_without_the_emulator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lines a build prints most are worked out as text, not emulated one by one.

    A `\\r` progress bar (each part ending in an erase, or shorter and
    overwriting) and a test runner's check marks: the emulator is used only for
    the long output's start check, never per line.
    """
    bar = b"".join(
        b"\r\x1b[38;5;82m" + "\u2588".encode() * n + b"\x1b[0m " + b"%d%%\x1b[K" % n
        for n in range(5)  # at most 7 cells: the screen is 10 wide
    )
    data = (bar + b"\r\n\x1b[1;32mok \xe2\x9c\x93\x1b[0m\r\nlong line\rshort\r\n") * 40
    data += b"\x1b[31mFAILED \xe2\x9c\x97\x1b[0m\x1b[0K\r\n"
    expected = read_without_the_emulator(data, monkeypatch)
    assert "FAILED \u2717" in expected
    assert "shortline" in expected


def test_bytes_that_are_not_utf8_are_read_without_the_emulator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Output cut inside a character (a byte cap, a chunk boundary) stays text.

    The emulator draws one replacement character per bad sequence, as the line
    feed after it ends the sequence; the plain path reads it the same way.
    """
    bar = "\r\u2588\u2588\u2591 40%\x1b[K".encode()
    data = (bar[:-6] + b"\r\n" + b"x\xe2\x96\xff\xc3y\r\n" + b"ok\n") * 40
    expected = read_without_the_emulator(data, monkeypatch)
    assert "x\ufffd\ufffd\ufffdy" in expected


def test_a_character_cut_at_the_very_end_is_left_to_the_emulator() -> None:
    """The decoder may still hold back the last bytes: no line feed ended them."""
    for end in (b"\xe2\x96", b"\xe2", b"\xff", b"ab\xe2\x96\x88"):
        data = lines(100) + b"tail " + end
        assert fast(data) == full(data), end
        assert fast(data) == full(data, chunks=3), end


def test_bare_line_feeds_and_wrapping_lines() -> None:
    data = (b"abcdefghijklmnopqrstuvwxyz\nshort\n\xe4\xb8\xad\xe6\x96\x87 wide\n") * 40
    assert tail_start(data, LINES, HISTORY) > 0
    assert fast(data) == full(data)


UNSAFE: Final = (
    b"\x1b[2A",  # cursor up: back into earlier lines
    b"\x1b[1;1H",  # cursor position
    b"\x1b[2J",  # clear screen
    b"\x1b[?1049h",  # alternate screen
    b"\x1b[2;3r",  # scroll region
    b"\x1b[?7l",  # no autowrap
    b"\x1b]0;title\x07",  # OSC
    b"\x1bPq",  # DCS, left open
    b"\x1b(0",  # DEC line drawing
    b"\x1b7",  # save cursor
    b"\x1bM",  # reverse index
    b"\x0c",  # form feed
    "\x9b2J".encode(),  # C1 CSI
)


def test_anything_that_reaches_beyond_the_row_means_full_emulation() -> None:
    for sequence in UNSAFE:
        data = lines(10) + sequence + lines(200, "after")
        assert tail_start(data, LINES, HISTORY) == 0, sequence
        assert fast(data) == full(data), sequence


def test_cursor_movement_split_across_chunks_and_clear_screen() -> None:
    """The tricky outputs of a real terminal still give the full emulation's text."""
    data = lines(100) + b"\x1b[5" + b"A\x1b[2Kredrawn\x1b[10B" + lines(100, "x")
    assert fast(data) == full(data) == full(data, chunks=7)
    cleared = lines(300) + b"\x1b[H\x1b[2Jfresh\r\n" + lines(3, "y")
    assert fast(cleared) == full(cleared)


SAFE_PIECES: Final = [
    b"a",
    b" ",
    "\u2588\u2591".encode(),
    "\u00e9\u2014".encode(),
    b"\xff",
    b"\xe2\x96",
    b"\xc3",
    b"word ",
    b"abcdefghijklmno",
    b"\xe4\xb8\xad",
    b"e\xcc\x81",
    b"\r",
    b"\n",
    b"\r\n",
    b"\t",
    b"\x08",
    b"\x07",
    b"\x1b[31m",
    b"\x1b[0m",
    b"\x1b[K",
    b"\x1b[0K",
    b"\x1b[1K",
    "\u2713\u2717".encode(),
    b"\x1b[5G",
    b"\x1b[2C",
    b"\x1b[3D",
    b"\x1b[2X",
    b"\x1b[P",
    b"\x1b[2@",
    b"\x1b[?25l",
    b"\x1b(B",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(SAFE_PIECES), max_size=400),
    st.lists(st.sampled_from(SAFE_PIECES + list(UNSAFE)), max_size=60),
    st.integers(min_value=1, max_value=5),
)
def test_the_same_text_as_full_emulation(
    body: list[bytes], head: list[bytes], chunks: int
) -> None:
    data = b"".join(head) + b"".join(body) + lines(NEEDED // 2)
    assert fast(data) == full(data, chunks)


def test_the_check_is_over_all_of_the_output() -> None:
    """An unsafe sequence long before the tail still counts."""
    assert module._only_row_local(lines(5) + b"\x1b[31mred\x1b[m")
    assert not module._only_row_local(b"\x1b[2J" + lines(5))
    assert not module._only_row_local(lines(5) + b"\x1b")


def test_rows_exactly_as_wide_as_the_screen_and_one_more() -> None:
    for width in (COLUMNS - 1, COLUMNS, COLUMNS + 1):
        row = b"x" * (width - 1) + b"y"
        data = (row + b"\r\n" + row + b"\x1b[K\r" + b"z" * width + b"\n") * 30
        assert tail_start(data, LINES, HISTORY) > 0
        assert fast(data) == full(data), width


def test_erasing_part_of_a_row() -> None:
    for cursor in range(COLUMNS + 1):  # the cursor is where the writing left it
        for mode in (b"", b"0", b"1", b"2"):
            line = b"0123456789\r" + b"abcdefghij"[:cursor]
            data = (line + b"\x1b[" + mode + b"K\r\n") * 30
            assert fast(data) == full(data), (cursor, mode)


def test_every_character_taken_as_narrow_is_one_cell() -> None:
    """Each character of the plain path draws as itself in one cell."""
    ranges = re.findall(r"(.)-(.)", module._NARROW)
    for low, high in ranges:
        for code in range(ord(low), ord(high) + 1):
            emulator = TerminalEmulator(COLUMNS, LINES, HISTORY)
            emulator.feed(f"{chr(code)}|".encode())
            assert emulator.rows_to_cursor() == [f"{chr(code)}|"], hex(code)
