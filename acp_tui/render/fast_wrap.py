"""Word wrap for long plain paragraphs: Rich's line breaks, found per line.

Rich wraps a `Text` word by word (`rich._wrap.divide_line`: a regex match, two
cell-length measurements and a few comparisons per word, in Python). A
32 Ki-character paragraph, the head a long message shows, took about 14 ms to
wrap on the development machine and several times that on a loaded one: the
longest step of the event loop when a huge message arrives (bench/exhaustion.py,
issue 20's frame-gap goal).

For a line whose every character is printable ASCII (one cell each, and the
only whitespace a space), `breaks` finds the offsets `divide_line(line, width,
fold=True)` finds, with a few searches per *output line* instead of per word:

* Rich's words (spaces, non-spaces, spaces, matched from the start): the first
  one takes the leading spaces, every other begins with its run of non-spaces
  and ends with the spaces after it.
* A word fits the current line (which began at `start`) iff its run ends at most
  `width` cells after `start`: its trailing spaces may overflow
  (`Text.rstrip_end` drops them). So the line ends before the first run that
  ends past `start + width`: the run holding that cell, or else the next run.
* That word begins the next line, unless it is longer than a line (the first
  word's leading spaces included): then it is cut into pieces of `width`
  characters (`chop_cells`), a break before each but at offset 0, and its last
  piece begins the next line.

`wrap` does what `Text.wrap` does for the markdown renderer (split at newlines,
divide, `rstrip_end`; justify "default" and fold overflow change nothing once
the breaks are right) and renders each line with Rich. Text it cannot
take (tabs, non-ASCII, control characters, another justification) gives None,
and the caller wraps it with Rich. tests/unit/render/test_fast_wrap.py checks
the result against Rich's, line for line and style for style, for random texts
and widths.
"""

from __future__ import annotations

import re
from typing import Final

from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.text import Text

__all__ = ["MIN_CHARS", "breaks", "wrap"]

MIN_CHARS: Final = 512
"""Shorter text is wrapped by Rich: the few words cost less than the set-up."""

_NON_SPACE: Final = re.compile(r"[^ ]")


def breaks(line: str, width: int) -> list[int]:
    """Where Rich breaks `line` (printable ASCII) to fit `width` cells."""
    found = _NON_SPACE.search(line)
    if found is None:
        return []
    first_run = found.start()
    size = len(line)
    width = max(width, 1)
    out: list[int] = []
    start = 0
    while start + width < size:
        limit = start + width
        if line[limit] == " ":
            found = _NON_SPACE.search(line, limit)
            if found is None:
                break
            run = found.start()
        else:
            run = line.rfind(" ", 0, limit) + 1
        run_end = line.find(" ", run)
        if run_end < 0:
            run_end = size
        word_start = 0 if run == first_run else run
        if run_end - word_start <= width:
            out.append(word_start)
            start = word_start
            continue
        found = _NON_SPACE.search(line, run_end)
        word_end = size if found is None else found.start()
        pieces = range(word_start, word_end, width)
        out.extend(piece for piece in pieces if piece)
        start = pieces[-1]
    return out


def wrap(
    console: Console, text: Text, options: ConsoleOptions, min_chars: int = MIN_CHARS
) -> list[list[Segment]] | None:
    """`console.render_lines(text, options, pad=False, new_lines=False)`, fast.

    None: `text` is shorter than `min_chars`, or not one this module wraps (see
    the module docstring).
    """
    plain = text.plain
    justify = text.justify or options.justify or "default"
    if (
        len(plain) < max(min_chars, 1)
        or not plain.isascii()
        or justify != "default"
        or text.no_wrap
        or options.no_wrap
        or (text.overflow or options.overflow) != "fold"
    ):
        return None
    width = options.max_width
    lines: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        if not line.plain.isprintable():
            return None
        divided = line.divide(breaks(line.plain, width))
        for part in divided:
            part.rstrip_end(width)
        lines.extend(divided)
    out = [_segments(console, line) for line in lines]
    if not text.end and len(out) > 1 and not out[-1]:
        out.pop()  # a last empty line without an end: Rich yields none
    return out


def _segments(console: Console, line: Text) -> list[Segment]:
    """A wrapped line's segments, as Rich renders its lines joined.

    `Text.__rich_console__` joins the lines, which turns a line's own style into
    a span under its spans (`Text.render` ignores `Text.style`); a line without
    spans is that one style, or none.
    """
    if not line.spans:
        if not line.plain:
            return []
        return [
            Segment(line.plain, console.get_style(line.style) if line.style else None)
        ]
    return [part for part in Text().join((line,)).render(console) if part.text]
