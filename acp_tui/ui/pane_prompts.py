"""What a session pane sends: prompts on their way to the agent, local commands.

`PanePrompts` is a part of `acp_tui.ui.session_pane.SessionPane` (a mixin, see
`acp_tui.ui.pane_part.PanePart`). The pane queues a submitted prompt; this
follows it: shown as queued until the runner takes it, as sending until the
agent shows it back (or the turn ends), kept as not delivered if the agent
stops first, and saved in the project's drafts while unsent. A local command
(`/export ...`) runs here and never reaches the agent.

Invariants:

* Nothing the user typed disappears: a prompt leaves the conversation only once
  the agent has shown it back or its turn ended.
* A user message the agent wrote itself acknowledges nothing.
* Notification text is made printable and never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.export import ExportFormat, export_text
from acp_tui.store.changes import Change
from acp_tui.ui.commands import export_request
from acp_tui.ui.messages import PromptEnded, PromptStarted
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.saved_files import save_text

if TYPE_CHECKING:
    from acp_tui.storage.drafts import DraftStore

__all__ = ["PanePrompts"]


class PanePrompts(PanePart):
    """The prompts and local commands of a `SessionPane` (see the module)."""

    if TYPE_CHECKING:  # what the pane provides besides `PanePart`'s
        _drafts: DraftStore | None
        _unsent: dict[int, str]

    async def on_prompt_started(self, message: PromptStarted) -> None:
        """A prompt went out: shown as sending until the agent shows it back."""
        if self._unsent.pop(message.prompt_id, None) is not None:
            self._save_queued()
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
        if not self._live:
            return
        for pending in self._conversation.pending_prompts():
            if pending.prompt_id == message.prompt_id and pending.state == "sending":
                await pending.remove()

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
            for pending in self._conversation.pending_prompts():
                if pending.state != "queued":
                    await pending.remove()
        elif not self.runner.in_turn:
            await self._conversation.remove_queued(None)

    def _save_queued(self) -> None:
        if self._drafts is not None:
            self._drafts.save_queued(list(self._unsent.values()))

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
