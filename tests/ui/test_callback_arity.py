"""Textual counts a callback's parameters by its code (`callback_arity`).

tests/conftest.py installs `count_callback_parameters_by_code` for the whole
test process, as `AcpTuiApp` does. Each count must equal what
`inspect.signature` says, for closures made afresh, bound methods, partials,
functions that name another signature, classes and callable objects.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from textual import _callback
from textual.app import App

from acp_tui.ui import callback_arity
from acp_tui.ui.callback_arity import count_callback_parameters_by_code


def closure(arity: int) -> Callable[..., Any]:
    if arity == 0:
        return lambda: None
    if arity == 1:
        return lambda first: first
    return lambda first, second, *rest, key=None: (first, second, rest, key)


class Holder:
    def none(self) -> None: ...

    def one(self, value: object) -> object:
        return value

    def rest(*args: object) -> object:
        return args

    def __call__(self, first: object, second: object) -> None: ...


def wrapping(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


def callables() -> list[Callable[..., Any]]:
    holder = Holder()
    return [
        *(closure(arity) for arity in (0, 1, 3, 0, 1, 3)),  # fresh closures
        holder.none,
        holder.one,
        holder.rest,  # binding takes nothing from `*args`
        functools.partial(closure(3), 1),
        functools.partial(holder.one),
        wrapping(closure(1)),  # names another signature
        Holder,
        holder,
    ]


@pytest.mark.parametrize("index", range(len(callables())))
def test_each_count_is_textuals(index: int) -> None:
    func = callables()[index]
    textuals = inspect.unwrap(_callback._count_parameters)
    assert textuals is not _callback._count_parameters
    assert _callback._count_parameters(func) == textuals(func)
    assert _callback._count_parameters(func) == textuals(func)  # kept, the same


def test_a_closure_made_again_is_counted_from_its_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = closure(3)
    assert _callback._count_parameters(first) == 4
    assert _callback._count_parameters(Holder().one) == 1
    monkeypatch.setattr(_callback, "signature", lambda _: pytest.fail("counted"))
    assert _callback._count_parameters(closure(3)) == 4
    assert _callback._count_parameters(Holder().one) == 1
    assert first.__code__ in callback_arity._counts


def test_installing_twice_wraps_once() -> None:
    count = _callback._count_parameters
    count_callback_parameters_by_code()
    assert _callback._count_parameters is count
    assert inspect.unwrap(count) is not count


async def test_an_app_runs_its_callbacks_with_the_counted_arguments() -> None:
    seen: list[object] = []
    app: App[None] = App()
    async with app.run_test() as pilot:
        app.call_later(lambda: seen.append("none"))
        app.call_later(seen.append, "one")
        app.call_after_refresh(functools.partial(seen.append, "partial"))
        await pilot.pause()
    assert seen == ["none", "one", "partial"]
