"""The terminal in a tool-call card, and its full-screen view (Pilot + snapshots)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.render.terminal import DEFAULT_BUDGET, FLOOD_BUDGET
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from acp_tui.ui.screens.terminal import TerminalScreen
from acp_tui.ui.widgets import terminal_view
from acp_tui.ui.widgets.path_lines import PathLines
from acp_tui.ui.widgets.terminal_view import CARD_LINES, TerminalLines, TerminalSegment
from acp_tui.ui.widgets.tool_call_view import QuietTitle, ToolCallBody
from tests.ui.helpers import wait_for
from tests.ui.test_card_snapshots import SnapCompare
from tests.ui.test_cards import CardsApp, apply

SIZE = (100, 40)

TERMINAL_ITEM = {"type": "terminal", "terminalId": "term"}


def running_call(store: SessionStore, *, with_terminal: bool = True) -> None:
    store.apply(
        ops.PatchToolCall(
            "t1",
            title="Build",
            kind="execute",
            status="in_progress",
            content=[TERMINAL_ITEM],
        )
    )
    if with_terminal:
        store.apply(ops.PatchTerminal("term", command="make", cwd="/p"))


def segment(app: CardsApp) -> TerminalSegment:
    return app.card("t1").query_one(TerminalSegment)


def numbered(first: int, last: int) -> bytes:
    return b"".join(b"line %03d\r\n" % n for n in range(first, last))


FLOOD_CHUNK = numbered(0, 1000) * 5
"""About 50 KB in one update: more than a card's budget, so the feed is behind."""


@pytest.fixture
def store() -> SessionStore:
    return SessionStore("sess_1")


async def test_card_shows_colours_and_a_bounded_height(store: SessionStore) -> None:
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await apply(
            pilot,
            app,
            ops.AppendTerminalOutput(
                "term", b"\x1b[38;5;196mred\x1b[0m \x1b[38;2;0;128;255mblue\x1b[0m\r\n"
            ),
        )
        lines = app.card("t1").query_one(TerminalLines)
        strip = lines.render_line(0)
        colours = {
            s.text: s.style.color.get_truecolor()
            for s in strip
            if s.style is not None and s.style.color is not None and s.text.strip()
        }
        assert colours["red"] == (255, 0, 0)
        assert colours["blue"] == (0, 128, 255)
        await apply(pilot, app, ops.AppendTerminalOutput("term", numbered(0, 100)))
        await wait_for(pilot, lambda: lines.size.height == CARD_LINES)
        assert segment(app).feed.row_count == 101


async def test_card_follows_the_tail_unless_scrolled_up(store: SessionStore) -> None:
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await apply(pilot, app, ops.AppendTerminalOutput("term", numbered(0, 50)))
        lines = app.card("t1").query_one(TerminalLines)
        await wait_for(pilot, lambda: lines.max_scroll_y > 0)
        await wait_for(pilot, lambda: lines.scroll_y == lines.max_scroll_y)
        last = lines.render_line(lines.size.height - 1)
        assert last.text.rstrip() == "line 049"
        # The user scrolls up: new output no longer moves the view.
        lines.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert not lines.following
        await apply(pilot, app, ops.AppendTerminalOutput("term", numbered(50, 60)))
        assert lines.scroll_y == 0
        assert lines.render_line(0).text.rstrip() == "line 000"
        # Back at the end: it follows again.
        lines.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert lines.following
        await apply(pilot, app, ops.AppendTerminalOutput("term", numbered(60, 70)))
        await wait_for(pilot, lambda: lines.scroll_y == lines.max_scroll_y)
        last = lines.render_line(lines.size.height - 1)
        assert last.text.rstrip() == "line 069"


async def test_reference_before_the_terminal_state(store: SessionStore) -> None:
    running_call(store, with_terminal=False)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        view = segment(app)
        assert view.plain_text == "terminal term"
        await apply(pilot, app, ops.AppendTerminalOutput("term", b"early\r\n"))
        assert view.plain_text == "terminal term\nearly"
        await apply(pilot, app, ops.PatchTerminal("term", command="make", cwd="/p"))
        assert view.plain_text == "$ make  (in /p)\nearly"


