"""A pane's session forks and titles: fork at a message, fork the whole, rename.

`PaneFork` is a part of `SessionPane` (see `acp_tui.ui.pane_part`). Where the
agent advertises `session/fork`, the pane has the `MessageView.FORKABLE` class:
its message cards take focus, and f on one asks to fork there
(`MessageView.ForkHere`); the palette's "Fork session" forks the whole. A fork
opens in a new tab (`OpenTab`, which the app handles) whose own agent forks the
session and shows the history up to the fork point (`client.session_admin`):
both sessions then live on. An agent that is not known to fork at a message
(`session_admin.fork_at_message`) forks only whole sessions, so f on an
earlier message says so. Renaming (`session/set_title`, where advertised) asks
for the title with `RenameScreen`; the agent's answer updates the store, so the
tab label and the status bar follow.
"""

from __future__ import annotations

from functools import partial

from textual.message import Message

from acp_tui.client.session_admin import (
    ForkSource,
    fork_at_message,
    fork_point,
    history_ops,
)
from acp_tui.safe_text import printable
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.deferred_work import later
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.screens.picker_admin import describe
from acp_tui.ui.screens.rename import RenameScreen
from acp_tui.ui.widgets.message_view import MessageView

__all__ = ["OpenTab", "PaneFork"]


class OpenTab(Message):
    """Open a tab that opens `request` with its own agent (bubbles to the app)."""

    def __init__(self, request: SessionRequest) -> None:
        super().__init__()
        self.request = request


class PaneFork(PanePart):
    """Forks and renames of the pane's session (see the module docstring)."""

    def offer_forks(self) -> None:
        """Mark the pane forkable when its agent forks sessions."""
        self.set_class(self.runner.session_features.fork, MessageView.FORKABLE)

    def on_message_view_fork_here(self, message: MessageView.ForkHere) -> None:
        """Key f on a message card: fork the session at that message."""
        message.stop()
        self.fork_at(message.key)

    def action_fork_session(self) -> None:
        """Fork the whole session into a new tab."""
        self.fork_at(None)

    def fork_at(self, key: str | None) -> None:
        """Fork at the message keyed `key` (None: the whole), in a new tab."""
        store = self.store
        runner = self.runner
        features = runner.session_features
        if store is None or not runner.connected:
            self.notify("the agent is not connected yet", severity="warning")
            return
        if not features.fork:
            self.notify("this agent cannot fork sessions", severity="warning")
            return
        if runner.busy:
            self.notify("finish or cancel the turn before forking", severity="warning")
            return
        client = runner.client
        name = client.agent_name if client is not None else None
        timeline = store.timeline()
        message_id: str | None = None
        history = history_ops(store, timeline)
        last = next((i for k, i in reversed(timeline) if k == "message"), None)
        if key is not None and key != last:
            if not fork_at_message(features, name):
                self.notify(
                    "this agent forks whole sessions only: fork from the last "
                    "message, or with “Fork session” in the palette",
                    severity="warning",
                )
                return
            point = fork_point(store, key)
            if point is None:
                self.notify(
                    "the agent said nothing before this message to fork after",
                    severity="warning",
                )
                return
            message_id, history = point
        title = store.session_info.title
        source = ForkSource(store.session_id, message_id, history, title)
        request = SessionRequest(
            "fork", cwd=runner.session_cwd, root=runner.session_root, fork=source
        )
        shown = printable(title) if title else "this session"
        where = "at the chosen message" if message_id is not None else "whole"
        self.notify(f"forking {shown} ({where}) in a new tab", markup=False)
        self.post_message(OpenTab(request))

    def action_rename_session(self) -> None:
        """Ask for a new title, and set it where the agent takes one."""
        store = self.store
        if store is None or not self.runner.connected:
            self.notify("the agent is not connected yet", severity="warning")
            return
        if not self.runner.session_features.set_title:
            self.notify("this agent cannot rename sessions", severity="warning")
            return
        session_id = store.session_id

        def chosen(title: str | None) -> None:
            if title:
                self.run_worker(
                    later(partial(self._rename, session_id, title)),
                    group="session-rename",
                    exit_on_error=False,
                )

        screen = RenameScreen(store.session_info.title or "")
        self.app.push_screen(screen, callback=chosen)

    async def _rename(self, session_id: str, title: str) -> None:
        try:
            stored = await self.runner.set_title(session_id, title)
        except Exception as error:  # shown to the user; never a traceback
            said = describe(error)
            self.notify(f"could not rename the session: {said}", severity="error")
            return
        self.notify(f"renamed to “{printable(stored)}”", markup=False)
