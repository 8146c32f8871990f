"""The plain shapes the dialects' chunk fast paths take (`v1_chunks`, `v2_chunks`).

Version-neutral: the `session/update` envelope and a plain text content block
are spelled alike in v1 and v2.
"""

from __future__ import annotations

from typing import Any, Final

from acp_tui.store.values import JSONObject

__all__ = ["plain_text", "plain_update", "text_block"]

_PARAMS_KEYS: Final = frozenset({"sessionId", "update"})
_TEXT_KEYS: Final = frozenset({"type", "text"})


def plain_update(params: Any) -> dict[str, Any] | None:
    """The update of params that are exactly `{"sessionId": str, "update": {...}}`."""
    if type(params) is not dict or params.keys() != _PARAMS_KEYS:
        return None
    update = params["update"]
    if type(update) is not dict or type(params["sessionId"]) is not str:
        return None
    return update


def text_block(content: Any) -> JSONObject | None:
    """A copy of exactly a plain text block, in the models' key order; else None.

    `{"type": "text", "text": str}` (keys in any order) gives a fresh
    `{"type": "text", "text": ...}`.
    """
    text = plain_text(content)
    return None if text is None else {"type": "text", "text": text}


def plain_text(content: Any) -> str | None:
    """The text of exactly a plain text block (`{"type": "text", "text": str}`)."""
    if (
        type(content) is not dict
        or content.keys() != _TEXT_KEYS
        or content["type"] != "text"
    ):
        return None
    text = content["text"]
    return text if type(text) is str else None
