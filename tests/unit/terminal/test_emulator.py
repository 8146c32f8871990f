"""The sandboxed terminal emulator: text, chunk splits, scrollback and sandboxing."""

from __future__ import annotations

import pyte
import pytest

from acp_tui.terminal.emulator import (
    MAX_TITLE_LENGTH,
    TerminalEmulator,
    line_tail_offset,
    tail_offset,
)


def feed_text(data: bytes, *, columns: int = 80, lines: int = 24) -> str:
    emulator = TerminalEmulator(columns, lines)
    emulator.feed(data)
    return emulator.text()


def feed_split(data: bytes, sizes: list[int], **kwargs: int) -> str:
    """Feed `data` cut into pieces of the given sizes (the rest at the end)."""
    emulator = TerminalEmulator(**kwargs)
    pos = 0
    for size in sizes:
        emulator.feed(data[pos : pos + size])
        pos += size
    emulator.feed(data[pos:])
    return emulator.text()


def test_defaults() -> None:
    emulator = TerminalEmulator()
    assert (emulator.columns, emulator.lines) == (120, 40)
    assert emulator.text() == ""
    assert emulator.title == ""


def test_plain_text() -> None:
    assert feed_text(b"hello\r\nworld\r\n") == "hello\nworld"


def test_bare_lf_starts_a_new_line() -> None:
    # Pipe output (claude-agent-acp's shell tool) has no CR: no staircase.
    assert feed_text(b"line-1\nline-2\nline-3\n") == "line-1\nline-2\nline-3"
    assert feed_text(b"ab\ncd") == "ab\ncd"


def test_bare_lf_with_colours_and_a_cr_progress_line() -> None:
    data = b"\x1b[32mok\x1b[0m\n50%\r100%\ndone\n"
    assert feed_text(data) == "ok\n100%\ndone"


def test_lnm_reset_does_not_bring_back_the_staircase() -> None:
    assert feed_text(b"\x1b[20lab\ncd") == "ab\ncd"


def test_trailing_blanks_and_empty_lines_are_dropped() -> None:
    assert feed_text(b"a   \r\n\r\n\r\nb  \r\n\r\n\r\n") == "a\n\n\nb"


def test_colours_do_not_appear_in_text() -> None:
    data = b"\x1b[31mred\x1b[0m \x1b[1;32mbold green\x1b[m \x1b[38;5;196mx\x1b[39m"
    assert feed_text(data) == "red bold green x"


def test_colours_are_kept_on_cells() -> None:
    emulator = TerminalEmulator()
    emulator.feed(b"\x1b[31mR\x1b[0mn\x1b[1;44mB")
    line = emulator.screen.buffer[0]
    assert (line[0].data, line[0].fg) == ("R", "red")
    assert (line[1].data, line[1].fg) == ("n", "default")
    assert (line[2].data, line[2].bold, line[2].bg) == ("B", True, "blue")


def test_carriage_return_overwrites_in_place() -> None:
    frames = [f"\r[{'#' * n}{'.' * (10 - n)}] {n * 10}%".encode() for n in range(11)]
    data = b"downloading\r\n" + b"".join(frames) + b"\r\ndone\r\n"
    assert feed_text(data) == "downloading\n[##########] 100%\ndone"


def test_shorter_progress_line_after_erase() -> None:
    assert feed_text(b"long status line\r\x1b[Kshort") == "short"


def test_backspace_and_tab() -> None:
    assert feed_text(b"abc\bX\r\n\tt") == "abX\n        t"


def test_wide_and_combining_characters() -> None:
    assert feed_text("中文 e\u0301 ok".encode()) == "中文 é ok"


def test_zero_width_characters_do_not_drop_the_rest() -> None:
    # pyte 0.8.2 stops drawing a chunk at VS16 / ZWJ; here they join the cell.
    text = "✔\ufe0f done 👩\u200d💻 typing"
    assert feed_text(text.encode()) == text


def test_stray_control_characters_are_skipped() -> None:
    assert feed_text(b"a\x01b\x02c\x00d\x7fe\x1b[z!") == "abcde!"


UTF8_AND_ESCAPES = "é中🎉 \x1b[31mred\x1b[0m plain\r\n\x1b[1;32mgreen\x1b[m ü".encode()


