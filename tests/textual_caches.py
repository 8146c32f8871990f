"""Process-wide caches of what every Textual app in a test process computes alike.

A test process boots hundreds of apps (each Pilot test its own), and each app
parses the same CSS and generates the same theme colours again (issue 28):
about 0.23 s of CPU per boot of the app against the fake agent, of which the
stylesheet's parsing took about 9% and the theme colours (`register_themes`
gives each of about 23 known themes its custom tokens, generated from the
theme's colour system) about 7%. The product starts one app per process, so
this is a cost of the tests only, and it is cached here, for the test process
only (`install`, from tests/conftest.py's `pytest_configure`; subprocesses,
`acp-tui` commands included, never load it).

Both are pure functions of their inputs, so sharing their results between the
apps of a process changes nothing an app shows:

* `Stylesheet._parse_rules(css, read_from, is_default_rules, tie_breaker,
  scope)` parses with the stylesheet's variables, and Textual already keeps its
  result per stylesheet (`Stylesheet._parse_cache`, keyed by the same five
  values, cleared when the variables change) and hands the same `RuleSet`
  objects to every node the rules apply to, across re-parses: nothing mutates
  them after parsing. Here the key also holds the variables, so one result is
  shared by every stylesheet with the same variables. A parse that raises is not
  cached (it raises again, as before), and rules with errors are cached as they
  are (the stylesheet raises on them each time, as before).
* `ColorSystem.generate()` depends on nothing but the colour system's
  attributes, which are the key here; each call gets its own copy of the dict.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any, Final

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation
from textual.design import ColorSystem

__all__ = ["PARSE_LIMIT", "install", "installed", "uninstall"]

PARSE_LIMIT: Final = 20_000
"""Parsed sources kept (one per CSS source and set of variables); past it the
cache starts again (a test process parses about 100 sources, under a few
dozen sets of variables, one per theme it shows)."""

_parsed: dict[tuple[object, ...], list[RuleSet]] = {}
_variables_ids: dict[tuple[tuple[str, str], ...], int] = {}
_variables_of: weakref.WeakKeyDictionary[Stylesheet, tuple[dict[str, str], int]] = (
    weakref.WeakKeyDictionary()
)
_generated: dict[tuple[object, ...], dict[str, str]] = {}
_originals: dict[str, Callable[..., Any]] = {}


def _variables_id(stylesheet: Stylesheet) -> int:
    """A number for the stylesheet's variables, the same for equal variables.

    Worked out once per variables object: Textual replaces the object when the
    variables change (`Stylesheet.set_variables`, which also clears the
    stylesheet's own cache) and never changes one in place."""
    variables = stylesheet._variables
    known = _variables_of.get(stylesheet)
    if known is not None and known[0] is variables:
        return known[1]
    number = _variables_ids.setdefault(tuple(variables.items()), len(_variables_ids))
    _variables_of[stylesheet] = (variables, number)
    return number


def _parse_rules_shared(
    original: Callable[..., list[RuleSet]],
) -> Callable[..., list[RuleSet]]:
    @functools.wraps(original)
    def _parse_rules(
        self: Stylesheet,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (
            css,
            read_from,
            is_default_rules,
            tie_breaker,
            scope,
            _variables_id(self),
        )
        try:
            return _parsed[key]
        except KeyError:
            pass
        rules = original(self, css, read_from, is_default_rules, tie_breaker, scope)
        if len(_parsed) >= PARSE_LIMIT:
            _parsed.clear()
            _variables_ids.clear()
            _variables_of.clear()
        _parsed[key] = rules
        return rules

    return _parse_rules


def _colour_key(system: ColorSystem) -> tuple[object, ...]:
    return (
        system.primary,
        system.secondary,
        system.warning,
        system.error,
        system.success,
        system.accent,
        system.foreground,
        system.background,
        system.surface,
        system.panel,
        system.boost,
        system.dark,
        system.luminosity_spread,
        system.text_alpha,
        tuple(system.variables.items()),
        system.ansi,
    )


def _generate_shared(
    original: Callable[[ColorSystem], dict[str, str]],
) -> Callable[[ColorSystem], dict[str, str]]:
    @functools.wraps(original)
    def generate(self: ColorSystem) -> dict[str, str]:
        key = _colour_key(self)
        found = _generated.get(key)
        if found is None:
            found = _generated[key] = original(self)
        return dict(found)

    return generate


def install() -> None:
    """Share parsed CSS and generated theme colours between this process's apps."""
    if _originals:
        return
    _originals["parse"] = Stylesheet._parse_rules
    _originals["generate"] = ColorSystem.generate
    Stylesheet._parse_rules = _parse_rules_shared(Stylesheet._parse_rules)  # type: ignore[method-assign]
    ColorSystem.generate = _generate_shared(ColorSystem.generate)  # type: ignore[method-assign,assignment]


def uninstall() -> None:
    """Textual's own methods again, and the caches emptied."""
    if not _originals:
        return
    Stylesheet._parse_rules = _originals.pop("parse")  # type: ignore[method-assign]
    ColorSystem.generate = _originals.pop("generate")  # type: ignore[method-assign]
    _parsed.clear()
    _variables_ids.clear()
    _variables_of.clear()
    _generated.clear()


def installed() -> bool:
    """Whether `install` is in force."""
    return bool(_originals)
