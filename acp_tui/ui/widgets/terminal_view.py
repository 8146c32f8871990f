"""A terminal in a tool-call card: command, emulated screen in colour, exit badge.

`TerminalSegment` is the card's widget for a `terminal` content item (registered
in `tool_call_view.SEGMENT_VIEWS`). It shows:

* a header, `$ command  (in cwd)` (`terminal <id>` until the terminal's state
  arrives: a reference may come first), which opens the full-screen view when
  clicked. The directory reads relative to the session's directory (`.` for
  itself, `~` for the home directory), shortened from the left to the width,
  the full path in the header's tooltip;
* the emulated lines (`TerminalLines`, a Line API `ScrollView`: only the lines
  on screen are converted), at most `CARD_LINES` high, following the tail
  unless the user scrolled up; Enter on it opens the full-screen view. When
  output outran the per-feed budget and only its tail was emulated, the first
  line says how much earlier output is not shown;
* the exit badge: `exit 0`, `exit 2`, `killed by SIGTERM`, or `exited` for an
  exit status without a code (`{}`).

Ingest never blocks the UI: the emulator is fed from the store's byte log at
most once per `FEED_INTERVAL` (updates that come sooner are gathered into one
feed, on a timer), and each feed emulates at most `TerminalFeed.budget` bytes (see
`acp_tui.render.terminal`). Agent bytes only ever reach the emulator; the lines
shown are the emulator's cells, checked printable.

Opening the full-screen view posts `TerminalSegment.OpenFull`; the pane
(`acp_tui.ui.screens.openers.FullScreenOpener`) pushes
`acp_tui.ui.screens.terminal.TerminalScreen`. Widgets never import screens.
"""

from __future__ import annotations

from collections.abc import Sequence
from time import monotonic
from typing import ClassVar, Final

from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.events import Click, Resize
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.render.terminal import (
    TerminalFeed,
    exit_label,
    terminal_title_parts,
)
from acp_tui.safe_text import printable
from acp_tui.store.model import Terminal, terminal_ref
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from acp_tui.ui.textual_private import scroll_update, set_timer_once
from acp_tui.ui.widgets._paint import PaintStyle
from acp_tui.ui.widgets.path_lines import PathLine, PathLines, session_paths

__all__ = [
    "CARD_LINES",
    "FEED_INTERVAL",
    "FLOOD_INTERVAL",
    "SETTLE_DELAY",
    "TerminalLines",
    "TerminalSegment",
    "skipped_note",
    "static_plain",
]

CARD_LINES: Final = 16
"""The most terminal lines a card shows at once (the rest scroll)."""

FEED_INTERVAL: Final = 1 / 30
"""The least time between two feeds of the card's emulator, in seconds: output
that arrives sooner is gathered into the next feed (at most one feed per frame,
fewer in a flood, when frames come more often than the eye needs)."""

FLOOD_INTERVAL: Final = 0.075
"""The least time between two feeds while output outruns the budget (the last feed
emulated only the tail): a flood is unreadable anyway, and the time goes to
reading it in instead. Each such feed emulates a short tail (`FLOOD_BUDGET`), so
the card still moves more than ten times a second."""

SETTLE_DELAY: Final = 0.25
"""Seconds without a flood's feed after which the card emulates a full budget of
the tail again (`TerminalFeed.deepen`): the scrollback the flood left short."""


def skipped_note(skipped: int) -> str:
    """The note shown when `skipped` bytes of earlier output are not emulated."""
    if skipped >= 1024 * 1024:
        amount = f"{skipped / (1024 * 1024):.1f} MB"
    elif skipped >= 1024:
        amount = f"{skipped / 1024:.0f} KB"
    else:
        amount = f"{skipped} bytes"
    return f"… {amount} of earlier output not shown"


