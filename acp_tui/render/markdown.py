"""Streaming markdown, parsed incrementally and rendered to lines of segments.

Why not Textual's `Markdown` widget: it builds one widget per block (four per list
item), and a frame's cost in Textual grows with the widgets on screen. While an
agent streams, every frame re-lays out and repaints the conversation (the view
follows the growing tail), so bench/ui.py spent about 30 ms per frame on a
markdown turn, over half the app's CPU, and frames came 100-160 ms apart. Here a
message is one `MarkdownDocument`: a list of top-level blocks, each rendered once
per width to lines of Rich segments and cached; the UI shows them with one
Line-API widget (`acp_tui.ui.widgets.markdown_view`).

* **Incremental parsing.** `append` re-parses only the source from the start of
  the last top-level block (the *tail*), as markdown-it would parse it in the
  whole document: the blocks before it are complete and keep their identity
  (`Block.key`), so their rendered lines stay cached. A growing paragraph costs
  in proportion to its own length, once per flush.
* **Rendering** (`render_block`) covers what agents write: headings, paragraphs
  with strong, emphasis, strikethrough, inline code and links, bullet and
  ordered lists (nested, loose or tight), block quotes, code fences (highlighted
  by language with the same Pygments roles as diffs; never guessed), tables
  (Rich's table layout) and rules. Anything else is shown as its text.
* **Links are what was written as links**: `[text](url)`, `<url>` and bare URLs
  with a scheme. No fuzzy linking: agents' answers are full of file names
  (`hello.py`, `README.md`), which are not domains.
* **Data, not markup.** Text goes into `rich.text.Text` objects as plain
  strings; nothing is parsed as Rich markup. The caller strips control
  characters first (`acp_tui.safe_text.printable`).

Styles come from a `MarkdownTheme` the UI fills from its theme (no colour is
chosen here). Lines are lists of `rich.segment.Segment`, at most `width` cells,
not padded.
"""

from __future__ import annotations

import bisect
import io
import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Final, TypeAlias

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from rich import box
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from acp_tui.render import fast_wrap
from acp_tui.render.diff import lexer_spans
from acp_tui.render.highlight import find_lexer

__all__ = [
    "Block",
    "FenceTracker",
    "Line",
    "MarkdownDocument",
    "MarkdownTheme",
    "iter_lines",
    "line_text",
    "render_block",
    "render_notice",
    "warm_parser",
]

Line: TypeAlias = list[Segment]
"""One rendered line: segments whose cells add up to at most the width."""

BULLETS: Final = ("•", "◦", "▪")
"""Bullet marks by list depth (cycling)."""

QUOTE_MARK: Final = "▌ "
CODE_PAD: Final = 1
"""Cells of padding left and right of a code block's text."""

_console = Console(
    file=io.StringIO(),
    width=200,
    color_system="truecolor",
    force_terminal=True,
    legacy_windows=False,
    emoji=False,
    markup=False,
    highlight=False,
)
"""Measures and wraps text; never prints anything."""


@dataclass(frozen=True)
class MarkdownTheme:
    """The Rich styles markdown is drawn with (filled in from the UI's theme)."""

    text: Style = field(default_factory=Style.null)
    headings: tuple[Style, ...] = (
        Style(bold=True, underline=True),
        Style(bold=True),
        Style(bold=True),
        Style(bold=True, italic=True),
        Style(italic=True),
        Style(italic=True, dim=True),
    )
    strong: Style = field(default_factory=lambda: Style(bold=True))
    emphasis: Style = field(default_factory=lambda: Style(italic=True))
    strike: Style = field(default_factory=lambda: Style(strike=True))
    code_inline: Style = field(default_factory=lambda: Style(reverse=True))
    link: Style = field(default_factory=lambda: Style(underline=True))
    bullet: Style = field(default_factory=lambda: Style(bold=True))
    quote: Style = field(default_factory=lambda: Style(italic=True))
    quote_mark: Style = field(default_factory=lambda: Style(bold=True))
    code_block: Style = field(default_factory=Style.null)
    table_border: Style = field(default_factory=lambda: Style(dim=True))
    table_header: Style = field(default_factory=lambda: Style(bold=True))
    rule: Style = field(default_factory=lambda: Style(dim=True))
    notice: Style = field(default_factory=lambda: Style(italic=True, reverse=True))
    """The line that says what part of a long message is not shown."""
    syntax: Mapping[str, Style] = field(default_factory=dict)
    """Styles by Pygments role (`render.diff.SYNTAX_ROLES`)."""


