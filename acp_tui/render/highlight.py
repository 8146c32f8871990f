"""Pygments' lexers: finding one (`find_lexer`), and warming them up.

`find_lexer` is how the diff and Markdown renderers get a lexer: one that keeps
the text as it is, or None for a language or file type Pygments does not know.

Warming them up before the first code block needs them: a Pygments lexer class
compiles its regular expressions the first time it is instantiated: 10-60 ms per
language on this class of machine (bench/ui.py saw the first `python` fence of a
turn stall the event loop for 60 ms). Agents show code in a handful of languages,
and diffs highlight by file type, so the app warms the common ones, one per step,
while the session is quiet (the user is typing, the model is thinking):
`warm_lexer`. The compiled tables live on the lexer classes, so every later
highlight (Textual's code fences, `render.diff`) finds them ready.

Not in a thread: a thread compiling regular expressions holds the GIL for its
switch interval at a time and slowed a session's replay by half (bench/ui.py).
What a compile waits on, though, can be: the lexer modules' imports read their
`.pyc` files, and the filename index reads every installed distribution's
entry points (Pygments' plugins), about 100 KB of small files. The kernel may
have dropped those pages since they were last read (another process, minutes
ago), and reading them back took a compile 40-110 ms of wall time for 20-50 ms
of CPU here. `prefetch_lexers` does that reading, in a worker thread, before
the compiles: it mostly waits on the disk, with the GIL released.
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Callable, Iterable
from typing import Final

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.lexers._mapping import LEXERS
from pygments.util import ClassNotFound

__all__ = [
    "COMMON_LANGUAGES",
    "find_lexer",
    "lexer_modules",
    "prefetch_lexers",
    "warm_lexer",
]

FILENAME_INDEX: Final = ""
"""Pseudo-language: the filename index `get_lexer_for_filename` loads once."""

COMMON_LANGUAGES: Final = (
    "python",
    FILENAME_INDEX,
    "bash",
    "json",
    "diff",
    "javascript",
    "typescript",
    "tsx",
    "rust",
    "go",
    "toml",
    "yaml",
    "console",
    "html",
    "css",
    "markdown",
    "c",
    "cpp",
    "java",
    "sql",
)
"""What agents commonly show, most common first (Pygments aliases): Python code
fences first, then the filename index that diffs and file reads use."""


_SHARED: dict[type[Lexer], Lexer] = {}
"""One lexer per class (all made with the same options by `find_lexer`)."""


def find_lexer(lookup: Callable[..., Lexer], key: str) -> Lexer | None:
    """A lexer from a Pygments `lookup` that keeps the text as is; None if unknown.

    Every lexer of one class it returns is the same object: a lexer tokenises by
    its class and options alone, and these are always the same options. So the
    spans cached per lexer and line (`render.diff.lexer_spans`) serve every file
    of a language, not just the file whose name found the lexer: paging through
    a session's diffs of many Python files lexed each line anew for each file.

    Args:
        lookup: `get_lexer_by_name` (`key`: an alias) or `get_lexer_for_filename`
            (`key`: a file name).
        key: What to look up.
    """
    try:
        lexer = lookup(key, stripnl=False, ensurenl=False)
    except (ClassNotFound, ValueError):
        return None
    return _SHARED.setdefault(type(lexer), lexer)


INDEX_PROBE: Final = "warm.txt"
"""The file name `warm_lexer` looks up for `FILENAME_INDEX`."""


def warm_lexer(language: str) -> bool:
    """Instantiate the lexer of `language` so its class compiles its rules.

    Args:
        language: A Pygments alias, or `FILENAME_INDEX`.

    Returns:
        Whether the language is known.
    """
    try:
        if language == FILENAME_INDEX:
            get_lexer_for_filename(INDEX_PROBE)
        else:
            get_lexer_by_name(language)
    except ClassNotFound:
        return False
    return True


def lexer_modules(language: str) -> tuple[str, ...]:
    """The Pygments modules that `warm_lexer(language)` imports.

    Args:
        language: A Pygments alias, or `FILENAME_INDEX`.
    """
    if language == FILENAME_INDEX:
        return tuple(
            module
            for module, _, _, filenames, _ in LEXERS.values()
            if any(fnmatch.fnmatch(INDEX_PROBE, pattern) for pattern in filenames)
        )
    alias = language.lower()
    for module, _, aliases, _, _ in LEXERS.values():
        if alias in aliases:
            return (module,)
    return ()


def prefetch_lexers(languages: Iterable[str], then: Iterable[str] = ()) -> None:
    """Import the lexer modules of `languages`, then the modules `then`.

    For a worker thread (the imports' reads release the GIL): `warm_lexer`
    then compiles without waiting on the disk. With `FILENAME_INDEX` among
    them, the installed distributions' entry points are read too (what
    Pygments' plugin lookup reads on every lookup by file name).

    Args:
        languages: Pygments aliases, or `FILENAME_INDEX`.
        then: Further modules to import after the lexers'.
    """
    for language in languages:
        if language == FILENAME_INDEX:
            # (Imported here: the app's start-up does not load it otherwise.)
            from importlib import metadata

            metadata.entry_points()
        for module in lexer_modules(language):
            importlib.import_module(module)
    for module in then:
        importlib.import_module(module)
