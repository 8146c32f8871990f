"""Terminal output as Rich segments: colours, attributes and a bounded-cost feed.

`TerminalFeed` keeps a sandboxed `TerminalEmulator` in step with a store
`Terminal` (v2 agent-owned or v1 client-owned; both keep their output as a byte
log): each `update` feeds only the bytes that arrived since the last one, resets
on a snapshot (`Terminal.resets`), and never emulates more than `budget` bytes.
When more than that arrived since the previous update (a flood, or a first look
at a long log), it starts afresh from a line boundary in the tail
(`tail_offset`): the emulation cost is bounded by what can be shown, not by how
much the terminal printed.

`TerminalStyles` maps pyte's cell attributes to Rich `Style`s (cached per
attribute set):

* the 16 ANSI colours (pyte's names, `brown` being yellow) become Rich's
  standard colours 0-15, which the UI's ANSI theme resolves;
* 256-colour and truecolour values (pyte keeps both as `rrggbb`) become RGB;
* bold, italic, underline, strikethrough, reverse and blink map one to one.

Only lines asked for are converted (`TerminalFeed.segments`), and every run of
text is checked to be printable: a cell can never carry a control character to
the real terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.store.model import Terminal
from acp_tui.terminal.emulator import TerminalEmulator, line_tail_offset, tail_offset

if TYPE_CHECKING:  # pyte loads with the first terminal emulated, not with this
    from pyte.screens import Char

__all__ = [
    "ANSI_COLOURS",
    "DEFAULT_BUDGET",
    "DEFAULT_HISTORY",
    "TerminalFeed",
    "TerminalStyles",
    "cell_color",
    "exit_label",
    "terminal_title",
    "terminal_title_parts",
]

ANSI_COLOURS: Final[Mapping[str, int]] = {
    name: number
    for number, name in enumerate(
        ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
    )
} | {
    f"bright{name}": number + 8
    for number, name in enumerate(
        ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
    )
}
"""pyte's colour names and their ANSI numbers (pyte calls yellow `brown`)."""

DEFAULT_BUDGET: Final = 32 * 1024
"""The most bytes one `TerminalFeed.update` emulates (about 15 ms here)."""

FLOOD_LINES: Final = 32
"""Lines emulated afresh from the tail while output keeps outrunning the budget
(`update(flooding=True)`): twice the 16 a card shows, so its height holds steady
while the flood lasts (a tail of so many bytes instead could hold 4 lines or 40,
and the card jumped between them). `deepen` re-emulates the full `budget` once
the flood is over."""

FLOOD_BUDGET: Final = 16 * 1024
"""The most bytes such a tail holds (long lines, or a progress bar redrawn with
carriage returns: few line feeds). Build output of ~100-byte lines makes tails of
about 3 KB: bench/terminal.py measured a fixed 8 KB tail at a worst frame gap of
100-132 ms and a median 21.6 MB/s, a fixed 4 KB one at 86 ms and 25.7 MB/s."""

DEFAULT_HISTORY: Final = 2_000
"""Scrollback lines a feed's emulator keeps."""

DEFAULT_ROWS: Final = 24
"""Screen height when the terminal reports no size."""

_MAX_STYLES: Final = 4096
"""Distinct attribute sets whose style is cached before the cache starts afresh."""

_REPLACEMENT: Final = "\N{REPLACEMENT CHARACTER}"

_Attributes = tuple[str, str, bool, bool, bool, bool, bool, bool]
"""A cell's attributes: fg, bg, bold, italics, underscore, strikethrough, reverse,
blink (pyte's `Char` without its data)."""


_DEFAULT_ATTRIBUTES: Final[_Attributes] = (
    "default",
    "default",
    False,
    False,
    False,
    False,
    False,
    False,
)
"""A blank cell's attributes (pyte's default `Char`)."""


def cell_color(value: str) -> Color | None:
    """A pyte colour as a Rich colour.

    Args:
        value: `default`, an ANSI name (`red`, `brightblue`, `brown`...) or
            `rrggbb` (pyte's 256-colour and truecolour form).

    Returns:
        A standard colour (0-15) for names, RGB for hex, `None` for the default
        or anything unrecognised.
    """
    number = ANSI_COLOURS.get(value)
    if number is not None:
        return Color.from_ansi(number)
    if len(value) == 6:
        try:
            rgb = int(value, 16)
        except ValueError:
            return None
        return Color.from_rgb(rgb >> 16, (rgb >> 8) & 0xFF, rgb & 0xFF)
    return None


