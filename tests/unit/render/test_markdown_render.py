"""Incremental markdown parsing and line rendering (acp_tui.render.markdown)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style

from acp_tui.render.markdown import (
    Block,
    MarkdownDocument,
    MarkdownTheme,
    iter_lines,
    line_text,
    render_block,
)

THEME = MarkdownTheme(syntax={"Keyword": Style(bold=True, color="red")})

TOUR = (
    "# Title\n\nFirst paragraph with *emphasis*\nand a soft break.\n\n"
    "- one\n- two\n  - nested\n\n1. first\n2. second\n\n"
    "```python\ndef f():\n    return 1\n```\n\n"
    "> quoted **bold**\n\n| a | b |\n|---|---|\n| 1 | 22 |\n\n---\n\n"
    "Last paragraph, `code` and **bold** and [a link](https://example.com)."
)


def text_of(document: MarkdownDocument, width: int = 10_000) -> list[str]:
    return [line_text(line) for line in iter_lines(document.blocks, width, THEME)]


def cells(line: list[Segment]) -> int:
    return sum(segment.cell_length for segment in line)


def test_every_block_kind_renders_its_text() -> None:
    lines = text_of(MarkdownDocument(TOUR), 60)
    assert lines[0] == "Title"
    assert "First paragraph with emphasis and a soft break." in lines
    assert "• one" in lines
    assert "  ◦ nested" in lines
    assert "1. first" in lines
    assert "2. second" in lines
    assert any(line.strip() == "def f():" for line in lines)
    assert "▌ quoted bold" in lines
    assert "│ 1 │ 22 │" in lines
    assert "─" * 60 in lines
    assert " ".join(line.strip() for line in lines[-2:]) == (
        "Last paragraph, code and bold and a link (https://example.com)."
    )


def test_inline_styles_and_syntax_roles_are_applied() -> None:
    document = MarkdownDocument("**bold** `code`\n\n```python\nreturn 1\n```")
    paragraph = render_block(document.blocks[0], 80, THEME)[0]
    styles = {segment.text: segment.style for segment in paragraph}
    assert styles["bold"] is not None
    assert styles["bold"].bold
    assert styles["code"] == THEME.code_inline
    code = render_block(document.blocks[1], 80, THEME)[0]
    keyword = [s for s in code if s.text == "return"]
    assert keyword
    assert keyword[0].style is not None
    assert keyword[0].style.bold


def test_links_show_their_target_and_are_never_terminal_hyperlinks() -> None:
    document = MarkdownDocument(
        "[safe docs](https://evil.example/x) and <https://plain.example>"
    )
    (line,) = render_block(document.blocks[0], 200, THEME)
    assert line_text(line) == (
        "safe docs (https://evil.example/x) and https://plain.example"
    )
    assert all(segment.style is None or not segment.style.link for segment in line)


@pytest.mark.parametrize(
    "text",
    [
        "I created hello.py for you.",
        "See setup.py, main.rs and README.md.",
        "Edit src/app/views.py then docs/index.html.",
        "Mail git@example.com or read //host.example/path.",
        "The domain example.com and www.example.com stay text.",
    ],
)
def test_bare_names_are_never_links(text: str) -> None:
    (line,) = render_block(MarkdownDocument(text).blocks[0], 200, THEME)
    assert line_text(line) == text
    assert all(segment.style is None or not segment.style.link for segment in line)


def test_urls_with_a_scheme_are_still_links() -> None:
    text = "Docs at https://example.com/a and http://x.example?q=1 and <mailto:a@b.c>."
    (line,) = text_of(MarkdownDocument(text))
    assert line == (
        "Docs at https://example.com/a and http://x.example?q=1 and mailto:a@b.c."
    )


def test_markup_and_escapes_are_text() -> None:
    evil = "[bold red]boom[/] [link=https://x]y[/link]"
    (line,) = text_of(MarkdownDocument(evil))
    assert line == evil


def test_appends_keep_complete_blocks_and_reparse_only_the_tail() -> None:
    document = MarkdownDocument("Intro.\n\nTail")
    first = document.blocks[0]
    parses = document.parses
    for n in range(5):
        changed = document.append(f" more{n}")
        assert changed == 1  # only the tail block changed
    assert document.blocks[0] is first
    assert document.parses == parses + 5
    assert text_of(document)[-1] == "Tail more0 more1 more2 more3 more4"


def test_a_paragraph_that_becomes_a_heading_is_reparsed() -> None:
    document = MarkdownDocument("Setext\n")
    document.append("---\n")
    assert [block.tokens[0].type for block in document.blocks] == ["heading_open"]


def test_replace_starts_over() -> None:
    document = MarkdownDocument("old")
    document.replace("new *text*")
    assert text_of(document) == ["new text"]


@settings(max_examples=150, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=0, max_value=len(TOUR)), max_size=12),
)
def test_streaming_in_any_pieces_matches_a_whole_parse(cuts: list[int]) -> None:
    points = sorted({0, *cuts, len(TOUR)})
    streamed = MarkdownDocument()
    for start, end in itertools.pairwise(points):
        streamed.append(TOUR[start:end])
    assert streamed.source == TOUR
    assert text_of(streamed, 50) == text_of(MarkdownDocument(TOUR), 50)


@settings(max_examples=150, deadline=None)
@given(
    source=st.lists(
        st.sampled_from([*"ab *_`#->|\n[]()1.\t", "```", "漢", "🙂", "word "]),
        max_size=80,
    ).map("".join),
    width=st.integers(min_value=1, max_value=40),
)
def test_lines_never_exceed_the_width_and_never_raise(source: str, width: int) -> None:
    document = MarkdownDocument(source)
    for block in document.blocks:
        for line in render_block(block, width, THEME):
            assert cells(line) <= width


def test_blocks_have_unique_keys() -> None:
    document = MarkdownDocument(TOUR)
    keys = [block.key for block in document.blocks]
    assert len(set(keys)) == len(keys)
    assert all(isinstance(block, Block) for block in document.blocks)


def test_documents_appended_in_turn_parse_as_if_alone() -> None:
    """Documents share one parser: appending to each in turn (two messages
    streaming side by side) gives each the blocks it gets on its own."""
    first, second = MarkdownDocument(), MarkdownDocument()
    other = "Some *text*\n\n```bash\nls -l\n```\n\n- a\n- b\n"
    for left, right in itertools.zip_longest(TOUR, other, fillvalue=""):
        first.append(left)
        second.append(right)
    assert first._parser is second._parser
    assert text_of(first) == text_of(MarkdownDocument(TOUR))
    assert text_of(second) == text_of(MarkdownDocument(other))
