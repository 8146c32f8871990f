"""Pygments lexers compiled ahead of use (acp_tui.render.highlight)."""

from __future__ import annotations

from pygments.lexers import get_lexer_by_name

from acp_tui.render.highlight import COMMON_LANGUAGES, FILENAME_INDEX, warm_lexer


def test_warming_compiles_the_lexer_class() -> None:
    assert warm_lexer("rust")
    lexer_class = type(get_lexer_by_name("rust"))
    assert "_tokens" in vars(lexer_class)  # the compiled rules live on the class


def test_every_common_language_is_known() -> None:
    assert COMMON_LANGUAGES[:2] == ("python", FILENAME_INDEX)
    assert all(warm_lexer(language) for language in COMMON_LANGUAGES)


def test_an_unknown_language_is_skipped() -> None:
    assert not warm_lexer("no-such-language-here")
