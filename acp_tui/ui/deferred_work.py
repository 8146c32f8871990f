"""Work for Textual's workers whose coroutine is made only when it runs.

A worker started while its app or screen closes is cancelled before it runs.
Handed a coroutine object (`run_worker(self.step())`), that coroutine is then
never awaited, and Python warns when it is collected ("coroutine ... was never
awaited"): under pytest, a failure of whichever test runs then (it happened in
CI: ctrl+q pressed twice as the lexer warm-up started its worker). Textual
takes a coroutine function as well, but its type for the work (a coroutine
function with a send type of None) matches no `async def` under mypy; `later`
wraps the function in an awaitable that makes the coroutine when awaited:
`self.run_worker(later(self.step))`, `later(partial(self.step, argument))`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any, Generic, TypeVar

__all__ = ["later"]

T = TypeVar("T")


class _Later(Generic[T]):
    """An awaitable that calls its function when awaited, not before."""

    __slots__ = ("_work",)

    def __init__(self, work: Callable[[], Awaitable[T]]) -> None:
        self._work = work

    def __await__(self) -> Generator[Any, None, T]:
        return self._work().__await__()


def later(work: Callable[[], Awaitable[T]]) -> Awaitable[T]:
    """`work` as an awaitable whose coroutine is made only once it is awaited."""
    return _Later(work)