async def test_state_before_the_reference(store: SessionStore) -> None:
    store.apply_many(
        [
            ops.PatchTerminal("term", command="ls"),
            ops.AppendTerminalOutput("term", b"a.py\r\n"),
            ops.PatchToolCall("t1", title="List", kind="execute"),
        ]
    )
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await apply(pilot, app, ops.PatchToolCall("t1", content=[TERMINAL_ITEM]))
        assert segment(app).plain_text == "$ ls\na.py"


async def test_exit_status_badges(store: SessionStore) -> None:
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await apply(pilot, app, ops.AppendTerminalOutput("term", b"out\r\n"))
        view = segment(app)
        badge = view.query_one(".terminal-status", Static)
        assert not badge.display
        statuses: list[tuple[JSONObject, str, bool]] = [
            ({}, "exited", False),
            ({"exitCode": 0}, "exit 0", False),
            ({"exitCode": 3}, "exit 3", True),
            ({"signal": "SIGKILL"}, "killed by SIGKILL", True),
        ]
        for status, text, failed in statuses:
            await apply(pilot, app, ops.PatchTerminal("term", exit_status=status))
            assert view.plain_text == f"$ make  (in /p)\nout\n{text}"
            assert badge.display
            assert badge.has_class("-failed") is failed
        await apply(pilot, app, ops.PatchTerminal("term", exit_status=None))
        assert view.plain_text == "$ make  (in /p)\nout"
        assert not badge.display


async def test_invalid_data_shows_an_error_and_the_stream_continues(
    store: SessionStore,
) -> None:
    """Invalid base64 from the agent (recorded on the terminal by the translator)
    shows as an error line in the card; the output around it still shows."""
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await apply(pilot, app, ops.AppendTerminalOutput("term", b"before\r\n"))
        await apply(
            pilot,
            app,
            ops.RecordTerminalError("term", "invalid base64 in an output chunk"),
        )
        await apply(pilot, app, ops.AppendTerminalOutput("term", b"after\r\n"))
        view = segment(app)
        assert view.plain_text == (
            "$ make  (in /p)\n⚠ invalid base64 in an output chunk\nbefore\nafter"
        )
        errors = view.query_one(".terminal-errors", Static)
        assert errors.display
        assert view.line_count == 1 + 1 + 2


async def test_snapshot_then_chunks_in_the_card(store: SessionStore) -> None:
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await apply(pilot, app, ops.AppendTerminalOutput("term", b"one\r\ntwo\r\n"))
        await apply(pilot, app, ops.PatchTerminal("term", output=b"fresh\r\n"))
        await apply(pilot, app, ops.AppendTerminalOutput("term", b"after"))
        assert segment(app).plain_text == "$ make  (in /p)\nfresh\nafter"


