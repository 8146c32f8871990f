"""Bridges between the client layer and Textual.

* `StoreBridge` turns the store's synchronous, per-op change callbacks into one
  `SessionUpdated` message per refresh, so streaming chunks never touch the widget
  tree one by one.
* `ModalPermissionPrompter` answers the client's permission requests with a modal
  `PermissionScreen`, shown through a `DialogHost` (the session's tab, which
  holds the dialog back while another tab is on screen).
* After `IDLE_COLLECT_DELAY` seconds without store changes or input,
  `StoreBridge` calls `gc_policy.collect_if_quiet`, which frees what the app's
  collector policy held back while the session streamed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Final, Protocol, TypeVar

from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.timer import Timer

from acp_tui.client.ports import PermissionRequest
from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.store.changes import Change
from acp_tui.store.model import ToolCall
from acp_tui.store.store import SessionStore
from acp_tui.ui.gc_policy import (
    collect_if_over_limit,
    collect_if_quiet,
    note_activity,
)
from acp_tui.ui.messages import SessionUpdated
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.textual_private import set_timer_once

__all__ = [
    "DialogHost",
    "ModalPermissionPrompter",
    "StoreBridge",
]

T = TypeVar("T")

BATCH_INTERVAL: Final = 1 / 80
"""The least time between two batches: changes that come sooner wait for the rest
of it. Handing a batch over after every screen refresh gave the app about 200
batches a second in a flood (a terminal's output in 4 KB chunks), and handling
each costs about a millisecond whatever its size: bench/terminal.py went from
12-17 to 20-24 MB/s with this. A little under a frame's period (1/60 s): the
batch timer fires a few milliseconds late while an agent floods (the read loop
hands the event loop back between slices), and a batch every 1/60 s at the
soonest then came every 19-21 ms, a frame that much apart."""

REFRESH_FALLBACK: Final = 0.1
"""Seconds after which a batch handed to `call_after_refresh` is flushed anyway: that
callback waits for the screen's next refresh, and when nothing else on screen
changes none may come (the last batch of a turn then sat unshown, seen under load:
tests/ui/test_conversation.py::test_a_batch_is_shown_without_another_refresh)."""

IDLE_COLLECT_DELAY: Final = 2.0
"""Seconds without store changes before objects tenured while streaming are
handed back to the collector (`collect_when_idle`)."""


class StoreBridge:
    """Coalesces a store's changes into one `SessionUpdated` per refresh.

    When the process has tuned the garbage collector (`tune_garbage_collector`,
    which the app does for a real run, once its session is open), the bridge
    collects (`collect_if_quiet`) after neither the store nor the user's input
    has changed for `IDLE_COLLECT_DELAY` seconds. The policy is process-wide, so
    it is opt-in: tests and embedders keep Python's default collector.

    Args:
        store: The store to follow.
        target: Receives the `SessionUpdated` messages.
    """

    def __init__(self, store: SessionStore, target: MessagePump) -> None:
        self.store = store
        self.target = target
        self._pending: list[Change] = []
        self._scheduled = False
        self._last_change = 0.0
        self._idle_timer: Timer | None = None
        self._fallback: Timer | None = None
        """Flushes a batch whose `call_after_refresh` did not run (see
        `REFRESH_FALLBACK`); one at a time."""
        self._unsubscribe: Callable[[], None] | None = store.subscribe(self._on_changes)

    def close(self) -> None:
        """Stop following the store."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._idle_timer is not None:
            self._idle_timer.stop()
            self._idle_timer = None
        if self._fallback is not None:
            self._fallback.stop()
            self._fallback = None

    def quiet_for(self) -> float:
        """Seconds since the last batch of changes was handed to the target."""
        return time.monotonic() - self._last_change

    def _on_changes(self, changes: Sequence[Change]) -> None:
        self._pending.extend(changes)
        if not self._scheduled:
            wait = self._last_change + BATCH_INTERVAL - time.monotonic()
            if wait > 0:
                set_timer_once(self.target, wait, self._flush, name="store-batch")
                self._scheduled = True
            else:
                self._scheduled = self.target.call_after_refresh(self._flush)
                if self._fallback is None:
                    self._fallback = set_timer_once(
                        self.target,
                        REFRESH_FALLBACK,
                        self._flush_late,
                        name="store-batch-late",
                    )

    def _flush_late(self) -> None:
        self._fallback = None
        self._flush()

    def _flush(self) -> None:
        self._scheduled = False
        if self._fallback is not None:
            # Its batch goes now: left running, it would hand over the changes
            # that come next before their interval is up.
            self._fallback.stop()
            self._fallback = None
        if not self._pending:
            return
        changes, self._pending = self._pending, []
        self.target.post_message(SessionUpdated(self.store, changes))
        collect_if_over_limit()
        note_activity()
        self._last_change = time.monotonic()
        if self._idle_timer is None:
            self._idle_timer = set_timer_once(
                self.target, IDLE_COLLECT_DELAY, self._check_idle, name="idle-collect"
            )

    def _check_idle(self) -> None:
        quiet = time.monotonic() - self._last_change
        if quiet < IDLE_COLLECT_DELAY:
            self._idle_timer = set_timer_once(
                self.target,
                IDLE_COLLECT_DELAY - quiet,
                self._check_idle,
                name="idle-collect",
            )
            return
        self._idle_timer = None
        # Quiet input too: a user paging through what just arrived would get
        # the collection's pause in the middle (0.2 s in a resumed long
        # session); the app collects once all is quiet instead.
        collect_if_quiet(IDLE_COLLECT_DELAY)


class DialogHost(Protocol):
    """Shows the modal dialogs of one session (see `SessionPane.ask_user`)."""

    async def ask_user(
        self, screen: Screen[T], *, in_turn: bool = False, what: str = "an answer"
    ) -> T | None:
        """Show `screen` once its session is on screen; its result.

        `in_turn`: one of the agent's requests (a permission, an elicitation),
        shown one at a time in the order they came. `what` the user is asked
        for, as the app says while another tab is on screen. Cancelling the
        call closes the dialog (or never shows it).
        """
        ...


class ModalPermissionPrompter:
    """A `PermissionPrompter` that asks the user with a modal dialog.

    Args:
        host: Shows the dialog (when its session is on screen).
        tool_call: Looks up the store's copy of a tool call by id, so the dialog
            can show the diff of the tool call it asks about.
        paths: How the session shows paths now (relative to its directory).
    """

    def __init__(
        self,
        host: DialogHost,
        tool_call: Callable[[str], ToolCall | None] | None = None,
        paths: Callable[[], PathDisplay] | None = None,
    ) -> None:
        self.host = host
        self.tool_call = tool_call
        self.paths = paths

    async def ask(self, request: PermissionRequest) -> str | None:
        """Show the dialog and return the chosen option id (None: cancelled).

        Withdrawn by the agent (this call cancelled): the dialog closes.
        """
        subject = None
        if self.tool_call is not None and request.tool_call_id is not None:
            subject = self.tool_call(request.tool_call_id)
        paths = self.paths() if self.paths is not None else AS_SENT
        return await self.host.ask_user(
            PermissionScreen(request, subject, paths), in_turn=True, what="permission"
        )
