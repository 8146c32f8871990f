"""The test process's shared CSS and theme-colour caches (tests/textual_caches.py)
give what Textual computes itself, and compute it once per process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.css import stylesheet as stylesheet_module
from textual.css.stylesheet import Stylesheet, StylesheetParseError
from textual.design import ColorSystem
from textual.theme import BUILTIN_THEMES

from tests import textual_caches

CSS = "Label { color: $accent; padding: 1 2; }\n.note { text-style: bold; }"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each CSS text Textual's parser is asked to parse, with the caches in force."""
    parsed: list[str] = []
    parse = stylesheet_module.parse  # type: ignore[attr-defined]

    def counting(scope: str, css: str, *args: object, **kwargs: object) -> object:
        parsed.append(css)
        return parse(scope, css, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stylesheet_module, "parse", counting)
    was_installed = textual_caches.installed()
    textual_caches.uninstall()  # empty caches
    textual_caches.install()
    yield parsed
    textual_caches.uninstall()
    if was_installed:
        textual_caches.install()


def css_of(accent: str, css: str = CSS) -> list[str]:
    sheet = Stylesheet(variables={"accent": accent})
    sheet.add_source(css, read_from=("test.tcss", ""))
    sheet.parse()
    return [rule.css for rule in sheet.rules]


def fresh_css_of(accent: str, css: str = CSS) -> list[str]:
    textual_caches.uninstall()
    try:
        return css_of(accent, css)
    finally:
        textual_caches.install()


def test_a_second_stylesheet_with_the_same_variables_parses_nothing(
    counted: list[str],
) -> None:
    first = css_of("red")
    second = css_of("red")
    assert counted == [CSS]
    assert first == second == fresh_css_of("red")


def test_other_variables_are_parsed_with_their_own_values(counted: list[str]) -> None:
    red, blue = css_of("red"), css_of("blue")
    assert counted == [CSS, CSS]
    assert red == fresh_css_of("red")
    assert blue == fresh_css_of("blue")
    assert red != blue


def test_css_with_errors_raises_every_time(counted: list[str]) -> None:
    broken = "Label { color: not-a-colour; }"
    for _ in range(2):
        with pytest.raises(StylesheetParseError):
            css_of("red", broken)


def test_generated_colours_are_textuals_and_each_caller_gets_its_own(
    counted: list[str],
) -> None:
    theme = BUILTIN_THEMES["textual-dark"]
    textual_caches.uninstall()
    fresh = theme.to_color_system().generate()
    textual_caches.install()
    first = theme.to_color_system().generate()
    assert first == fresh
    first["primary"] = "changed"
    assert theme.to_color_system().generate() == fresh
    other = ColorSystem(primary="#ff0000", dark=False).generate()
    assert other != fresh
    textual_caches.uninstall()
    assert other == ColorSystem(primary="#ff0000", dark=False).generate()
    textual_caches.install()


def test_install_wraps_once_and_uninstall_restores_textuals_methods() -> None:
    was_installed = textual_caches.installed()
    textual_caches.uninstall()
    parse, generate = Stylesheet._parse_rules, ColorSystem.generate
    textual_caches.install()
    wrapped = Stylesheet._parse_rules
    textual_caches.install()
    assert Stylesheet._parse_rules is wrapped is not parse
    textual_caches.uninstall()
    assert Stylesheet._parse_rules is parse
    assert ColorSystem.generate is generate
    if was_installed:
        textual_caches.install()


def test_a_stylesheet_whose_variables_change_parses_with_the_new_ones(
    counted: list[str],
) -> None:
    sheet = Stylesheet(variables={"accent": "red"})
    sheet.add_source(CSS, read_from=("test.tcss", ""))
    sheet.parse()
    red = [rule.css for rule in sheet.rules]
    sheet.set_variables({"accent": "blue"})
    sheet.parse()
    blue = [rule.css for rule in sheet.rules]
    assert counted == [CSS, CSS]
    assert red == fresh_css_of("red")
    assert blue == fresh_css_of("blue")
