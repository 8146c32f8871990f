"""Terminal rendering: pyte cells to Rich styles, and the bounded-cost store feed."""

from __future__ import annotations

import pytest
from rich.color import ColorType
from rich.segment import Segment
from rich.style import Style

from acp_tui.render.terminal import (
    FLOOD_BUDGET,
    FLOOD_LINES,
    TerminalFeed,
    TerminalStyles,
    cell_color,
    exit_label,
    terminal_title,
)
from acp_tui.store import ops
from acp_tui.store.model import Terminal
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from acp_tui.terminal.emulator import TerminalEmulator


def cells(data: bytes, columns: int = 80) -> TerminalEmulator:
    emulator = TerminalEmulator(columns, 24)
    emulator.feed(data)
    return emulator


def first_line(data: bytes) -> list[Segment]:
    return TerminalStyles().segments(cells(data).row(0))


def style_of(data: bytes, text: str) -> Style:
    """The style of the segment whose text is `text` on the first line."""
    for segment in first_line(data):
        if segment.text == text:
            assert segment.style is not None
            return segment.style
    raise AssertionError(f"no segment {text!r} in {first_line(data)!r}")


# --- colours and attributes -------------------------------------------------


@pytest.mark.parametrize(
    ("sgr", "number"),
    [
        (b"30", 0),
        (b"31", 1),
        (b"33", 3),  # pyte's "brown" is yellow
        (b"37", 7),
        (b"90", 8),
        (b"91", 9),
        (b"97", 15),
    ],
)
def test_sixteen_colours_are_standard_ansi_colours(sgr: bytes, number: int) -> None:
    style = style_of(b"\x1b[" + sgr + b"mX", "X")
    assert style.color is not None
    assert style.color.type is ColorType.STANDARD
    assert style.color.number == number


def test_background_colours() -> None:
    style = style_of(b"\x1b[44;103mX", "X")
    assert style.bgcolor is not None
    assert style.bgcolor.number == 11  # bright yellow
    assert style.color is None


def test_256_colours_become_rgb() -> None:
    fg = style_of(b"\x1b[38;5;196mX", "X")
    assert fg.color is not None
    assert fg.color.get_truecolor() == (255, 0, 0)
    bg = style_of(b"\x1b[48;5;21mX", "X")
    assert bg.bgcolor is not None
    assert bg.bgcolor.get_truecolor() == (0, 0, 255)
    grey = style_of(b"\x1b[38;5;244mX", "X")
    assert grey.color is not None
    assert grey.color.get_truecolor() == (128, 128, 128)


def test_truecolour() -> None:
    style = style_of(b"\x1b[38;2;12;34;56;48;2;200;100;0mX", "X")
    assert style.color is not None
    assert style.bgcolor is not None
    assert style.color.type is ColorType.TRUECOLOR
    assert style.color.get_truecolor() == (12, 34, 56)
    assert style.bgcolor.get_truecolor() == (200, 100, 0)


def test_out_of_range_truecolour_is_the_default_colour() -> None:
    # pyte formats 300 as three hex digits: not a colour, so the default.
    (segment,) = first_line(b"\x1b[38;2;300;1;1mX")
    assert segment == Segment("X")


@pytest.mark.parametrize(
    ("sgr", "attribute"),
    [
        (b"1", "bold"),
        (b"3", "italic"),
        (b"4", "underline"),
        (b"5", "blink"),
        (b"7", "reverse"),
        (b"9", "strike"),
    ],
)
def test_attributes(sgr: bytes, attribute: str) -> None:
    style = style_of(b"\x1b[" + sgr + b"mX", "X")
    assert getattr(style, attribute) is True
    others = {"bold", "italic", "underline", "blink", "reverse", "strike"} - {attribute}
    assert all(getattr(style, other) is None for other in others)


