"""`subagent_update` → `ops.PatchSubagent`: the subagents RFD's one wire shape.

The update has the same shape in v1 (where a client opts in with the
`subagents` client capability) and in v2 (baseline), so both translators call
`subagent_ops` with the update's wire JSON. It announces a child session the
parent owns, or patches what the parent knows of it: only `sessionId` is
required; `title`, `description`, `capabilities` and `state` are three-state
(omitted: unchanged, `null`: cleared). A field of the wrong type is ignored,
as the schema's `x-deserialize-default-on-error` asks.

The child's `state` (a `StateUpdate` snapshot) becomes a neutral status:
`running`; `requires_action` → `waiting`; `idle` → `done`, or `cancelled` /
`failed` by its stop reason (`error`'s message kept); `unknown`, `null`, or a
state this client does not know → `unknown` (never taken as ended).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from acp_tui.store import ops
from acp_tui.store.values import UNSET, Patch

__all__ = ["SUBAGENT_UPDATE", "subagent_ops", "subagent_status"]

SUBAGENT_UPDATE: Final = "subagent_update"
"""The `sessionUpdate` discriminator of the update."""

_STOPS: Final = {"cancelled": "cancelled", "error": "failed"}


def _text(raw: Mapping[str, Any], key: str) -> Patch[str]:
    if key not in raw:
        return UNSET
    value = raw[key]
    if value is None or isinstance(value, str):
        return value
    return UNSET  # the wrong type: as if omitted


def subagent_status(state: Any) -> tuple[str, Patch[str], Patch[str]]:
    """The neutral status, stop reason and error message of a child's `state`."""
    if not isinstance(state, Mapping):
        return "unknown", None, None
    name = state.get("state")
    if name == "running":
        return "running", None, None
    if name == "requires_action":
        return "waiting", None, None
    if name != "idle":
        return "unknown", None, None
    stop = state.get("stopReason")
    stop_reason = stop if isinstance(stop, str) else None
    error = state.get("error")
    message = error.get("message") if isinstance(error, Mapping) else None
    return (
        _STOPS.get(stop_reason or "", "done"),
        stop_reason,
        message if isinstance(message, str) else None,
    )


def subagent_ops(
    raw: Mapping[str, Any], now_ms: Callable[[], int] | None = None
) -> list[ops.Op] | None:
    """The op of a `subagent_update` (None: not one, or no usable `sessionId`)."""
    session_id = raw.get("sessionId")
    if raw.get("sessionUpdate") != SUBAGENT_UPDATE or not isinstance(session_id, str):
        return None
    status: str | None = None
    stop_reason: Patch[str] = UNSET
    error: Patch[str] = UNSET
    if "state" in raw:
        status, stop_reason, error = subagent_status(raw["state"])
    can_cancel: bool | None = None
    if "capabilities" in raw:
        capabilities = raw["capabilities"]
        cancel = (
            capabilities.get("cancel") if isinstance(capabilities, Mapping) else None
        )
        can_cancel = isinstance(cancel, Mapping)
    clock = now_ms or (lambda: int(time.time() * 1000))
    return [
        ops.PatchSubagent(
            session_id,
            title=_text(raw, "title"),
            description=_text(raw, "description"),
            status=status,
            stop_reason=stop_reason,
            error=error,
            can_cancel=can_cancel,
            at_ms=clock(),
        )
    ]
