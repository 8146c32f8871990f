"""A streamed text chunk's transcript line, encoded without the general encoder.

Most of a transcript is `AppendMessageChunk` ops of plain text (`{"type":
"text", "text": ...}` in that order, as the dialects make them). Building the
op's record and running `json.JSONEncoder` on it cost a third of journaling a
chunk (`bench/print.py`); `plain_chunk_line` writes the same bytes from the
C string encoder `json` itself uses, and says None for anything else (a test
compares it with `store.journal.encode_op` on hard text).
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii

from acp_tui.store.ops import AppendMessageChunk

__all__ = ["plain_chunk_line"]


def plain_chunk_line(op: object) -> bytes | None:
    """`encode_op(op)` as ASCII bytes for a plain text chunk; None for any other."""
    if type(op) is not AppendMessageChunk:
        return None
    block = op.block
    if type(block) is not dict or len(block) != 2 or next(iter(block)) != "type":
        return None
    text = block.get("text")
    message_id = op.message_id
    role = op.role
    if (
        block["type"] != "text"
        or type(text) is not str
        or type(message_id) is not str
        or type(role) is not str
    ):
        return None
    encode = encode_basestring_ascii
    return (
        f'{{"op":"AppendMessageChunk","message_id":{encode(message_id)},'
        f'"role":{encode(role)},"block":{{"type":"text","text":{encode(text)}}}}}'
    ).encode("ascii")
