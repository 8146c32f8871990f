"""Pygments lexers compiled ahead of use (acp_tui.render.highlight)."""

from __future__ import annotations

from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

from acp_tui.render.diff import highlight_spans, lexer_spans
from acp_tui.render.highlight import (
    COMMON_LANGUAGES,
    FILENAME_INDEX,
    find_lexer,
    warm_lexer,
)


def test_warming_compiles_the_lexer_class() -> None:
    assert warm_lexer("rust")
    lexer_class = type(get_lexer_by_name("rust"))
    assert "_tokens" in vars(lexer_class)  # the compiled rules live on the class


def test_every_common_language_is_known() -> None:
    assert COMMON_LANGUAGES[:2] == ("python", FILENAME_INDEX)
    assert all(warm_lexer(language) for language in COMMON_LANGUAGES)


def test_an_unknown_language_is_skipped() -> None:
    assert not warm_lexer("no-such-language-here")


def test_one_lexer_serves_every_file_and_fence_of_a_language() -> None:
    first = find_lexer(get_lexer_for_filename, "module_1_2.py")
    second = find_lexer(get_lexer_for_filename, "module_3_4.py")
    fence = find_lexer(get_lexer_by_name, "python")
    rust = find_lexer(get_lexer_for_filename, "main.rs")
    assert first is not None
    assert rust is not None
    assert first is second is fence
    assert rust is not first
    assert find_lexer(get_lexer_for_filename, "notes.no-such-type") is None


def test_a_line_lexed_for_one_file_is_not_lexed_again_for_another() -> None:
    line = "    return shared_lexer_probe + 12345  # unique to this test"
    roles = ("Keyword", "Comment", "Number")
    spans = highlight_spans("/p/first_of_two.py", line, roles)
    hits = lexer_spans.cache_info().hits
    assert highlight_spans("/q/second_of_two.py", line, roles) == spans
    assert lexer_spans.cache_info().hits == hits + 1
    # The same spans a lexer of its own gives.
    own = get_lexer_for_filename("third.py", stripnl=False, ensurenl=False)
    assert lexer_spans.__wrapped__(own, line, frozenset(roles)) == spans
    assert [role for _, _, role in spans] == ["Keyword", "Number", "Comment"]
