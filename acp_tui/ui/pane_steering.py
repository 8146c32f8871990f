"""The queue's "send now" and reordering: a part of `SessionPane`.

`PaneSteering` is a part of `acp_tui.ui.session_pane.SessionPane` (a mixin, see
`acp_tui.ui.pane_part.PanePart`), beside `PanePrompts`, which owns the queue:

* **Send now** (`s` on a queued prompt, or the palette's "Send queued prompt
  now", which takes the one highlighted, else the oldest): where the agent
  takes prompts into its running turn (steering, `acp_tui.client.steering`),
  the prompt leaves the queue and goes into that turn. The agent's answer is
  shown: `injected` (or a turn of its own) as a dim line under the steered
  prompt, in its card (the conversation shows it as the user's message where
  it was sent); `prompt required` (no turn was running) puts it back at the head
  of the queue, so it goes out next as an ordinary prompt, and says so. A
  refusal puts it back where it was. Where the agent cannot steer, the key
  says so and nothing moves.
* **Reordering** (alt+up / alt+down on a queued prompt): the prompt moves one
  place in the queue, in the runner's queue (the order it is sent in) and in
  the drafts (kept over a restart), in the same order. A prompt taken back to
  edit (Enter on it) and sent again while it would still wait goes back to its
  place.

Invariants: nothing the user typed disappears (a prompt that could not be
steered is back in the queue); the runner's queue is emptied and refilled
without an await in between, so it never sees a partial order.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from acp_tui.client.errors import UnsupportedOperation
from acp_tui.client.steering import SteerAnswer, can_steer, steer_text
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import ConnectionClosed
from acp_tui.ui.deferred_work import later
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.widgets.prompt_queue import PromptQueue
from acp_tui.ui.widgets.queue_steering import SteerNote

if TYPE_CHECKING:
    from acp_tui.storage.drafts import DraftStore

__all__ = ["PaneSteering"]


class PaneSteering(PanePart):
    """Send now and reordering for the queue of a `SessionPane` (see the module)."""

    if TYPE_CHECKING:  # what the pane (and `PanePrompts`) provide
        _edited_place: int | None
        _drafts: DraftStore | None
        _unsent: dict[int, str]
        _queued: dict[int, str]

        def withdraw(self, prompt_id: int) -> str | None:
            """Take a queued prompt out of the runner's queue (`PanePrompts`)."""

        def _save_queued(self) -> None: ...
        def _show_queue(self) -> None: ...

    _steer_notes: dict[str, str] | None = None
    """Notes waiting for their steered message's card: message key -> words."""

    # ------------------------------------------------------------- reordering
    def on_prompt_queue_move(self, message: PromptQueue.Move) -> None:
        """alt+up / alt+down on a queued prompt: one place earlier or later."""
        message.stop()
        order = list(self._queued)
        if message.prompt_id not in order:
            return
        index = order.index(message.prompt_id)
        target = max(0, min(len(order) - 1, index + message.by))
        if target == index:
            return
        order.insert(target, order.pop(index))
        self._reorder(order)

    def _back_in_place(self, prompt_id: int) -> None:
        """A prompt taken back to edit, sent again: back to where it was queued."""
        place = self._edited_place
        if place is None or prompt_id not in self._queued:
            return
        order = [i for i in self._queued if i != prompt_id]
        order.insert(min(place, len(order)), prompt_id)
        self._reorder(order)

    def _reorder(self, order: Sequence[int]) -> None:
        """Put the queued prompts in `order` (ids); others keep going first."""
        queue = self.runner.prompts
        waiting: dict[int, str] = {}
        while not queue.empty():
            prompt_id, text = queue.get_nowait()
            waiting[prompt_id] = text
        rank = {prompt_id: place for place, prompt_id in enumerate(order)}
        first = [i for i in waiting if i not in rank]
        ordered = first + sorted(
            (i for i in waiting if i in rank), key=rank.__getitem__
        )
        for prompt_id in ordered:
            queue.put_nowait((prompt_id, waiting[prompt_id]))
        self._queued = {i: self._queued[i] for i in order if i in self._queued}
        unsent = self._unsent
        self._unsent = {
            **{i: t for i, t in unsent.items() if i not in rank},
            **{i: unsent[i] for i in order if i in unsent},
        }
        self._save_queued()
        self._show_queue()
        self._refresh_status()

    # --------------------------------------------------------------- send now
    def on_prompt_queue_send_now(self, message: PromptQueue.SendNow) -> None:
        """`s` on a queued prompt: send it into the running turn."""
        message.stop()
        self._send_now(message.prompt_id)

    def action_send_now(self) -> None:
        """The palette: send the highlighted queued prompt (else the oldest) now."""
        queue = self.query_one(PromptQueue)
        prompt_id = queue.highlighted_id
        if prompt_id is None and self._queued:
            prompt_id = next(iter(self._queued))
        if prompt_id is None:
            self.notify("no prompt is queued", severity="warning")
            return
        self._send_now(prompt_id)

    def _send_now(self, prompt_id: int) -> None:
        if not can_steer(self.runner):
            why = (
                "this agent takes no prompt during a turn: it waits in the queue"
                if self.runner.in_turn
                else "no turn is running: the prompt goes out next anyway"
            )
            self.notify(why, severity="warning")
            return
        order = list(self._queued)
        place = order.index(prompt_id) if prompt_id in order else 0
        text = self.withdraw(prompt_id)
        if text is None:
            self.notify("that prompt is being sent already", severity="warning")
            return
        self.run_worker(
            later(partial(self._steer, prompt_id, text, place)),
            group="steer",
            exit_on_error=False,
        )

    async def _steer(self, prompt_id: int, text: str, place: int) -> None:
        try:
            answer = await steer_text(self.runner, text)
        except (
            RpcError,
            UnsupportedOperation,
            TimeoutError,
            ConnectionClosed,
        ) as error:
            self._requeue(prompt_id, text, place)
            reason = str(error) or "the agent did not answer in time"
            self.notify(
                f"could not send it now: {reason}", severity="warning", markup=False
            )
            return
        if not answer.shown_here:  # back at the head: it goes out next
            self._requeue(prompt_id, text, 0)
        self._show_answer(answer)

    def _requeue(self, prompt_id: int, text: str, place: int) -> None:
        """Back into the queue at `place` (0: next), in the runner's queue too."""
        if not self._live:
            return
        self.runner.prompts.put_nowait((prompt_id, text))
        self._unsent[prompt_id] = text
        self._queued[prompt_id] = text
        order = [i for i in self._queued if i != prompt_id]
        order.insert(min(place, len(order)), prompt_id)
        self._reorder(order)

    def _show_answer(self, answer: SteerAnswer) -> None:
        words = f"sent now: {answer.words}"
        if answer.message_id is not None:
            if self._steer_notes is None:
                self._steer_notes = {}
            self._steer_notes[answer.message_id] = words
        else:
            self.notify(words, markup=False)

    async def _place_steer_notes(self) -> None:
        """Put each waiting note into its steered message's card, under the text.

        Inside the card, the note goes wherever the card goes (trimmed from the
        top, or reset with another session). Called after every batch: the card
        may be mounted a batch later than its message arrived (the conversation
        paces its mounts).
        """
        notes = self._steer_notes
        if not notes or not self._live:
            return
        conversation = self._conversation
        for key in list(notes):
            card = conversation.entries.get(("message", key))
            if card is not None and card.is_attached:
                await card.mount(SteerNote(notes.pop(key)))
