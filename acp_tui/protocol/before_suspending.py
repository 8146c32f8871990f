"""Await a coroutine, calling a function first if (and only if) it would suspend.

The dispatcher's read loop hands updates to a handler that may leave their
store ops pending, to apply a run of them at once (`client.update_intake`).
Nothing else may see the store before they are applied, and nothing else runs
until the read loop suspends: reading a line that is already buffered does not
suspend, waiting for the agent's next line does. `before_suspending(coro,
hook)` runs `coro` up to its first suspension point; if it finishes without
one, `hook` is never called; if it would suspend, `hook` is called first, then
the suspension is handed to the event loop as `await coro` would have.

Any event loop: the coroutine protocol is delegated as `yield from` does it
(values sent in, exceptions thrown in, `close`).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator
from typing import Any, Generic, TypeVar

__all__ = ["before_suspending", "suspended"]

T = TypeVar("T")


class before_suspending(Generic[T]):
    """`await before_suspending(coro, hook)`: `await coro`, `hook()` before it suspends.

    Args:
        coro: A fresh coroutine (not yet started).
        hook: Called at most once, just before `coro` first suspends; an
            exception it raises propagates (and `coro` is closed).
    """

    __slots__ = ("_coro", "_hook")

    def __init__(self, coro: Coroutine[Any, Any, T], hook: Callable[[], None]) -> None:
        self._coro = coro
        self._hook = hook

    def __await__(self) -> Generator[Any, Any, T]:
        coro = self._coro
        try:
            signal = coro.send(None)
        except StopIteration as stop:
            result: T = stop.value
            return result
        return (yield from suspended(coro, signal, self._hook).__await__())


class suspended(Generic[T]):
    """The rest of a coroutine stepped by hand, which suspended with `signal`.

    `coro.send(None)` ran the coroutine up to its first suspension point, which
    gave `signal` (what it yields to the event loop); awaiting this calls `hook`,
    then hands `signal` to the event loop and goes on as `await coro` would have.
    Stepping by hand first costs nothing more when the coroutine finishes without
    suspending (the dispatcher's read of a line already buffered: most lines).

    Args:
        coro: The coroutine, suspended once.
        signal: What its first step yielded.
        hook: Called first; an exception it raises propagates (and `coro` is
            closed).
    """

    __slots__ = ("_coro", "_hook", "_signal")

    def __init__(
        self, coro: Coroutine[Any, Any, T], signal: Any, hook: Callable[[], None]
    ) -> None:
        self._coro = coro
        self._signal = signal
        self._hook = hook

    def __await__(self) -> Generator[Any, Any, T]:
        coro = self._coro
        try:
            self._hook()
        except BaseException:
            coro.close()
            raise
        signal = self._signal
        while True:
            try:
                sent = yield signal
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as error:  # thrown in: cancellation, mostly
                try:
                    signal = coro.throw(error)
                except StopIteration as stop:
                    thrown: T = stop.value
                    return thrown
            else:
                try:
                    signal = coro.send(sent)
                except StopIteration as stop:
                    result: T = stop.value
                    return result