@dataclass(frozen=True, eq=False)
class Block:
    """One top-level block of a document: its tokens and a stable identity."""

    key: int
    """Unique per block version: a block re-parsed with new text gets a new key."""
    tokens: tuple[Token, ...]
    start: int = 0
    """Where the block's first line starts, counted from the start of everything
    the document was given (`MarkdownDocument.dropped` included)."""


_keys = itertools.count(1)


def _line_offset(text: str, line: int) -> int:
    """The index in `text` where line number `line` (0-based) starts."""
    offset = 0
    for _ in range(line):
        found = text.find("\n", offset)
        if found < 0:
            return len(text)
        offset = found + 1
    return offset


def _line_offsets(text: str, lines: Sequence[int]) -> list[int]:
    """The index in `text` where each of `lines` (0-based, ascending) starts."""
    offsets: list[int] = []
    offset = 0
    line = 0
    for wanted in lines:
        while line < wanted:
            found = text.find("\n", offset)
            if found < 0:
                offset = len(text)
                line = wanted
                break
            offset = found + 1
            line += 1
        offsets.append(offset)
    return offsets


def _split_blocks(tokens: Sequence[Token]) -> list[tuple[Token, ...]]:
    """Group a token stream into its top-level blocks."""
    blocks: list[tuple[Token, ...]] = []
    start = 0
    depth = 0
    for index, token in enumerate(tokens):
        depth += token.nesting
        if depth == 0:
            blocks.append(tuple(tokens[start : index + 1]))
            start = index + 1
    if start < len(tokens):
        blocks.append(tuple(tokens[start:]))
    return blocks


@cache
def _shared_parser() -> MarkdownIt:
    """The one parser every document uses, built on first use.

    Building a `MarkdownIt` (its rule chains and linkify's patterns) cost about
    1 ms, more than parsing a streamed message's tail, and a conversation makes
    a document per message. `parse` keeps no state between calls (each gets a
    fresh `StateCore`), and documents are parsed on one thread, one at a time.
    """
    parser = MarkdownIt("gfm-like")
    if parser.linkify is not None:
        # Only what is written as a link is one: a URL with its scheme. Fuzzy
        # links made every file name an agent mentions (`hello.py`, `README.md`)
        # a link to a made-up domain, shown as `hello.py (http://hello.py)`.
        parser.linkify.set({"fuzzy_link": False, "fuzzy_email": False})
        parser.linkify.add("//", None)  # nor a scheme-relative `//host/path`
    return parser


def warm_parser() -> None:
    """Build the shared parser and parse once, ahead of the first message.

    The first parse compiles linkify's patterns: about 20 ms here, inside the
    first frame of the first agent message otherwise.
    """
    _shared_parser().parse("https://example.com")


