"""Review comments become one prompt: `path:line` references, quoted lines, links."""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.prompt_content import PromptCapabilities, build_prompt
from acp_tui.client.review_prompt import (
    ReviewComment,
    comment_from_hunk,
    review_prompt,
)


def test_a_comment_on_a_hunk_spans_its_changed_lines() -> None:
    lines = [
        (" ", "a"),
        (" ", "b"),
        ("-", "old"),
        ("+", "new"),
        ("+", "more"),
        (" ", "c"),
    ]
    comment = comment_from_hunk(Path("/p/x.py"), 10, lines, "why?")
    assert (comment.first, comment.last) == (12, 13)
    assert comment.quoted == ("-old", "+new", "+more")


def test_the_prompt_has_references_quotes_and_one_link_per_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    code = tmp_path / "src" / "x.py"
    code.write_text("print('hi')\n")
    outside = tmp_path.parent / "elsewhere.txt"
    comments = [
        ReviewComment(code, 10, 14, ("-a", "+b ```"), "Use a constant here."),
        ReviewComment(code, 3, 3, ("+c",), "Typo."),
        ReviewComment(outside, 1, 1, ("+z",), "Not under the project."),
    ]
    text = review_prompt(comments, tmp_path)
    assert text.startswith("Review of your changes (3 comments):")
    assert "1. src/x.py:10-14\n````diff\n-a\n+b ```\n````\nUse a constant here." in text
    assert "2. src/x.py:3\n```diff\n+c\n```\nTypo." in text
    assert f"3. {outside}:1" in text
    assert text.rstrip().endswith("Files: @src/x.py")
    blocks = build_prompt(text, tmp_path, PromptCapabilities())
    assert blocks[0] == {"type": "text", "text": text}
    assert [b["type"] for b in blocks[1:]] == ["resource_link"]
    embedded = build_prompt(text, tmp_path, PromptCapabilities(embedded_context=True))
    assert [b["type"] for b in embedded[1:]] == ["resource"]
