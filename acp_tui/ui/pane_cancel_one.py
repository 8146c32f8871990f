"""Cancelling one tool call or terminal alone, from its card or the palette.

A card posts `CancelOneRequested` (its `x` key); the palette lists one entry
per tool call and terminal the agent offers to cancel now (`cancel_entries`).
Either way the runner sends the request (`ClientRunner.cancel_one`) and the
turn goes on; the card says "cancelling…" until the agent's final status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from acp_tui.client.cancel_one import CancelKind, describe
from acp_tui.safe_text import printable
from acp_tui.ui.deferred_work import later
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.widgets.tool_call_header import CancelOneRequested

__all__ = ["MAX_TITLE_CHARS", "PaneCancelOne"]

MAX_TITLE_CHARS = 60
"""A palette entry names its tool call (command) in at most this many characters."""


def _short(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_TITLE_CHARS:
        text = text[: MAX_TITLE_CHARS - 1] + "…"
    return printable(text)


class PaneCancelOne(PanePart):
    """The pane's part that cancels one tool call or terminal alone."""

    def cancel_one(self, kind: CancelKind, entity_id: str) -> None:
        """Ask the agent to cancel it alone (a notice says why not, if it cannot)."""
        if not self.runner.can_cancel_one(kind, entity_id):
            what = describe(kind)
            self.notify(
                f"the agent does not offer to cancel this {what} alone "
                "(esc cancels the whole turn)",
                severity="warning",
                markup=False,
            )
            return
        self.run_worker(
            later(partial(self.runner.cancel_one, kind, entity_id)),
            group="cancel-one",
            exit_on_error=False,
        )

    def on_cancel_one_requested(self, message: CancelOneRequested) -> None:
        """A card's cancel key (a handler by name: `@on` misses a mixin's).

        The card's tool call if the agent offers it, else the first of its
        terminals the agent offers to cancel.
        """
        message.stop()
        kind, entity_id = message.kind, message.entity_id
        runner = self.runner
        if not runner.can_cancel_one(kind, entity_id):
            offered = (
                t for t in message.terminals if runner.can_cancel_one("terminal", t)
            )
            terminal_id = next(offered, None)
            if terminal_id is not None:
                kind, entity_id = "terminal", terminal_id
        self.cancel_one(kind, entity_id)

    def cancel_entries(self) -> Iterator[tuple[str, str, Callable[[], None]]]:
        """`(title, help, callback)` per tool call and terminal cancellable now."""
        store = self.store
        if store is None:
            return
        runner = self.runner
        for call in store.tool_calls():
            call_id = call.tool_call_id
            if runner.can_cancel_one("tool_call", call_id):
                name = _short(call.title or call.name or call_id)
                yield (
                    f"Cancel tool call: {name}",
                    "Ask the agent to stop this tool call alone (the turn goes on)",
                    partial(self.cancel_one, "tool_call", call_id),
                )
        for terminal in store.terminals():
            terminal_id = terminal.terminal_id
            if runner.can_cancel_one("terminal", terminal_id):
                name = _short(terminal.command or terminal_id)
                yield (
                    f"Cancel terminal: {name}",
                    "Ask the agent to stop this terminal alone (the turn goes on)",
                    partial(self.cancel_one, "terminal", terminal_id),
                )
