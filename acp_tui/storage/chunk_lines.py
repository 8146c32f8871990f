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

from acp_tui.store.ops import AppendMessageChunk, AppendMessageTexts, InSubagent, Op

__all__ = ["ChunkLines", "plain_chunk_line"]


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


class ChunkLines:
    """`plain_chunk_line` for a run of chunks, each message's head encoded once.

    A streamed message is hundreds of chunks of one message id and role: the
    line's head (`{"op":"AppendMessageChunk","message_id":...,"role":...,
    "block":{"type":"text","text":`) is kept for the last message, so a chunk
    costs one string encoding; the lines are text (ASCII), encoded together by
    the caller (`TranscriptWriter`). Same bytes as `plain_chunk_line` (a test
    compares them).
    """

    __slots__ = ("_head", "_message_id", "_role")

    def __init__(self) -> None:
        self._message_id: object = None
        self._role: object = None
        self._head = ""

    def line(self, op: AppendMessageChunk, limit: int) -> str | None:
        """The line of a plain text chunk shorter than `limit`; None otherwise.

        `op` is an `AppendMessageChunk` (the caller checked its type).
        """
        block = op.block
        if type(block) is not dict or len(block) != 2 or next(iter(block)) != "type":
            return None
        text = block.get("text")
        if block["type"] != "text" or type(text) is not str or len(text) >= limit:
            return None
        head = self._head_of(op.message_id, op.role)
        if head is None:
            return None
        return head + encode_basestring_ascii(text) + "}}"

    def lines(
        self, op: AppendMessageTexts, limit: int, before: str = "", after: str = ""
    ) -> list[str] | None:
        """`line` of each chunk of a run, in order; None if any is not plain.

        Each text must be exactly a `str` shorter than `limit`. Each line is
        given between `before` and `after` (`lines_in_subagent`).
        """
        texts = op.texts
        if not all(type(text) is str for text in texts):
            return None
        if texts and max(map(len, texts)) >= limit:
            return None
        head = self._head_of(op.message_id, op.role)
        if head is None:
            return None
        encode = encode_basestring_ascii
        head = before + head
        end = "}}" + after
        return [head + encode(text) + end for text in texts]

    def lines_in_subagent(self, op: InSubagent, limit: int) -> list[str] | None:
        """`lines` of the run of text chunks an `InSubagent` holds, however nested.

        Each line is what `encode_op` writes for one chunk of the run in its
        subagent (`InSubagent` of `AppendMessageChunk`); None if any chunk is
        not plain, or `op` holds no run.
        """
        encode = encode_basestring_ascii
        opening: list[str] = []
        inner: Op = op
        while type(inner) is InSubagent:
            subagent_id = inner.subagent_id
            if type(subagent_id) is not str:
                return None
            opening.append(
                f'{{"op":"InSubagent","subagent_id":{encode(subagent_id)},"inner":'
            )
            inner = inner.inner
        if type(inner) is not AppendMessageTexts:
            return None
        return self.lines(inner, limit, "".join(opening), "}" * len(opening))

    def _head_of(self, message_id: object, role: object) -> str | None:
        """The line's head for a chunk of this message (kept for the last one)."""
        if message_id != self._message_id or role != self._role:
            if type(message_id) is not str or type(role) is not str:
                return None
            encode = encode_basestring_ascii
            self._head = (
                f'{{"op":"AppendMessageChunk","message_id":{encode(message_id)},'
                f'"role":{encode(role)},"block":{{"type":"text","text":'
            )
            self._message_id = message_id
            self._role = role
        return self._head
