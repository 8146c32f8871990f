"""Bridges between the client layer and Textual.

* `StoreBridge` turns the store's synchronous, per-op change callbacks into one
  `SessionUpdated` message per refresh, so streaming chunks never touch the widget
  tree one by one.
* `ModalPermissionPrompter` answers the client's permission requests with a modal
  `PermissionScreen`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from textual.app import App
from textual.message_pump import MessagePump

from acp_tui.client.ports import PermissionRequest
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.messages import SessionUpdated
from acp_tui.ui.screens.permission import PermissionScreen

__all__ = ["ModalPermissionPrompter", "StoreBridge"]


class StoreBridge:
    """Coalesces a store's changes into one `SessionUpdated` per refresh.

    Args:
        store: The store to follow.
        target: Receives the `SessionUpdated` messages.
    """

    def __init__(self, store: SessionStore, target: MessagePump) -> None:
        self.store = store
        self.target = target
        self._pending: list[Change] = []
        self._scheduled = False
        self._unsubscribe: Callable[[], None] | None = store.subscribe(self._on_changes)

    def close(self) -> None:
        """Stop following the store."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_changes(self, changes: Sequence[Change]) -> None:
        self._pending.extend(changes)
        if not self._scheduled:
            self._scheduled = self.target.call_after_refresh(self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        if not self._pending:
            return
        changes, self._pending = self._pending, []
        self.target.post_message(SessionUpdated(self.store, changes))


class ModalPermissionPrompter:
    """A `PermissionPrompter` that asks the user with a modal dialog.

    Args:
        app: The app that shows the dialog.
    """

    def __init__(self, app: App[None]) -> None:
        self.app = app

    async def ask(self, request: PermissionRequest) -> str | None:
        """Show the dialog and return the chosen option id (None: cancelled)."""
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def answered(result: str | None) -> None:
            if not future.done():
                future.set_result(result)

        screen = PermissionScreen(request)
        self.app.push_screen(screen, callback=answered)
        try:
            return await future
        finally:
            if not future.done() and screen.is_active:
                # Withdrawn by the agent or cancelled by the user: close the dialog.
                screen.dismiss(None)
