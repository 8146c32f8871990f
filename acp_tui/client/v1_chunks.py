"""The commonest v1 `session/update`s read without building their models.

Most of a v1 stream is `*_message_chunk`s of plain text, most often without a
`messageId` (the translator gives the message its id). `V1Translator.translate`
asks `fast_text_chunk` first; it answers only for params of exactly this shape,
which the models accept and translate to the same op (a test checks both):

`{"sessionId": str, "update": {"sessionUpdate": "<role>_message_chunk",
"content": {"type": "text", "text": str}}}`, with or without `"messageId": str`.

Anything else, malformed or merely unusual (a `_meta`, annotations, another
content type, a `messageId` that is not a string), is None and takes the
models' path, so validation errors and lenient repairs read exactly as before.
"""

from __future__ import annotations

from typing import Any, Final

from acp_tui.client._wire import CHUNK_ROLES
from acp_tui.client.chunk_shapes import plain_update, text_block
from acp_tui.store import ops
from acp_tui.store.values import JSONObject

__all__ = ["fast_text_chunk"]

_CHUNK_KEYS: Final = frozenset({"sessionUpdate", "content"})
_CHUNK_ID_KEYS: Final = frozenset({"sessionUpdate", "content", "messageId"})


def fast_text_chunk(
    params: Any,
) -> tuple[ops.MessageRole, str | None, JSONObject] | None:
    """A plain text chunk's role, `messageId` (None: not given) and block."""
    update = plain_update(params)
    if update is None:
        return None
    keys = update.keys()
    if keys == _CHUNK_KEYS:
        message_id = None
    elif keys == _CHUNK_ID_KEYS:
        message_id = update["messageId"]
        if type(message_id) is not str:
            return None
    else:
        return None
    kind = update["sessionUpdate"]
    role = CHUNK_ROLES.get(kind) if type(kind) is str else None
    block = text_block(update["content"])
    if role is None or block is None:
        return None
    return role, message_id, block
