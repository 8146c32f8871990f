"""Asking the user something the agent or the user may withdraw before it is answered.

`ask_unless` runs a prompter call until it returns or one of the given events is
set (a `$/cancel_request`, a cancelled turn, a session left): then the call is
cancelled and the answer is None. A prompter that raises answers None too (the
failure is logged and reported): a broken dialog must never count as consent.
Shared by the permission and the elicitation flows.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

__all__ = ["ask_unless"]

log = logging.getLogger(__name__)

T = TypeVar("T")


async def ask_unless(
    ask: Callable[[], Awaitable[T]],
    events: tuple[anyio.Event, ...],
    report: Callable[[str], None],
    what: str,
) -> T | None:
    """`ask()`'s answer, or None if an event is set first or it raises.

    Args:
        ask: The prompter call.
        events: Any of them set withdraws the question.
        report: Told why a prompter that raised gave no answer.
        what: What was asked, for that report ("ask for permission").
    """
    answer: list[T | None] = [None]
    async with anyio.create_task_group() as group:

        async def asking() -> None:
            try:
                answer[0] = await ask()
            except Exception as error:  # a broken prompter must not approve
                log.exception("the prompter failed to %s", what)
                report(f"could not {what}: {error!r}")
            group.cancel_scope.cancel()

        async def watch(event: anyio.Event) -> None:
            await event.wait()
            group.cancel_scope.cancel()

        group.start_soon(asking)
        for event in events:
            group.start_soon(watch, event)
    return answer[0]
