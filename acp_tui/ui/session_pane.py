"""One session in a tab: its agent, its conversation, prompt, panels and status.

`SessionPane` owns an `AgentRunner` (one agent process per tab, so a turn that
streams in one tab goes on while another tab starts its agent) and everything the
app used to compose for its single session. The runner and its store bridge post
their messages to the pane, and those messages do not bubble (see
`acp_tui.ui.messages`): a batch or a failure of one tab never reaches another.

The pane is also its runner's `RunnerUI`: the permission dialog, the session
picker and the login dialog are modal screens awaited through a future. A pane
that is not on screen holds its dialogs back (`ask_user`): it is marked as
waiting for the user, the app tells the user which tab asks, and the dialog opens
once that tab is shown, so a dialog never sits over the wrong session.

The pane reports what its tab label shows (`SessionPane.Changed`, which bubbles
to the app; the label itself is `acp_tui.ui.tab_label.TabLabel`) and that a
session opened (`SessionPane.Opened`).

The pane is built from parts that each do one thing:

* `acp_tui.ui.pane_agent.PaneAgent`: its agent (started, restarted, stopped, its
  failures, and where it stands: `Standing`);
* `acp_tui.ui.pane_dialogs.PaneDialogs`: its dialogs (the `RunnerUI` port,
  session picks, a saved transcript shown read-only, the terminal login);
* `acp_tui.ui.pane_prompts.PanePrompts`: prompts on their way to the agent and
  the local commands (`/export`);
* `acp_tui.ui.pane_cancel_one.PaneCancelOne`: cancelling one tool call or
  terminal alone (a card's `x`, the palette);
* `acp_tui.ui.screens.openers.FullScreenOpener`: the full screens its cards ask
  for;
* `acp_tui.ui.tab_label.TabLabel`: what its tab label shows.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widget import Widget

from acp_tui.client.agents import DEMO_AGENT
from acp_tui.client.errors import describe_rpc_error
from acp_tui.display_paths import display_path, user_home
from acp_tui.safe_text import printable
from acp_tui.storage.history import PromptHistory
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from acp_tui.ui.agent_runner import AgentRunner, AgentSettings, SessionRequest
from acp_tui.ui.commands import with_local_commands
from acp_tui.ui.deferred_work import later
from acp_tui.ui.messages import AgentNotice, SessionStarted
from acp_tui.ui.pane_agent import PaneAgent, Standing
from acp_tui.ui.pane_cancel_one import PaneCancelOne
from acp_tui.ui.pane_dialogs import PaneDialogs
from acp_tui.ui.pane_fork import PaneFork
from acp_tui.ui.pane_prompts import PanePrompts, QueueShown
from acp_tui.ui.pane_review import REVIEW_KEY, PaneReview
from acp_tui.ui.pane_search import PaneSearch
from acp_tui.ui.pane_steering import PaneSteering
from acp_tui.ui.pane_updates import PaneUpdates
from acp_tui.ui.screens.config import ConfigChoice
from acp_tui.ui.screens.openers import FullScreenOpener
from acp_tui.ui.tab_label import Activity, TabLabel
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.prompt_completion import parse_commands
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.prompt_queue import PromptQueue
from acp_tui.ui.widgets.start_view import StartView, Welcome
from acp_tui.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from acp_tui.storage.drafts import DraftStore
    from acp_tui.ui.widgets.inspector import InspectorPanel

__all__ = ["Activity", "SessionPane", "TabLabel"]


class SessionPane(
    FullScreenOpener,
    PaneAgent,
    PaneDialogs,
    PanePrompts,
    PaneSteering,
    PaneFork,
    PaneCancelOne,
    PaneReview,
    PaneSearch,
    PaneUpdates,
    Widget,
):
    """One session with its own agent: conversation, panels, prompt and status.

    Args:
        settings: The agent to run (each pane starts its own process).
        request: The first session to open (new, resume an id, or pick).
        history: The prompt history (shared by the app's tabs).
        drafts: Where the prompt's draft and queued prompts are kept (None: not
            kept; only the first tab keeps them, as two tabs writing one
            project's file would overwrite each other).
        id: The widget id.
    """

    DEFAULT_CSS = """
    SessionPane {
        layout: vertical;
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority, so it comes before the prompt's own Up (the history); the
        # action skips unless the prompt is empty and prompts are queued.
        Binding("up", "select_queued", "Queued prompts", show=False, priority=True),
        # Shown once a turn changed files (`check_action`); priority, as the
        # prompt (a TextArea) binds f6 to "select line".
        Binding(REVIEW_KEY, "review_changes", "Review changes", priority=True),
        # Priority: before the prompt's own ctrl+f (delete a word) and a card's.
        Binding("ctrl+f", "search", "Search", show=False, priority=True),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The review key only once a turn changed files (`PaneReview`)."""
        if action == "review_changes":
            return self.review_key_shown()
        return True

    class Changed(Message):
        """What the pane's tab label shows may have changed (bubbles to the app)."""

        def __init__(self, pane: SessionPane) -> None:
            super().__init__()
            self.pane = pane

    class Opened(Message):
        """A session opened in the pane (bubbles to the app)."""

        def __init__(self, pane: SessionPane) -> None:
            super().__init__()
            self.pane = pane

    class WantsAttention(Message):
        """A pane that is not on screen holds a dialog back (bubbles to the app)."""

        def __init__(self, pane: SessionPane, what: str) -> None:
            super().__init__()
            self.pane = pane
            self.what = what

    def __init__(
        self,
        settings: AgentSettings,
        *,
        request: SessionRequest | None = None,
        history: PromptHistory | None = None,
        drafts: DraftStore | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.settings = settings
        self.runner = AgentRunner(self, self, settings)
        self.request = request or SessionRequest()
        """The first session to open (read when the agent starts)."""
        self._history = history
        self._drafts = drafts
        """The prompt's draft and the prompts not taken by the agent yet."""
        self._status_bar: StatusBar | None = None
        """The status bar composed here (found once: a query walks every card)."""
        self._connection_lock = asyncio.Lock()
        self._connection_task: asyncio.Future[None] | None = None
        self.standing = Standing.STARTING
        """Where the agent stands (see `PaneAgent._stand`)."""
        self._prompt_ids = itertools.count(1)
        self._rendered_store: SessionStore | None = None
        self._last_notice: str | None = None
        self._turns_seen = 0
        self._unsent: dict[int, str] = {}
        """Prompts queued for the runner that it has not started, by id."""
        self._queued: dict[int, str] = {}
        """The unsent prompts shown in the queue above the prompt (all but one
        the runner takes at once), by id, oldest first."""
        self._queue_view: PromptQueue | None = None
        """The queue above the prompt (once composed)."""
        self._queue_shown: QueueShown = ((), "", False)
        """What it shows (what `PromptQueue` starts with: nothing)."""
        self._leaving_transcript: asyncio.Future[str] | None = None
        """While a saved transcript is shown instead of the first session: the
        user's way out (ctrl+n "new" or f2 "pick")."""
        self.shown = True
        """The pane is the tab on screen (the app keeps this up to date)."""
        self._shown_waiters: list[asyncio.Future[None]] = []
        self._permission_turn = asyncio.Lock()
        """Held by the permission dialog on screen: the next waits its turn."""
        self._asking = 0
        """Dialogs of this pane open or held back until it is shown."""
        self.closing = False
        """The tab is being closed: its agent is not started again."""
        self._label: TabLabel | None = None
        self._started = False
        self._turns_on_screen = 0
        """Turns ended in the session by the time the pane was last shown: more
        than that and the pane is hidden marks the tab "done" (unseen output)."""
        self._prompted = False
        """A prompt was sent from this pane (the first screen is gone for good)."""
        self._welcome_turns = 0
        """Turns the session had ended when the first screen was shown."""
        self._resuming: str | None = None
        """The session id the agent was last asked to resume."""

    # ------------------------------------------------------------- the basics

    @property
    def store(self) -> SessionStore | None:
        """The session's store, once a session is open."""
        return self.runner.store

    @property
    def _live(self) -> bool:
        """The pane's widgets are there (not closed, the app not quitting)."""
        return self.is_attached and self.app.is_running

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        yield StartView(
            self.runner.stderr_tail,
            messages=lambda: self.runner.traffic.total,
            id="start-view",
        )
        with Horizontal(id="main"):
            yield Conversation(id="conversation")
            yield PlanPanel(id="plan-panel")
            # The inspector is mounted when first opened (`action_toggle_inspector`).
        self._queue_view = PromptQueue(id="prompt-queue")
        yield self._queue_view
        yield PromptInput(
            id="prompt",
            history=self._history,
            drafts=self._drafts,
            cwd=self.settings.cwd,
        )
        self._status_bar = StatusBar(id="status")
        yield self._status_bar

    def on_mount(self) -> None:
        """Hide the side panels; the prompt has the focus."""
        self.query_one(PlanPanel).display = False
        # The agent's auth status (`auth/status`, `auth/status_update`).
        self.runner.auth_status.subscribe(self._account_changed)
        self.watch_turn_changes()
        if self.shown:
            self.query_one(PromptInput).focus()

    def start(self) -> None:
        """Start the agent (once; the app calls it when the first frame is up)."""
        if self._started:
            return
        self._started = True
        self._start_agent(self.request, "Starting")

    def set_shown(self, shown: bool) -> None:
        """The app shows or hides this pane's tab; held dialogs open once shown."""
        if not shown and not self.shown:
            return  # already hidden: keep what happened there since (a turn ended)
        self.shown = shown
        store = self.store
        self._turns_on_screen = store.state.turns_ended if store is not None else 0
        if not shown:
            return
        if self.is_attached:
            self._label_may_change()
        if self._live:  # the tab's own focus: the inspector if open, else the prompt
            inspector = self._inspector()
            if inspector is not None and inspector.display:
                inspector.table.focus()
            else:
                self.query_one(PromptInput).focus()
        waiters, self._shown_waiters = self._shown_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    # ------------------------------------------------------------- tab label

    @property
    def _status_if_any(self) -> StatusBar | None:
        """The status bar, if the pane has it.

        While the app closes, the pane can still be mounted with its status bar
        gone: a turn's last signal asks for the tab's label then.
        """
        return self._status_bar_here() if self.is_mounted else None

    def _status_bar_here(self) -> StatusBar | None:
        """The pane's status bar, without a query while it is the one composed.

        `query(StatusBar)` walked the whole pane, every mounted card of the
        conversation before the status bar: twice per batch (the tab label), a
        few milliseconds each in a long session (bench/long_session.py).
        """
        bar = self._status_bar
        if bar is None or bar.parent is not self:
            bar = self._status_bar = next(iter(self.query(StatusBar)), None)
        return bar

    @property
    def activity(self) -> Activity:
        """What the session is doing, for the tab label."""
        status = self._status_if_any
        if self._asking or (status is not None and status.waiting_for_user):
            return "waiting"
        if status is None:
            return "starting"
        if self.standing.stopped:
            return "stopped"
        if self.standing is Standing.TRANSCRIPT:
            return "transcript"
        if self.standing is not Standing.CONNECTED or self.store is None:
            return "starting"
        if self.runner.in_turn or status.busy or status.cancelling:
            return "running"
        if not self.shown and self.store.state.turns_ended > self._turns_on_screen:
            return "done"  # a turn ended while another tab was on screen
        return "idle"

    @property
    def label(self) -> TabLabel:
        """What the tab label shows."""
        status = self._status_if_any
        agent = status.agent if status is not None else None
        name = agent.display_name if agent is not None else self.settings.name
        store = self._rendered_store
        title = store.session_info.title if store is not None else None
        return TabLabel(name, title, self.activity)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Notify; from a tab that is not on screen, the title says which one.

        (A toast's title is plain text, so the agent's name and the session
        title in it are never parsed as markup.)
        """
        if not self.shown:
            where = self.label.name()
            title = f"{where}: {title}" if title else where
        super().notify(
            message, title=title, severity=severity, timeout=timeout, markup=markup
        )

    def _label_may_change(self) -> None:
        label = self.label
        if label != self._label:
            self._label = label
            self.post_message(self.Changed(self))

    def _wants_attention(self, what: str) -> None:
        """Tell the app this hidden tab holds a dialog back (`what` it asks)."""
        self.post_message(self.WantsAttention(self, what))

    # ------------------------------------------------------------- the session

    @property
    def _status(self) -> StatusBar:
        bar = self._status_bar_here()
        return bar if bar is not None else self.query_one(StatusBar)

    @property
    def _conversation(self) -> Conversation:
        return self.query_one(Conversation)

    def _account_changed(self, _status: object) -> None:
        self.call_later(self._account)

    def _account(self) -> None:
        if self._live:
            self._refresh_status()

    def _refresh_status(self) -> None:
        status = self._status
        status.auth_status = self.runner.auth_status.value
        status.queued = self.runner.prompts.qsize()
        self._show_queue()
        status.cancelling = self.runner.cancelling
        store = self.store
        status.waiting_for_user = store is not None and bool(
            store.pending_permissions()
        )
        status.refresh_status()
        self._label_may_change()

    async def on_session_started(self, message: SessionStarted) -> None:
        """A session is open: render its store (all of it, after a replay)."""
        await self._updates_applied()  # the batches before it first
        store = message.store
        if self._rendered_store is not None and self._rendered_store is not store:
            await self._conversation.reset()
        self._rendered_store = store
        self._turns_seen = store.state.turns_ended
        notices = store.notices
        self._last_notice = notices[-1].notice_id if notices else None
        await self._conversation.apply_changes(store, ())
        if not self._live:
            return  # shut down while rendering
        self.query_one(PlanPanel).update_plans(store.plans())
        prompt = self.query_one(PromptInput)
        prompt.set_read_only(None)
        prompt.set_commands(with_local_commands(store.commands))
        if self.runner.prompt_caps is not None:
            prompt.set_capabilities(self.runner.prompt_caps)
        if self._prompted:
            self.query_one(StartView).finished()
        else:
            self._welcome_turns = store.state.turns_ended
            self.query_one(StartView).welcome(self._welcome(store))
        for banner in self._conversation.query_children(CrashBanner):
            await banner.restarted()
        if not self._live:
            return
        self._status.store = store
        self._stand(Standing.CONNECTED)
        self._refresh_status()
        self.offer_forks()
        self.post_message(self.Opened(self))

    def _welcome(self, store: SessionStore) -> Welcome:
        """What the first screen says about the session just opened."""
        status = self._status
        agent = status.agent
        command = self.settings.command
        cwd = store.cwd or str(self.runner.session_cwd or self.settings.cwd)
        return Welcome(
            agent=agent.display_name if agent is not None else self.settings.name,
            version=agent.version if agent is not None else None,
            protocol_version=status.protocol_version or 0,
            directory=display_path(cwd, None, user_home()),
            session_id=store.session_id,
            resumed=store.session_id == self._resuming or bool(store.timeline()),
            title=store.session_info.title,
            demo=self.settings.name == DEMO_AGENT
            and command.argv[1:] == ("-m", "acp_tui.demo"),
            commands=tuple(c.name for c in parse_commands(store.commands)),
        )

    async def _apply_batch(
        self, store: SessionStore, changes: Sequence[Change]
    ) -> None:
        """Apply one coalesced batch of store changes (`PaneUpdates` calls it)."""
        await self._conversation.apply_changes(store, changes)
        self.search_changes(changes)
        await self._place_steer_notes()
        kinds = {change.kind for change in changes}
        if "plan" in kinds:
            self.query_one(PlanPanel).update_plans(store.plans())
        if "commands" in kinds:
            self.query_one(PromptInput).set_commands(
                with_local_commands(store.commands)
            )
            self.query_one(StartView).set_commands(
                [command.name for command in parse_commands(store.commands)]
            )
        if "notice" in kinds:
            self._show_notices(store)
        if "state" in kinds:
            state = store.state
            if state.is_busy or state.turns_ended > self._welcome_turns:
                # A turn runs or ran (a queued or scripted prompt; a fast turn
                # can start and end within one batch).
                self._end_welcome()
            await self._report_turn_error(store)
        if kinds & {"message", "state"}:
            await self._settle_sent_prompts(changes)
        if self._live:
            self._refresh_status()

    async def _report_turn_error(self, store: SessionStore) -> None:
        """A v2 turn that ended in `error` gets a banner with the agent's reason."""
        state = store.state
        if state.turns_ended <= self._turns_seen:
            return
        self._turns_seen = state.turns_ended
        if state.last_stop_reason != "error" and state.error is None:
            return
        reason = describe_rpc_error(state.error)
        await self._conversation.add_banner(f"The turn failed: {reason}")

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

    def on_agent_notice(self, message: AgentNotice) -> None:
        """A passing message (a failed switch, a refused option, a bad message).

        The text may quote the agent: escaped, and never parsed as markup.
        """
        self.notify(printable(message.text), severity="warning", markup=False)

    @on(Conversation.TypedAhead)
    def _typed_ahead(self, message: Conversation.TypedAhead) -> None:
        """A key typed while a card had focus: the prompt takes it (and focus)."""
        message.stop()
        prompt = self.query_one(PromptInput)
        prompt.focus()
        prompt.insert(message.character)

    # ----------------------------------------------------------------- actions

    def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn ("cancelling…" until it ends).

        Without a turn, Esc brings the focus back to the prompt.
        """
        if not self.runner.in_turn:
            self.query_one(PromptInput).focus()
        elif not self.runner.cancelling:
            self.run_worker(
                later(self.runner.cancel), group="cancel", exit_on_error=False
            )
            self.runner.cancelling = True
            self._refresh_status()

    def action_logout(self) -> None:
        """Log out of the agent (offered where it supports logging out)."""
        self.run_worker(later(self.runner.logout), group="auth", exit_on_error=False)

    def config_chosen(self, choice: ConfigChoice | None) -> None:
        """The config switcher's answer (None: closed without a choice)."""
        if choice is not None:
            self.set_config(choice.config_id, choice.value)

    def set_config(self, config_id: str, value: str | bool) -> None:
        """Ask the agent to change one option."""
        self.run_worker(
            later(partial(self.runner.set_config, config_id, value)),
            group="config",
            exit_on_error=False,
        )

    def action_toggle_plan(self) -> None:
        """Show or hide the plan side panel."""
        panel = self.query_one(PlanPanel)
        panel.display = not panel.display

    _inspector_panel: InspectorPanel | None = None
    """The protocol inspector, once it was opened (None before)."""

    def _inspector(self) -> InspectorPanel | None:
        panel = self._inspector_panel
        return panel if panel is not None and panel.is_attached else None

    async def action_toggle_inspector(self) -> None:
        """Show or hide the protocol inspector (the traffic with the agent).

        Mounted when first opened: an idle app never builds its table (nor
        imports Textual's DataTable; issue 28).
        """
        inspector = self._inspector()
        if inspector is None:
            from acp_tui.ui.widgets.inspector import InspectorPanel

            inspector = InspectorPanel(self.runner.traffic, id="inspector")
            self._inspector_panel = inspector
            await self.query_one("#main").mount(inspector)
        else:
            inspector.display = not inspector.display
        if inspector.display:
            inspector.rebuild()
            inspector.table.focus()
        else:
            self.query_one(PromptInput).focus()
