"""Prompt history, kept per project directory.

Each project (the resolved working directory) has one file under
`paths.data_dir() / "history"`, named by a hash of the directory. The file holds JSON
lines, one prompt each: `{"cwd": "/abs/project", "text": "the prompt"}`. The `cwd` is
stored in every line so that a line belonging to another directory (a hash
collision, or a file copied by hand) is recognised and skipped.

Invariants:

* Oldest first, newest last; at most `limit` entries (1000) are kept in memory.
* Appending writes one line and flushes it, so concurrent instances in the same
  project interleave whole lines. When the file grows past twice the limit it is
  compacted: rewritten with the newest `limit` entries through a temporary file
  and `os.replace`.
* A prompt equal to the newest entry is not added again; blank prompts are never
  added. Multi-line prompts keep their newlines (JSON escapes them).
* Unreadable or corrupt lines are skipped. No method raises on I/O errors: they
  are logged and the history carries on in memory.
* The file is the user's alone (`acp_tui.storage.private_files`): created 0600 in a
  history directory created 0700, a looser existing file tightened on the next
  write, and the compacted file written 0600 (`mkstemp`).

Navigation (`previous` / `next` / `reset`) works like a shell's: the draft typed
before browsing is restored when the user goes past the newest entry, and edits to
a recalled entry are kept while browsing, so nothing typed is lost.

This module imports the standard library, `acp_tui.storage.paths` and
`acp_tui.storage.private_files` only.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from acp_tui.storage import paths
from acp_tui.storage.private_files import open_private, replace_privately

__all__ = ["HISTORY_LIMIT", "PromptHistory", "history_file"]

log = logging.getLogger(__name__)

HISTORY_LIMIT: Final = 1000
"""Entries kept per project."""


def history_file(cwd: Path) -> Path:
    """The history file for a project directory.

    Args:
        cwd: The project directory (resolved before hashing).

    Returns:
        `data_dir()/history/<sha256 of the resolved cwd, 32 hex digits>.jsonl`.
    """
    return paths.project_file(cwd, "history", ".jsonl")


class PromptHistory:
    """The prompts sent in one project, with a cursor for browsing them.

    Args:
        path: The JSON-lines file, or None for a history kept in memory only.
        cwd: The project directory the entries belong to.
        limit: Entries to keep (older ones are dropped).
    """

    def __init__(self, path: Path | None, cwd: Path, *, limit: int = HISTORY_LIMIT):
        self._path = path
        self._cwd = paths.project_key(cwd)
        self._limit = max(1, limit)
        self._entries: list[str] = []
        self._lines_on_disk = 0
        self._index: int | None = None
        self._pending: dict[int, str] = {}
        if path is not None:
            self._entries, self._lines_on_disk = self._load(path)

    @classmethod
    def for_project(cls, cwd: Path) -> PromptHistory:
        """Open (or start) the history of a project directory.

        Args:
            cwd: The project directory.

        Returns:
            The history, loaded from its file if there is one.
        """
        return cls(history_file(cwd), cwd)

    @property
    def path(self) -> Path | None:
        """The backing file, or None when kept in memory only."""
        return self._path

    @property
    def entries(self) -> Sequence[str]:
        """The prompts, oldest first."""
        return tuple(self._entries)

    @property
    def browsing(self) -> bool:
        """Whether the cursor is on an entry (not on the draft)."""
        return self._index is not None

    def add(self, text: str) -> None:
        """Record a sent prompt and put the cursor back on a fresh draft.

        Blank prompts and a repeat of the newest entry are not recorded.

        Args:
            text: The prompt exactly as sent.
        """
        self.reset()
        if not text.strip() or (self._entries and self._entries[-1] == text):
            return
        self._entries.append(text)
        del self._entries[: -self._limit]
        if self._path is not None:
            self._append(self._path, text)

    # -- navigation ---------------------------------------------------------------

    def previous(self, current_draft: str) -> str | None:
        """Move to the next older entry.

        Args:
            current_draft: What the editor shows now: the draft when not browsing,
                otherwise the (possibly edited) recalled entry. It is kept and
                shown again when the user comes back to this position.

        Returns:
            The text to show, or None when there is nothing older.
        """
        position = len(self._entries) if self._index is None else self._index
        if position == 0:
            return None
        self._remember(position, current_draft)
        self._index = position - 1
        return self._pending.get(self._index, self._entries[self._index])

    def next(self, current: str | None = None) -> str | None:
        """Move to the next newer entry, or back to the draft past the newest.

        Args:
            current: What the editor shows now, kept as an edit of the current
                entry (None: the user did not edit it).

        Returns:
            The text to show, or None when not browsing.
        """
        if self._index is None:
            return None
        if current is not None:
            self._remember(self._index, current)
        position = self._index + 1
        if position >= len(self._entries):
            self._index = None
            return self._pending.pop(len(self._entries), "")
        self._index = position
        return self._pending.get(position, self._entries[position])

    def reset(self) -> None:
        """Stop browsing and forget the draft and any edits to recalled entries."""
        self._index = None
        self._pending.clear()

    def _remember(self, position: int, text: str) -> None:
        if position < len(self._entries) and self._entries[position] == text:
            self._pending.pop(position, None)
        else:
            self._pending[position] = text

    # -- file ---------------------------------------------------------------------

    def _parse(self, line: str) -> str | None:
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict) or record.get("cwd") != self._cwd:
            return None
        text = record.get("text")
        return text if isinstance(text, str) and text.strip() else None

    def _load(self, path: Path) -> tuple[list[str], int]:
        """Read the valid entries (deduplicating consecutive repeats) and line count."""
        try:
            with path.open("r", encoding="utf-8", errors="replace") as file:
                lines = file.read().splitlines()
        except FileNotFoundError:
            return [], 0
        except OSError as error:
            log.warning("cannot read prompt history %s: %s", path, error)
            return [], 0
        entries: list[str] = []
        for line in lines:
            text = self._parse(line)
            if text is not None and (not entries or entries[-1] != text):
                entries.append(text)
        return entries[-self._limit :], len(lines)

    def _record(self, text: str) -> str:
        return json.dumps({"cwd": self._cwd, "text": text}, ensure_ascii=False) + "\n"

    def _append(self, path: Path, text: str) -> None:
        try:
            with open(open_private(path), "a", encoding="utf-8") as file:
                file.write(self._record(text))
                file.flush()
        except OSError as error:
            log.warning("cannot write prompt history %s: %s", path, error)
            return
        self._lines_on_disk += 1
        if self._lines_on_disk > 2 * self._limit:
            self._compact(path)

    def _compact(self, path: Path) -> None:
        """Rewrite the file with the newest entries (re-read: others may append)."""
        entries, _ = self._load(path)
        if not entries:
            entries = self._entries
        data = "".join(self._record(text) for text in entries).encode("utf-8")
        try:
            replace_privately(path, data, prefix=".history-")
        except OSError as error:
            log.warning("cannot compact prompt history %s: %s", path, error)
            return
        self._entries = list(entries)
        self._lines_on_disk = len(entries)
