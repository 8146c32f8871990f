"""`acp-tui check`'s probe of `tool_call/cancel` and `terminal/cancel`.

An agent offers to cancel one tool call (terminal) alone per entity, while it
runs (`capabilities.cancel`, TS SDK 2.4 v2 draft), so the probe needs a turn in
which the agent offers it: for an agent with a known prompt that does
(`CANCEL_ONE_TRIGGERS`, by the name it reports: the demo's `/cancel-tool`), the
probe plays that prompt, cancels the first tool call and the first terminal the
agent offers to cancel, and checks each row:

* the request is accepted (`{}`), and the entity then reaches a final status
  (a tool call `cancelled`, `completed` or `failed`; a terminal its exit) within
  the step's timeout;
* the turn is not cancelled by it: it ends with another stop reason than
  `cancelled`.

No rows for a version that has no such method (v1), nor for an agent without a
known prompt: it is not probed (a real agent offers it mid-turn, on its own
terms). A probe turn that offers nothing gives one skipped `tool_call/cancel`
row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import anyio

from acp_tui.client.cancel_one import CancelKind, cancel_one, cancellable
from acp_tui.client.errors import UnsupportedOperation
from acp_tui.client.schema_check import Result
from acp_tui.client.session import AcpClient
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import ConnectionClosed
from acp_tui.store.store import SessionStore

__all__ = ["CANCEL_ONE_TRIGGERS", "probe_cancel_one"]

CANCEL_ONE_TRIGGERS: Final[Mapping[str, str]] = {"acp-tui-demo": "/cancel-tool"}
"""Prompts that make a known agent offer to cancel a tool call alone."""

Row = Callable[[str, Result, str], None]
"""`(name, result, detail)`: adds one row of the report."""

_ERRORS: Final = (RpcError, UnsupportedOperation, TimeoutError, ConnectionClosed)


def _offered(client: AcpClient, store: SessionStore) -> list[tuple[CancelKind, str]]:
    """The first tool call and the first terminal offered for cancelling now."""
    found: list[tuple[CancelKind, str]] = []
    for call in store.tool_calls():
        if cancellable(client, store, "tool_call", call.tool_call_id):
            found.append(("tool_call", call.tool_call_id))
            break
    for terminal in store.terminals():
        if cancellable(client, store, "terminal", terminal.terminal_id):
            found.append(("terminal", terminal.terminal_id))
            break
    return found


class _Watch:
    """Wakes a waiter on each change of a store."""

    def __init__(self) -> None:
        self._changed = anyio.Event()

    def __call__(self, _: object) -> None:
        self._changed.set()

    async def until(self, holds: Callable[[], bool], bound: float) -> bool:
        """Wait (at most `bound` s) until `holds()`; returns whether it does."""
        with anyio.move_on_after(bound):
            while not holds():
                self._changed = anyio.Event()
                await self._changed.wait()
        return holds()


def _final(store: SessionStore, kind: CancelKind, entity_id: str) -> str | None:
    if kind == "tool_call":
        call = store.tool_call(entity_id)
        return call.status if call is not None and call.is_final else None
    terminal = store.terminal(entity_id)
    return "exited" if terminal is not None and terminal.exited else None


async def probe_cancel_one(
    client: AcpClient,
    store: SessionStore,
    agent_name: str | None,
    bound: float,
    row: Row,
) -> None:
    """Play the agent's known prompt and cancel what it offers (see the module)."""
    prompt = CANCEL_ONE_TRIGGERS.get(agent_name or "")
    session_id = store.session_id
    if (
        prompt is None
        or client.dialect.cancel_one("tool_call", session_id, "probe", {"cancel": {}})
        is None
    ):
        return
    watch = _Watch()
    outcome: dict[str, Any] = {}
    done = anyio.Event()

    async def turn() -> None:
        try:
            outcome["stop"] = await client.prompt(
                session_id, [{"type": "text", "text": prompt}]
            )
        except Exception as error:  # reported below
            outcome["error"] = error
        done.set()
        watch(None)

    unsubscribe = store.subscribe(watch)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(turn)
            await watch.until(
                lambda: done.is_set() or bool(_offered(client, store)), bound
            )
            offered = _offered(client, store)
            results = [
                await _cancel(client, store, watch, kind, entity_id, bound)
                for kind, entity_id in offered
            ]
            with anyio.move_on_after(bound):
                await done.wait()
            if not done.is_set():
                await client.cancel(session_id)
                with anyio.move_on_after(bound):
                    await done.wait()
            group.cancel_scope.cancel()
    finally:
        unsubscribe()
    stop = outcome.get("stop")
    if not offered:
        row("tool_call/cancel", "skip", f"{prompt} offered no cancellable tool call")
        return
    for (kind, _), (result, detail) in zip(offered, results, strict=True):
        if result == "pass" and stop == "cancelled":
            result, detail = "fail", f"{detail}, but the turn ended cancelled"
        elif result == "pass":
            detail += f"; the turn went on (ended {stop or outcome.get('error')})"
        row(f"{kind}/cancel", result, detail)


async def _cancel(
    client: AcpClient,
    store: SessionStore,
    watch: _Watch,
    kind: CancelKind,
    entity_id: str,
    bound: float,
) -> tuple[Result, str]:
    """`(result, detail)` of cancelling one entity and waiting for its end."""
    try:
        await cancel_one(client, store, kind, entity_id)
    except _ERRORS as error:
        return "fail", f"{entity_id}: {error or 'no answer'}"
    await watch.until(lambda: _final(store, kind, entity_id) is not None, bound)
    status = _final(store, kind, entity_id)
    if status is None:
        return (
            "fail",
            f"{entity_id}: accepted, but no final status within {bound:g} s",
        )
    return "pass", f"{entity_id}: accepted, then {status}"