def test_cell_color_names_hex_and_garbage() -> None:
    red = cell_color("red")
    assert red is not None
    assert red.number == 1
    assert cell_color("default") is None
    assert cell_color("zzzzzz") is None
    assert cell_color("12345") is None
    teal = cell_color("008080")
    assert teal is not None
    assert teal.get_truecolor() == (0, 128, 128)


def test_runs_of_equal_attributes_make_one_segment() -> None:
    segments = first_line(b"plain \x1b[31mred red\x1b[0m plain")
    assert [s.text for s in segments] == ["plain ", "red red", " plain"]
    assert segments[0].style is None
    assert segments[2].style is None


def test_styles_are_cached_per_attribute_set() -> None:
    styles = TerminalStyles()
    emulator = cells(b"\x1b[1;32mA\x1b[0m \x1b[1;32mB")
    segments = styles.segments(emulator.row(0))
    assert [s.text for s in segments] == ["A", " ", "B"]
    assert segments[0].style is segments[2].style


def test_gaps_are_blanks_and_wide_characters_take_two_cells() -> None:
    emulator = cells(b"a\x1b[5Gb \xe4\xb8\xad|")  # 'a', jump to column 5, 'b', wide
    (segment,) = TerminalStyles().segments(emulator.row(0))
    assert segment.text == "a   b 中|"
    assert segment.cell_length == 9  # the wide character's stub takes no text


def test_text_has_the_same_styles() -> None:
    emulator = cells(b"\x1b[31mred\x1b[0m ok")
    text = TerminalStyles().text(emulator.row(0))
    assert text.plain == "red ok"
    assert [(span.start, span.end) for span in text.spans] == [(0, 3)]


def test_unprintable_cell_text_is_replaced() -> None:
    # A cell can only hold what the emulator drew; forge one to check the guard.
    emulator = cells(b"ab")
    line = dict(emulator.row(0))
    line[1] = line[1]._replace(data="\x1b")
    (segment,) = TerminalStyles().segments(line)
    assert segment.text == "a\N{REPLACEMENT CHARACTER}"


# --- titles and exit badges -------------------------------------------------


def terminal(**fields: object) -> Terminal:
    return Terminal("term", **fields)  # type: ignore[arg-type]


def test_title() -> None:
    assert terminal_title(None, "t9") == "terminal t9"
    assert terminal_title(terminal(command="make"), "t") == "$ make"
    assert terminal_title(terminal(command="make", cwd="/p"), "t") == (
        "$ make  (in /p)"
    )


@pytest.mark.parametrize(
    ("status", "label"),
    [
        ({}, ("exited", True)),
        ({"exitCode": 0}, ("exit 0", True)),
        ({"exitCode": 2}, ("exit 2", False)),
        ({"exitCode": -1}, ("exit -1", False)),
        ({"exitCode": None, "signal": "SIGTERM"}, ("killed by SIGTERM", False)),
        ({"exitCode": True}, ("exited", True)),
    ],
)
def test_exit_label(status: JSONObject, label: tuple[str, bool]) -> None:
    assert exit_label(terminal(exit_status=status)) == label


def test_no_exit_label_while_running() -> None:
    assert exit_label(terminal()) is None
    assert exit_label(None) is None


# --- the feed ----------------------------------------------------------------


@pytest.fixture
def store() -> SessionStore:
    return SessionStore("s")


def feed_ops(store: SessionStore, feed: TerminalFeed, *operations: ops.Op) -> Terminal:
    store.apply_many(operations)
    state = store.terminal("term")
    assert state is not None
    feed.update(state)
    return state


def test_utf8_and_escapes_split_across_chunks(store: SessionStore) -> None:
    feed = TerminalFeed()
    data = "\x1b[38;5;196mcafé ✓\x1b[0m done\r\n".encode()
    for byte in data:
        feed_ops(store, feed, ops.AppendTerminalOutput("term", bytes([byte])))
    assert feed.plain_text() == "café ✓ done"
    assert feed.segments(0)[0].text == "café ✓"
    style = feed.segments(0)[0].style
    assert style is not None
    assert style.color is not None
    assert style.color.get_truecolor() == (255, 0, 0)


