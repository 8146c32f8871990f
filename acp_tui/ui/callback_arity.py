"""Count a callback's parameters once per function body, not once per closure.

Textual calls every callback it is handed (`call_later`, `call_after_refresh`,
timers, a widget's mount and focus steps, Pilot's waits) with as many of its
arguments as the callback takes, which it counts with `inspect.signature`
(`textual._callback._count_parameters`, about 20 µs a call). It keeps the
count on the function object, but most of these callbacks are closures or
partials made afresh each time, so the count is worked out again for each:
about 170 times as the app opens a session (each `Pilot.pause` of a test adds
one per widget), 3-4% of a boot's CPU time (issue 28).

The count of a plain function (or a method bound to one, less the parameter
it binds) depends only on its code: its positional, keyword-only and variadic
parameters, whatever its closure and defaults.
`count_callback_parameters_by_code` wraps Textual's counter, process-wide, so
that such a function's count is kept by its code object; anything else (a
function that names another signature through `__wrapped__` or
`__signature__`, a class, a callable object) is counted by Textual as before.

Invariants:
* Each count equals Textual's (`len(inspect.signature(func).parameters)`).
* Installing is idempotent and process-wide (it patches Textual's module).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import CodeType, FunctionType, MethodType
from typing import Any, Final

from textual import _callback

__all__ = ["CODES_KEPT", "count_callback_parameters_by_code"]

_MARK: Final = "_acp_tui_counts_by_code"

CODES_KEPT: Final = 4096
"""Function bodies whose counts are kept; past it they start again."""

_counts: dict[CodeType, int] = {}


def _plain(func: object) -> FunctionType | None:
    """The function whose code alone gives the count, if there is one."""
    if not isinstance(func, FunctionType):
        return None
    if hasattr(func, "__wrapped__") or hasattr(func, "__signature__"):
        return None
    return func


def count_callback_parameters_by_code() -> None:
    """Make Textual count a plain function's parameters once per code object."""
    original: Callable[[Callable[..., Any]], int] = _callback._count_parameters
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def count(func: Callable[..., Any]) -> int:
        bound = isinstance(func, MethodType)
        plain = _plain(func.__func__ if isinstance(func, MethodType) else func)
        if plain is None or (bound and not plain.__code__.co_argcount):
            return original(func)  # (binding takes no parameter of `*args`)
        code = plain.__code__
        try:
            found = _counts[code]
        except KeyError:
            if len(_counts) >= CODES_KEPT:
                _counts.clear()
            found = _counts[code] = original(plain)
        return found - 1 if bound else found

    setattr(count, _MARK, True)
    _callback._count_parameters = count