class MarkdownDocument:
    """A markdown source and its top-level blocks, appended to incrementally.

    Args:
        source: The document to start with.
    """

    def __init__(self, source: str = "") -> None:
        self._parser = _shared_parser()
        self.source = ""
        self.blocks: list[Block] = []
        self._tail_start = 0
        """Where in the source the last top-level block starts."""
        self.dropped = 0
        """Characters dropped from the start (`drop_before`)."""
        self.parses = 0
        """How many times a tail was parsed (tests check appends stay local)."""
        if source:
            self.append(source)

    def replace(self, source: str) -> None:
        """Replace the whole document."""
        self.source = ""
        self.blocks = []
        self._tail_start = 0
        self.dropped = 0
        self.append(source)

    def append(self, fragment: str) -> int:
        """Append markdown; re-parse from the start of the last block.

        Args:
            fragment: Text to add at the end.

        Returns:
            The index of the first block that changed (blocks before it are the
            same objects as before).
        """
        if not fragment:
            return len(self.blocks)
        self.source += fragment
        tail = self.source[self._tail_start :]
        tokens = self._parser.parse(tail)
        self.parses += 1
        groups = _split_blocks(tokens)
        # The blocks before the tail are complete; the tail's old block goes.
        kept = self.blocks[:-1] if self.blocks else []
        first_changed = len(kept)
        lines = [group[0].map[0] if group and group[0].map else 0 for group in groups]
        origin = self.dropped + self._tail_start
        starts = [origin + offset for offset in _line_offsets(tail, lines)]
        self.blocks = kept + [
            Block(next(_keys), group, start)
            for group, start in zip(groups, starts, strict=True)
        ]
        last_line = next(
            (
                group[0].map[0]
                for group in reversed(groups)
                if group and group[0].map is not None
            ),
            None,
        )
        if last_line is not None:
            self._tail_start += _line_offset(tail, last_line)
        return first_changed

    def drop_before(self, position: int) -> int:
        """Drop the blocks that start before `position` (in the source), whole.

        The first block starting at or after `position` becomes the first one;
        the blocks kept are the same objects (their drawn lines stay cached).
        Nothing is dropped when no block but the first starts there or later
        (the text is one long block): the caller cuts it another way.

        Returns:
            How many characters of the source were dropped.
        """
        absolute = self.dropped + position
        index = next(
            (i for i, block in enumerate(self.blocks) if block.start >= absolute), 0
        )
        if index == 0:
            return 0
        cut = self.blocks[index].start - self.dropped
        self.blocks = self.blocks[index:]
        self.source = self.source[cut:]
        self._tail_start -= cut
        self.dropped += cut
        return cut


def _may_open(start: str) -> bool:
    """Whether a line beginning so may still turn out to be a fence line."""
    marks = start.lstrip(" ")
    if len(start) - len(marks) > 3:
        return False
    return not marks or set(marks) in ({"`"}, {"~"})


