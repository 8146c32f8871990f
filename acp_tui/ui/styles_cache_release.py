"""Keep Textual from holding the rendered lines of 1,024 removed widgets.

Textual's `StylesCache.get_inner_outer(base_background, background)` is wrapped
in `functools.lru_cache(1024)` but is not a classmethod: its first argument,
named `cls`, is the widget's `StylesCache`, so the cache's keys keep the last
1,024 of them alive, each with every line its widget drew (strips, segments and
their caches), long after the widget was removed. A user paging through a long
session mounts and drops cards all along (`ConversationWindow`): 450 pages of
bench/long_session.py's session left 38,000 strips and 66,000 segments alive,
and its whole session paged up and down took the app to 3.4 GB.

`release_styles_caches` replaces the method, process-wide, with one that caches
by the two colours alone: what it returns depends on nothing else (Textual's
own function computes it, called with no cache object). `AcpTuiApp` installs it.

Invariants:
* Same results as Textual's method, for every pair of colours.
* Installed at most once; when Textual's method is no longer a plain function
  wrapped in `lru_cache` (fixed, or changed), it is left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final

from textual._styles_cache import StylesCache
from textual.color import Color
from textual.style import Style

__all__ = ["CACHE_SIZE", "release_styles_caches"]

CACHE_SIZE: Final = 1024
"""Colour pairs cached (Textual's own size)."""

_textual_inner_outer: Callable[..., tuple[Style, Style]] | None = None


@lru_cache(CACHE_SIZE)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    assert _textual_inner_outer is not None
    return _textual_inner_outer(None, base_background, background)


def _get_inner_outer(
    self: StylesCache, base_background: Color, background: Color
) -> tuple[Style, Style]:
    """`StylesCache.get_inner_outer`, cached by the colours only."""
    return _inner_outer(base_background, background)


def release_styles_caches() -> bool:
    """Replace `StylesCache.get_inner_outer` (see the module); once.

    Returns:
        Whether it is replaced (False: Textual's is not the method this knows).
    """
    global _textual_inner_outer
    current: Any = vars(StylesCache).get("get_inner_outer")
    if current is _get_inner_outer:
        return True
    wrapped = getattr(current, "__wrapped__", None)
    if not callable(wrapped) or not hasattr(current, "cache_clear"):
        return False
    _textual_inner_outer = wrapped
    current.cache_clear()  # (what it holds already)
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign,assignment]
    return True