@pytest.mark.parametrize("cut", range(1, len(UTF8_AND_ESCAPES)))
def test_any_two_way_split_gives_the_same_text(cut: int) -> None:
    whole = feed_text(UTF8_AND_ESCAPES)
    assert whole == "é中🎉 red plain\ngreen ü"
    assert feed_split(UTF8_AND_ESCAPES, [cut], columns=80, lines=24) == whole


def test_split_inside_utf8_sequence() -> None:
    data = "aé中🎉b".encode()
    # Cut after every byte: every multi-byte character is split.
    assert feed_split(data, [1] * len(data)) == "aé中🎉b"
    emoji = "🎉".encode()
    assert feed_split(b"x" + emoji + b"y", [2, 1, 1]) == "x🎉y"


def test_split_inside_sgr_sequence() -> None:
    data = b"a\x1b[31mred\x1b[0mb"
    for sizes in ([2], [3], [4], [5], [1, 1, 1, 1, 1, 1], [1] * len(data)):
        emulator = TerminalEmulator()
        pos = 0
        for size in sizes:
            emulator.feed(data[pos : pos + size])
            pos += size
        emulator.feed(data[pos:])
        assert emulator.text() == "ared b".replace(" ", "")
        assert emulator.screen.buffer[0][1].fg == "red"
        assert emulator.screen.buffer[0][4].fg == "default"


def test_split_inside_osc_title() -> None:
    data = b"x\x1b]0;my title\x07y"
    for cut in range(1, len(data)):
        emulator = TerminalEmulator()
        emulator.feed(data[:cut])
        emulator.feed(data[cut:])
        assert emulator.text() == "xy"
        assert emulator.title == "my title"


def test_invalid_utf8_shows_replacement_character() -> None:
    assert feed_text(b"ok \xff\xfe bad \xc3(") == "ok \ufffd\ufffd bad \ufffd("


def test_truncated_utf8_completed_later_is_not_replaced() -> None:
    emulator = TerminalEmulator()
    emulator.feed(b"caf\xc3")
    emulator.feed(b"\xa9")
    assert emulator.text() == "café"


def test_latin1_switch_is_ignored() -> None:
    # `ESC % @` would make pyte decode bytes as Latin-1; input stays UTF-8.
    assert feed_text(b"\x1b%@caf\xc3\xa9 \xff") == "café \ufffd"


def test_scrollback_beyond_the_screen_is_in_text() -> None:
    emulator = TerminalEmulator(columns=20, lines=5)
    emulator.feed(b"".join(f"line {n}\r\n".encode() for n in range(1, 101)))
    assert emulator.text() == "\n".join(f"line {n}" for n in range(1, 101))
    assert len(emulator.screen.history.top) == 96


def test_history_is_bounded() -> None:
    emulator = TerminalEmulator(columns=20, lines=5, history=10)
    emulator.feed(b"".join(f"line {n}\r\n".encode() for n in range(1, 101)))
    assert emulator.text() == "\n".join(f"line {n}" for n in range(87, 101))


def test_long_lines_wrap() -> None:
    emulator = TerminalEmulator(columns=10, lines=3)
    emulator.feed(b"0123456789abcdefghijXYZ\r\nend")
    assert emulator.text() == "0123456789\nabcdefghij\nXYZ\nend"


def test_without_autowrap_the_last_column_is_overwritten() -> None:
    assert feed_text(b"\x1b[?7l0123456789abc", columns=10, lines=3) == "012345678c"


def test_clear_screen_and_cursor_moves() -> None:
    data = b"old\r\n\x1b[2J\x1b[Hnew\x1b[3;5Hthere"
    assert feed_text(data) == "new\n\n    there"


def test_reset_clears_everything() -> None:
    emulator = TerminalEmulator(columns=20, lines=3)
    emulator.feed(b"".join(f"line {n}\r\n".encode() for n in range(10)))
    emulator.feed(b"\x1b]2;title\x07\x1b[31mpartial \xe4")  # colour + half a UTF-8 char
    emulator.feed(b"\x1b[3")  # half an escape sequence
    emulator.reset()
    assert emulator.text() == ""
    assert emulator.title == ""
    assert len(emulator.screen.history.top) == 0
    emulator.feed(b"1mfresh")  # not the tail of the old `ESC[3` sequence
    assert emulator.text() == "1mfresh"
    assert emulator.screen.buffer[0][0].fg == "default"


