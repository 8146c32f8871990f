"""Cancelling one tool call or one terminal alone, without cancelling the turn.

[Δ2.4] `tool_call/cancel` and `terminal/cancel` (the TS SDK 2.4 v2 draft; the
request-cancellation RFD). The agent advertises it per tool call or terminal
(`capabilities.cancel`, read by the dialect: `Dialect.cancel_one`), and only
while it is unfinished. The agent's answer means accepted, not stopped: a final
status confirms it later. Until then the store marks the entity
(`ops.MarkCancelling`; `SessionStore.cancelling`), so a card can say
"cancelling…"; a failed request clears the mark.

Invariants:

* Nothing is sent for an entity the agent does not offer to cancel, nor for a
  final one, nor twice while a request is pending (`cancellable`).
* The turn is left alone: no `session/cancel`, no change of the foreground state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, TypeAlias

import anyio

from acp_tui.client.errors import UnsupportedOperation
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

if TYPE_CHECKING:
    from acp_tui.client.session import AcpClient

__all__ = ["CANCEL_TIMEOUT", "CancelKind", "cancel_one", "cancellable", "describe"]

CancelKind: TypeAlias = Literal["tool_call", "terminal"]
"""What can be cancelled alone."""

CANCEL_TIMEOUT: Final = 30.0
"""Seconds the agent has to accept a cancellation request."""


def _capabilities(
    store: SessionStore, kind: CancelKind, entity_id: str
) -> tuple[bool, JSONObject | None] | None:
    """`(final, capabilities)` of the entity, or None if the store has none."""
    if kind == "tool_call":
        tool_call = store.tool_call(entity_id)
        if tool_call is None:
            return None
        return tool_call.is_final, tool_call.capabilities
    terminal = store.terminal(entity_id)
    if terminal is None:
        return None
    return terminal.exited, terminal.capabilities


def _request(
    client: AcpClient, store: SessionStore, kind: CancelKind, entity_id: str
) -> tuple[str, JSONObject] | None:
    found = _capabilities(store, kind, entity_id)
    if found is None or found[0]:
        return None
    return client.dialect.cancel_one(kind, store.session_id, entity_id, found[1])


def cancellable(
    client: AcpClient | None, store: SessionStore, kind: CancelKind, entity_id: str
) -> bool:
    """Whether the user may cancel this tool call (terminal) alone now."""
    if client is None or store.cancelling(kind, entity_id):
        return False
    return _request(client, store, kind, entity_id) is not None


def describe(kind: CancelKind) -> str:
    """The entity's kind in words (`tool call`, `terminal`)."""
    return "tool call" if kind == "tool_call" else "terminal"


async def cancel_one(
    client: AcpClient, store: SessionStore, kind: CancelKind, entity_id: str
) -> None:
    """Ask the agent to cancel one tool call (terminal); mark it until it ends.

    Raises:
        UnsupportedOperation: The agent does not offer it for this one (now).
        RpcError: The agent refused (unknown, already final, not cancellable).
        TimeoutError: No answer within `CANCEL_TIMEOUT`.
    """
    request = _request(client, store, kind, entity_id)
    if request is None:
        raise UnsupportedOperation(
            f"the agent does not offer to cancel this {describe(kind)}"
        )
    method, params = request
    store.apply(ops.MarkCancelling(kind, entity_id))
    try:
        with anyio.fail_after(CANCEL_TIMEOUT):
            await client.connection.dispatcher.request(method, params)
    except BaseException:
        store.apply(ops.MarkCancelling(kind, entity_id, cancelling=False))
        raise
