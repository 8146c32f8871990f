"""Palette entries for the session on screen, where its agent offers them.

"Fork session" (`session/fork`) and "Rename session" (`session/set_title`) are
listed in the command palette only when the tab's agent advertises the method
and a session is open; `SessionPane` (its `PaneFork` part) runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.ui.session_pane import SessionPane

__all__ = ["session_commands"]


Entry = tuple[str, str, Callable[[], None]]


def session_commands(pane: SessionPane) -> Iterator[Entry]:
    """(title, help, callback) of each session entry the pane's agent offers."""
    if pane.store is None:
        return
    features = pane.runner.session_features
    if features.fork:
        yield (
            "Fork session",
            "Open a copy of this session in a new tab (both live on; f on a "
            "message card forks there)",
            pane.action_fork_session,
        )
    if features.set_title:
        yield (
            "Rename session",
            "Set this session's title (the agent keeps it)",
            pane.action_rename_session,
        )