class TerminalStyles:
    """Rich styles for pyte cell attributes, cached per attribute set."""

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict[_Attributes, Style] = {}

    def style(self, attributes: _Attributes) -> Style:
        """The style for a cell's attributes (`cell[1:]` of a pyte `Char`)."""
        style = self._cache.get(attributes)
        if style is None:
            if len(self._cache) >= _MAX_STYLES:
                self._cache.clear()
            fg, bg, bold, italic, underline, strike, reverse, blink = attributes
            style = self._cache[attributes] = Style(
                color=cell_color(fg),
                bgcolor=cell_color(bg),
                bold=bold or None,
                italic=italic or None,
                underline=underline or None,
                strike=strike or None,
                reverse=reverse or None,
                blink=blink or None,
            )
        return style

    def segments(self, line: Mapping[int, Char]) -> list[Segment]:
        """One emulator line as segments: a segment per run of equal attributes.

        Args:
            line: Cells by column (pyte `Char`s); gaps are plain blanks, the
                empty stub after a wide character takes no room.

        Returns:
            Segments up to the last cell (no padding).
        """
        if not line:
            return []
        result: list[Segment] = []
        texts: list[str] = []
        attributes: _Attributes | None = None
        blank = _DEFAULT_ATTRIBUTES
        for x in range(max(line) + 1):
            cell = line.get(x)
            cell_attributes = blank if cell is None else cell[1:]
            if cell_attributes != attributes:
                if texts:
                    result.append(self._segment(texts, attributes))
                    texts = []
                attributes = cell_attributes
            texts.append(" " if cell is None else cell[0])
        if texts:
            result.append(self._segment(texts, attributes))
        return result

    def text(self, line: Mapping[int, Char]) -> Text:
        """One emulator line as a `Text` (same styles as `segments`)."""
        text = Text(end="")
        for segment in self.segments(line):
            text.append(segment.text, segment.style)
        return text

    def _segment(self, texts: list[str], attributes: _Attributes | None) -> Segment:
        run = "".join(texts)
        if not run.isprintable():
            # Cells only hold what the emulator drew, but nothing that could act
            # on the real terminal may pass, whatever the emulator let through.
            run = "".join(c if c.isprintable() else _REPLACEMENT for c in run)
        if attributes is None or attributes == _DEFAULT_ATTRIBUTES:
            return Segment(run)
        style = self.style(attributes)
        return Segment(run, style if style else None)


def terminal_title(
    terminal: Terminal | None, terminal_id: str, paths: PathDisplay = AS_SENT
) -> str:
    """`$ command  (in cwd)`, or `terminal <id>` before the command is known.

    The directory as `paths` shows it (default: as sent).
    """
    before, cwd, after = terminal_title_parts(terminal, terminal_id)
    return before + (paths.show(cwd) if cwd is not None else "") + after


def terminal_title_parts(
    terminal: Terminal | None, terminal_id: str
) -> tuple[str, str | None, str]:
    """`terminal_title` in three parts: words, directory, words.

    The directory is None when the agent did not state it.
    """
    if terminal is None or not terminal.command:
        return f"terminal {terminal_id}", None, ""
    command = f"$ {terminal.command}"
    if not terminal.cwd:
        return command, None, ""
    return f"{command}  (in ", terminal.cwd, ")"


def exit_label(terminal: Terminal | None) -> tuple[str, bool] | None:
    """The exit badge: `("exit 0", True)`, `("killed by SIGTERM", False)`...

    Any exit status object, even `{}`, means exited (`"exited"`, code unknown).

    Returns:
        The label and whether it reads as success, or `None` while running.
    """
    if terminal is None or terminal.exit_status is None:
        return None
    status = terminal.exit_status
    code = status.get("exitCode")
    signal = status.get("signal")
    if isinstance(signal, str) and signal:
        return f"killed by {signal}", False
    if isinstance(code, int) and not isinstance(code, bool):
        return f"exit {code}", code == 0
    return "exited", True


def _size(terminal: Terminal) -> tuple[int, int] | None:
    size = terminal.size
    if size is None:
        return None
    cols, rows = size.get("cols"), size.get("rows")
    if isinstance(cols, int) and isinstance(rows, int) and cols > 0 and rows > 0:
        return min(cols, 1000), min(rows, 500)
    return None


