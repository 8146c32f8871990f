"""Highlighting a search's matches in a card, whatever its widgets draw.

The cards are many kinds of widgets (markdown drawn line by line, plain text,
diffs, terminals), so the highlight works on what they draw rather than on their
content: `highlight(card, query)` wraps the `render_lines` of the card and of
every widget in it (an attribute of the instance, which shadows the class's
method; `clear` deletes it again) so that every line drawn has each occurrence
of the query restyled (`MATCH_STYLE`). Only the lines being drawn are looked at,
so the cost is that of the visible lines, and an occurrence wrapped over two
lines is not marked. What is drawn is already printable, and the query is
compared with it as plain text: it is never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["MATCH_STYLE", "clear", "highlight", "mark_strip"]

MATCH_STYLE: Final = Style(color="black", bgcolor="yellow", bold=True)
"""How an occurrence of the query is drawn (legible in 16 colours too)."""

_ATTRIBUTE: Final = "render_lines"

_RenderLines = Callable[[Region], list[Strip]]


def _ranges(text: str, needle: str) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    position = text.find(needle)
    while position >= 0:
        found.append((position, position + len(needle)))
        position = text.find(needle, position + len(needle))
    return found


def mark_strip(strip: Strip, needle: str, *, case_sensitive: bool = False) -> Strip:
    """The strip with every occurrence of `needle` in `MATCH_STYLE`."""
    if not needle:
        return strip
    text = strip.text
    haystack = text if case_sensitive else text.lower()
    wanted = needle if case_sensitive else needle.lower()
    if wanted not in haystack:
        return strip
    ranges = _ranges(haystack, wanted)
    segments: list[Segment] = []
    position = 0
    index = 0
    for segment in strip:
        seg_text, style, control = segment
        if control or not seg_text:
            segments.append(segment)
            continue
        start, end = position, position + len(seg_text)
        position = end
        cursor = start
        while index < len(ranges) and ranges[index][1] <= start:
            index += 1
        at = index
        while at < len(ranges) and ranges[at][0] < end:
            low, high = max(ranges[at][0], cursor), min(ranges[at][1], end)
            if low > cursor:
                segments.append(Segment(text[cursor:low], style))
            marked = MATCH_STYLE if style is None else style + MATCH_STYLE
            segments.append(Segment(text[low:high], marked))
            cursor = high
            at += 1
        if cursor < end:
            segments.append(Segment(text[cursor:end], style))
    return Strip(segments, strip.cell_length)


def _wrap(original: _RenderLines, needle: str, case_sensitive: bool) -> _RenderLines:
    def render_lines(crop: Region) -> list[Strip]:
        return [
            mark_strip(strip, needle, case_sensitive=case_sensitive)
            for strip in original(crop)
        ]

    return render_lines


def highlight(card: Widget, needle: str, *, case_sensitive: bool = False) -> None:
    """Mark every occurrence of `needle` in what `card` and its widgets draw."""
    for widget in card.walk_children(Widget, with_self=True):
        if _ATTRIBUTE in vars(widget):
            delattr(widget, _ATTRIBUTE)
        setattr(widget, _ATTRIBUTE, _wrap(widget.render_lines, needle, case_sensitive))
        widget.refresh()


def clear(card: Widget) -> None:
    """Draw `card` without marks again."""
    for widget in card.walk_children(Widget, with_self=True):
        if _ATTRIBUTE in vars(widget):
            delattr(widget, _ATTRIBUTE)
            widget.refresh()
