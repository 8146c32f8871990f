"""Bridges between the client layer and Textual.

* `StoreBridge` turns the store's synchronous, per-op change callbacks into one
  `SessionUpdated` message per refresh, so streaming chunks never touch the widget
  tree one by one.
* `ModalPermissionPrompter` answers the client's permission requests with a modal
  `PermissionScreen`.
* `tune_garbage_collector` keeps the cyclic garbage collector's pauses short
  while a session streams (the first `StoreBridge` calls it).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Sequence
from typing import Final

from textual.app import App
from textual.message_pump import MessagePump

from acp_tui.client.ports import PermissionRequest
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.messages import SessionUpdated
from acp_tui.ui.screens.permission import PermissionScreen

__all__ = ["ModalPermissionPrompter", "StoreBridge", "tune_garbage_collector"]

FULL_COLLECTION_THRESHOLD: Final = 50
"""Young (generation 1) collections between two full ones (Python's default: 10)."""

_gc_tuned = False


def tune_garbage_collector() -> None:
    """Keep the cyclic garbage collector's pauses few and short while streaming; once.

    A full (generation 2) collection walks every tracked object. With Textual,
    pydantic's schema models and the client loaded that is a large heap, and
    streaming allocates enough (strips and their caches, content, widgets that
    are mounted and later unmounted) to trigger a full collection every half
    second or so: bench/ui.py measured pauses of 70-150 ms each, the longest gaps
    between frames. Two changes:

    * `gc.freeze()` leaves everything alive now (the start-up heap) out of later
      collections. Frozen objects are never collected, which for start-up state
      is what happens anyway.
    * Full collections wait for `FULL_COLLECTION_THRESHOLD` young collections
      instead of 10. Young collections still free most cycles; what dies in the
      old generation (unmounted widgets) waits longer, so each full collection
      has more to free: 50 halved the total time spent in full collections while
      streaming 20 new entries a second without making the longest pause longer
      (about 110-130 ms then; 100 made it 250-350 ms). With an agent's usual pace
      (an entry every few seconds) full collections are rare and short.

    Only the first call per process acts (a later session would otherwise freeze
    the garbage of an earlier one).
    """
    global _gc_tuned
    if _gc_tuned:
        return
    _gc_tuned = True
    gc.freeze()
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, max(full, FULL_COLLECTION_THRESHOLD))


class StoreBridge:
    """Coalesces a store's changes into one `SessionUpdated` per refresh.

    The first bridge of the process tunes the garbage collector (see
    `tune_garbage_collector`): by then the session is open and the app loaded.

    Args:
        store: The store to follow.
        target: Receives the `SessionUpdated` messages.
    """

    def __init__(self, store: SessionStore, target: MessagePump) -> None:
        tune_garbage_collector()
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
