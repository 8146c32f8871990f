"""How a session pane applies the store's batches: in a task of its own, coalesced.

`PaneUpdates` is a part of `acp_tui.ui.session_pane.SessionPane` (a mixin, see
`acp_tui.ui.pane_part.PanePart`). Applying a batch of store changes awaits the
mounts of the cards it brings (a few milliseconds each, a tool call more), and
a handler that awaits holds the pane's message queue: every message behind it
waited, a key bubbling up through the pane among them (100-190 ms while the
agent streamed; bench/key_echo_trace.py). So the pane's `SessionUpdated`
handler only notes the batch and returns; the batches are applied, in order, by
one task (`_apply_pending`):

* **Coalesced.** At most one application runs; a batch that comes while it
  runs joins the changes still pending, and the task applies them all at once
  when it is done with the current ones (one pass over the window, one status
  refresh). Changes keep their order; none is dropped or applied twice.
* **Ordered with the pane's other handlers.** A handler that changes what a
  batch changes (a session opened, a prompt started or ended, the agent failed,
  a transcript shown) first awaits `_updates_applied`: everything the pane was
  told before it is on screen first, as when the batches held the queue.
* **Following the tail** is the conversation's own (the batch is applied
  exactly as before, only not in the pane's queue).

An error in the task is the app's, as one in a handler is (unless the pane was
closing: its widgets were going).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.messages import SessionUpdated
from acp_tui.ui.pane_part import PanePart

__all__ = ["PaneUpdates"]


class PaneUpdates(PanePart):
    """Applies the store's batches outside the pane's message queue."""

    _pending_changes: list[Change] | None = None
    """The changes noted and not applied yet, in order (None: none)."""
    _pending_store: SessionStore | None = None
    """The store they were made to."""
    _applying: asyncio.Task[None] | None = None
    """The task applying them (None: none runs)."""

    if TYPE_CHECKING:  # the pane's
        closing: bool

        async def _apply_batch(
            self, store: SessionStore, changes: Sequence[Change]
        ) -> None: ...

    def on_session_updated(self, message: SessionUpdated) -> None:
        """Note one batch of store changes; a task applies it (see the module)."""
        store = message.store
        if store is not self.store or store is not self._rendered_store:
            return  # a batch from a session we switched away from
        if not self._live:
            return  # closing or quitting: the widgets are going
        pending = self._pending_changes
        if pending is not None and self._pending_store is store:
            pending.extend(message.changes)
        else:
            self._pending_changes = list(message.changes)
            self._pending_store = store
        if self._applying is None:
            self._applying = asyncio.create_task(
                self._apply_pending(), name=f"apply-batches {self.id}"
            )

    async def _apply_pending(self) -> None:
        try:
            while self._pending_changes is not None:
                store, changes = self._pending_store, self._pending_changes
                self._pending_changes = self._pending_store = None
                if store is None or store is not self._rendered_store:
                    continue  # the session changed meanwhile
                if store is not self.store or not self._live:
                    continue
                await self._apply_batch(store, changes)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if self._live and not self.closing:  # else the widgets were going
                self.call_later(_raise, error)  # in the pane's queue: the app's
        finally:
            self._applying = None

    async def _updates_applied(self) -> None:
        """Wait until every batch noted so far is applied (at once if none runs)."""
        while (task := self._applying) is not None:
            if task is asyncio.current_task():
                return
            await asyncio.wait({task})

    def _stop_applying(self) -> None:
        """The pane goes: the batches still pending are dropped."""
        self._pending_changes = self._pending_store = None
        task = self._applying
        if task is not None:
            task.cancel()

    def on_unmount(self) -> None:
        """The pane goes: stop applying batches to its widgets."""
        self._stop_applying()


def _raise(error: Exception) -> None:
    raise error
