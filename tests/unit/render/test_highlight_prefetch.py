"""The lexers' imports ahead of their compiles (acp_tui.render.highlight)."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
import threading

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

from acp_tui.render.highlight import (
    COMMON_LANGUAGES,
    FILENAME_INDEX,
    INDEX_PROBE,
    lexer_modules,
    prefetch_lexers,
)


def test_the_modules_named_are_those_the_lexers_live_in() -> None:
    for language in COMMON_LANGUAGES:
        if language == FILENAME_INDEX:
            found = type(get_lexer_for_filename(INDEX_PROBE))
        else:
            found = type(get_lexer_by_name(language))
        assert found.__module__ in lexer_modules(language), language


def test_an_unknown_language_has_no_modules() -> None:
    assert lexer_modules("no-such-language-here") == ()


def test_prefetching_imports_each_lexer_module_then_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    imported: list[str] = []
    monkeypatch.setattr(importlib, "import_module", imported.append)
    prefetch_lexers(["rust", "go", "no-such-language-here"], then=("x.y",))
    assert imported == ["pygments.lexers.rust", "pygments.lexers.go", "x.y"]


def test_prefetching_the_filename_index_reads_the_entry_points(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What Pygments' plugin lookup reads on every lookup by file name."""
    read: list[threading.Thread] = []
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda: read.append(threading.current_thread()),
    )
    prefetch_lexers(["rust"])
    assert read == []
    worker = threading.Thread(target=prefetch_lexers, args=([FILENAME_INDEX],))
    worker.start()
    worker.join()
    assert read == [worker]
    assert "pygments.lexers.special" in sys.modules
