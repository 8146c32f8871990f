"""Small builders shared by the store tests."""

from __future__ import annotations

from collections.abc import Sequence

from acp_tui.store import Change, JSONObject


def text(value: str) -> JSONObject:
    return {"type": "text", "text": value}


def image(data: str = "iVBOR") -> JSONObject:
    return {"type": "image", "mimeType": "image/png", "data": data}


def item(value: str) -> JSONObject:
    """A tool-call `content` item holding a text block."""
    return {"type": "content", "content": text(value)}


def terminal_item(terminal_id: str) -> JSONObject:
    return {"type": "terminal", "terminalId": terminal_id}


class Recorder:
    """A listener that records every batch of changes it gets."""

    def __init__(self) -> None:
        self.batches: list[Sequence[Change]] = []

    def __call__(self, changes: Sequence[Change]) -> None:
        self.batches.append(changes)

    @property
    def changes(self) -> list[Change]:
        return [c for batch in self.batches for c in batch]
