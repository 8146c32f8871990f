"""The Textual app: wires the conversation, prompt, panels, dialogs and agent worker.

`make_app` builds it for the CLI and tests. The agent runs in one long-lived worker
(`AgentRunner.run`); the UI only reacts to the messages the runner and the store
bridge post, and asks the runner to act (prompt, cancel, switch session, set an
option, restart). It is also the runner's `RunnerUI`: the session picker and the
login dialog are modal screens awaited through a future.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

import anyio
from rich.console import RenderableType
from textual import on, work
from textual.app import App, ComposeResult, SuspendNotSupported, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer

from acp_tui.client.options import cycle_value
from acp_tui.drafts import DraftStore
from acp_tui.export import ExportFormat, export_text
from acp_tui.history import PromptHistory
from acp_tui.protocol.framing import printable
from acp_tui.protocol.transport import AgentCommand
from acp_tui.protocol.version import ProtocolChoice
from acp_tui.render.highlight import COMMON_LANGUAGES, warm_lexer
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.transcripts import list_transcripts, read_transcript
from acp_tui.ui.agent_runner import AgentRunner, AgentSettings, SessionRequest
from acp_tui.ui.bridge import tune_garbage_collector
from acp_tui.ui.commands import (
    ACTIONS,
    config_entries,
    export_request,
    with_local_commands,
)
from acp_tui.ui.messages import (
    AgentConnected,
    AgentFailed,
    AgentNotice,
    PromptStarted,
    SessionStarted,
    SessionUpdated,
    TerminalLoginRequested,
)
from acp_tui.ui.screens.auth import AuthMethodView, AuthScreen
from acp_tui.ui.screens.config import ConfigChoice, ConfigScreen
from acp_tui.ui.screens.help import KeyHelpScreen
from acp_tui.ui.screens.sessions import SessionPick, SessionPickerScreen
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.inspector import InspectorPanel
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.start_view import StartView
from acp_tui.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from acp_tui.client.auth import AuthChoice
    from acp_tui.config import McpServerSettings

__all__ = ["AcpTuiApp", "make_app"]

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_THEME = "acp-dark"

SHUTDOWN_WAIT = 15.0
"""Seconds quitting waits for the agent worker to shut the agent down (its own
steps are bounded too: close stdin, wait, SIGTERM, SIGKILL)."""

WARM_QUIET = 0.2
"""Seconds without store changes before a Pygments lexer is compiled ahead of use."""

WARM_STEP = 0.02
"""Seconds between two lexers compiled ahead of use (frames and keys in between)."""


class AcpTuiApp(App[None]):
    """The acp-tui terminal client.

    Args:
        settings: The agent to run.
        request: The first session to open (new, resume an id, or pick).
        theme: The theme to start with.
        tune_gc: Apply `tune_garbage_collector` once a session is open.
    """

    CSS_PATH = "app.tcss"
    TITLE = "acp-tui"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_turn", "Cancel", show=False),
        Binding("ctrl+q", "quit", "Quit"),
        Binding("f1", "key_help", "Keys"),
        Binding("f2", "pick_session", "Sessions"),
        Binding("f3", "switch_config", "Settings"),
        Binding("f4", "toggle_plan", "Plan"),
        Binding("f5", "toggle_inspector", "Inspector", show=False),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True),
        Binding("ctrl+n", "new_session", "New", show=False),
        Binding("ctrl+r", "restart_agent", "Restart", show=False),
    ]

    def __init__(
        self,
        settings: AgentSettings,
        *,
        request: SessionRequest | None = None,
        theme: str | None = None,
        tune_gc: bool = False,
    ) -> None:
        super().__init__()
        self.tune_gc = tune_gc
        """Apply the streaming garbage-collector policy once a session is open
        (process-wide, so only for a real run: the CLI and the bench)."""
        self._exiting = False
        self._connection_lock = asyncio.Lock()
        self._connection_task: asyncio.Future[None] | None = None
        self._to_warm: list[str] | None = None
        """Languages whose lexers `_warm_lexers` still has to compile (None: not
        started)."""
        self.settings = settings
        self.runner = AgentRunner(self, self, settings)
        self.first_request = request or SessionRequest()
        self.theme_errors = register_themes(self)
        self.theme = theme if theme in self.available_themes else DEFAULT_THEME
        self._prompt_ids = itertools.count(1)
        self._rendered_store: SessionStore | None = None
        self._last_notice: str | None = None
        self._turns_seen = 0
        self._drafts = DraftStore.for_project(settings.cwd)
        """The prompt's draft and the prompts not taken by the agent yet."""
        self._unsent: dict[int, str] = {}
        """Prompts queued for the runner that it has not started, by id."""
        self._leaving_transcript: asyncio.Future[str] | None = None
        """While a saved transcript is shown instead of the first session: the
        user's way out (ctrl+n "new" or f2 "pick")."""

    def exit(
        self,
        result: None = None,
        return_code: int = 0,
        message: RenderableType | None = None,
    ) -> None:
        """Exit once the agent is shut down (bounded by `SHUTDOWN_WAIT`)."""
        if self._exiting or not self.runner.running:
            super().exit(result, return_code, message)
            return
        self._exiting = True

        async def stop_then_exit() -> None:
            with anyio.move_on_after(SHUTDOWN_WAIT):
                await self.runner.stop()
            super(AcpTuiApp, self).exit(result, return_code, message)

        self.run_worker(stop_then_exit(), group="quit", exit_on_error=False)

    async def on_unmount(self) -> None:
        """Quitting: let the agent connection shut the agent down before the loop ends.

        Textual cancels workers with a bare task cancel when its message loop
        ends (and the test harness ends it without going through `exit()`); the
        connection runs in its own shielded task (see `run_agent`), so stop it
        with an anyio cancellation here and wait for the agent to be reaped,
        bounded.
        """
        task = self._connection_task
        if task is not None and not task.done():
            self.runner.request_stop()
            await asyncio.wait({task}, timeout=SHUTDOWN_WAIT)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Defaults for the custom theme variables, so stock themes work too."""
        return theme_variable_defaults(self.current_theme)

    @property
    def store(self) -> SessionStore | None:
        """The current session's store, once a session is open."""
        return self.runner.store

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        yield StartView(self.runner.stderr_tail, id="start-view")
        with Horizontal(id="main"):
            yield Conversation(id="conversation")
            yield PlanPanel(id="plan-panel")
            yield InspectorPanel(self.runner.traffic, id="inspector")
        yield PromptInput(
            id="prompt",
            history=PromptHistory.for_project(self.settings.cwd),
            drafts=self._drafts,
            cwd=self.settings.cwd,
        )
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        """Start the agent."""
        self.query_one(PlanPanel).display = False
        self.query_one(InspectorPanel).display = False
        self.query_one(PromptInput).focus()
        for error in self.theme_errors:
            self.notify(error, title="Theme not loaded", severity="warning")

    def on_ready(self) -> None:
        """The first frame is on screen: now start the agent.

        Starting it imports the client stack (the pydantic wire models take longer
        to load than Textual), which would otherwise hold up the first frame.
        """
        self._start_agent(self.first_request, "Starting")

    # --------------------------------------------------------------- the agent

    def _start_agent(self, request: SessionRequest, phase: str) -> None:
        self.query_one(StartView).starting(
            self.settings.name, self.settings.command.display(), phase
        )
        self._status.phase = "starting"
        self._status.refresh_status()
        self.run_agent(request)

    @work(
        exclusive=True,
        group="agent",
        exit_on_error=False,
        description="Agent connection",
    )
    async def run_agent(self, request: SessionRequest) -> None:
        """The long-lived agent worker (one connection).

        The connection runs in a task of its own, shielded from this worker:
        Textual cancels workers with a bare `Task.cancel()` (a restart replacing
        this exclusive worker, or the app's loop ending), which would cut the
        transport's shielded shutdown short and could leave the agent running.
        A cancelled worker instead asks the runner to stop (an anyio
        cancellation, which that shutdown honours) and waits for it, bounded.
        The lock keeps one connection at a time: a restart's new connection
        starts only once the old one is down.
        """
        async with self._connection_lock:
            task = asyncio.ensure_future(self.runner.run(request))
            self._connection_task = task
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                self.runner.request_stop()
                await asyncio.wait({task}, timeout=SHUTDOWN_WAIT)
                raise

    @property
    def _status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def _conversation(self) -> Conversation:
        return self.query_one(Conversation)

    def _refresh_status(self) -> None:
        status = self._status
        status.queued = self.runner.prompts.qsize()
        status.cancelling = self.runner.cancelling
        store = self.store
        status.waiting_for_user = store is not None and bool(
            store.pending_permissions()
        )
        status.refresh_status()

    def on_agent_connected(self, message: AgentConnected) -> None:
        """Show who we talk to."""
        status = self._status
        status.agent = message.agent
        status.protocol_version = message.protocol_version
        status.phase = "opening session"
        self._refresh_status()
        self.query_one(StartView).starting(
            message.agent.display_name,
            self.settings.command.display(),
            "Opening a session with",
        )
        for reason in message.fallbacks:
            log.info("protocol fallback: %s", reason)

    async def on_session_started(self, message: SessionStarted) -> None:
        """A session is open: render its store (all of it, after a replay)."""
        store = message.store
        if self._rendered_store is not None and self._rendered_store is not store:
            await self._conversation.reset()
        self._rendered_store = store
        self._turns_seen = store.state.turns_ended
        if self.tune_gc:
            tune_garbage_collector()  # the start-up heap is loaded by now
        if self._to_warm is None:
            self._to_warm = list(reversed(COMMON_LANGUAGES))
            self.set_timer(WARM_QUIET, self._warm_lexers, name="warm-lexers")
        notices = store.notices
        self._last_notice = notices[-1].notice_id if notices else None
        await self._conversation.apply_changes(store, ())
        if not self.is_running:
            return  # shut down while rendering
        self.query_one(PlanPanel).update_plans(store.plans())
        prompt = self.query_one(PromptInput)
        prompt.set_read_only(None)
        prompt.set_commands(with_local_commands(store.commands))
        if self.runner.prompt_caps is not None:
            prompt.set_capabilities(self.runner.prompt_caps)
        self.query_one(StartView).finished()
        for banner in self.query(CrashBanner):
            banner.restarted()
        status = self._status
        status.store = store
        status.phase = "connected"
        self._refresh_status()

    @property
    def lexers_to_warm(self) -> tuple[str, ...]:
        """The common languages whose lexers are not compiled ahead of use yet."""
        if self._to_warm is None:
            return COMMON_LANGUAGES
        return tuple(reversed(self._to_warm))

    def _warm_lexers(self) -> None:
        """Compile one common Pygments lexer while the session is quiet.

        The first code fence of a language would otherwise stall a frame while
        its lexer compiles (see `render.highlight`); one per step, and only after
        `WARM_QUIET` seconds without store changes, so no streaming frame waits.
        """
        if not self._to_warm:
            return
        bridge = self.runner.bridge
        quiet = bridge.quiet_for() if bridge is not None else WARM_QUIET
        if quiet < WARM_QUIET:
            self.set_timer(WARM_QUIET - quiet, self._warm_lexers, name="warm-lexers")
            return
        warm_lexer(self._to_warm.pop())
        self.set_timer(WARM_STEP, self._warm_lexers, name="warm-lexers")

    async def on_session_updated(self, message: SessionUpdated) -> None:
        """Apply one coalesced batch of store changes."""
        store = message.store
        if store is not self.store or store is not self._rendered_store:
            return  # a batch from a session we switched away from
        if not self.query(Conversation):
            return  # quitting: the screen's widgets are gone
        await self._conversation.apply_changes(store, message.changes)
        kinds = {change.kind for change in message.changes}
        if "plan" in kinds:
            self.query_one(PlanPanel).update_plans(store.plans())
        if "commands" in kinds:
            self.query_one(PromptInput).set_commands(
                with_local_commands(store.commands)
            )
        if "notice" in kinds:
            self._show_notices(store)
        if "state" in kinds:
            await self._report_turn_error(store)
        if kinds & {"message", "state"}:
            await self._settle_sent_prompts(message.changes)
        self._refresh_status()

    async def _report_turn_error(self, store: SessionStore) -> None:
        """A v2 turn that ended in `error` gets a banner with the agent's reason."""
        state = store.state
        if state.turns_ended <= self._turns_seen:
            return
        self._turns_seen = state.turns_ended
        if state.last_stop_reason != "error" and state.error is None:
            return
        error = state.error or {}
        reason = error.get("message") or "no reason given"
        code = error.get("code")
        detail = f" ({code})" if code is not None else ""
        await self._conversation.add_banner(f"The turn failed: {reason}{detail}")

    def _show_notices(self, store: SessionStore) -> None:
        notices = store.notices
        ids = [notice.notice_id for notice in notices]
        start = ids.index(self._last_notice) + 1 if self._last_notice in ids else 0
        fresh = notices[start:]
        if fresh:
            self._last_notice = fresh[-1].notice_id
        for notice in fresh[-3:]:
            # Agent text: escaped, and never parsed as markup.
            self.notify(
                printable(notice.description or notice.title),
                title=printable(notice.title),
                severity="error" if notice.severity == "error" else "warning",
                markup=False,
            )

    async def on_agent_failed(self, message: AgentFailed) -> None:
        """Show a banner; the conversation stays and the app keeps running."""
        if message.restartable:
            for pending in self._conversation.pending_prompts():
                if pending.state == "sending":
                    pending.mark("lost")
            self.query_one(StartView).finished()
            await self._conversation.mount(CrashBanner(message.text, message.details))
            if not self.is_running:
                return  # shut down while mounting: the widgets are gone
            self._conversation.scroll_end(animate=False)
            self._status.phase = "agent stopped (ctrl+r restarts)"
        else:
            await self._conversation.add_banner(message.text, message.details)
            if not self.is_running:
                return
        self._refresh_status()

    def on_agent_notice(self, message: AgentNotice) -> None:
        """A passing message (a failed switch, a refused option, a bad message).

        The text may quote the agent: escaped, and never parsed as markup.
        """
        self.notify(printable(message.text), severity="warning", markup=False)

    async def on_prompt_started(self, message: PromptStarted) -> None:
        """A prompt went out: shown as sending until the agent shows it back."""
        if self._unsent.pop(message.prompt_id, None) is not None:
            self._drafts.save_queued(list(self._unsent.values()))
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
        self._refresh_status()

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
            for change in changes
        )
        if acknowledged:  # shown back by the agent: no longer pending or lost
            for pending in self._conversation.pending_prompts():
                if pending.state != "queued":
                    await pending.remove()
        elif not self.runner.in_turn:
            await self._conversation.remove_queued(None)

    @on(PromptInput.Submitted)
    async def send_prompt(self, message: PromptInput.Submitted) -> None:
        """Queue the prompt; it is shown as queued unless it goes out at once."""
        if self._local_command(message.text):
            return
        prompt_id = next(self._prompt_ids)
        runner = self.runner
        busy = runner.in_turn or self.store is None or not runner.prompts.empty()
        runner.prompts.put_nowait((prompt_id, message.text))
        self._unsent[prompt_id] = message.text
        self._drafts.save_queued(list(self._unsent.values()))  # kept over a restart
        if busy:
            await self._conversation.add_queued(prompt_id, message.text)
        self._refresh_status()

    @on(CrashBanner.RestartPressed)
    def _restart_pressed(self) -> None:
        self.action_restart_agent()

    async def on_terminal_login_requested(
        self, message: TerminalLoginRequested
    ) -> None:
        """Run the agent's login command in the real terminal, then reconnect."""
        command = message.command
        env = {**os.environ, **command.env}
        cwd = command.cwd or self.settings.cwd
        try:
            with self.suspend():
                print(f"acp-tui: running {command.display()} to log in", flush=True)
                done = await anyio.run_process(
                    list(command.argv),
                    env=env,
                    cwd=cwd,
                    check=False,
                    stdin=None,
                    stdout=None,
                    stderr=None,
                )
                code = done.returncode
            output = ""
        except SuspendNotSupported:  # headless (tests) or no real terminal
            result = await anyio.run_process(
                list(command.argv), env=env, cwd=cwd, check=False
            )
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
        self._start_agent(message.request, "Reconnecting to")

    # ---------------------------------------------------------- RunnerUI port

    async def _ask(self, screen: Screen[T]) -> T | None:
        future: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

        def answered(result: T | None) -> None:
            if not future.done():
                future.set_result(result)

        self.push_screen(screen, callback=answered)
        try:
            return await future
        finally:
            if not future.done() and screen.is_active:
                screen.dismiss(None)

    async def choose_session(self) -> SessionRequest | None:
        """The session picker, for the runner's first session.

        A session only saved on this computer, with an agent that cannot reopen
        sessions, is shown read-only; the runner then waits until the user
        leaves it (ctrl+n starts a new session, f2 picks again).
        """
        while True:
            pick = await self._ask(self._picker())
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

    def _picker(self) -> SessionPickerScreen:
        runner = self.runner
        delete = runner.delete_session if runner.session_features.delete else None
        current = self.store.session_id if self.store is not None else None
        return SessionPickerScreen(
            runner.list_sessions,
            delete=delete,
            current_session_id=current,
            saved=functools.partial(list_transcripts, self.settings.name),
        )

    @staticmethod
    def _request_for(pick: SessionPick | None) -> SessionRequest | None:
        if pick is None:
            return None
        if pick.action == "new" or pick.session_id is None:
            return SessionRequest("new")
        cwd = Path(pick.cwd) if pick.cwd and Path(pick.cwd).is_absolute() else None
        # A session the agent did not list may be unknown to it: then start anew.
        saved_only = pick.transcript is not None
        return SessionRequest("resume", pick.session_id, cwd, fallback_new=saved_only)

    # ------------------------------------------------------ saved transcripts

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
        store = loaded.store
        if self._rendered_store is not None:
            await self._conversation.reset()
        self._rendered_store = store
        await self._conversation.apply_changes(store, ())
        self.query_one(PlanPanel).update_plans(store.plans())
        self.query_one(StartView).finished()
        self.query_one(PromptInput).set_read_only("Saved transcript (read only)")
        status = self._status
        status.store = store
        status.phase = "saved transcript (read only)"
        self._refresh_status()
        return True

    async def choose_auth(
        self, choices: Sequence[AuthChoice], message: str
    ) -> AuthChoice | None:
        """The login dialog: which of the agent's methods to use."""
        views = [
            AuthMethodView(c.method_id, c.name, c.description, c.kind == "terminal")
            for c in choices
        ]
        agent = self._status.agent
        name = agent.display_name if agent is not None else self.settings.name
        chosen = await self._ask(AuthScreen(views, agent_name=name, message=message))
        return next((c for c in choices if c.method_id == chosen), None)

    # ----------------------------------------------------------------- actions

    def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn ("cancelling…" until it ends)."""
        if self.runner.in_turn and not self.runner.cancelling:
            self.run_worker(self.runner.cancel(), group="cancel", exit_on_error=False)
            self.runner.cancelling = True
            self._refresh_status()

    def action_pick_session(self) -> None:
        """Open the session picker and switch to the chosen session."""
        if self._leave_transcript("pick"):
            return
        if not self.runner.connected or self.store is None:
            self.notify("the agent is not connected yet", severity="warning")
            return
        self.push_screen(self._picker(), callback=self._switch_to)

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
                self._show_transcript(pick), group="session", exit_on_error=False
            )
            return
        request = self._request_for(pick)
        if request is not None:
            self.run_worker(
                self.runner.switch_session(request),
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

    def action_switch_config(self) -> None:
        """Open the config switcher (mode, model, thought level, …)."""
        store = self.store
        if store is None or not store.config_options:
            self.notify("this agent offers no settings", severity="warning")
            return
        self.push_screen(
            ConfigScreen(store.config_options), callback=self._config_chosen
        )

    def _config_chosen(self, choice: ConfigChoice | None) -> None:
        if choice is not None:
            self.set_config(choice.config_id, choice.value)

    def set_config(self, config_id: str, value: str | bool) -> None:
        """Ask the agent to change one option."""
        self.run_worker(
            self.runner.set_config(config_id, value),
            group="config",
            exit_on_error=False,
        )

    def action_cycle_mode(self) -> None:
        """Switch to the next mode (one key)."""
        store = self.store
        step = cycle_value(store.config_options, "mode") if store is not None else None
        if step is None:
            self.notify("this agent has no modes", severity="warning")
            return
        self.set_config(*step)

    def action_toggle_plan(self) -> None:
        """Show or hide the plan side panel."""
        panel = self.query_one(PlanPanel)
        panel.display = not panel.display

    def action_toggle_inspector(self) -> None:
        """Show or hide the protocol inspector (the traffic with the agent)."""
        inspector = self.query_one(InspectorPanel)
        inspector.display = not inspector.display
        if inspector.display:
            inspector.rebuild()
            inspector.table.focus()
        else:
            self.query_one(PromptInput).focus()

    def action_restart_agent(self) -> None:
        """Restart the agent and resume the current session."""
        self._start_agent(self.runner.restart_request(), "Restarting")

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
        """Save the session on screen as Markdown in the working directory."""
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
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            self.notify(
                printable(f"cannot write {path}: {error}"),
                title="Export failed",
                severity="error",
                markup=False,
            )
            return
        self.notify(printable(str(path)), title="Session exported", markup=False)

    def action_key_help(self) -> None:
        """Show every key."""
        rows = [(entry.key or "", entry.title) for entry in ACTIONS]
        rows += [
            ("ctrl+p", "Command palette"),
            ("enter", "Send the prompt"),
            ("shift+enter / ctrl+j", "New line in the prompt"),
            ("up / down", "Prompt history"),
            ("/", "Slash commands"),
            ("@", "Attach a file"),
        ]
        self.push_screen(KeyHelpScreen(rows))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The command palette: our actions, config values, then Textual's own."""
        for entry in ACTIONS:
            yield SystemCommand(
                entry.title,
                entry.help,
                functools.partial(self.run_action, entry.action),
            )
        store = self.store
        if store is not None:
            for title, help_text, callback in config_entries(
                store.config_options, self.set_config
            ):
                yield SystemCommand(title, help_text, callback)
        yield from super().get_system_commands(screen)


def make_app(
    command: AgentCommand,
    name: str,
    *,
    cwd: Path,
    choice: ProtocolChoice = "auto",
    init_timeout: float = 60.0,
    request: SessionRequest | None = None,
    mcp_servers: dict[str, McpServerSettings] | None = None,
    theme: str | None = None,
    tune_gc: bool = False,
    record: Path | None = None,
) -> AcpTuiApp:
    """Build the app for an agent command (used by the CLI, tests and benches)."""
    return AcpTuiApp(
        AgentSettings(
            command=command,
            name=name,
            cwd=cwd,
            choice=choice,
            init_timeout=init_timeout,
            mcp_servers=dict(mcp_servers or {}),
            record=record,
        ),
        request=request,
        theme=theme,
        tune_gc=tune_gc,
    )