class FenceTracker:
    """Where code fences open and close in a text fed piece by piece.

    A long message is shown as a head and a tail (`acp_tui.ui.widgets.
    markdown_view`); a tail that starts inside a code fence must start with that
    fence's opening line, or the code reads as prose and the closing fence opens
    a new one. Parsing the dropped text to know that would cost what the window
    saves, so this scans it for fence lines only: a line of at most three spaces
    then three or more backticks or tildes opens a fence (its info string may
    not hold a backtick after backticks), and one of the same character, at
    least as long and with nothing after it, closes it. Fences inside other
    blocks (a list item's indented ones) are not told apart, a rare mistake that
    only changes how a window's first lines look.

    Scanning looks for the markers themselves (`str.find`), so a long text
    without fences costs a few passes at C speed, and one unbroken line of any
    length is never copied.
    """

    MAX_FENCE_LINE: Final = 4096
    """A fence line is short: a longer line holding a marker is not one."""

    def __init__(self) -> None:
        self.fed = 0
        """Characters fed so far."""
        self.opener: str | None = None
        """The opening line of the fence open at the end of what was fed."""
        self._marker = ""
        self._carry = ""
        """The unfinished last line, when it may still be a fence line."""
        self._mid_line = False
        """The last line is unfinished and cannot be a fence line."""
        self._changes: list[tuple[int, str | None]] = [(0, None)]
        """(position, opener): from the line starting at `position`, the fence."""

    def feed(self, text: str) -> None:
        """Scan the next piece of the text."""
        if not text:
            return
        base = self.fed - len(self._carry)
        self.fed += len(text)
        data = self._carry + text if self._carry else text
        start = 0
        if self._mid_line:
            end = data.find("\n")
            if end < 0:
                return
            start = end + 1
            self._mid_line = False
        self._carry = ""
        while True:
            index = self._next_marker(data, start)
            if index < 0:
                break
            newline = data.rfind("\n", start, index)
            line_start = start if newline < 0 else newline + 1
            line_end = data.find("\n", index)
            if index - line_start > 3 or data[line_start:index].strip(" "):
                if line_end < 0:  # not a fence line, and it goes on
                    self._mid_line = True
                    return
                start = line_end + 1
                continue
            if line_end < 0:  # the line goes on in the next piece
                if len(data) - line_start <= self.MAX_FENCE_LINE:
                    self._carry = data[line_start:]
                else:
                    self._mid_line = True
                return
            if line_end - line_start <= self.MAX_FENCE_LINE:
                self._fence_line(data[line_start:line_end], base + line_end + 1)
            start = line_end + 1
        partial = max(data.rfind("\n", start) + 1, start)
        if partial == len(data):
            return
        if len(data) - partial <= 5 and _may_open(data[partial:]):
            self._carry = data[partial:]  # a fence's first characters
        else:
            self._mid_line = True

    @staticmethod
    def _next_marker(data: str, start: int) -> int:
        ticks = data.find("```", start)
        tildes = data.find("~~~", start)
        if ticks < 0:
            return tildes
        if tildes < 0:
            return ticks
        return min(ticks, tildes)

    def _fence_line(self, line: str, after: int) -> None:
        stripped = line.lstrip(" ")
        char = stripped[0]
        count = len(stripped) - len(stripped.lstrip(char))
        rest = stripped[count:]
        if self.opener is None:
            if char == "`" and "`" in rest:
                return  # not a fence: backticks in a backtick fence's info
            self.opener = line.rstrip()
            self._marker = char * count
        elif (
            char == self._marker[0] and count >= len(self._marker) and not rest.strip()
        ):
            self.opener = None
            self._marker = ""
        else:
            return
        self._changes.append((after, self.opener))

    def opener_at(self, position: int) -> str | None:
        """The opening line of the fence open at `position` (a line start)."""
        index = bisect.bisect_right(self._changes, position, key=lambda c: c[0])
        return self._changes[index - 1][1] if index else None

    def forget_before(self, position: int) -> None:
        """Drop what is only needed for positions before `position`."""
        index = bisect.bisect_right(self._changes, position, key=lambda c: c[0])
        if index > 1:
            del self._changes[: index - 1]


# --------------------------------------------------------------------- inline


def _inline_text(token: Token, theme: MarkdownTheme, base: Style) -> Text:
    """An inline token's children as styled text (never markup)."""
    text = Text(style=base, end="")
    styles: list[Style] = []
    links: list[tuple[str, int]] = []

    def current() -> Style:
        style = Style.null()
        for item in styles:
            style += item
        return style

    for child in token.children or ():
        kind = child.type
        if kind == "text" or kind == "html_inline":
            text.append(child.content, current())
        elif kind == "code_inline":
            text.append(child.content, current() + theme.code_inline)
        elif kind == "softbreak":
            text.append(" ", current())
        elif kind == "hardbreak":
            text.append("\n", current())
        elif kind == "strong_open":
            styles.append(theme.strong)
        elif kind == "em_open":
            styles.append(theme.emphasis)
        elif kind == "s_open":
            styles.append(theme.strike)
        elif kind == "link_open":
            href = child.attrs.get("href")
            links.append((href if isinstance(href, str) else "", len(text)))
            styles.append(theme.link)
        elif kind == "link_close":
            if styles:
                styles.pop()
            if links:
                # No terminal hyperlink (an escape sequence carrying the agent's
                # URL): the target is shown after the text when it differs.
                href, start = links.pop()
                if href and href not in text.plain[start:]:
                    text.append(f" ({href})", current())
        elif kind in ("strong_close", "em_close", "s_close"):
            if styles:
                styles.pop()
        elif kind == "image":
            alt = "".join(c.content for c in child.children or ()) or "image"
            text.append(f"[{alt}]", current() + theme.link)
        else:
            text.append(child.content, current())
    return text