def test_reset_keeps_the_size() -> None:
    emulator = TerminalEmulator(columns=30, lines=7)
    emulator.resize(50, 9)
    emulator.reset()
    assert (emulator.columns, emulator.lines) == (50, 9)


def test_resize_shrink_moves_lines_to_scrollback() -> None:
    emulator = TerminalEmulator(columns=20, lines=10)
    emulator.feed(b"\r\n".join(f"line {n}".encode() for n in range(8)))
    emulator.resize(20, 4)
    assert (emulator.columns, emulator.lines) == (20, 4)
    assert emulator.text() == "\n".join(f"line {n}" for n in range(8))
    assert len(emulator.screen.history.top) == 4
    emulator.feed(b"\r\nafter")
    assert emulator.text().endswith("line 7\nafter")


def test_resize_grow_and_narrow() -> None:
    emulator = TerminalEmulator(columns=20, lines=3)
    emulator.feed(b"0123456789\r\nab")
    emulator.resize(5, 6)
    assert emulator.text() == "01234\nab"
    emulator.feed(b"cdefgh")
    assert emulator.text() == "01234\nabcde\nfgh"
    emulator.resize(40, 6)
    emulator.feed(b"\r\n\tx")
    assert emulator.text().endswith("\n        x")


def test_invalid_sizes_are_rejected() -> None:
    with pytest.raises(ValueError, match="1x1"):
        TerminalEmulator(0, 10)
    with pytest.raises(ValueError, match="negative"):
        TerminalEmulator(history=-1)
    with pytest.raises(ValueError, match="1x1"):
        TerminalEmulator().resize(10, 0)


def test_deccolm_does_not_resize() -> None:
    emulator = TerminalEmulator(columns=80, lines=24)
    emulator.feed(b"keep\x1b[?3hmore\x1b[?3l")
    assert emulator.columns == 80
    assert emulator.text() == "keepmore"


# -- sandboxing ------------------------------------------------------------------------

REQUESTS = [
    b"\x1b[c",  # primary device attributes
    b"\x1b[0c",
    b"\x1b[>c",  # secondary device attributes
    b"\x1b[5n",  # device status report
    b"\x1b[6n",  # cursor position report
    b"\x1b[?6n",
    b"\x1b]0;title\x07",
    b"\x1b]2;other title\x1b\\",
    b"\x1b]1;icon\x07",
    b"\x1b]52;c;cHduZWQ=\x07",  # clipboard write
    b"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\",
    b"\x1bP+q544e\x1b\\",  # DCS (XTGETTCAP)
    b"\x1b[21t",  # report window title
    b"\x1b[14t",  # report window size
    b"\x07",  # bell
]


