r"""What the v1 and v2 emitters share.

The agent's identity, the permission options and how an answer is read, and the
plain-text rendering of terminal bytes.

Invariants:

* A permission answer is approval only if it selects one of the options offered:
  `cancelled`, an unknown outcome, an unknown option id, an error reply or a broken
  connection all read as "not approved".
* `plain_text()` never lets a control sequence through: CSI and OSC sequences are
  removed, `\r` rewinds the current line (the last redraw of a progress bar
  wins), other C0 controls are dropped.
"""

from __future__ import annotations

import logging
import re
from typing import Final

from pydantic import BaseModel, ValidationError

from acp_tui import __version__
from acp_tui.demo.events import JSONObject
from acp_tui.protocol.dispatcher import Dispatcher
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import ConnectionClosed

__all__ = ["AGENT_INFO", "PERMISSION_OPTIONS", "ask_permission", "plain_text"]

log = logging.getLogger(__name__)

AGENT_INFO: Final[JSONObject] = {
    "name": "acp-tui-demo",
    "title": "acp-tui demo agent",
    "version": __version__,
}
"""How the demo names itself (v2 `info`, v1 `agentInfo`)."""

PERMISSION_OPTIONS: Final = (
    ("allow-once", "Allow once", "allow_once"),
    ("allow-always", "Always allow", "allow_always"),
    ("reject-once", "Reject", "reject_once"),
)
"""`(optionId, name, kind)` of every permission request, in both versions."""


async def ask_permission(
    dispatcher: Dispatcher, params: JSONObject, model: type[BaseModel]
) -> str | None:
    """Send `session/request_permission`; the chosen option's kind, or None."""
    try:
        raw = await dispatcher.request("session/request_permission", params)
        response = model.model_validate(raw)
    except (RpcError, ValidationError) as error:
        log.warning("permission request failed: %s", error)
        return None
    except ConnectionClosed:
        return None
    outcome = getattr(response, "outcome", None)
    if getattr(outcome, "outcome", None) != "selected":
        return None  # cancelled, or an outcome we don't know: never approval
    chosen = getattr(outcome, "option_id", None)
    return next((kind for o, _, kind in PERMISSION_OPTIONS if o == chosen), None)


_ESCAPES: Final = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC
    r"|\x1b[@-_]"  # other two-byte escapes
)
_CONTROLS: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def plain_text(data: bytes) -> str:
    """Terminal output as plain text (what a screen would show, roughly)."""
    text = _ESCAPES.sub("", data.decode("utf-8", errors="replace"))
    text = text.replace("\r\n", "\n")
    lines = []
    for line in text.split("\n"):
        if "\r" in line:
            parts = line.split("\r")
            visible = parts[0]
            for part in parts[1:]:
                visible = part + visible[len(part) :]
            line = visible
        lines.append(_CONTROLS.sub("", line))
    return "\n".join(lines)