def test_invalid_utf8_shows_replacement_characters(store: SessionStore) -> None:
    feed = TerminalFeed()
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"bad \xff\xfe ok"))
    assert (
        feed.plain_text() == "bad \N{REPLACEMENT CHARACTER}\N{REPLACEMENT CHARACTER} ok"
    )


def test_snapshot_replaces_then_chunks_append(store: SessionStore) -> None:
    feed = TerminalFeed()
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"old line\r\n\x1b[31m"))
    feed_ops(store, feed, ops.PatchTerminal("term", output=b"snap\r\n"))
    assert feed.plain_text() == "snap"
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"more"))
    assert feed.plain_text() == "snap\nmore"
    # The red set before the snapshot does not leak into it (the parser reset).
    assert feed.segments(1)[0].style is None
    feed_ops(store, feed, ops.PatchTerminal("term", output=None))
    assert feed.plain_text() == ""
    assert feed.row_count == 0


def test_progress_bar_with_carriage_returns(store: SessionStore) -> None:
    feed = TerminalFeed()
    for percent in range(0, 101, 25):
        feed_ops(
            store,
            feed,
            ops.AppendTerminalOutput(
                "term", b"\r[%-4s] %3d%%" % (b"#" * (percent // 25), percent)
            ),
        )
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"\r\ndone\r\n"))
    assert feed.plain_text() == "[####] 100%\ndone"


def test_clear_screen(store: SessionStore) -> None:
    feed = TerminalFeed()
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"noise\r\nmore noise"))
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"\x1b[2J\x1b[Hclean"))
    assert feed.plain_text() == "clean"
    assert feed.row_count == 1


def test_only_new_bytes_are_fed(store: SessionStore) -> None:
    feed = TerminalFeed()
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"a" * 100))
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"b" * 50))
    assert feed.fed_bytes == 150
    state = store.terminal("term")
    assert state is not None
    assert not feed.update(state)  # same revision: nothing to do
    assert feed.fed_bytes == 150


def test_far_behind_emulates_only_the_tail(store: SessionStore) -> None:
    feed = TerminalFeed(budget=1000)
    lines = b"".join(b"\x1b[32mline %05d\x1b[0m\r\n" % n for n in range(5000))
    feed_ops(store, feed, ops.AppendTerminalOutput("term", lines))
    assert feed.fed_bytes <= 1000
    assert feed.behind
    assert feed.skipped > len(lines) - 1000
    text = feed.plain_text().splitlines()
    assert text[-1] == "line 04999"
    assert len(text) == (len(lines) - feed.skipped) // len(
        b"\x1b[32mline 00000\x1b[0m\r\n"
    )
    # Small appends after that are fed incrementally again.
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"tail\r\n"))
    assert not feed.behind
    assert feed.plain_text().endswith("line 04999\ntail")


def test_a_flood_restarts_from_a_short_tail_and_deepens_after(
    store: SessionStore,
) -> None:
    feed = TerminalFeed(budget=32 * 1024)
    line = b"\x1b[32mline %05d\x1b[0m\r\n"
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"x" * 64 * 1024))
    assert feed.behind
    assert not feed.shallow  # not flooding: a full budget of the tail
    store.apply(
        ops.AppendTerminalOutput("term", b"".join(line % n for n in range(5000)))
    )
    state = store.terminal("term")
    assert state is not None
    before = feed.fed_bytes
    assert feed.update(state, flooding=True)
    assert feed.fed_bytes - before <= FLOOD_BUDGET
    assert feed.shallow
    short = feed.plain_text().splitlines()
    assert short[-1] == "line 04999"
    assert len(short) == FLOOD_LINES  # short lines: the tail is so many lines
    # Once the flood is over: a full budget of the same tail.
    assert feed.deepen(state)
    assert not feed.shallow
    deep = feed.plain_text().splitlines()
    assert deep[-1] == "line 04999"
    assert len(deep) > 3 * len(short)
    assert not feed.deepen(state)  # nothing more to do