async def test_a_flood_is_emulated_from_its_tail(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No settling after the flood (a loaded machine passed the 0.25 s before
    # the first assertion, and the card deepened its tail: a third feed).
    monkeypatch.setattr(terminal_view, "SETTLE_DELAY", 60.0)
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        flood = numbered(0, 1000) * 20  # about 200 KB in one update
        await apply(pilot, app, ops.AppendTerminalOutput("term", flood))
        view = segment(app)
        assert view.feed.fed_bytes <= 2 * DEFAULT_BUDGET  # mount + resize at most
        assert "earlier output not shown" in view.plain_text.splitlines()[1]
        # The note is the first line of the scrollable output.
        lines = view.query_one(TerminalLines)
        lines.scroll_home(animate=False, immediate=True)
        await wait_for(pilot, lambda: lines.scroll_y == 0)
        assert "earlier output not shown" in lines.render_line(0).text
        assert view.plain_text.endswith("line 999")


async def test_a_long_flood_follows_a_short_tail_then_deepens(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(terminal_view, "FLOOD_INTERVAL", 0.0)
        monkeypatch.setattr(terminal_view, "SETTLE_DELAY", 60.0)
        chunk = FLOOD_CHUNK
        await apply(pilot, app, ops.AppendTerminalOutput("term", chunk))
        view = segment(app)
        assert view.feed.behind
        fed = view.feed.fed_bytes
        # Still behind on the next update, and still running: a flood.
        await apply(pilot, app, ops.AppendTerminalOutput("term", chunk))
        assert view.feed.shallow
        assert view.feed.fed_bytes - fed <= FLOOD_BUDGET
        assert view.plain_text.endswith("line 999")
        short = view.feed.row_count
        # Still a flood on the third: the settle delay (60 s here) has not passed.
        await apply(pilot, app, ops.AppendTerminalOutput("term", chunk))
        assert view.feed.shallow
        # The flood stops: after the settle delay the card emulates a full
        # budget of the tail again, so the scrollback is as deep as before. (A
        # short delay set before the last chunk: set before the third, a loaded
        # machine could pass it before the assertion above.)
        monkeypatch.setattr(terminal_view, "SETTLE_DELAY", 0.05)
        await apply(pilot, app, ops.AppendTerminalOutput("term", chunk))
        await wait_for(pilot, lambda: not view.feed.shallow)
        assert view.feed.row_count >= 2 * short
        assert view.plain_text.endswith("line 999")


async def test_a_running_terminal_first_seen_far_behind_starts_from_a_short_tail(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A card that appears while output pours in emulates a flood's short tail,
    both before mount (at a guessed width) and at its own width, not a full
    budget each time."""
    running_call(store)
    monkeypatch.setattr(terminal_view, "SETTLE_DELAY", 60.0)
    store.apply(ops.AppendTerminalOutput("term", FLOOD_CHUNK))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        view = segment(app)
        lines = view.query_one(TerminalLines)
        await wait_for(pilot, lambda: view.feed.columns == lines.size.width - 1)
        assert view.feed.shallow
        assert view.feed.fed_bytes <= 2 * FLOOD_BUDGET
        assert view.plain_text.endswith("line 999")


async def test_a_short_first_tail_deepens_while_output_trickles_in(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Output that keeps coming, but slower than a flood (each append within
    the budget), does not hold off the full tail: only a flood's feeds restart
    the settle delay."""
    running_call(store)
    delay = 0.1
    monkeypatch.setattr(terminal_view, "SETTLE_DELAY", delay)
    monkeypatch.setattr(terminal_view, "FEED_INTERVAL", 0.0)
    store.apply(ops.AppendTerminalOutput("term", FLOOD_CHUNK))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        view = segment(app)
        started = time.monotonic()
        appends = 0
        # One line at a time, more often than the settle delay, for 5 delays.
        while appends < 10 or time.monotonic() - started < 5 * delay:
            await apply(pilot, app, ops.AppendTerminalOutput("term", b"more\r\n"))
            await pilot.pause(delay / 5)
            appends += 1
        assert not view.feed.shallow
        assert view.feed.row_count > 100
        assert view.plain_text.endswith("more")


async def test_an_exit_that_ends_a_flood_shows_the_short_tail_at_once(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exit's frame does not wait for a full budget to be emulated: the
    flood's short tail shows with the badge at once (the settle timer deepens
    it later, as after any flood)."""
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(terminal_view, "FLOOD_INTERVAL", 0.0)
        monkeypatch.setattr(terminal_view, "SETTLE_DELAY", 60.0)
        chunk = FLOOD_CHUNK
        await apply(pilot, app, ops.AppendTerminalOutput("term", chunk))
        await apply(pilot, app, ops.AppendTerminalOutput("term", chunk))
        view = segment(app)
        assert view.feed.shallow
        fed = view.feed.fed_bytes
        await apply(
            pilot,
            app,
            ops.AppendTerminalOutput("term", chunk),
            ops.PatchTerminal("term", exit_status={"exitCode": 0}),
        )
        assert view.feed.fed_bytes - fed <= FLOOD_BUDGET
        assert view.feed.shallow
        assert view.plain_text.endswith("line 999\nexit 0")


async def test_a_new_width_is_taken_soon_even_in_a_flood(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resize re-emulates at the new width within `FEED_INTERVAL`, not after
    a flood's (longer) `FLOOD_INTERVAL`."""
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(terminal_view, "SETTLE_DELAY", 60.0)
        chunk = FLOOD_CHUNK
        await apply(pilot, app, ops.AppendTerminalOutput("term", chunk))
        view = segment(app)
        lines = view.query_one(TerminalLines)
        await wait_for(pilot, lambda: view.feed.columns == lines.size.width - 1)
        assert view.feed.behind
        monkeypatch.setattr(terminal_view, "FLOOD_INTERVAL", 600.0)
        before = view.feed.columns
        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])
        await wait_for(pilot, lambda: view.feed.columns == lines.size.width - 1)
        assert view.feed.columns < before


async def test_the_card_takes_its_width_without_a_resize_event(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual sends no `Resize` to a widget first laid out while it scrolled
    into view: the next feed still emulates at the lines' width."""
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(terminal_view, "FEED_INTERVAL", 0.0)
        # Taller than the card: its size no longer changes (no Resize to come).
        await apply(pilot, app, ops.AppendTerminalOutput("term", numbered(0, 30)))
        view = segment(app)
        lines = view.query_one(TerminalLines)
        await wait_for(pilot, lambda: lines.size.height == CARD_LINES)
        width = lines.scrollable_content_region.width
        assert view.feed.columns == width
        view.feed.set_width(width // 2)  # as if it had guessed so and got no Resize
        await apply(pilot, app, ops.AppendTerminalOutput("term", b"x" * width))
        assert view.feed.columns == width
        assert view.plain_text.endswith("\n" + "x" * width)  # one line, not two


async def test_a_line_count_of_the_same_width_costs_no_layout(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    running_call(store)
    store.apply(ops.AppendTerminalOutput("term", numbered(0, 30)))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        body = app.card("t1").query_one(ToolCallBody)
        await wait_for(pilot, lambda: body.title == "terminal · 31 lines")
        title = body.query_one(QuietTitle)
        layouts: list[bool] = []
        original = QuietTitle.refresh

        def spy(self: QuietTitle, *args: Any, layout: bool = False, **kw: Any) -> Any:
            layouts.append(layout)
            return original(self, *args, layout=layout, **kw)

        monkeypatch.setattr(QuietTitle, "refresh", spy)
        await apply(pilot, app, ops.AppendTerminalOutput("term", numbered(30, 40)))
        await wait_for(pilot, lambda: body.title == "terminal · 41 lines")
        assert str(title.content).endswith("terminal · 41 lines")
        assert layouts
        assert not any(layouts)  # 31 -> 41: same width, a repaint only
        layouts.clear()
        await apply(pilot, app, ops.AppendTerminalOutput("term", numbered(40, 100)))
        await wait_for(pilot, lambda: body.title == "terminal · 101 lines")
        assert any(layouts)  # one digit more: the title is wider


async def test_card_title_counts_the_final_lines(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    running_call(store)
    store.apply(ops.AppendTerminalOutput("term", numbered(0, 30)))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: segment(app).feed.row_count == 30)
        # Every later update comes sooner than the feed interval...
        monkeypatch.setattr(terminal_view, "FEED_INTERVAL", 60.0)
        monkeypatch.setattr(terminal_view, "FLOOD_INTERVAL", 60.0)
        await apply(pilot, app, ops.AppendTerminalOutput("term", numbered(30, 35)))
        body = app.card("t1").query_one(ToolCallBody)
        assert body.title == "terminal · 31 lines"  # deferred: not fed yet
        # ...but the exit shows the final state at once, and the card counts it.
        await apply(
            pilot,
            app,
            ops.AppendTerminalOutput("term", numbered(35, 40)),
            ops.PatchTerminal("term", exit_status={"exitCode": 0}),
        )
        assert body.title == "terminal · 42 lines"  # header, 40 lines, badge
        assert segment(app).plain_text.endswith("line 039\nexit 0")


async def test_two_updates_in_one_frame_feed_once(store: SessionStore) -> None:
    running_call(store)
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = segment(app)
        items = [TERMINAL_ITEM]
        store.apply(ops.AppendTerminalOutput("term", b"first\r\n"))
        view.show_segment(store, items, 0, 1)
        fed = view.feed.fed_bytes
        store.apply(ops.AppendTerminalOutput("term", b"second\r\n"))
        view.show_segment(store, items, 0, 1)
        assert view.feed.fed_bytes == fed  # deferred to after the refresh
        await wait_for(pilot, lambda: view.feed.fed_bytes > fed)
        assert view.plain_text.endswith("first\nsecond")


async def open_full_screen(pilot: Pilot[None], app: CardsApp) -> TerminalScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, TerminalScreen))
    screen = app.screen
    assert isinstance(screen, TerminalScreen)
    return screen


async def test_full_screen_opens_from_the_header_and_closes(
    store: SessionStore,
) -> None:
    running_call(store)
    store.apply(ops.AppendTerminalOutput("term", numbered(0, 100)))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click(".terminal-header")
        screen = await open_full_screen(pilot, app)
        lines = screen.lines
        await wait_for(pilot, lambda: lines.size.height > CARD_LINES)
        # Sized to the screen: title and footer bars, the rest is output.
        assert lines.size.height == SIZE[1] - 2
        await wait_for(pilot, lambda: lines.scroll_y == lines.max_scroll_y)
        assert lines.render_line(lines.size.height - 1).text.rstrip() == "line 099"
        # Live: new output shows while it is open.
        store.apply(ops.AppendTerminalOutput("term", b"new line\r\n"))
        await wait_for(pilot, lambda: screen.text.endswith("new line"))
        await wait_for(
            pilot,
            lambda: (
                lines.render_line(lines.size.height - 1).text.rstrip() == "new line"
            ),
        )
        # Scrollable back to the start.
        await pilot.press("home")
        await wait_for(pilot, lambda: lines.scroll_y == 0)
        assert lines.render_line(0).text.rstrip() == "line 000"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TerminalScreen))


async def test_full_screen_opens_with_enter_on_the_lines(store: SessionStore) -> None:
    running_call(store)
    store.apply(ops.AppendTerminalOutput("term", b"hello\r\n"))
    store.apply(ops.PatchTerminal("term", exit_status={"exitCode": 1}))
    app = CardsApp(store)
    async with app.run_test(size=SIZE) as pilot:
        app.card("t1").query_one(TerminalLines).focus()
        await pilot.press("enter")
        screen = await open_full_screen(pilot, app)
        assert screen.text == "hello"
        footer = screen.query_one("#terminal-footer", Static)
        assert "exit 1" in str(footer.content)
        assert footer.has_class("-failed")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TerminalScreen))