@pytest.mark.parametrize("request_bytes", REQUESTS)
def test_requests_produce_no_output_anywhere(
    request_bytes: bytes,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    emulator = TerminalEmulator()
    replies: list[str] = []
    # pyte's reports answer through `write_process_input`: record anything it gets.
    monkeypatch.setattr(emulator.screen, "write_process_input", replies.append)
    emulator.feed(b"before " + request_bytes + b" after")
    assert replies == []
    captured = capfd.readouterr()
    assert (captured.out, captured.err) == ("", "")
    text = emulator.text()
    assert text.startswith("before ")
    assert text.endswith(" after")
    assert "\x1b" not in text
    assert "title" not in text
    assert "6c" not in text


def test_cursor_report_in_origin_mode_is_ignored() -> None:
    # pyte's own report asserts that margins are set when DECOM is on.
    emulator = TerminalEmulator()
    emulator.feed(b"\x1b[?6h\x1b[6nhome")
    assert emulator.text() == "home"


def test_title_is_data_only() -> None:
    emulator = TerminalEmulator()
    emulator.feed(b"\x1b]0;first\x07\x1b]2;second\x07text")
    assert emulator.title == "second"
    assert emulator.text() == "text"


def test_title_is_capped() -> None:
    emulator = TerminalEmulator()
    emulator.feed(b"\x1b]2;" + b"t" * 100_000 + b"\x07ok")
    assert emulator.title == "t" * MAX_TITLE_LENGTH
    assert emulator.text() == "ok"


MALFORMED = [
    b"\x1b[1;2;3;4;5A",  # too many parameters for cursor_up
    b"\x1b[?5A",  # private flag on a method that takes none
    b"\x1b[1;2;3r",
    b"\x1b[1;2;3;4H",
    "\x1b[²m".encode(),  # a non-ASCII digit: int() fails inside pyte's parser
    b"\x1b[99999999999999999999C",
    b"\x1b[38;5m\x1b[48;2;1m",  # truncated extended colours
    b"\x1b#9",
    b"\x1b(Z\x1b)0",
    b"\x9b31m\x9d0;t\x9c",  # C1 controls (as UTF-8 code points)
]


@pytest.mark.parametrize("sequence", MALFORMED)
def test_malformed_sequences_never_raise(sequence: bytes) -> None:
    emulator = TerminalEmulator(columns=20, lines=5)
    emulator.feed(b"start " + sequence + b" end\r\nnext")
    text = emulator.text()
    assert "end" in text
    assert text.endswith("next")


def test_malformed_sequence_split_across_chunks() -> None:
    emulator = TerminalEmulator()
    for byte in b"a\x1b[1;2;3;4;5Ab":
        emulator.feed(bytes([byte]))
    assert emulator.text() == "ab"


def test_unterminated_osc_swallows_like_a_real_terminal() -> None:
    emulator = TerminalEmulator()
    emulator.feed(b"a\x1b]0;never ends")
    emulator.feed(b" still title")
    assert emulator.text() == "a"
    emulator.feed(b"\x07b")
    assert emulator.text() == "ab"


def test_feed_accepts_empty_chunks() -> None:
    emulator = TerminalEmulator()
    emulator.feed(b"")
    emulator.feed(b"x")
    emulator.feed(b"")
    assert emulator.text() == "x"


def test_sandbox_overrides_match_pyte_events() -> None:
    # If pyte renamed these events, the overrides would silently stop applying.
    for event in (
        "report_device_attributes",
        "report_device_status",
        "set_title",
        "set_icon_name",
        "set_mode",
        "draw",
    ):
        assert event in pyte.Stream.events


def test_large_output_stays_consistent() -> None:
    emulator = TerminalEmulator(columns=40, lines=10, history=1000)
    lines = [f"\x1b[3{n % 8}mrow {n}\x1b[0m ok".encode() for n in range(3000)]
    data = b"\r\n".join(lines)
    for pos in range(0, len(data), 4093):
        emulator.feed(data[pos : pos + 4093])
    text = emulator.text().split("\n")
    assert len(text) == 1010
    assert text[0] == "row 1990 ok"
    assert text[-1] == "row 2999 ok"


# --- rows, the SGR transition cache and tail emulation ---------------------------


def test_row_count_and_rows_cover_scrollback_then_screen() -> None:
    emulator = TerminalEmulator(20, 3, history=10)
    assert emulator.row_count == 0
    emulator.feed(b"one\r\ntwo\r\nthree\r\nfour\r\n")
    # "one" and "two" scrolled into the scrollback; the cursor's blank line
    # below "four" does not count.
    assert emulator.history_size == 2
    assert emulator.row_count == 4
    texts = [
        "".join(cell.data for _, cell in sorted(emulator.row(i).items())).rstrip()
        for i in range(emulator.row_count)
    ]
    assert texts == ["one", "two", "three", "four"]
    assert emulator.row(99) == {}


def test_row_count_ignores_blank_lines_below_the_output() -> None:
    emulator = TerminalEmulator(20, 10)
    emulator.feed(b"a\r\n\r\nb\x1b[5;1H")  # the cursor moves further down
    assert emulator.row_count == 3


def test_sgr_cache_gives_the_same_attributes_from_any_start() -> None:
    # The same `ESC[1m` from two different attribute sets: each keeps its colour.
    emulator = TerminalEmulator()
    emulator.feed(b"\x1b[31m\x1b[1mA\x1b[0m\x1b[32m\x1b[1mB\x1b[0m\x1b[1mC")
    line = emulator.screen.buffer[0]
    assert (line[0].fg, line[0].bold) == ("red", True)
    assert (line[1].fg, line[1].bold) == ("green", True)
    assert (line[2].fg, line[2].bold) == ("default", True)


def test_sgr_cache_matches_an_uncached_screen() -> None:
    data = (
        b"\x1b[1;31mA\x1b[38;5;196mB\x1b[48;2;1;2;3mC\x1b[0mD\x1b[1;31mE\x1b[7mF"
        b"\x1b[27;4mG\x1b[mH\x1b[1;31mI"
    )
    emulator = TerminalEmulator()
    emulator.feed(data)
    reference = pyte.Screen(120, 40)
    pyte.ByteStream(reference).feed(data)
    ours = [emulator.screen.buffer[0][x] for x in range(9)]
    theirs = [reference.buffer[0][x] for x in range(9)]
    assert ours == theirs


@pytest.mark.parametrize(
    ("data", "lines", "offset"),
    [
        (b"a\nb\nc\n", 1, 4),
        (b"a\nb\nc\n", 2, 2),
        (b"a\nb\nc\n", 3, 0),
        (b"a\nb\nc\n", 9, 0),
        (b"a\nb\nc", 1, 4),  # an unterminated last line counts
        (b"abc", 1, 0),
        (b"", 1, 0),
    ],
)
def test_line_tail_offset(data: bytes, lines: int, offset: int) -> None:
    assert line_tail_offset(data, lines) == offset


def test_tail_offset_whole_when_short() -> None:
    assert tail_offset(b"abc\r\ndef", 100) == 0


def test_tail_offset_starts_after_a_line_feed() -> None:
    data = b"".join(b"line %03d\r\n" % n for n in range(100))
    offset = tail_offset(data, 55)
    assert data[offset - 1 : offset] == b"\n"
    assert len(data) - offset <= 55
    emulator = TerminalEmulator(40, 10)
    emulator.feed(data[offset:])
    assert emulator.text().splitlines() == [f"line {n:03d}" for n in range(95, 100)]


def test_tail_offset_without_newline_uses_carriage_return() -> None:
    data = b"x" * 50 + b"".join(b"\r%3d%%" % n for n in range(100))
    offset = tail_offset(data, 30)
    assert data[offset - 1 : offset] == b"\r"


def test_tail_offset_never_starts_inside_a_utf8_sequence() -> None:
    data = "é".encode() * 100  # two bytes each, no line breaks at all
    offset = tail_offset(data, 51)
    assert data[offset:].decode() == "é" * (len(data[offset:]) // 2)


CONTROL_STRINGS = (
    b"A\x1bP$qm\x1b\\B"  # DECRQSS
    b"\x1b_apc payload\x1b\\C"  # APC
    b"\x1b^pm\x1b\\D\x1bXsos\x1b\\E"  # PM, SOS
    b"\xc2\x90c1 dcs\xc2\x9cF"  # C1 DCS ... C1 ST
    b"\x1bPunterminated \x1b[31mG"  # another ESC aborts the string
)


def test_control_strings_are_skipped() -> None:
    emulator = TerminalEmulator()
    emulator.feed(CONTROL_STRINGS)
    assert emulator.text() == "ABCDEFG"
    assert emulator.screen.buffer[0][6].fg == "red"


@pytest.mark.parametrize("cut", range(1, len(CONTROL_STRINGS)))
def test_control_strings_split_anywhere(cut: int) -> None:
    emulator = TerminalEmulator()
    emulator.feed(CONTROL_STRINGS[:cut])
    emulator.feed(CONTROL_STRINGS[cut:])
    assert emulator.text() == "ABCDEFG"


def test_control_strings_fed_a_byte_at_a_time() -> None:
    emulator = TerminalEmulator()
    for byte in CONTROL_STRINGS:
        emulator.feed(bytes([byte]))
    assert emulator.text() == "ABCDEFG"


def test_a_held_escape_still_starts_a_sequence() -> None:
    emulator = TerminalEmulator()
    emulator.feed(b"a\x1b")
    emulator.feed(b"[32mb")
    assert emulator.text() == "ab"
    assert emulator.screen.buffer[0][1].fg == "green"


def test_narrow_non_ascii_text_wraps_like_ascii() -> None:
    # One cell per character (the fast path for narrow non-ASCII text).
    text = "█░é" * 10
    assert feed_text(text.encode(), columns=8) == "\n".join(
        text[i : i + 8] for i in range(0, len(text), 8)
    )


def test_narrow_text_mixed_with_wide_text() -> None:
    assert feed_text("é中é".encode(), columns=3) == "é中\né"
