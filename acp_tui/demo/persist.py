"""Where demo sessions live between runs: one JSON file each.

Files are `<data_dir>/demo/sessions/<session id>.json`
(`acp_tui.storage.paths.data_dir()`, so `$ACP_TUI_HOME/data/...` in tests). A file holds
everything needed to list, resume and replay the session in a new process: `sessionId`,
`cwd`, `title`, `updatedAt`, the config values, the id counters, the remembered "always
allow" answers, and `history`, the session's neutral events (`events.event_to_json`).

Invariants:

* **Ids are claimed atomically and never reused.** `claim_id()` creates the file
  with `O_EXCL`, so two demo processes never pick the same id. Ids are
  `demo-0001`, `demo-0002`, ... (no randomness: the same steps give the same ids).
* **Writes are atomic**: a temporary file in the same directory, then
  `os.replace`. A reader sees the old file or the new one, never half of one.
* **Only well-formed ids touch the disk** (`SESSION_ID`), so a session id from the
  wire can never name a path outside the sessions directory.
* A file that cannot be read is skipped by `list_records()` and reported as
  missing by `load()`: one damaged session never breaks the others.
"""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any, Final

from acp_tui.storage import paths

__all__ = [
    "PAGE_SIZE",
    "SESSION_ID",
    "InvalidCursor",
    "claim_id",
    "decode_cursor",
    "delete",
    "encode_cursor",
    "list_records",
    "load",
    "save",
    "sessions_dir",
]

SESSION_ID: Final = re.compile(r"demo-[0-9]{4,9}")
"""The shape of every id the demo hands out."""

PAGE_SIZE: Final = 3
"""Sessions per `session/list` page (small, so that paging shows up in the demo)."""

_CURSOR_PREFIX: Final = "demo-list:"


class InvalidCursor(ValueError):
    """A `session/list` cursor this agent did not hand out."""


def sessions_dir() -> Path:
    """`<data_dir>/demo/sessions`."""
    return paths.data_dir() / "demo" / "sessions"


def _file(session_id: str) -> Path | None:
    if not SESSION_ID.fullmatch(session_id):
        return None
    return sessions_dir() / f"{session_id}.json"


def claim_id() -> str:
    """Reserve the next free session id (creates an empty placeholder file)."""
    directory = sessions_dir()
    directory.mkdir(parents=True, exist_ok=True)
    taken = [
        int(path.stem[5:])
        for path in directory.glob("demo-*.json")
        if SESSION_ID.fullmatch(path.stem)
    ]
    number = max(taken, default=0) + 1
    while True:
        session_id = f"demo-{number:04d}"
        try:
            fd = os.open(directory / f"{session_id}.json", os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            number += 1
            continue
        os.close(fd)
        return session_id


def save(record: dict[str, Any]) -> None:
    """Write a session record atomically."""
    target = _file(str(record["sessionId"]))
    if target is None:
        raise ValueError(f"bad session id {record['sessionId']!r}")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_text(
        json.dumps(record, ensure_ascii=False, separators=(",", ":")), "utf-8"
    )
    os.replace(temporary, target)


def load(session_id: str) -> dict[str, Any] | None:
    """A session record, or None if there is no readable one."""
    target = _file(session_id)
    if target is None:
        return None
    try:
        data = json.loads(target.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "sessionId" in data else None


def delete(session_id: str) -> bool:
    """Remove a session's file; returns whether there was one."""
    target = _file(session_id)
    if target is None:
        return False
    try:
        target.unlink()
    except FileNotFoundError:
        return False
    return True


def list_records() -> list[dict[str, Any]]:
    """Every readable session record, most recently updated first."""
    directory = sessions_dir()
    if not directory.is_dir():
        return []
    records = []
    for path in directory.glob("demo-*.json"):
        record = load(path.stem)
        if record is not None:
            records.append(record)
    records.sort(
        key=lambda r: (str(r.get("updatedAt") or ""), str(r["sessionId"])),
        reverse=True,
    )
    return records


def encode_cursor(offset: int) -> str:
    """An opaque cursor for the page starting at `offset`."""
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{offset}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    """The offset a cursor stands for.

    Raises:
        InvalidCursor: Not a cursor from `encode_cursor`.
    """
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
    except (ValueError, UnicodeError):
        raise InvalidCursor(cursor) from None
    if not text.startswith(_CURSOR_PREFIX) or not text[len(_CURSOR_PREFIX) :].isdigit():
        raise InvalidCursor(cursor)
    return int(text[len(_CURSOR_PREFIX) :])
