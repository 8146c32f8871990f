"""A message chunk too long for a message, handed to the store as what it keeps.

The dispatcher decodes a long line in steps and gives its long strings as
`framing.LongText` (pieces of text, never joined) where the notification
handler takes them: `LONG_TEXT_PATHS`, a `session/update`'s `content.text`.
For a message chunk (`*_message_chunk`, v1 and v2 alike) the client sets that
text aside while the update is validated and translated (`set_aside`), then
puts it back into the chunk's op (`put_back`): whole if the store can keep all
of it, else as the ops that keep only what any message keeps of it, its first
and last characters and the count between (`store.cut_chunk`). A 200 MB chunk
is then 16 MB of text for the store, the journal and the screen, and the
200 MB string is never built. A long text anywhere else is joined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from acp_tui.protocol.framing import LongText
from acp_tui.store.model import block_text
from acp_tui.store.ops import AppendMessageChunk, Op
from acp_tui.store.store import cut_chunk, kept_ends

__all__ = ["LONG_TEXT_PATHS", "holds_long_text", "put_back", "set_aside"]

LONG_TEXT_PATHS: Final = (("update", "content", "text"),)
"""Where in a notification's params the client takes a `LongText` (see
`Dispatcher`'s `long_text_paths`)."""

_CHUNKS: Final = frozenset(
    {"user_message_chunk", "agent_message_chunk", "agent_thought_chunk"}
)


def set_aside(params: Any) -> tuple[Any, LongText | None]:
    """`params` to validate, and the long text of a message chunk set aside.

    The text set aside is replaced with `""` (copies of the objects on its
    path; `params` is left alone). A long text at that path in any other update
    is joined in place of it: none is set aside.
    """
    content = _content(params)
    if content is None:
        return params, None
    text = content["text"]
    assert isinstance(text, LongText)
    if params["update"].get("sessionUpdate") in _CHUNKS:
        return _with_text(params, ""), text
    return _with_text(params, text.text()), None


def holds_long_text(params: Any) -> bool:
    """Whether `set_aside` has anything to do: a `LongText` at `content.text`.

    The cheap test first (this runs for every streamed chunk).
    """
    try:
        text = params["update"]["content"]["text"]
    except (KeyError, TypeError, IndexError):
        return False
    return isinstance(text, LongText)


def put_back(
    operations: Sequence[Op], text: LongText, max_message_chars: int
) -> list[Op]:
    """The ops of a chunk whose text was set aside, with its text back.

    The chunk's `AppendMessageChunk` gets all of it if a message of
    `max_message_chars` may keep it all; else it becomes the two ops that keep
    only what a message keeps (`cut_chunk`).
    """
    out: list[Op] = []
    for op in operations:
        if not isinstance(op, AppendMessageChunk) or block_text(op.block) != "":
            out.append(op)
            continue
        ends = kept_ends(max_message_chars, len(text))
        if ends is None:
            block = {**op.block, "text": text.text()}
            out.append(AppendMessageChunk(op.message_id, op.role, block))
            continue
        first, last = ends
        omitted = len(text) - first - last
        out.extend(cut_chunk(op, text.head(first), omitted, text.tail(last)))
    return out


def _content(params: Any) -> dict[str, Any] | None:
    """The `update.content` object of `params` if its `text` is a `LongText`."""
    update = params.get("update") if isinstance(params, dict) else None
    content = update.get("content") if isinstance(update, dict) else None
    if isinstance(content, dict) and isinstance(content.get("text"), LongText):
        return content
    return None


def _with_text(params: dict[str, Any], text: str) -> dict[str, Any]:
    update = params["update"]
    content = {**update["content"], "text": text}
    return {**params, "update": {**update, "content": content}}