def test_a_flood_of_long_lines_is_cut_at_the_byte_budget(
    store: SessionStore,
) -> None:
    """Few line feeds (long lines, a redrawn progress bar): the tail is bounded
    by bytes, not lines."""
    feed = TerminalFeed(budget=64 * 1024)
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"x" * 128 * 1024))
    store.apply(ops.AppendTerminalOutput("term", b"\r[#####   ] 50%" * 20_000))
    state = store.terminal("term")
    assert state is not None
    before = feed.fed_bytes
    assert feed.update(state, flooding=True)
    assert feed.shallow
    assert feed.fed_bytes - before <= FLOOD_BUDGET
    assert feed.plain_text().splitlines()[-1] == "[#####   ] 50%"


def test_bytes_dropped_by_the_store_cap_are_skipped() -> None:
    store = SessionStore("s", max_terminal_bytes=100)
    feed = TerminalFeed()
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"first\r\n"))
    feed_ops(
        store,
        feed,
        ops.AppendTerminalOutput("term", b"".join(b"%03d\r\n" % n for n in range(100))),
    )
    assert feed.plain_text().splitlines()[-1] == "099"
    assert len(feed.plain_text().splitlines()) <= 20


def test_width_change_re_emulates(store: SessionStore) -> None:
    feed = TerminalFeed(columns=10)
    feed_ops(store, feed, ops.AppendTerminalOutput("term", b"0123456789abcdef\r\n"))
    assert feed.plain_text() == "0123456789\nabcdef"
    assert feed.set_width(20)
    assert not feed.set_width(20)  # already asked for
    state = store.terminal("term")
    assert state is not None
    assert feed.update(state)
    assert feed.columns == 20
    assert feed.plain_text() == "0123456789abcdef"


def test_a_width_change_in_a_flood_re_emulates_a_short_tail(
    store: SessionStore,
) -> None:
    feed = TerminalFeed(columns=40, budget=32 * 1024)
    line = b"\x1b[32mline %05d\x1b[0m\r\n"
    state = feed_ops(
        store,
        feed,
        ops.AppendTerminalOutput("term", b"".join(line % n for n in range(5000))),
    )
    assert feed.behind
    feed.set_width(60)
    before = feed.fed_bytes
    assert feed.update(state, flooding=True)
    assert feed.columns == 60
    assert feed.fed_bytes - before <= FLOOD_BUDGET
    assert feed.shallow  # `deepen` takes the full budget at the new width
    assert len(feed.plain_text().splitlines()) == FLOOD_LINES
    assert feed.deepen(state)
    assert feed.columns == 60
    assert len(feed.plain_text().splitlines()) > FLOOD_LINES


def test_reported_size_wins_over_the_width(store: SessionStore) -> None:
    feed = TerminalFeed(columns=10)
    feed_ops(
        store,
        feed,
        ops.PatchTerminal("term", size={"cols": 30, "rows": 5}),
        ops.AppendTerminalOutput("term", b"0123456789abcdef\r\n"),
    )
    assert (feed.emulator.columns, feed.emulator.lines) == (30, 5)
    assert feed.plain_text() == "0123456789abcdef"
    feed.set_width(8)
    state = store.terminal("term")
    assert state is not None
    feed.update(state)
    assert feed.columns == 30


def test_title_sequences_stay_in_the_emulator(store: SessionStore) -> None:
    feed = TerminalFeed()
    feed_ops(
        store,
        feed,
        ops.AppendTerminalOutput("term", b"\x1b]0;pwned\x07\x1b]52;c;aGk=\x07visible"),
    )
    assert feed.plain_text() == "visible"
    assert "".join(s.text for s in feed.segments(0)) == "visible"
