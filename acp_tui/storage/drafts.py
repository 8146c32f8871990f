"""Prompt drafts, kept per project directory, so a restart loses nothing typed.

Each project (the resolved working directory) has at most one file under
`paths.data_dir() / "drafts"`, named by a hash of the directory, holding one JSON
object: `{"cwd": "/abs/project", "text": "the draft", "queued": ["a prompt", ...]}`.
`text` is what the prompt editor shows; `queued` are prompts sent while the agent
was busy that it has not taken yet. The `cwd` is stored so that a file belonging to
another directory (a hash collision, a file copied by hand) is recognised and
ignored.

Invariants:

* Every save rewrites the file atomically (a temporary file, then `os.replace`), so
  a crash leaves the old draft or the new one, never half of one. An empty draft
  with nothing queued removes the file.
* `load` never fails: a missing, unreadable or corrupt file is an empty draft.
  No method raises on I/O errors: they are logged and the draft stays in memory.

This module imports the standard library and `acp_tui.storage.paths` only.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from acp_tui.storage import paths
from acp_tui.storage.private_files import make_private_dir, replace_privately

__all__ = ["Draft", "DraftStore", "draft_file"]

log = logging.getLogger(__name__)


def draft_file(cwd: Path) -> Path:
    """The draft file of a project directory.

    Returns:
        `data_dir()/drafts/<sha256 of the resolved cwd, 32 hex digits>.json`.
    """
    return paths.project_file(cwd, "drafts", ".json")


@dataclass(frozen=True, slots=True)
class Draft:
    """What was typed and not sent yet."""

    text: str = ""
    """The prompt editor's text."""
    queued: tuple[str, ...] = ()
    """Prompts sent while the agent was busy, not taken by it yet (oldest first)."""

    @property
    def empty(self) -> bool:
        """Nothing typed, nothing queued."""
        return not self.text and not self.queued

    def combined(self) -> str:
        """The queued prompts, then the text, as one text (blank lines between)."""
        return "\n\n".join(part for part in (*self.queued, self.text) if part)


class DraftStore:
    """The saved draft of one project.

    Args:
        path: The JSON file, or None to keep the draft in memory only.
        cwd: The project directory the draft belongs to.
    """

    def __init__(self, path: Path | None, cwd: Path) -> None:
        self._path = path
        self._cwd = paths.project_key(cwd)
        self._draft = self._load(path) if path is not None else Draft()

    @classmethod
    def for_project(cls, cwd: Path) -> DraftStore:
        """The draft store of a project directory (loaded from its file)."""
        return cls(draft_file(cwd), cwd)

    @property
    def path(self) -> Path | None:
        """The backing file, or None when kept in memory only."""
        return self._path

    @property
    def draft(self) -> Draft:
        """The current draft (as loaded, then as saved)."""
        return self._draft

    def save_text(self, text: str) -> None:
        """Save the editor's text (the queued prompts are kept)."""
        self._save(replace(self._draft, text=text))

    def save_queued(self, queued: Sequence[str]) -> None:
        """Save the prompts waiting for the agent (the text is kept)."""
        self._save(replace(self._draft, queued=tuple(queued)))

    def save(self, draft: Draft) -> None:
        """Save a whole draft."""
        self._save(draft)

    # -- file ---------------------------------------------------------------------

    def _load(self, path: Path) -> Draft:
        try:
            record = json.loads(path.read_bytes())
        except FileNotFoundError:
            return Draft()
        except (OSError, ValueError) as error:
            log.warning("cannot read the prompt draft %s: %s", path, error)
            return Draft()
        if not isinstance(record, dict) or record.get("cwd") != self._cwd:
            return Draft()
        text = record.get("text")
        queued = record.get("queued")
        return Draft(
            text if isinstance(text, str) else "",
            tuple(q for q in queued if isinstance(q, str) and q)
            if isinstance(queued, list)
            else (),
        )

    def _save(self, draft: Draft) -> None:
        if draft == self._draft:
            return
        self._draft = draft
        if self._path is None:
            return
        if draft.empty:
            try:
                self._path.unlink(missing_ok=True)
            except OSError as error:
                log.warning("cannot remove the prompt draft %s: %s", self._path, error)
            return
        record = {"cwd": self._cwd, "text": draft.text, "queued": list(draft.queued)}
        try:
            make_private_dir(self._path.parent)
            data = json.dumps(record).encode("utf-8")
            replace_privately(self._path, data, prefix=".draft-")
        except OSError as error:
            log.warning("cannot save the prompt draft %s: %s", self._path, error)
