"""Answering the agent's `session/request_permission`, version-neutral.

The dialect reads the request (and applies its tool-call subject to the store);
`answer_permission` records it (`AddPermission`), asks the `PermissionPrompter`,
and records the outcome (`ResolvePermission`). Invariants:

* Only an offered option is ever selected; anything else (dismissed, a broken
  prompter, an option that was not offered) is `cancelled`.
* A `$/cancel_request` of the request, or a cancel of the session's work (the
  session's `cancelled` event when the request arrived), answers `cancelled`.
* The request is recorded before the first await: the dispatcher runs this
  before it reads the next message, so the subject is ordered with the updates
  around it.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

from acp_tui.client.dialect import PermissionAsk
from acp_tui.client.ports import PermissionPrompter, PermissionRequest
from acp_tui.client.withdrawable import ask_unless
from acp_tui.protocol.dispatcher import RequestContext
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

__all__ = ["answer_permission"]


async def answer_permission(
    ask: PermissionAsk,
    store: SessionStore,
    cancelled: anyio.Event,
    context: RequestContext,
    prompter: PermissionPrompter,
    report: Callable[[str], None],
) -> JSONObject:
    """Record `ask`, ask `prompter`, record and return the wire outcome."""
    permission_id = str(context.id)
    title, description, subject = ask.title, ask.description, ask.subject
    choices, tool_call_id = ask.choices, ask.tool_call_id
    store.apply(
        ops.AddPermission(
            permission_id,
            title,
            description,
            subject,
            ask.options,
            tool_call_id,
            ask.meta,
        )
    )
    context.handles_cancellation = True
    request = PermissionRequest(
        store.session_id,
        permission_id,
        title,
        description,
        subject,
        choices,
        tool_call_id,
    )
    chosen = await ask_unless(
        lambda: prompter.ask(request),
        (context.cancel_requested, cancelled),
        report,
        "ask for permission",
    )
    offered = {choice.option_id for choice in choices}
    outcome: JSONObject
    if chosen is not None and chosen in offered:
        outcome = {"outcome": "selected", "optionId": chosen}
    else:  # dismissed, withdrawn, cancelled, or not an offered option
        outcome = {"outcome": "cancelled"}
    store.apply(ops.ResolvePermission(permission_id, outcome))
    return outcome
