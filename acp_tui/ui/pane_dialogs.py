"""What a session pane asks the user: its runner's UI port, picks and logins.

`PaneDialogs` is a part of `acp_tui.ui.session_pane.SessionPane` (a mixin, see
`acp_tui.ui.pane_part.PanePart`) holding the
pane's dialogs and what follows from their answers:

* the runner's `RunnerUI` port: `ask_user` (any dialog of this session),
  `elicit` (the agent's elicitations: `elicitation_screen`), `follow_url`
  (the wait for a consented URL's `elicitation/complete`), `choose_session`
  (the session picker) and `choose_auth` (the login dialog);
* picking another session (f2) or a new one (ctrl+n), and a saved transcript
  shown read-only when the agent cannot reopen it;
* an agent's terminal login, run in the real terminal before reconnecting.

Invariants:

* A pane that is not on screen holds its dialogs back: it is marked as waiting
  for the user, the app says which tab asks (`SessionPane.WantsAttention`), and
  the dialog opens once the tab is shown, so a dialog never sits over the wrong
  session.
* Permission and elicitation dialogs open one at a time, in the order the
  requests came.
* A dialog cancelled by the runner (the request withdrawn, the connection gone)
  closes.
* Agent text in notifications is made printable and never parsed as markup.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
from textual.app import SuspendNotSupported
from textual.screen import Screen

from acp_tui.safe_text import printable
from acp_tui.storage.transcripts import (
    agent_identity,
    list_transcripts,
    read_transcript,
)
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.attention_hook import AttentionEvent, AttentionKind
from acp_tui.ui.deferred_work import later
from acp_tui.ui.messages import TerminalLoginRequested
from acp_tui.ui.pane_agent import Standing
from acp_tui.ui.pane_part import PanePart
from acp_tui.ui.screens.auth import AuthMethodView, AuthScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.screens.picker_admin import PickerAdmin
from acp_tui.ui.screens.session_picker import SessionPick, SessionPickerScreen
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.start_view import StartView

if TYPE_CHECKING:
    from acp_tui.client.auth import AuthChoice
    from acp_tui.client.ports import ElicitationReply, ElicitationRequest, UrlWait

__all__ = ["PaneDialogs", "elicitation_screen"]

T = TypeVar("T")


def elicitation_screen(request: ElicitationRequest) -> Screen[Any]:
    """The dialog that asks an elicitation (a form, or consent to open a URL).

    Its result is the answer (an `ElicitationReply`: `action`, `content`), or
    None: dismissed. The screen is imported when first asked. Only the modes the
    client advertises (`form`, `url`) reach it.
    """
    from acp_tui.client.elicitation_form import ElicitationAsk
    from acp_tui.ui.screens.elicitation import ElicitationScreen

    ask = ElicitationAsk(
        agent=request.agent,
        message=request.message,
        mode="url" if request.mode == "url" else "form",
        schema=request.requested_schema,
        url=request.url,
        elicitation_id=request.url_id,
    )
    return ElicitationScreen(ask)


class PaneDialogs(PanePart):
    """The dialogs of a `SessionPane` (see the module docstring)."""

    if TYPE_CHECKING:  # what the pane provides besides `PanePart`'s
        shown: bool
        _leaving_transcript: asyncio.Future[str] | None
        _shown_waiters: list[asyncio.Future[None]]
        _permission_turn: asyncio.Lock
        _asking: int

        def _label_may_change(self) -> None: ...
        def _wants_attention(self, what: str) -> None: ...
        def _start_agent(self, request: SessionRequest, phase: str) -> None: ...
        def _stand(self, standing: Standing) -> None: ...

    async def on_terminal_login_requested(
        self, message: TerminalLoginRequested
    ) -> None:
        """Run the agent's login command in the real terminal, then reconnect."""
        command = message.command
        login = functools.partial(
            anyio.run_process,
            list(command.argv),
            env={**os.environ, **command.env},
            cwd=command.cwd or self.settings.cwd,
            check=False,
        )
        try:
            with self.app.suspend():
                print(f"acp-tui: running {command.display()} to log in", flush=True)
                done = await login(stdin=None, stdout=None, stderr=None)
                code = done.returncode
            output = ""
        except SuspendNotSupported:  # headless (tests) or no real terminal
            result = await login()
            code = result.returncode
            output = result.stdout.decode(errors="replace").strip()
        except OSError as error:
            await self._conversation.add_banner(f"could not run the login: {error}")
            return
        text = f"{message.method_name}: the login command exited with {code}"
        if output:
            text += f"\n{output}"
        self.notify(
            printable(text, keep="\n"),
            title="Login",
            severity="information" if code == 0 else "error",
            markup=False,
        )
        if self._live:
            self._start_agent(message.request, "Reconnecting to")

    async def ask_user(
        self, screen: Screen[T], *, in_turn: bool = False, what: str = "an answer"
    ) -> T | None:
        """Show a dialog of this session and wait for its answer.

        While another tab is on screen the dialog is held back: the tab is
        marked as waiting for the user, the app says which tab asks (for
        `what`), and the dialog opens once this tab is shown. Cancelled (the
        agent withdrew the request, or the connection ended), the dialog closes.

        `in_turn`: the agent's requests (permissions, elicitations) open one at
        a time, in the order they came (an `asyncio.Lock` wakes its waiters
        first come, first served): stacked as they came, the newest would be
        answered first, and a key meant for one could land on the next.
        """
        turn = self._permission_turn if in_turn else None
        if in_turn:  # the agent asks (a permission, an elicitation)
            kind: AttentionKind = "permission" if what == "permission" else "question"
            self.post_message(AttentionEvent(self, kind))
        self._asking += 1
        self._label_may_change()
        holding = False
        try:
            if turn is not None:
                holding = await turn.acquire()
            if not self.shown:
                self._wants_attention(what)
                while not self.shown:
                    waiter = asyncio.get_running_loop().create_future()
                    self._shown_waiters.append(waiter)
                    await waiter
            return await self._show(screen)
        finally:
            if turn is not None and holding:
                turn.release()
            self._asking -= 1
            if self.is_attached:
                self._label_may_change()

    async def elicit(self, request: ElicitationRequest) -> ElicitationReply | None:
        """Ask an elicitation of this session (or of no session yet).

        It waits its turn behind the permission dialogs (one dialog at a
        time), and for the tab to be shown, like them. None: dismissed (the
        client answers `cancel`). One outside any session (no store to record
        it) leaves a banner in the conversation: who asked, what, and the answer.
        """
        answer: ElicitationReply | None = await self.ask_user(
            elicitation_screen(request), in_turn=True
        )
        if request.session_id is None and self.is_attached:
            # No session store records it: the conversation says it happened.
            action = answer.action if answer is not None else "cancel"
            said = {"accept": "answered", "decline": "declined"}.get(
                action, "cancelled"
            )
            await self._conversation.add_banner(
                f"{request.agent} asked before the session: "
                f"“{request.message}” ({said})"
            )
        return answer

    def follow_url(self, request: ElicitationRequest, wait: UrlWait) -> None:
        """Show the wait for a consented URL's completion (`UrlWaitScreen`).

        It is a dialog of this session like the others (held back while the
        tab is hidden). Esc gives up: the client stops following the id, and
        the conversation says so.
        """
        self.run_worker(
            later(functools.partial(self._wait_for_url, request, wait)),
            group="url-wait",
            exit_on_error=False,
        )

    async def _wait_for_url(self, request: ElicitationRequest, wait: UrlWait) -> None:
        from acp_tui.ui.screens.elicitation_url import UrlWaitScreen

        screen = UrlWaitScreen(request.agent, request.url or "", wait.over)
        finished = await self.ask_user(screen)
        if finished or wait.over.is_set():
            return
        wait.give_up()
        if self._live:
            await self._conversation.add_banner(
                f"Stopped waiting for the sign-in at {screen.host}: "
                "the agent was told you agreed to go there; if it says it is "
                "done now, that is ignored."
            )

    async def _show(self, screen: Screen[T]) -> T | None:
        """Show a dialog until it is answered.

        A dialog about a tool call shows its card behind it; a view that
        followed the output follows again once the dialog is gone.
        """
        conversation = self._conversation if self._live else None
        follow = False
        if isinstance(screen, PermissionScreen) and conversation is not None:
            tool_call_id = screen.request.tool_call_id
            if tool_call_id is not None:
                follow = conversation.following
                await conversation.reveal(("tool_call", tool_call_id))
        try:
            return await self._answer(screen)
        finally:
            if follow and conversation is not None and conversation.is_attached:
                conversation.jump_to_end()

    async def _answer(self, screen: Screen[T]) -> T | None:
        future: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

        def answered(result: T | None) -> None:
            if not future.done():
                future.set_result(result)

        self.app.push_screen(screen, callback=answered)
        try:
            return await future
        finally:
            # Cancelled (withdrawn, the turn cancelled, the session left): the
            # wait cancels the future too, and the dialog must still close.
            unanswered = future.cancelled() or not future.done()
            if unanswered and screen.is_active:
                screen.dismiss(None)

    async def choose_session(self, note: str = "") -> SessionRequest | None:
        """The session picker, for the runner's first session (`note`: why).

        A session only saved on this computer, with an agent that cannot reopen
        sessions, is shown read-only; the runner then waits until the user
        leaves it (ctrl+n starts a new session, f2 picks again).
        """
        while True:
            pick = await self.ask_user(self._picker(note))
            if pick is None or pick.transcript is None or self._can_reopen():
                return self._request_for(pick)
            if not await self._show_transcript(pick):
                continue
            self._leaving_transcript = asyncio.get_running_loop().create_future()
            try:
                choice = await self._leaving_transcript
            finally:
                self._leaving_transcript = None
            if choice == "new":
                return SessionRequest("new")

    def _picker(self, note: str = "") -> SessionPickerScreen:
        runner = self.runner
        delete = runner.delete_session if runner.session_features.delete else None
        current = self.store.session_id if self.store is not None else None
        return SessionPickerScreen(
            runner.list_sessions,
            admin=self._picker_admin(),
            delete=delete,
            current_session_id=current,
            saved=functools.partial(
                list_transcripts, self._transcript_agent(), legacy=self.settings.name
            ),
            roots=(self.settings.cwd, *self.settings.additional_directories),
            reopens_saved=self._can_reopen(),
            title=printable(f"Sessions: {note}") if note else "Sessions",
        )

    def _picker_admin(self) -> PickerAdmin:
        """The picker's rename, archive and status calls the agent offers."""
        runner = self.runner
        features = runner.session_features
        return PickerAdmin(
            rename=runner.set_title if features.set_title else None,
            archive=runner.set_archived if features.archive else None,
            load_all=(
                functools.partial(runner.list_archived, "include")
                if features.archive
                else None
            ),
            status=runner.session_status if features.status else None,
        )

    def _transcript_agent(self) -> str:
        """The name this agent's transcripts are filed under (its reported name)."""
        client = self.runner.client
        reported = client.agent_name if client is not None else None
        return agent_identity(reported, self.settings.name)

    @staticmethod
    def _request_for(pick: SessionPick | None) -> SessionRequest | None:
        """The runner's request for a pick.

        The session's listed directory is told to the agent; the agent may read
        and write there only if the user confirmed it in the picker (`root`).
        """
        if pick is None:
            return None
        if pick.action == "new" or pick.session_id is None:
            return SessionRequest("new")
        cwd = Path(pick.cwd) if pick.cwd and Path(pick.cwd).is_absolute() else None
        # A session the agent did not list may be unknown to it: then start anew.
        saved_only = pick.transcript is not None
        return SessionRequest(
            "resume", pick.session_id, cwd, root=pick.root, fallback_new=saved_only
        )

    def _can_reopen(self) -> bool:
        """Whether the agent can resume or load sessions."""
        features = self.runner.session_features
        return features.replay or features.resume

    async def _show_transcript(self, pick: SessionPick) -> bool:
        """Show a saved transcript read-only (the agent cannot reopen it)."""
        assert pick.transcript is not None
        loaded = await asyncio.to_thread(
            read_transcript, pick.transcript, session_id=pick.session_id
        )
        if loaded is None:
            self.notify("could not read the saved transcript", severity="error")
            return False
        if not self._live:
            return False
        store = loaded.store
        await self._updates_applied()  # the batches before it first
        if self._rendered_store is not None:
            await self._conversation.reset()
        self._rendered_store = store
        await self._conversation.apply_changes(store, ())
        self.query_one(PlanPanel).update_plans(store.plans())
        self.query_one(StartView).finished()
        self.query_one(PromptInput).set_read_only("Saved transcript (read only)")
        self._status.store = store
        self._stand(Standing.TRANSCRIPT)
        self._refresh_status()
        return True

    async def choose_auth(
        self, choices: Sequence[AuthChoice], message: str
    ) -> AuthChoice | None:
        """The login dialog: which of the agent's methods to use."""
        views = [
            AuthMethodView(
                c.method_id,
                c.name,
                c.description,
                c.is_terminal,
                None if c.usable else c.wire_type,
            )
            for c in choices
        ]
        agent = self._status.agent
        name = agent.display_name if agent is not None else self.settings.name
        chosen = await self.ask_user(
            AuthScreen(views, agent_name=name, message=message)
        )
        return next((c for c in choices if c.usable and c.method_id == chosen), None)

    def action_pick_session(self) -> None:
        """Open the session picker and switch to the chosen session."""
        if self._leave_transcript("pick"):
            return
        if not self.runner.connected or self.store is None:
            self.notify("the agent is not connected yet", severity="warning")
            return
        self.app.push_screen(self._picker(), callback=self._switch_to)

    def _leave_transcript(self, choice: str) -> bool:
        """Leave the transcript shown before the first session, if it is."""
        leaving = self._leaving_transcript
        if leaving is None or leaving.done():
            return False
        leaving.set_result(choice)
        return True

    def _switch_to(self, pick: SessionPick | None) -> None:
        if pick is not None and pick.transcript is not None and not self._can_reopen():
            self.run_worker(
                later(functools.partial(self._show_transcript, pick)),
                group="session",
                exit_on_error=False,
            )
            return
        request = self._request_for(pick)
        if request is not None:
            self.run_worker(
                later(functools.partial(self.runner.switch_session, request)),
                group="session",
                exit_on_error=False,
            )

    def action_new_session(self) -> None:
        """Start a new session with the same agent."""
        if self._leave_transcript("new"):
            return
        if not self.runner.connected:
            self.notify("the agent is not connected", severity="warning")
            return
        self._switch_to(SessionPick("new"))
