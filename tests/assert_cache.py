"""Rewrite the test modules' asserts once, before the xdist workers start (issue 28).

pytest rewrites the asserts of every test module, conftest and registered helper
it imports, and caches the result in `__pycache__/*-pytest-<version>.pyc`; but
not while `sys.dont_write_bytecode` is set (PYTHONDONTWRITEBYTECODE, as on the
CI machines). Then each of the 4 workers, all collecting every module, rewrote
all 271 modules again: 6.5 s of CPU each, 26 s in all, out of a suite of about
640 s on 2 cores. The controller (tests/conftest.py, `pytest_sessionstart`)
now writes the cache first, in one process per CPU (`prepare`), and the
workers read it: pytest reads a cached pyc even where it would not write one.

What is cached is what pytest itself would cache: the module rewritten by
pytest's own `rewrite_asserts`, written in pytest's own format
(`_write_pyc_fp`: a hash-checked pyc, so a changed source is rewritten again),
under pytest's own name for it (its version is in the name). Anything that does
not match is ignored by pytest, which then rewrites the module as before: this
file can make the run faster, never different.

Run as a script (`python -P tests/assert_cache.py FILE...`: `-P`, so that no
module beside it can stand in for a standard one) by `prepare`.
"""

from __future__ import annotations

import ast
import contextlib
import fnmatch
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

BOUND = 120.0
"""Seconds the rewriting processes get in all (they take about 4 s on 2 cores)."""


def _cached(fn: Path) -> None:
    """Rewrite `fn` and write pytest's cached pyc for it, unless it is current."""
    from _pytest.assertion.rewrite import (
        PYC_TAIL,
        _read_pyc,
        _write_pyc_fp,
        get_cache_dir,
        rewrite_asserts,
    )

    pyc = get_cache_dir(fn) / (fn.name[:-3] + PYC_TAIL)
    if _read_pyc(fn, pyc) is not None:
        return
    # As `_pytest.assertion.rewrite._rewrite_test`, with no config: the config only
    # says whether to call the assertion pass hook, which `prepare` checks is off.
    source = fn.read_bytes()
    tree = ast.parse(source, filename=str(fn))
    rewrite_asserts(tree, source, str(fn), None)
    code = compile(tree, str(fn), "exec", dont_inherit=True)
    pyc.parent.mkdir(exist_ok=True)
    partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
    with open(partial, "wb") as handle:
        _write_pyc_fp(handle, importlib.util.source_hash(source), code)
    os.replace(partial, pyc)  # atomic, as pytest's own writes are


def modules(
    args: Iterable[Path], root: Path, patterns: Sequence[str], helpers: Iterable[Path]
) -> list[Path]:
    """The files pytest rewrites when it collects `args`: test modules (named
    as `patterns` say), conftest files (also those above each arg, up to
    `root`) and the registered `helpers`."""
    found: set[Path] = set(helpers)
    for arg in args:
        if arg.is_dir():
            for path in arg.rglob("*.py"):
                if path.name == "conftest.py" or any(
                    fnmatch.fnmatch(path.name, p) for p in patterns
                ):
                    found.add(path)
        elif arg.suffix == ".py":
            found.add(arg)
        for parent in arg.parents:
            if not parent.is_relative_to(root):
                break
            found.add(parent / "conftest.py")
    return sorted(p for p in found if p.is_file())


def prepare(files: Sequence[Path], processes: int) -> None:
    """Write the cache for `files` in `processes` processes (bounded; a failure
    only leaves the rewriting to the workers, as before)."""
    ordered = sorted(files, key=lambda p: p.stat().st_size, reverse=True)
    shares = [ordered[i::processes] for i in range(processes)]
    children = [
        subprocess.Popen(
            [sys.executable, "-P", __file__, *map(str, share)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for share in shares
        if share
    ]
    for child in children:
        try:
            child.wait(BOUND)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


if __name__ == "__main__":
    for name in sys.argv[1:]:
        with contextlib.suppress(Exception):  # pytest rewrites it itself then
            _cached(Path(name))
