"""The fast wrap of long paragraphs gives Rich's lines, segment for segment
(acp_tui/render/fast_wrap.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acp_tui.render import fast_wrap

CONSOLE = Console(width=80, color_system="truecolor", legacy_windows=False)
STYLES = [
    Style(bold=True),
    Style(italic=True),
    Style(color="red"),
    Style(underline=True),
]

# Words of every length around the widths tried, runs of spaces, newlines.
texts = st.lists(
    st.one_of(
        st.text(alphabet="abcXYZ.,-#`*_", min_size=1, max_size=40),
        st.text(alphabet=" ", min_size=1, max_size=6),
        st.just("\n"),
    ),
    max_size=40,
).map("".join)


@st.composite
def styled(draw: st.DrawFn) -> Text:
    plain = draw(texts)
    text = Text(
        plain,
        style=draw(st.sampled_from(["", "bold", "on blue"])),
        end=draw(st.sampled_from(["", "\n"])),
    )
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, max(len(plain), 0)))
        end = draw(st.integers(start, max(len(plain), start)))
        text.stylize(draw(st.sampled_from(STYLES)), start, end)
    text.overflow = "fold"
    return text


Drawn: TypeAlias = list[list[tuple[str, Style]]]
"""Lines of (text, style): a null style given as None or as `Style()` draws the same."""


def drawn(lines: Iterable[Iterable[Segment]]) -> Drawn:
    return [
        [(s.text, s.style or Style()) for s in line if not s.control] for line in lines
    ]


def rich_lines(text: Text, width: int) -> Drawn:
    options = CONSOLE.options.update(width=width, no_wrap=False)
    lines = CONSOLE.render_lines(text.copy(), options, pad=False, new_lines=False)
    return drawn(lines)


def fast_lines(text: Text, width: int, min_chars: int = 0) -> Drawn | None:
    options = CONSOLE.options.update(width=width, no_wrap=False)
    lines = fast_wrap.wrap(CONSOLE, text.copy(), options, min_chars)
    return None if lines is None else drawn(lines)


@settings(max_examples=1_000)
@given(styled(), st.integers(min_value=1, max_value=30))
@example(Text("  abcdefghij klm", overflow="fold"), 4)
@example(Text("ab   cd   ef", overflow="fold"), 3)
@example(Text("   ", overflow="fold"), 2)
@example(Text("a\n\n b \n", overflow="fold"), 1)
def test_the_fast_wrap_gives_riches_lines(text: Text, width: int) -> None:
    fast = fast_lines(text, width)
    if not text.plain:
        assert fast is None  # left to Rich
        return
    assert fast == rich_lines(text, width)


@given(texts, st.integers(min_value=1, max_value=30))
def test_breaks_are_riches_divide_line(line: str, width: int) -> None:
    from rich._wrap import divide_line

    for part in line.split("\n"):
        assert fast_wrap.breaks(part, width) == divide_line(part, width, fold=True)


@pytest.mark.parametrize(
    "plain", ["tab\there " * 100, "é " * 300, "bell\x07 " * 100, "x " * 10]
)
def test_text_it_cannot_take_is_left_to_rich(plain: str) -> None:
    """Tabs, wide or non-ASCII characters, control characters; and short text."""
    text = Text(plain, overflow="fold")
    assert fast_lines(text, 20, fast_wrap.MIN_CHARS) is None


def test_a_long_paragraph_takes_the_fast_path() -> None:
    text = Text("lorem ipsum " * 100, overflow="fold")
    assert fast_lines(text, 20, fast_wrap.MIN_CHARS) == rich_lines(text, 20)