def _wrap(text: Text, width: int) -> list[Line]:
    """Wrap styled text to `width` cells (long words are folded)."""
    options = _console.options.update(width=max(width, 1), no_wrap=False)
    text.overflow = "fold"
    lines = fast_wrap.wrap(_console, text, options)  # a long paragraph: per line
    if lines is None:
        lines = _console.render_lines(text, options, pad=False, new_lines=False)
    return [list(line) for line in lines] or [[]]


# ---------------------------------------------------------------------- blocks


def _prefix(lines: list[Line], first: Text, rest: Text) -> list[Line]:
    """Put `first` before the first line and `rest` before the others."""
    head = list(first.render(_console))
    pad = list(rest.render(_console))
    return [[*(head if index == 0 else pad), *line] for index, line in enumerate(lines)]


def _render_blocks(
    blocks: Sequence[tuple[Token, ...]],
    width: int,
    theme: MarkdownTheme,
    depth: int,
    tight: bool,
) -> list[Line]:
    lines: list[Line] = []
    for block in blocks:
        rendered = _render(block, width, theme, depth, tight)
        if not rendered:
            continue
        if lines and not tight:
            lines.append([])
        lines.extend(rendered)
    return lines


def _render_list(
    tokens: Sequence[Token], width: int, theme: MarkdownTheme, depth: int
) -> list[Line]:
    ordered = tokens[0].type == "ordered_list_open"
    start = tokens[0].attrs.get("start", 1) if ordered else 1
    number = int(start) if isinstance(start, int | str) and str(start).isdigit() else 1
    items = _split_blocks(tokens[1:-1])
    loose = any(
        t.type == "paragraph_open" and not t.hidden for item in items for t in item
    )
    marks = [
        f"{number + index}." if ordered else BULLETS[depth % len(BULLETS)]
        for index in range(len(items))
    ]
    mark_width = max((len(mark) for mark in marks), default=1) + 1
    lines: list[Line] = []
    for mark, item in zip(marks, items, strict=True):
        inner = _split_blocks(item[1:-1])
        body = _render_blocks(
            inner, max(width - mark_width, 1), theme, depth + 1, tight=not loose
        ) or [[]]
        if lines and loose:
            lines.append([])
        lines.extend(
            _prefix(
                body,
                Text(mark.rjust(mark_width - 1) + " ", style=theme.bullet, end=""),
                Text(" " * mark_width, end=""),
            )
        )
    return lines


@lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer | None:
    return find_lexer(get_lexer_by_name, language)


def _highlighted(code: str, language: str, theme: MarkdownTheme) -> Text:
    text = Text(code, style=theme.code_block, end="", no_wrap=True)
    lexer = _lexer(language.split()[0]) if language.strip() else None
    if lexer is None or not theme.syntax:
        return text
    try:
        spans = lexer_spans(lexer, code, frozenset(theme.syntax))
    except Exception:  # a lexer bug must not break the message
        return text
    for start, end, role in spans:
        text.stylize(theme.syntax[role], start, end)
    return text


def _render_code(token: Token, width: int, theme: MarkdownTheme) -> list[Line]:
    code = token.content.rstrip("\n").expandtabs(4)
    language = token.info if token.type == "fence" else ""
    text = _highlighted(code, language, theme)
    inner = max(width - 2 * CODE_PAD, 1)
    lines: list[Line] = []
    pad = Segment(" " * CODE_PAD, theme.code_block)
    text.no_wrap = False
    # One wrap of the whole block, not one per source line: a streaming fence is
    # re-rendered on every flush, and each render_lines call has a fixed cost
    # (a 300-line fence: 40 ms per render, against 20 ms as one call).
    for wrapped in _wrap(text, inner):
        used = sum(segment.cell_length for segment in wrapped)
        fill = Segment(" " * max(inner - used, 0), theme.code_block)
        lines.append([pad, *wrapped, fill, pad])
    return lines or [[pad]]


