"""Wire-level scripts for the translator tests: raw `session/update` in, store out.

`play(version, updates)` validates each raw update exactly as the session layer does
(`v2.UpdateSessionNotification` / `v1.SessionNotification` over a fresh `json.loads`
copy, so nothing is shared with the test's own dicts), translates it with that
version's translator, and applies the ops to a `SessionStore` with `apply_many`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, TypeAlias

from acp_tui.client import v1 as translate_v1
from acp_tui.client import v2 as translate_v2
from acp_tui.protocol.schema import v1, v2
from acp_tui.store import Change, Op, SessionStore

__all__ = [
    "OMIT",
    "SESSION_ID",
    "Player",
    "Update",
    "Version",
    "block_image",
    "chunk",
    "dump",
    "item",
    "play",
    "shape",
    "text",
    "whole",
]

SESSION_ID: Final = "sess_1"

Version: TypeAlias = Literal[1, 2]
Update: TypeAlias = dict[str, Any]
"""One raw `update` object (the value of `params.update`), as an agent sends it."""


class _Omit:
    """Marks a field the builders leave out of the wire object."""

    def __repr__(self) -> str:
        return "OMIT"


OMIT: Final = _Omit()


def text(value: str, **extra: Any) -> dict[str, Any]:
    """A text content block (extra keys such as `_meta` go on the block)."""
    return {"type": "text", "text": value, **extra}


def block_image(data: str = "iVBORw0KGgo=") -> dict[str, Any]:
    return {"type": "image", "mimeType": "image/png", "data": data}


def item(value: str, **extra: Any) -> dict[str, Any]:
    """A tool-call `content` item holding a text block."""
    return {"type": "content", "content": text(value), **extra}


def chunk(
    message_id: str | None,
    block: Mapping[str, Any] | str,
    role: Literal["user", "agent", "thought"] = "agent",
    **extra: Any,
) -> Update:
    """A `*_message_chunk` (`message_id=None` leaves the id out: v1 only)."""
    kind = {
        "user": "user_message_chunk",
        "agent": "agent_message_chunk",
        "thought": "agent_thought_chunk",
    }[role]
    update: Update = {"sessionUpdate": kind}
    if message_id is not None:
        update["messageId"] = message_id
    update["content"] = text(block) if isinstance(block, str) else dict(block)
    update.update(extra)
    return update


def whole(
    message_id: str,
    content: list[Any] | _Omit | None = OMIT,
    *,
    role: Literal["user", "agent", "thought"] = "agent",
    meta: Mapping[str, Any] | _Omit | None = OMIT,
) -> Update:
    """A v2 whole-message update; `OMIT` leaves a field off the wire."""
    kind = {
        "user": "user_message",
        "agent": "agent_message",
        "thought": "agent_thought",
    }
    update: Update = {"sessionUpdate": kind[role], "messageId": message_id}
    if not isinstance(content, _Omit):
        update["content"] = (
            None
            if content is None
            else [text(b) if isinstance(b, str) else b for b in content]
        )
    if not isinstance(meta, _Omit):
        update["_meta"] = meta
    return update


class Player:
    """One session: raw updates in, in order, applied to one store."""

    def __init__(self, version: Version, store: SessionStore | None = None) -> None:
        self.version: Version = version
        self.store = SessionStore(SESSION_ID) if store is None else store
        self.v1 = translate_v1.V1Translator(self.store) if version == 1 else None

    def ops(self, update: Mapping[str, Any]) -> list[Op]:
        """Validate one raw update and translate it (without applying it)."""
        params = json.loads(json.dumps({"sessionId": SESSION_ID, "update": update}))
        if self.v1 is not None:
            return self.v1.translate_update(
                v1.SessionNotification.model_validate(params).update
            )
        return translate_v2.translate_update(
            v2.UpdateSessionNotification.model_validate(params).update
        )

    def send(self, *updates: Mapping[str, Any]) -> tuple[Change, ...]:
        """Validate, translate and apply updates in order; return the changes."""
        changes: list[Change] = []
        for update in updates:
            changes.extend(self.store.apply_many(self.ops(update)))
        return tuple(changes)


def play(
    version: Version,
    updates: Iterable[Mapping[str, Any]],
    store: SessionStore | None = None,
) -> SessionStore:
    """A fresh session (or `store`) after the raw updates, in order."""
    player = Player(version, store)
    player.send(*updates)
    return player.store


def shape(value: Any) -> Any:
    """The key structure of a JSON value: objects' keys and nesting, no scalars."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value]
    return None if value is None else "scalar"


def dump(store: SessionStore) -> dict[str, Any]:
    """`store.to_json()`, typed for indexing in tests."""
    result: dict[str, Any] = store.to_json()
    return result
