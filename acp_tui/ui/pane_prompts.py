"""What a session pane sends: prompts on their way to the agent, local commands.

`PanePrompts` is a part of `acp_tui.ui.session_pane.SessionPane` (a mixin, see
`acp_tui.ui.pane_part.PanePart`). The pane queues a submitted prompt; this
follows it: shown in the queue above the prompt (`PromptQueue`) until the runner
takes it, then in the conversation as sending until the agent shows it back (or
the turn ends), kept as not delivered if the agent stops first, and saved in the
project's drafts while unsent. A prompt sent while the agent is stopped waits in
the queue and goes out once it is restarted. A queued prompt can be taken back
(`withdraw`): into the prompt to be edited (Enter on it, or a click), or away
(Delete). A local command (`/export ...`) runs here and never reaches the agent.

Invariants:

* Nothing the user typed disappears: a prompt leaves the conversation only once
  the agent has shown it back or its turn ended; a queued prompt leaves the
  queue only when the runner takes it, or when the user edits (back into the
  prompt, before what was typed there) or removes it. Edited and sent again
  while it would still wait, it goes back to its place in the queue.
* A user message the agent wrote itself acknowledges nothing.
* Notification text is made printable and never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from textual.actions import SkipAction

from acp_tui.client.steering import can_steer
from acp_tui.export import ExportFormat, export_text
from acp_tui.store.changes import Change
from acp_tui.ui.attention_hook import AttentionEvent
from acp_tui.ui.commands import export_request
from acp_tui.ui.messages import PromptEnded, PromptStarted
from acp_tui.ui.pane_agent import Standing
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.saved_files import save_text
from acp_tui.ui.textual_private import remove_awaited
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.prompt_queue import PromptQueue
from acp_tui.ui.widgets.start_view import StartView

if TYPE_CHECKING:
    from acp_tui.storage.drafts import DraftStore

__all__ = ["PanePrompts", "QueueShown"]

QueueShown: TypeAlias = tuple[tuple[tuple[int, str], ...], str, bool]
"""What the queue above the prompt shows: (prompt id, text) oldest first, its
note, and whether a queued prompt can be sent now (steering)."""


class PanePrompts(PanePart):
    """The prompts and local commands of a `SessionPane` (see the module)."""

    if TYPE_CHECKING:  # what the pane provides besides `PanePart`'s
        _drafts: DraftStore | None
        _unsent: dict[int, str]
        _queued: dict[int, str]
        _prompted: bool
        _prompt_ids: Iterator[int]
        standing: Standing
        _queue_view: PromptQueue | None
        _queue_shown: QueueShown

        def action_cancel_turn(self) -> None:
            """Cancel the running turn."""

        def _back_in_place(self, prompt_id: int) -> None:
            """Put a prompt edited from the queue back where it was (steering part)."""

    _edited_place: int | None = None
    """Where in the queue the prompt taken back to edit was (None: none)."""

    async def on_prompt_started(self, message: PromptStarted) -> None:
        """A prompt went out: shown as sending until the agent shows it back."""
        await self._updates_applied()  # the batches before it first
        self.post_message(AttentionEvent(self, "started"))
        if self._unsent.pop(message.prompt_id, None) is not None:
            self._save_queued()
        self._queued.pop(message.prompt_id, None)
        if not self._live:
            return
        conversation = self._conversation
        pending = [
            w
            for w in conversation.pending_prompts()
            if w.prompt_id == message.prompt_id
        ]
        if pending:
            pending[0].mark("sending")
        else:
            await conversation.add_queued(message.prompt_id, message.text, sending=True)
        await self._settle_sent_prompts(())
        if self._live:
            self._refresh_status()

    async def on_prompt_ended(self, message: PromptEnded) -> None:
        """The prompt's turn is over: it is no longer shown as being sent."""
        await self._updates_applied()  # the batches before it first
        self.post_message(AttentionEvent(self, "ended"))
        if not self._live:
            return
        conversation = self._conversation
        ended = [
            pending
            for pending in conversation.pending_prompts()
            if pending.prompt_id == message.prompt_id and pending.state == "sending"
        ]
        await remove_awaited(conversation, ended)

    async def _settle_sent_prompts(self, changes: Sequence[Change]) -> None:
        """Drop "sending" prompts once the agent has shown them or finished."""
        store = self.store
        if store is None:
            return
        acknowledged = any(
            change.kind == "message"
            and change.action == "added"
            and change.id is not None
            and (message := store.message(change.id)) is not None
            and message.role == "user"
            and not message.from_agent  # one the agent wrote acknowledges nothing
            for change in changes
        )
        if acknowledged:  # shown back by the agent: no longer pending or lost
            conversation = self._conversation
            shown = [p for p in conversation.pending_prompts() if p.state != "queued"]
            await remove_awaited(conversation, shown)
        elif not self.runner.in_turn:
            await self._conversation.remove_queued(None)

    def _save_queued(self) -> None:
        if self._drafts is not None:
            self._drafts.save_queued(list(self._unsent.values()))

    def unsent_work(self) -> list[str]:
        """What quitting now would stop or lose here, for the quit question.

        A turn running, prompts not sent yet, text in the prompt; empty when
        there is nothing.
        """
        if not self._live:
            return []
        store = self.store
        work: list[str] = []
        if self.runner.in_turn or (store is not None and store.state.is_busy):
            work.append("a turn is running")
        unsent: list[str] = []
        count = len(self._unsent)
        if count:
            unsent.append(f"{count} queued prompt{'s' if count > 1 else ''}")
        if self.query_one(PromptInput).text.strip():
            unsent.append("a draft in the prompt")
        if unsent:
            kept = " (kept for next time)" if self._drafts is not None else ""
            work.append(" and ".join(unsent) + kept)
        return work

    # ------------------------------------------------------- the queue shown
    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        """Queue the prompt; it is shown as queued unless it goes out at once.

        Sending brings the conversation back to its end, following; the first
        screen goes with the first prompt.
        """
        message.stop()
        self._follow_on_send()
        if self._local_command(message.text):
            return
        prompt_id = next(self._prompt_ids)
        runner = self.runner
        # Not taken at once: a turn runs, no session is open yet, others wait,
        # or the agent stopped (then it goes out after a restart).
        busy = (
            runner.in_turn
            or self.store is None
            or not runner.prompts.empty()
            or not runner.running
        )
        runner.prompts.put_nowait((prompt_id, message.text))
        self._unsent[prompt_id] = message.text
        self._save_queued()  # kept over a restart
        if busy:
            self._queued[prompt_id] = message.text
            self._back_in_place(prompt_id)  # a queued prompt taken back to edit
            self._show_queue()
        self._edited_place = None
        self._refresh_status()

    def _follow_on_send(self) -> None:
        self._conversation.jump_to_end()
        self._end_welcome()

    def _end_welcome(self) -> None:
        """The first screen goes with the first prompt, however it was sent."""
        if not self._prompted:
            self._prompted = True
            start = self.query_one(StartView)
            if start.welcoming is not None:
                start.finished()

    def on_prompt_input_scroll_requested(
        self, message: PromptInput.ScrollRequested
    ) -> None:
        """PageUp/PageDown, ctrl+home/ctrl+end in the prompt scroll the conversation."""
        message.stop()
        conversation = self._conversation
        if message.how == "page_up":
            conversation.page(-1)
        elif message.how == "page_down":
            conversation.page(1)
        elif message.how == "top":
            conversation.to_top()
        else:
            conversation.jump_to_end()

    def on_prompt_input_interrupted(self, message: PromptInput.Interrupted) -> None:
        """ctrl+c in the prompt: cancel the running turn, or clear the prompt."""
        message.stop()
        if self.runner.in_turn:
            self.action_cancel_turn()
        else:
            message.prompt_input.clear_prompt()

    # (Handlers by name, not `@on`: this part is a plain class at run time, and
    # Textual collects `@on` handlers only from its own classes.)

    @property
    def queued_prompts(self) -> tuple[str, ...]:
        """The prompts waiting in the queue above the prompt, oldest first."""
        return tuple(self._queued.values())

    def _show_queue(self) -> None:
        """Show the queued prompts above the prompt (hidden when none).

        Called on every status refresh (every store batch): the list is left
        alone unless what it shows changed.
        """
        queue = self._queue_view
        if queue is None or not self._live:
            return
        note = ""
        if not self.runner.running and self.standing.stopped:
            # Where a restart cannot help, none is promised.
            note = (
                "sent once the agent is restarted (ctrl+r)"
                if self.standing is Standing.STOPPED_RESTARTABLE
                else "not sent: the agent is not running"
            )
        shown = (tuple(self._queued.items()), note, can_steer(self.runner))
        if shown != self._queue_shown:
            self._queue_shown = shown
            queue.show(shown[0], note=note, steering=shown[2])

    def withdraw(self, prompt_id: int) -> str | None:
        """Take a queued prompt out of the runner's queue; its text (None: gone).

        None when the runner has taken it already (it is being sent). The
        queue is emptied and refilled without an await in between, so the
        runner, on this same loop, sees the others in their order.
        """
        queue = self.runner.prompts
        waiting: list[tuple[int, str]] = []
        while not queue.empty():
            waiting.append(queue.get_nowait())
        found: str | None = None
        for item in waiting:
            if item[0] == prompt_id and found is None:
                found = item[1]
            else:
                queue.put_nowait(item)
        self._queued.pop(prompt_id, None)
        if found is not None:
            self._unsent.pop(prompt_id, None)
            self._save_queued()
        self._refresh_status()
        return found

    def action_select_queued(self) -> None:
        """Up in the empty prompt: select the newest queued prompt.

        Raises:
            SkipAction: Anywhere else (the prompt's own Up: the cursor, the
                history, the completion list).
        """
        prompt = self.query_one(PromptInput)
        queue = self.query_one(PromptQueue)
        if not (
            prompt.has_focus
            and not prompt.text
            and queue.entries
            and not prompt.completion.is_open
        ):
            raise SkipAction()
        queue.select_newest()

    def on_prompt_queue_edit(self, message: PromptQueue.Edit) -> None:
        """Back into the prompt, before what is typed there, to edit and resend."""
        message.stop()
        order = list(self._queued)
        text = self.withdraw(message.prompt_id)
        prompt = self.query_one(PromptInput)
        prompt.focus()
        if text is None:
            self.notify("that prompt is being sent already", severity="warning")
            return
        # Sent again while it would still wait, it goes back to its place.
        self._edited_place = order.index(message.prompt_id)
        typed = prompt.text
        prompt.load_text(f"{text}\n\n{typed}" if typed.strip() else text)
        prompt.move_cursor(prompt.document.end)

    def on_prompt_queue_remove(self, message: PromptQueue.Remove) -> None:
        """Delete on a queued prompt: out of the queue."""
        message.stop()
        text = self.withdraw(message.prompt_id)
        if text is None:
            self.notify("that prompt is being sent already", severity="warning")
        elif not self._queued:
            self.query_one(PromptInput).focus()

    def on_prompt_queue_leave(self, message: PromptQueue.Leave) -> None:
        """Esc, or Down past the last queued prompt: back to the prompt."""
        message.stop()
        self.query_one(PromptInput).focus()

    def _local_command(self, text: str) -> bool:
        """Run `/export ...` here (never sent to the agent); False for a prompt."""
        store = self._rendered_store
        request = export_request(
            text,
            cwd=self.settings.cwd,
            session_id=store.session_id if store is not None else "session",
        )
        if request is None:
            return False
        if isinstance(request, str):
            self.notify(request, severity="warning", markup=False)
        else:
            self.export_session(request.output_format, request.path)
        return True

    def action_export_session(self) -> None:
        """Save the session on screen as Markdown in the data directory."""
        self._local_command("/export markdown")

    def export_session(self, output_format: ExportFormat, path: Path) -> None:
        """Write the session on screen to `path` and say where."""
        store = self._rendered_store
        if store is None:
            self.notify("no session to export yet", severity="warning")
            return
        status = self._status
        agent = status.agent
        text = export_text(
            store,
            output_format,
            protocol_version=status.protocol_version,
            agent=None
            if agent is None
            else {"name": agent.name, "title": agent.title, "version": agent.version},
        )
        save_text(self, path, text, saved="Session exported", failed="Export failed")
