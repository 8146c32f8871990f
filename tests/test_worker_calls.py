"""The app hands Textual's workers work whose coroutine is made when it runs.

A worker started while its app or screen closes is cancelled before it runs.
Given a coroutine object (`run_worker(self.step())`), that coroutine is then
never awaited: Python warns about it when it is collected ("coroutine ... was
never awaited"), and pytest turns that warning into a failure of whichever test
is running then. It happened in CI: ctrl+q pressed twice as the lexer warm-up
started its worker (`AcpTuiApp._prefetch_modules`). Handed
`later(self.step)` (`acp_tui.ui.deferred_work`), the worker makes the
coroutine only when it runs.
"""

from __future__ import annotations

import ast
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import acp_tui
from acp_tui.ui.deferred_work import later

PACKAGE = Path(acp_tui.__file__).resolve().parent


def _is_later(call: ast.Call) -> bool:
    """`later(...)`: an awaitable that makes its coroutine when awaited."""
    return isinstance(call.func, ast.Name) and call.func.id == "later"


def _coroutines_handed_to_workers(source: str) -> list[int]:
    """The lines where `run_worker`'s work is a call (a coroutine made now)."""
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run_worker"
            and node.args
            and isinstance(node.args[0], ast.Call)
            and not _is_later(node.args[0])
        ):
            found.append(node.lineno)
    return found


def test_the_check_finds_a_coroutine_handed_to_a_worker() -> None:
    source = (
        "self.run_worker(self.step(), group='g')\n"
        "self.run_worker(later(self.step))\n"
        "self.run_worker(later(partial(self.step, 1)))\n"
        "self.run_worker(self.make(1)())\n"
    )
    assert _coroutines_handed_to_workers(source) == [1, 4]


def test_no_worker_is_handed_a_coroutine() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in _coroutines_handed_to_workers(path.read_text(encoding="utf-8"))
    ]
    assert found == []


async def test_later_makes_the_coroutine_only_when_awaited() -> None:
    made: list[int] = []

    async def step(value: int) -> int:
        return value * 2

    def make() -> Coroutine[Any, Any, int]:
        made.append(1)
        return step(21)

    never_awaited = later(make)
    awaited = later(make)
    assert made == []
    assert await awaited == 42
    assert made == [1]
    del never_awaited  # nothing to warn about: no coroutine was made
