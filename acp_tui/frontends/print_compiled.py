"""`acp-tui print` reuses the code its start-up compiled in an earlier run (issue 28).

Python compiles source at run time for two things that `print`'s start-up does
hundreds of times, and the bytecode cache (`__pycache__`) keeps neither:

* every `@dataclass` has its `__init__`, `__repr__`, `__eq__`, `__setattr__`...
  written as source and compiled (`dataclasses` runs `exec` on the text): about
  970 functions for the ~185 dataclasses print imports (the store's ops and
  model, the client's, pydantic's and anyio's own);
* every string annotation that pydantic resolves (the wire models') is compiled
  by `typing.ForwardRef`: about 1,400 times, ~310 different texts.

Together about 2,500 compilations: 60-70 ms of the ~0.29 s of CPU its start-up took.

`compiled_code_reused()` keeps the code objects in a file beside this module's
bytecode (`print_compiled.<tag>.codes` in its `__pycache__`, or under
`PYTHONPYCACHEPREFIX`): they are bytecode too, made by this interpreter from
the installed sources, and live as long as the rest of it (a reinstall clears
them; `PYTHONDONTWRITEBYTECODE` writes none). They are keyed by the exact source
text, and `dataclasses` and `typing` are handed the code compiled before instead
of compiling the text again: the same text compiled with the same flags gives
the same code object (`tests/integration/test_print_compiled.py` compares them), so
the classes and functions made are the ones the text makes; only the compilation
is skipped. Texts not seen before are compiled as usual, and the file is
rewritten once at the end when any were added (the first run, a new release).

The file is read only if it was written by this interpreter (`sys.version`,
`marshal.version` and the `-O` level in its header), is owned by the user and
writable by no one else (it holds code); anything else is ignored (and replaced,
where the user may write). It holds at most `MAX_ENTRIES` texts (then only those
this run used are kept). Any failure to read or write it is ignored: it is a
cache. Only `print` uses it, and only while it runs: the hooks (module
attributes that shadow the builtins `exec` in `dataclasses` and `compile` in
`typing`) are removed when the block ends.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any, Final

__all__ = [
    "CACHE_SUFFIX",
    "MAX_ENTRIES",
    "CompiledSources",
    "cache_file",
    "compiled_code_reused",
]

CACHE_SUFFIX: Final = ".codes"
"""The file's name: this module's bytecode file's, with this suffix."""

MAX_ENTRIES: Final = 20_000
"""Texts kept at most (print's start-up compiles about 1,300 different ones)."""

_HEADER: Final = (
    f"acp-tui compiled code|{sys.version}|{marshal.version}|{sys.flags.optimize}"
)
"""What the file starts with: the interpreter (and `-O` level) its code is for."""

_Key = tuple[str, str]
"""(mode, source text): `exec` or `eval`, and the text compiled."""


class CompiledSources:
    """Code objects by source text: reused when known, compiled (and kept) if not.

    Args:
        known: Code compiled before (the cache file's).
    """

    def __init__(self, known: Mapping[_Key, CodeType] | None = None) -> None:
        self.codes: dict[_Key, CodeType] = dict(known or {})
        self.added = 0
        """Texts compiled in this run (not known before)."""
        self.used: set[_Key] = set()

    def code(self, source: str, mode: str) -> CodeType:
        """`source` compiled as `compile(source, "<string>", mode)` does, once."""
        key = (mode, source)
        self.used.add(key)
        code = self.codes.get(key)
        if code is None:
            # Flags of no caller: `dataclasses` and `typing` use no `__future__`.
            code = builtins.compile(source, "<string>", mode, dont_inherit=True)
            self.codes[key] = code
            self.added += 1
        return code

    def exec(
        self,
        source: Any,
        globals: dict[str, Any] | None = None,
        locals: Mapping[str, object] | None = None,
        /,
    ) -> None:
        """`exec` for `dataclasses`: a text runs as its code compiled before."""
        if type(source) is str:
            source = self.code(source, "exec")
        exec(source, globals, locals)

    def compile(
        self,
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
    ) -> Any:
        """`compile` for `typing` (`ForwardRef`): a text's code compiled before."""
        plain = not flags and optimize == -1  # (as `typing` calls it)
        if type(source) is str and filename == "<string>" and plain:
            return self.code(source, mode)
        return builtins.compile(source, filename, mode, flags, dont_inherit, optimize)

    def to_save(self) -> dict[_Key, CodeType]:
        """What the file should hold now (at most `MAX_ENTRIES` texts)."""
        if len(self.codes) <= MAX_ENTRIES:
            return self.codes
        return {key: self.codes[key] for key in self.used}


def cache_file() -> Path:
    """Where the code is kept: beside this module's bytecode (module docstring)."""
    from importlib.util import cache_from_source

    return Path(cache_from_source(__file__)).with_suffix(CACHE_SUFFIX)


def _read(path: Path) -> dict[_Key, CodeType]:
    """The code the file holds; empty if it is missing, foreign or not ours."""
    try:
        with path.open("rb") as file:
            status = os.fstat(file.fileno())
            if status.st_uid != os.getuid() or status.st_mode & 0o022:
                return {}  # (it holds code: only the user may have written it)
            data = file.read()
        header, codes = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if header != _HEADER or not isinstance(codes, dict):
        return {}
    return codes


def _write(path: Path, codes: Mapping[_Key, CodeType]) -> None:
    from acp_tui.storage.private_files import replace_privately

    with contextlib.suppress(OSError, ValueError):
        path.parent.mkdir(parents=True, exist_ok=True)  # (as Python makes it)
        if not os.access(path.parent, os.W_OK):  # (an install the user can't write)
            return
        data = marshal.dumps((_HEADER, dict(codes)))
        replace_privately(path, data, prefix=".print-compiled-")


@contextlib.contextmanager
def _shadowed(module: ModuleType, name: str, value: object) -> Iterator[None]:
    """`module.name` set to `value` in the block (a builtin it shadows)."""
    if name in vars(module):  # already shadowed (a nested run): left as it is
        yield
        return
    setattr(module, name, value)
    try:
        yield
    finally:
        if vars(module).get(name) is value:
            delattr(module, name)


@contextlib.contextmanager
def compiled_code_reused(path: Path | None = None) -> Iterator[CompiledSources]:
    """In the block, `dataclasses` and `typing` reuse code compiled before.

    Args:
        path: The file (default: `cache_file()`).
    """
    if path is None:
        path = cache_file()
    sources = CompiledSources(_read(path))
    with (
        _shadowed(dataclasses, "exec", sources.exec),
        _shadowed(typing, "compile", sources.compile),
    ):
        try:
            yield sources
        finally:
            if sources.added and not sys.dont_write_bytecode:
                _write(path, sources.to_save())