def _render_table(
    tokens: Sequence[Token], width: int, theme: MarkdownTheme
) -> list[Line]:
    table = Table(
        box=box.SQUARE,
        show_lines=True,
        border_style=theme.table_border,
        header_style=theme.table_header,
        expand=False,
        pad_edge=True,
    )
    header: list[Text] = []
    rows: list[list[Text]] = []
    row: list[Text] | None = None
    in_head = False
    for token in tokens:
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            if in_head:
                header = row
            else:
                rows.append(row)
            row = None
        elif token.type == "inline" and row is not None:
            row.append(_inline_text(token, theme, theme.text))
    columns = max([len(header), *(len(r) for r in rows)], default=0)
    if not columns:
        return []
    for index in range(columns):
        table.add_column(header[index] if index < len(header) else "")
    for cells in rows:
        table.add_row(*cells, *([""] * (columns - len(cells))))
    options = _console.options.update(width=max(width, 4))
    return [list(line) for line in _console.render_lines(table, options, pad=False)]


def _render(
    tokens: Sequence[Token], width: int, theme: MarkdownTheme, depth: int, tight: bool
) -> list[Line]:
    if not tokens:
        return []
    first = tokens[0]
    kind = first.type
    if kind == "paragraph_open":
        inline = tokens[1] if len(tokens) > 1 else None
        if inline is None or inline.type != "inline":
            return []
        return _wrap(_inline_text(inline, theme, theme.text), width)
    if kind == "heading_open":
        level = int(first.tag[1:]) if first.tag[1:].isdigit() else 1
        style = theme.headings[min(level, len(theme.headings)) - 1]
        inline = tokens[1] if len(tokens) > 1 else None
        text = (
            _inline_text(inline, theme, theme.text + style)
            if inline is not None and inline.type == "inline"
            else Text("", end="")
        )
        return _wrap(text, width)
    if kind in ("bullet_list_open", "ordered_list_open"):
        return _render_list(tokens, width, theme, depth)
    if kind == "blockquote_open":
        inner = _render_blocks(
            _split_blocks(tokens[1:-1]),
            max(width - len(QUOTE_MARK), 1),
            theme,
            depth,
            False,
        )
        quoted = [
            [Segment(s.text, (s.style or Style.null()) + theme.quote) for s in line]
            for line in inner
        ]
        mark = Text(QUOTE_MARK, style=theme.quote_mark, end="")
        return _prefix(quoted or [[]], mark, mark)
    if kind in ("fence", "code_block"):
        return _render_code(first, width, theme)
    if kind == "table_open":
        return _render_table(tokens, width, theme)
    if kind == "hr":
        return [[Segment("─" * max(width, 1), theme.rule)]]
    if kind == "html_block":
        return _wrap(Text(first.content.rstrip("\n"), style=theme.text, end=""), width)
    # Unknown container or token: its text, so nothing is hidden.
    inline_text = [t.content for t in tokens if t.type == "inline" or not t.nesting]
    joined = "\n".join(part for part in inline_text if part)
    return _wrap(Text(joined, style=theme.text, end=""), width) if joined else []


def render_block(block: Block, width: int, theme: MarkdownTheme) -> list[Line]:
    """Render one top-level block to lines of at most `width` cells.

    Args:
        block: The block.
        width: Cells available.
        theme: The styles.

    Returns:
        The lines (a block always renders at least one line unless it is empty).
    """
    width = max(width, 1)
    lines = _render(block.tokens, width, theme, 0, tight=False)
    # Prefixes (bullets, quote marks, code padding) can overflow a tiny width.
    return [
        line
        if sum(segment.cell_length for segment in line) <= width
        else Segment.adjust_line_length(line, width, pad=False)
        for line in lines
    ]


def render_notice(text: str, width: int, theme: MarkdownTheme) -> list[Line]:
    """Plain text (never markdown or markup) in the notice style, wrapped to `width`."""
    return _wrap(Text(text, style=theme.notice, end=""), max(width, 1))


def line_text(line: Line) -> str:
    """A rendered line's plain text."""
    return "".join(segment.text for segment in line if not segment.control)


def iter_lines(
    blocks: Sequence[Block], width: int, theme: MarkdownTheme
) -> Iterator[Line]:
    """Every line of a document, blocks separated by one blank line (tests)."""
    for index, block in enumerate(blocks):
        if index:
            yield []
        yield from render_block(block, width, theme)
