"""The commonest v2 `session/update`s translated without building their models.

A stream is mostly chunks: `*_message_chunk`s of plain text and
`terminal_output_chunk`s. Validating each through `protocol.schema.v2` and
dumping its content back cost most of a chunk's time on the headless path
(`bench/print.py`), so `V2Translator.translate` asks `fast_chunk_ops` first.

It answers only for params of exactly the shape below, for which the models
accept the update and give these very ops (a test checks both against
`translate_update`); anything else, malformed or merely unusual (a `_meta`, an
extra key, annotations, another content type), is None and takes the models'
path, so validation errors read exactly as before:

* `{"sessionId": str, "update": {"sessionUpdate": "<role>_message_chunk",
  "messageId": str, "content": {"type": "text", "text": str}}}` →
  `AppendMessageChunk` with a fresh `{"type": "text", "text": ...}` block (the
  models' key order);
* `{"sessionId": str, "update": {"sessionUpdate": "terminal_output_chunk",
  "terminalId": str, "data": str}}` → `AppendTerminalOutput`, or, for invalid
  base64, the same ops as `client.v2`'s translation (it is asked for them);
* plain `state_update`s, `terminal_update`s, `tool_call_update`s,
  `available_commands_update`s and whole messages of plain text: the ops of
  `client.v2_plain.plain_update_ops`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_tui.client._wire import CHUNK_ROLES, decode_base64
from acp_tui.client.chunk_shapes import plain_text, plain_update, text_block
from acp_tui.client.v2_plain import plain_update_ops
from acp_tui.store import ops

__all__ = ["fast_chunk_ops", "plain_text_chunk"]

_CHUNK_KEYS: Final = frozenset({"sessionUpdate", "messageId", "content"})
_TERMINAL_KEYS: Final = frozenset({"sessionUpdate", "terminalId", "data"})


def fast_chunk_ops(
    params: Any, bad_base64: Callable[[str], list[ops.Op]]
) -> list[ops.Op] | None:
    """The ops of a plain chunk or plain update (module docstring); None: any other.

    Args:
        params: A `session/update`'s params, as `json.loads` gave them.
        bad_base64: The ops for a terminal chunk whose data is not base64, by
            terminal id.
    """
    update = plain_update(params)
    if update is None:
        return None
    kind = update.get("sessionUpdate")
    keys = update.keys()
    role = CHUNK_ROLES.get(kind) if type(kind) is str else None
    if keys == _CHUNK_KEYS and role is not None:
        message_id = update["messageId"]
        block = text_block(update["content"])
        if type(message_id) is not str or block is None:
            return None
        return [ops.AppendMessageChunk(message_id, role, block)]
    if keys == _TERMINAL_KEYS and kind == "terminal_output_chunk":
        terminal_id = update["terminalId"]
        data = update["data"]
        if type(terminal_id) is not str or type(data) is not str:
            return None
        decoded = decode_base64(data)
        if decoded is None:
            return bad_base64(terminal_id)
        return [ops.AppendTerminalOutput(terminal_id, decoded)]
    return plain_update_ops(kind, update)


def plain_text_chunk(params: Any) -> tuple[str, ops.MessageRole, str] | None:
    """A plain text chunk's message id, role and text; None for any other params.

    Exactly the chunks `fast_chunk_ops` gives one `AppendMessageChunk` of a
    `{"type": "text", "text": ...}` block for (the first shape of the module
    docstring), without copying the block: the intake gathers the texts
    (`ops.AppendMessageTexts`).
    """
    update = plain_update(params)
    if update is None or update.keys() != _CHUNK_KEYS:
        return None
    kind = update["sessionUpdate"]
    role = CHUNK_ROLES.get(kind) if type(kind) is str else None
    message_id = update["messageId"]
    text = plain_text(update["content"])
    if role is None or type(message_id) is not str or text is None:
        return None
    return message_id, role, text
