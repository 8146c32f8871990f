"""`release_styles_caches`: a removed widget's `StylesCache` is not kept alive."""

from __future__ import annotations

import gc
import weakref

from hypothesis import given
from hypothesis import strategies as st
from textual._styles_cache import StylesCache
from textual.color import Color

from acp_tui.ui import styles_cache_release
from acp_tui.ui.styles_cache_release import release_styles_caches

colours = st.builds(
    Color,
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(0, 255),
    st.floats(0, 1),
)


def test_a_styles_cache_asked_for_colours_is_freed() -> None:
    """Textual's cache kept it (and every line its widget drew) as a key."""
    assert release_styles_caches()
    cache = StylesCache()
    cache.get_inner_outer(Color(10, 20, 30), Color(1, 2, 3, 0.5))
    ref = weakref.ref(cache)
    del cache
    gc.collect()
    assert ref() is None


def test_installing_twice_replaces_once() -> None:
    assert release_styles_caches()
    method = StylesCache.get_inner_outer
    assert release_styles_caches()
    assert StylesCache.get_inner_outer is method


@given(colours, colours)
def test_the_styles_are_textuals(base: Color, background: Color) -> None:
    release_styles_caches()
    textuals = styles_cache_release._textual_inner_outer
    assert textuals is not None
    ours = StylesCache().get_inner_outer(base, background)
    assert ours == textuals(None, base, background)