class TerminalFeed:
    """An emulator kept in step with a store `Terminal`, at a bounded cost.

    Args:
        columns: Width to emulate at, unless the terminal reports a size.
        history: Scrollback lines kept.
        budget: The most bytes one `update` emulates.
    """

    def __init__(
        self,
        columns: int = 80,
        *,
        history: int = DEFAULT_HISTORY,
        budget: int = DEFAULT_BUDGET,
    ) -> None:
        self.emulator = TerminalEmulator(max(1, columns), DEFAULT_ROWS, history)
        self.styles = TerminalStyles()
        self.budget = budget
        self._columns = max(1, columns)
        self._history = history
        self._resets = -1
        self._fed = 0
        """Bytes of the output consumed since its last reset (dropped ones too)."""
        self._revision = -1
        self._stale = True
        self.skipped = 0
        """Bytes of output before the emulated tail (not shown)."""
        self.behind = False
        """Whether the last update had more than `budget` bytes to emulate (a flood,
        or a long log at first sight) and emulated only the tail."""
        self.shallow = False
        """Whether the emulated tail is a flood's short one (`FLOOD_LINES`), which
        `deepen` replaces with a full `budget` of it."""
        self.fed_bytes = 0
        """Bytes fed to an emulator in all (to measure the work done)."""

    @property
    def started(self) -> bool:
        """Whether an `update` has taken the terminal in.

        After that, only what arrives is fed, unless the tail is emulated afresh.
        """
        return self._resets >= 0

    @property
    def columns(self) -> int:
        """The emulator's width."""
        return self.emulator.columns

    def set_width(self, columns: int) -> bool:
        """Emulate at a new width from the next `update` (the tail is re-fed).

        Ignored when the terminal reports its own size.

        Returns:
            Whether the width asked for changed.
        """
        columns = max(1, columns)
        if columns == self._columns:
            return False
        self._columns = columns
        self._stale = True
        return True

    def update(self, terminal: Terminal, *, flooding: bool = False) -> bool:
        """Feed what arrived since the last update (at most `budget` bytes).

        Args:
            terminal: The terminal's current state.
            flooding: Output is still pouring in: whenever the tail is emulated
                afresh (too far behind, a new width, a snapshot), take a short
                one (`FLOOD_LINES` lines, at most `FLOOD_BUDGET` bytes), not a
                full `budget`; `deepen` takes the full one once it is over.

        Returns:
            Whether anything the lines show may have changed.
        """
        if terminal.revision == self._revision and not self._stale:
            return False
        self._revision = terminal.revision
        size = _size(terminal)
        columns, rows = size or (self._columns, DEFAULT_ROWS)
        emulator = self.emulator
        geometry_changed = (columns, rows) != (emulator.columns, emulator.lines)
        # Only the bytes needed are taken from the store (`output_tail`): joining
        # the whole log (up to the store's cap) on every update would cost more
        # than emulating what arrived.
        retained = terminal.output_size
        start = terminal.dropped_bytes
        self.behind = False
        # The same output, size and terminal as at the last feed: only new bytes.
        continuous = (
            terminal.resets == self._resets and not self._stale and not geometry_changed
        )
        if continuous and self._fed >= start:
            pending = start + retained - self._fed
            if pending == 0:
                return True  # Only the header or the exit status changed.
            if 0 < pending <= self.budget:
                emulator.feed(terminal.output_tail(pending))
                self.fed_bytes += pending
                self._fed = start + retained
                return True
        # A snapshot, a new size, or too far behind: afresh, from the tail. In a
        # flood, a short one even for a new size: a card laid out while output
        # pours in would otherwise emulate a full budget twice (at the width it
        # guessed, then at its own) inside one frame gap.
        budget = min(FLOOD_BUDGET, self.budget) if flooding else self.budget
        tail = terminal.output_tail(min(retained, budget + 1))
        offset = tail_offset(tail, budget)
        if flooding:
            offset = max(offset, line_tail_offset(tail, FLOOD_LINES))
        self.emulator = TerminalEmulator(columns, rows, self._history)
        self.emulator.feed(tail[offset:])
        self.fed_bytes += len(tail) - offset
        self.skipped = start + retained - len(tail) + offset
        self.behind = self.skipped > start
        self.shallow = self.behind and budget < self.budget
        self._fed = start + retained
        self._resets = terminal.resets
        self._stale = False
        return True

    def deepen(self, terminal: Terminal) -> bool:
        """After a flood: emulate a full `budget` of the tail, if a short one shows.

        Returns:
            Whether the emulator was replaced (the lines shown changed).
        """
        if not self.shallow:
            return False
        self._stale = True
        return self.update(terminal)

    @property
    def row_count(self) -> int:
        """Lines with output (scrollback and screen)."""
        return self.emulator.row_count

    def segments(self, index: int) -> list[Segment]:
        """Line `index` (0: the oldest scrollback line) as Rich segments."""
        return self.styles.segments(self.emulator.row(index))

    def text(self, index: int) -> Text:
        """Line `index` as a Rich `Text`."""
        return self.styles.text(self.emulator.row(index))

    def plain_text(self) -> str:
        """Every line as plain text (trailing blanks and empty lines cut)."""
        return self.emulator.text()