async def test_the_terminals_directory_reads_from_the_sessions_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`(in .)` for the session's directory, relative inside it, shortened from
    the left to the width; the header's tooltip, and the full screen's title
    and `p`, give the full path."""
    monkeypatch.setenv("HOME", "/home/ann")
    store = SessionStore("sess_1", cwd="/home/ann/proj")
    running_call(store, with_terminal=False)
    store.apply(ops.PatchTerminal("term", command="make", cwd="/home/ann/proj"))
    app = CardsApp(store, panel=False)
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        view = segment(app)
        assert view.plain_text == "$ make  (in .)"
        header = view.query_one(".terminal-header", PathLines)
        assert isinstance(header.tooltip, Content)
        assert header.tooltip.plain == "/home/ann/proj"
        deep = "/srv/build/workspaces/demo-0001/tools"
        await apply(pilot, app, ops.PatchTerminal("term", cwd=deep))
        await wait_for(pilot, lambda: "tools" in view.plain_text)
        # 40 columns, less the card's border, padding and indent, and the words
        # around the path: 22 cells for it.
        assert view.plain_text == "$ make  (in …/demo-0001/tools)"
        await apply(pilot, app, ops.PatchTerminal("term", cwd="/home/ann/proj/sub"))
        await wait_for(pilot, lambda: "sub" in view.plain_text)
        assert view.plain_text == "$ make  (in sub)"
        await pilot.click(".terminal-header")
        screen = await open_full_screen(pilot, app)
        title = screen.query_one("#terminal-title", PathLines)
        assert title.text == "$ make  (in sub)"
        await pilot.press("p")
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["/home/ann/proj/sub"]
        assert app.clipboard == "/home/ann/proj/sub"


BUILD = (
    b"\x1b[1m[1/4]\x1b[0m \x1b[32mCompiling\x1b[0m src/main.c\r\n"
    b"\x1b[1msrc/util.c:12:5: \x1b[35mwarning:\x1b[0m unused variable "
    b"\x1b[1m'tmp'\x1b[0m\r\n"
    b"\x1b[38;5;208m256-colour orange\x1b[0m \x1b[38;2;80;160;255mtruecolour blue"
    b"\x1b[0m \x1b[7mreverse\x1b[0m \x1b[4munderline\x1b[0m \x1b[9mstrike\x1b[0m\r\n"
    b"\x1b[41;97m FAIL \x1b[0m test_parse\r\n"
    + b"".join(b"\rDownloading [%-10s] %3d%%" % (b"#" * n, n * 10) for n in range(11))
    + b"\r\n\x1b[1;32mBuild finished\x1b[0m\r\n"
)


@pytest.mark.snapshot
def test_coloured_terminal_card(snap_compare: SnapCompare) -> None:
    """A failed `Build` card with `$ make -j8  (in /p)` in bold, then on a raised
    background: `[1/4]` bold and `Compiling` green; `src/util.c:12:5:` bold, a
    magenta `warning:` and a bold `'tmp'`; an orange `256-colour orange`, a
    light blue `truecolour blue`, `reverse` in reversed colours, `underline`
    underlined and `strike` struck through; ` FAIL ` white on red; the progress
    bar in its final state `Downloading [##########] 100%`; `Build finished` bold
    green; and last the badge `exit 2` in red.
    """
    store = SessionStore("snap")
    store.apply_many(
        [
            ops.PatchToolCall(
                "t1",
                title="Build",
                kind="execute",
                status="failed",
                content=[TERMINAL_ITEM],
            ),
            ops.PatchTerminal("term", command="make -j8", cwd="/p"),
            ops.AppendTerminalOutput("term", BUILD),
            ops.PatchTerminal("term", exit_status={"exitCode": 2}),
        ]
    )
    app = CardsApp(store, panel=False)
    assert snap_compare(app, terminal_size=(90, 16))


@pytest.mark.snapshot
def test_terminal_full_screen(snap_compare: SnapCompare) -> None:
    """The full-screen terminal view: a bold title bar `$ make -j8  (in /p)` on
    the panel background; below it the tail of the output (the view follows it):
    `Downloading [##########] 100%`, `Build finished` in bold green, then `line
    000` to `line 011` just above the footer; a scrollbar on the right with its
    thumb at the bottom (the earlier build lines are scrolled off); and the
    footer `exit 2 · esc closes` in red.
    """
    store = SessionStore("snap")
    store.apply_many(
        [
            ops.PatchToolCall(
                "t1", title="Build", kind="execute", content=[TERMINAL_ITEM]
            ),
            ops.PatchTerminal("term", command="make -j8", cwd="/p"),
            ops.AppendTerminalOutput("term", BUILD + numbered(0, 12)),
            ops.PatchTerminal("term", exit_status={"exitCode": 2}),
        ]
    )

    async def open_view(pilot: Pilot[None]) -> None:
        await wait_for(pilot, lambda: bool(pilot.app.query(".terminal-header")))
        await pilot.pause()
        await pilot.click(".terminal-header")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TerminalScreen))
        await pilot.pause()

    app = CardsApp(store, panel=False)
    assert snap_compare(app, terminal_size=(70, 16), run_before=open_view)