class TerminalLines(PaintStyle, ScrollView, can_focus=True):
    """The emulated lines of a `TerminalFeed`, rendered a line at a time.

    Follows the tail (scrolls to the end as lines arrive) unless the user
    scrolled up; scrolling back to the end follows again. Its width is the
    emulator's width, unless the terminal reports a size of its own.

    Args:
        feed: The emulator feed to show.
        id: The widget id.
        classes: Extra classes.
    """

    DEFAULT_CSS = """
    TerminalLines {
        height: auto;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-horizontal: 0;
        &.-wide { overflow-x: auto; scrollbar-size-horizontal: 1; }
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
        background: $surface;
        color: $foreground;
        &:focus { background-tint: $foreground 5%; }
        & > .terminal-lines--note { color: $text-muted; text-style: italic; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_full_screen", "Full screen", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"terminal-lines--note"}
    """`terminal-lines--note`: the note that earlier output is not shown."""

    def __init__(
        self,
        feed: TerminalFeed,
        *,
        show_note: bool = True,
        id: str | None = None,
        classes: str = "",
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.feed = feed
        self.show_note = show_note
        """Whether the first line notes skipped output, when there is some."""
        self.following = True
        """Whether new lines scroll into view (the user has not scrolled up)."""
        self.opener: TerminalSegment | None = None
        """The segment whose full-screen view Enter opens (none: Enter does nothing)."""

    def sync(self) -> None:
        """Show the feed's current lines (after it was updated)."""
        feed = self.feed
        size = Size(feed.columns, self.note_rows + feed.row_count)
        if size != self.virtual_size:
            if self.is_mounted and self._same_layout(size):
                # Only the scroll range changes: skip the layout pass that setting
                # `virtual_size` costs (it reflows the whole screen, every frame of a
                # flood).
                self.set_reactive(TerminalLines.virtual_size, size)
                scroll_update(self, size)
            else:
                self.virtual_size = size
        self.set_class(size.width > self.scrollable_content_region.width, "-wide")
        if not self.is_mounted:
            return
        self.refresh()
        if self.following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _same_layout(self, size: Size) -> bool:
        """Whether showing `size` leaves this widget's height and scrollbars as is."""
        old = self.virtual_size
        height = self.scrollable_content_region.height
        if size.width != old.width or height <= 0:
            return False
        if old.height > height and size.height > height:
            return self.show_vertical_scrollbar  # Overflowing before and after.
        auto_height = self.styles.height is None or self.styles.height.is_auto
        return (
            not auto_height
            and old.height <= height
            and size.height <= height
            and not self.show_vertical_scrollbar
        )

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Follow the tail again once the user scrolls back to the end."""
        super().watch_scroll_y(old_value, new_value)
        self.following = round(new_value) >= self.max_scroll_y

    @property
    def note_rows(self) -> int:
        """Lines above the output: 1 for the skipped-output note, else 0."""
        return 1 if self.show_note and self.feed.skipped else 0

    def render_line(self, y: int) -> Strip:
        """One line of the emulated terminal (only visible lines are asked for)."""
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y - self.note_rows
        width = self.scrollable_content_region.width
        style = self.paint_style
        if index == -1:
            note = self.get_component_rich_style("terminal-lines--note")
            strip = Strip([Segment(skipped_note(self.feed.skipped), note)])
        elif not 0 <= index < self.feed.row_count:
            return Strip.blank(width, style)
        else:
            strip = Strip(self.feed.segments(index))
        return strip.crop_extend(scroll_x, scroll_x + width, None).apply_style(style)

    def on_resize(self, event: Resize) -> None:
        """Emulate at the new width (a card soon, the full screen at its next poll)."""
        if self.opener is not None:
            self.opener.refit()
        else:
            self.fit_width()

    def fit_width(self) -> bool:
        """Ask the feed for this widget's width; return whether that changed it.

        Not only on `Resize`: Textual sends none to a widget whose first region
        was taken while it scrolled into view (the card then kept the width it
        guessed before mount, 80 columns, in 2 of 4 runs of bench/terminal.py).
        """
        width = self.scrollable_content_region.width
        return width > 0 and self.feed.set_width(width)

    def action_open_full_screen(self) -> None:
        """Open the full-screen view of this terminal."""
        if self.opener is not None:
            self.opener.open_full_screen()


class TerminalSegment(Widget):
    """A `terminal` content item in a tool-call card (a `SegmentView`)."""

    DEFAULT_CSS = """
    TerminalSegment {
        height: auto;
        & > .terminal-header { height: auto; text-style: bold; }
        & > .terminal-header:hover { text-style: bold underline; }
        & > TerminalLines { max-height: 16; }
        & > .terminal-status {
            height: auto;
            color: $success;
            &.-failed { color: $error; }
        }
        & > .terminal-errors { height: auto; color: $error; }
    }
    """

    def __init__(self) -> None:
        super().__init__(classes="tool-segment")
        self.feed = TerminalFeed()
        self.store: SessionStore | None = None
        self._paths = session_paths(None)
        """How the session's paths read (worked out with the store, not per feed)."""
        self.terminal_id: str | None = None
        self._header = PathLines(classes="terminal-header")
        self._lines = TerminalLines(self.feed)
        self._lines.opener = self
        self._lines.display = False
        self._status = Static(classes="terminal-status")
        self._status.display = False
        self._errors = Static(classes="terminal-errors")
        self._errors.display = False
        self._last_feed = -FEED_INTERVAL
        self._shown_exit: JSONObject | None = None
        self._deferred: Timer | None = None
        """The pending gathered refresh (`refresh_terminal`), if any."""
        self._settle: Timer | None = None
        self._reported_lines = 0
        """The line count the card last read (`show_segment`, `LinesChanged`)."""

    def compose(self) -> ComposeResult:
        """Yield the parts (already filled in by `show_segment`)."""
        yield self._header
        yield self._errors
        yield self._lines
        yield self._status

    def show_segment(
        self, store: SessionStore, items: Sequence[JSONObject], start: int, end: int
    ) -> int:
        """Show the terminal that `items[start]` refers to; return its height.

        Args:
            store: The session store (the terminal's state lives there).
            items: The tool call's content items.
            start: The segment's item (a `terminal` reference).
            end: One past it.

        Returns:
            The lines the segment has: header, output lines and exit badge.
        """
        terminal_id = terminal_ref(items[start]) or ""
        if terminal_id != self.terminal_id:
            self.feed = TerminalFeed(self.feed.columns)
            self._lines.feed = self.feed
        if store is not self.store:
            self.store, self._paths = store, session_paths(store)
        self.terminal_id = terminal_id
        # The card reads the line count only now (for its title and whether it
        # folds): once the terminal exits, show its final state at once.
        terminal = self.terminal
        exit_status = terminal.exit_status if terminal is not None else None
        final = exit_status is not None and exit_status is not self._shown_exit
        self._shown_exit = exit_status
        self.refresh_terminal(force=final)
        self._reported_lines = self.line_count
        return self._reported_lines

    class LinesChanged(Message):
        """A feed after `show_segment` changed the line count.

        The card's title counts the lines, and it reads them only in
        `show_segment`: without this, a count seen before a deferred feed stayed.
        """

        def __init__(self, segment: TerminalSegment) -> None:
            super().__init__()
            self.segment = segment

    def _report_lines(self) -> None:
        if self.line_count != self._reported_lines:
            self._reported_lines = self.line_count
            self.post_message(self.LinesChanged(self))

    @property
    def terminal(self) -> Terminal | None:
        """The terminal's current state in the store (`None`: not seen yet)."""
        if self.store is None or self.terminal_id is None:
            return None
        return self.store.terminal(self.terminal_id)

    @property
    def line_count(self) -> int:
        """Header, skipped-output note, output lines and exit badge."""
        errors = len(self.terminal.errors) if self.terminal is not None else 0
        return (
            1
            + errors
            + self._lines.note_rows
            + self.feed.row_count
            + int(self._status.display)
        )

    def refresh_terminal(self, *, force: bool = False, soon: bool = False) -> None:
        """Bring the view up to date with the store (at most once per `FEED_INTERVAL`).

        Sooner calls are gathered into one, after the interval (`FLOOD_INTERVAL`
        in a flood).

        Args:
            force: Feed now, whenever the last feed was (still within the budget).
            soon: `FEED_INTERVAL` after the last feed even in a flood (a new width:
                the lines show the old one until then).
        """
        if self.is_mounted and not force:
            now = monotonic()
            flood = self.feed.behind and not soon
            wait = self._last_feed + (FLOOD_INTERVAL if flood else FEED_INTERVAL) - now
            if wait > 0:
                pending = self._deferred
                if pending is not None and soon:
                    pending.stop()  # a flood's longer wait: take the shorter one
                    pending = None
                if pending is None:
                    self._deferred = set_timer_once(
                        self, wait, self._deferred_refresh, name="terminal-deferred"
                    )
                return
            self._last_feed = now
        elif self.is_mounted:
            self._last_feed = monotonic()
        self._update()

    def refit(self) -> None:
        """Re-emulate soon if the lines' width changed.

        Within `FEED_INTERVAL` of the last feed, not a flood's `FLOOD_INTERVAL`:
        the lines are at the old width until then, and as a card is laid out in a
        flood a feed has often just been made, so the wait was a whole flood
        interval on top of the layout. Not at once either: a window being dragged
        sends a `Resize` after another, and each width is a full re-emulation.
        """
        if self.is_attached and self._lines.fit_width():
            self.refresh_terminal(soon=True)
            self._report_lines()

    def on_mount(self) -> None:
        """Take the width the layout gives (built before mount, it guessed one)."""
        self.call_after_refresh(self.refit)

    def on_unmount(self) -> None:
        """Removed: its lines no longer open it (else a cycle: see widget_cycles)."""
        self._lines.opener = None

    def _deepen(self) -> None:
        """The flood is over (or slowed down): a full budget of the tail again."""
        self._settle = None
        terminal = self.terminal
        if self.is_attached and terminal is not None and self.feed.deepen(terminal):
            self._lines.sync()
            self._report_lines()

    def _deferred_refresh(self) -> None:
        self._deferred = None
        if self.is_attached:
            self.refresh_terminal()
            self._report_lines()

    def _update(self) -> None:
        terminal = self.terminal
        parts = terminal_title_parts(terminal, self.terminal_id or "?")
        self._header.show_lines([PathLine(*parts)], self._paths)
        label = exit_label(terminal)
        flooding = self._flooding(terminal, running=label is None)
        if self.is_mounted:
            self._lines.fit_width()
        if terminal is not None and self.feed.update(terminal, flooding=flooding):
            self._lines.sync()
        # A flood's feed (re)starts the settle delay; a short tail taken for
        # another reason (first sight, a new width) deepens once the delay is over
        # even if output keeps trickling in (it is not behind then).
        if self.feed.shallow and (self.feed.behind or self._settle is None):
            if self._settle is not None:
                self._settle.stop()
            self._settle = set_timer_once(
                self, SETTLE_DELAY, self._deepen, name="settle"
            )
        self._lines.display = self.feed.row_count > 0
        errors = terminal.errors if terminal is not None else ()
        self._errors.display = bool(errors)
        if errors:
            self._errors.update(
                Content("\n".join(printable(f"⚠ {error}") for error in errors))
            )
        self._status.display = label is not None
        if label is not None:
            text, ok = label
            self._status.set_class(not ok, "-failed")
            self._status.update(Content(printable(text)))

    def _flooding(self, terminal: Terminal | None, *, running: bool) -> bool:
        """Whether to feed as in a flood (a short tail when emulating afresh).

        A flood is output still running and still behind since the last feed, or,
        at first sight, more than a budget behind. Its tail is what the card
        shows; the settle timer deepens it once the output slows down. That holds
        at the exit too when it ends a flood: the final frame shows at once, and
        the full budget follows.
        """
        feed = self.feed
        if feed.shallow:
            return True
        if not running:
            return False
        if feed.behind:
            return True
        return (
            not feed.started
            and terminal is not None
            and terminal.output_size > feed.budget
        )

    @property
    def plain_text(self) -> str:
        """Header, note, output lines and exit badge as plain text."""
        if self._deferred is not None:
            self._update()  # Reading it (tests, export) catches up at once.
        parts = [self._header.text]
        if self._errors.display:
            parts.append(static_plain(self._errors))
        if self._lines.note_rows:
            parts.append(skipped_note(self.feed.skipped))
        text = self.feed.plain_text()
        if text:
            parts.append(text)
        if self._status.display:
            parts.append(static_plain(self._status))
        return "\n".join(parts)

    def on_click(self, event: Click) -> None:
        """A click on the header opens the full-screen view."""
        if event.widget is self._header:
            event.stop()
            self.open_full_screen()

    class OpenFull(Message):
        """Asks for the terminal full screen (`FullScreenOpener` pushes it)."""

        def __init__(self, store: SessionStore, terminal_id: str) -> None:
            super().__init__()
            self.store = store
            self.terminal_id = terminal_id

    def open_full_screen(self) -> None:
        """Ask for the full-screen view of this terminal (Esc closes it)."""
        if self.store is None or self.terminal_id is None:
            return
        self.post_message(self.OpenFull(self.store, self.terminal_id))


def static_plain(widget: Static) -> str:
    """What a `Static` shows, as plain text."""
    content = widget.content
    return content.plain if isinstance(content, Content) else str(content)
