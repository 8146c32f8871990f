"""The Textual app: sessions in tabs, each with its own agent, plus the footer.

`make_app` builds it for the CLI and tests. Every tab is a `SessionPane`
(`acp_tui.ui.session_pane`): it runs its own agent in a long-lived worker
(`AgentRunner.run`), renders its session, and is its runner's `RunnerUI`. The app
holds the tabs (a `Tabs` bar, hidden while there is one tab, over the panes, of
which only the active one is displayed), the key bindings, which act on the tab
on screen, and the process-wide work: lexer warming, the garbage-collector policy
and a bounded shutdown of every agent.

Why not Textual's `TabbedContent`: it nests each pane three containers deeper
(`TabbedContent`, `ContentSwitcher`, `TabPane`), and every frame renders and
resolves styles through them. bench/ui.py measured frames about 5 ms longer on
average while streaming (16-22 ms against 24-28 ms), which pushed the largest gap
between frames over 100 ms; the panes here sit right under the screen, as the
single session did before tabs.

`app.runner`, `app.store` and the actions keep working as they did with a single
session: they are the tab on screen's. Opening, closing and switching tabs is the
`AppTabs` part (`acp_tui.ui.app_tabs`).
"""

from __future__ import annotations

import asyncio
import enum
import functools
import importlib
import itertools
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import anyio
from rich.console import RenderableType
from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.screen import ModalScreen, Screen
from textual.widgets import Tabs, TextArea

from acp_tui.client.options import cycle_value
from acp_tui.client.steering import can_steer
from acp_tui.protocol.transport import AgentCommand
from acp_tui.protocol.version import ProtocolChoice
from acp_tui.render.highlight import COMMON_LANGUAGES, prefetch_lexers, warm_lexer
from acp_tui.render.markdown import warm_parser
from acp_tui.safe_text import printable
from acp_tui.storage.drafts import DraftStore
from acp_tui.storage.history import PromptHistory
from acp_tui.store.store import SessionStore
from acp_tui.ui.agent_runner import AgentRunner, AgentSettings, SessionRequest
from acp_tui.ui.app_tabs import AppTabs
from acp_tui.ui.attention_hook import AppAttention, AttentionEvent, signals_for
from acp_tui.ui.callback_arity import count_callback_parameters_by_code
from acp_tui.ui.commands import ACTIONS, PlainSystemCommands, config_entries
from acp_tui.ui.compositor_map import keep_full_map_after_reflow
from acp_tui.ui.deferred_work import later
from acp_tui.ui.gc_policy import (
    collect_deferred,
    collect_if_quiet,
    defer_quiet_collections,
    deferred_collection_due,
    note_activity,
    trim_heap,
    tune_garbage_collector,
)
from acp_tui.ui.matched_rules import share_matched_rules
from acp_tui.ui.pane_agent import SHUTDOWN_WAIT
from acp_tui.ui.screens.config import ConfigScreen
from acp_tui.ui.screens.confirm import ConfirmQuitScreen
from acp_tui.ui.screens.help import KEYS_BEYOND_ACTIONS, KeyHelpScreen
from acp_tui.ui.session_commands import session_commands
from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.styles_cache_release import release_styles_caches
from acp_tui.ui.textual_private import pace_screen_updates, set_timer_once
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.context_meter import logout_entry
from acp_tui.ui.widgets.footer import Footer

if TYPE_CHECKING:
    from textual.timer import Timer

    from acp_tui.config import AttentionSettings, McpServerSettings

__all__ = ["SHUTDOWN_WAIT", "AcpTuiApp", "make_app"]

log = logging.getLogger(__name__)

DEFAULT_THEME = "acp-dark"


WARM_QUIET = 0.2
"""Seconds without store changes before a Pygments lexer is compiled ahead of use."""

WARM_STEP = 0.02
"""Seconds between two lexers compiled ahead of use (frames and keys in between)."""

WARM_INPUT_QUIET = 1.0
"""Seconds without input (keys, mouse) before a Pygments lexer is compiled ahead
of use: a compile takes 10-60 ms (the filename index 60-200 ms), and a key typed
meanwhile waits for it. Typing goes on while the store is quiet."""

TERMINAL_MODULE = "acp_tui.terminal.sandbox"
"""What the first terminal emulated imports (pyte with it: about 25 ms)."""


def warm_terminal() -> None:
    """Import the terminal emulator's modules ahead of the first terminal card.

    Paging up a resumed session, the first terminal card imported pyte inside
    a frame (27 ms of CPU in a gap of 51 ms, bench/scroll_trace.py).
    """
    importlib.import_module(TERMINAL_MODULE)


DEFERRED_COLLECT_CHECK = 0.05
"""Seconds between two checks for a deferred full collection
(`gc_policy.defer_quiet_collections`)."""

DEFER_AFTER_INPUT = 2.0
"""Seconds after the user's last input that full collections are deferred to
after a frame; then the check pauses (no wake-ups of an idle app) until the
next input."""

START_TRIM_DELAY = 1.0
"""Seconds after the first session opened that the app gives the memory its
start-up freed back to the system (`gc_policy.trim_heap`): its first frames
are painted by then."""

QUIET_COLLECT_SECONDS = 2.0
"""Seconds without input or store changes before what was frozen is collected
(`gc_policy.collect_if_quiet`; asked every half of it)."""


class Prefetch(enum.Enum):
    """Where the imports ahead of the warm-up steps are (`_prefetch_modules`)."""

    NOT_STARTED = enum.auto()
    RUNNING = enum.auto()
    DONE = enum.auto()


class AcpTuiApp(AppTabs, AppAttention, App[None]):
    """The acp-tui terminal client: one or more sessions, each in a tab.

    Every tab is a `SessionPane` with its own agent process and session; with a
    single tab the tab bar is hidden and the app looks as it always did. The
    key bindings live here and act on the tab on screen.

    Args:
        settings: The agent to run (every tab runs its own process of it).
        request: The first tab's first session (new, resume an id, or pick).
        theme: The theme to start with.
        tune_gc: Apply `tune_garbage_collector` once a session is open.
        attention: Notifications, bell and progress (`AppAttention`); None:
            the defaults.
    """

    CSS_PATH = "app.tcss"
    TITLE = "acp-tui"
    # Textual's own provider parses titles as markup; config entries are agent text.
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {
        PlainSystemCommands
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_turn", "Cancel", show=False),
        # Not Textual's "press ctrl+q to quit" hint: as Esc (the prompt has its own).
        Binding("ctrl+c", "cancel_turn", "Cancel", show=False),
        Binding("ctrl+q", "quit", "Quit"),
        Binding("f1", "key_help", "Keys"),
        Binding("f2", "pick_session", "Sessions"),
        Binding("f3", "switch_config", "Settings"),
        Binding("f4", "toggle_plan", "Plan"),
        Binding("f5", "toggle_inspector", "Inspector", show=False),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True),
        Binding("ctrl+n", "new_session", "New", show=False),
        Binding("ctrl+r", "restart_agent", "Restart", show=False),
        # Tabs: keys the prompt's TextArea does not use (ctrl+w deletes a word
        # there) and terminals pass through (ctrl+pageup/pagedown and ctrl+tab
        # are often taken or never sent). Priority, so they work wherever the
        # focus is.
        Binding("ctrl+t", "new_tab", "New tab", show=False, priority=True),
        Binding("alt+w", "close_tab", "Close tab", show=False, priority=True),
        Binding("alt+right", "next_tab", "Next tab", show=False, priority=True),
        Binding("alt+left", "previous_tab", "Previous tab", show=False, priority=True),
        # alt+digit reaches the app only with the kitty keyboard protocol (xterm and
        # tmux send ESC digit, read as a macOS option character such as ™), so the
        # tabs can also be stepped through with keys tmux passes on.
        Binding("ctrl+pagedown", "next_tab", "Next tab", show=False, priority=True),
        Binding(
            "ctrl+pageup", "previous_tab", "Previous tab", show=False, priority=True
        ),
        *(
            Binding(f"alt+{n}", f"jump_tab({n})", f"Tab {n}", show=False, priority=True)
            for n in range(1, 10)
        ),
    ]

    def __init__(
        self,
        settings: AgentSettings,
        *,
        request: SessionRequest | None = None,
        theme: str | None = None,
        tune_gc: bool = False,
        attention: AttentionSettings | None = None,
    ) -> None:
        release_styles_caches()  # (removed widgets' lines: styles_cache_release)
        keep_full_map_after_reflow()  # (one arrangement a layout: compositor_map)
        share_matched_rules()  # (a node's CSS matched once per place: matched_rules)
        count_callback_parameters_by_code()  # (callback_arity)
        pace_screen_updates()  # (a frame a period after the last: textual_private)
        super().__init__()
        self.attention = signals_for(attention)
        self._running_panes = set()
        self.tune_gc = tune_gc
        """Apply the streaming garbage-collector policy once a session is open
        (process-wide, so only for a real run: the CLI and the bench)."""
        self._exiting = False
        self._to_warm: list[str] | None = None
        """Languages whose lexers `_warm_lexers` still has to compile (None: not
        started)."""
        self._warming = False
        self._prefetch = Prefetch.NOT_STARTED
        """The lexers' and the terminal emulator's imports (`_prefetch_modules`)."""
        self._terminal_warm = False
        self._gc_after: Timer | None = None
        """The check for a deferred full collection (`_collect_after_frame`)."""
        self._gc_after_paused = False
        """`warm_terminal` ran (`_warm_lexers`, its last step)."""
        self._last_input = time.monotonic()
        """When the user last pressed a key or used the mouse (`on_event`)."""
        """`_warm_lexers` is scheduled (the session was used)."""
        self.settings = settings
        self.banner: str | None = None
        """Plain text shown as the app starts (see `make_app`)."""
        self.theme_errors = register_themes(self)
        self.theme = theme if theme in self.available_themes else DEFAULT_THEME
        self._history = PromptHistory.for_project(settings.cwd)
        """Shared by every tab: a prompt sent in one is recalled in all."""
        self._tab_ids = itertools.count(1)
        first = self._new_pane(request, drafts=DraftStore.for_project(settings.cwd))
        self._panes: list[SessionPane] = [first]
        """The tabs' sessions, in tab order."""
        self._active = first

    def _new_pane(
        self, request: SessionRequest | None, drafts: DraftStore | None = None
    ) -> SessionPane:
        return SessionPane(
            self.settings,
            request=request,
            history=self._history,
            drafts=drafts,
            id=f"session-{next(self._tab_ids)}",
        )

    # --------------------------------------------------------- the active tab

    @property
    def panes(self) -> tuple[SessionPane, ...]:
        """Every tab's session, in tab order."""
        return tuple(self._panes)

    @property
    def active_pane(self) -> SessionPane:
        """The session of the tab on screen."""
        return self._active

    @property
    def runner(self) -> AgentRunner:
        """The agent runner of the tab on screen."""
        return self._active.runner

    @property
    def store(self) -> SessionStore | None:
        """The store of the tab on screen's session, once a session is open."""
        return self._active.store

    @property
    def first_request(self) -> SessionRequest:
        """The first tab's first session (set it before the app runs)."""
        return self._panes[0].request

    @first_request.setter
    def first_request(self, request: SessionRequest) -> None:
        self._panes[0].request = request

    # -------------------------------------------------------------- lifecycle

    def exit(
        self,
        result: None = None,
        return_code: int = 0,
        message: RenderableType | None = None,
    ) -> None:
        """Exit once every tab's agent is shut down (bounded by `SHUTDOWN_WAIT`)."""
        running = [pane for pane in self._panes if pane.runner.running]
        if self._exiting or not running:
            super().exit(result, return_code, message)
            return
        self._exiting = True

        async def stop_then_exit() -> None:
            for pane in self._panes:
                pane.closing = True  # no restart while quitting
            with anyio.move_on_after(SHUTDOWN_WAIT):
                async with anyio.create_task_group() as group:
                    for pane in running:
                        group.start_soon(pane.stop_agent)
            super(AcpTuiApp, self).exit(result, return_code, message)

        self.run_worker(later(stop_then_exit), group="quit", exit_on_error=False)

    async def action_quit(self) -> None:
        """Quit; with unsent drafts or a turn running in any tab, ask first.

        ctrl+q on the question (so ctrl+q twice) quits without asking.
        """
        reasons = [] if self._exiting else self._unsent_work()
        if not reasons:
            self.exit()
            return

        def answered(quit_now: bool | None) -> None:
            if quit_now:
                self.exit()

        self.push_screen(ConfirmQuitScreen(reasons), callback=answered)

    def _unsent_work(self) -> list[str]:
        """What quitting would lose or stop, one line per tab that has any."""
        reasons: list[str] = []
        many = len(self._panes) > 1
        for number, pane in enumerate(self._panes, 1):
            work = pane.unsent_work()
            if not work:
                continue
            line = ", ".join(work)
            if many:
                line = f"{pane.label.name(number)}: {line}"
            reasons.append(line)
        return reasons

    async def on_unmount(self) -> None:
        """Quitting: let every tab's connection shut its agent down first.

        Textual cancels workers with a bare task cancel when its message loop
        ends (and the test harness ends it without going through `exit()`); each
        connection runs in its own shielded task (see `SessionPane.run_agent`),
        so stop them with an anyio cancellation here and wait for the agents to
        be reaped, in parallel, bounded.
        """
        self.stop_signals()
        tasks = set()
        for pane in self._panes:
            pane.closing = True
            task = pane.connection_task
            if task is not None and not task.done():
                pane.runner.request_stop()
                tasks.add(task)
        if tasks:
            await asyncio.wait(tasks, timeout=SHUTDOWN_WAIT)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Defaults for the custom theme variables, so stock themes work too."""
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        """Build the child widgets: the tab bar, one pane per tab, the footer."""
        yield Tabs(*(self._tab_for(p) for p in self._panes), id="tab-bar")
        for pane in self._panes:
            pane.display = pane is self._active
            yield pane
        yield Footer()

    def on_mount(self) -> None:
        """Show theme problems; the tab bar is for keys and clicks only."""
        # Not in the focus chain: tab and shift+tab stay with the prompt.
        self._tabs.can_focus = False
        if self.banner:
            self.notify(self.banner, title="acp-tui", timeout=60, markup=False)
        self._show_tab_bar()
        for error in self.theme_errors:
            # It names the file (and may quote it): text, never markup.
            self.notify(
                printable(error),
                title="Theme not loaded",
                severity="warning",
                markup=False,
            )

    def on_ready(self) -> None:
        """The first frame is on screen: now start the first tab's agent.

        Starting it imports the client stack (the pydantic wire models take longer
        to load than Textual), which would otherwise hold up the first frame.
        """
        self._panes[0].start()

    async def on_event(self, event: events.Event) -> None:
        """Note the user's input for the garbage-collector policy, then as usual."""
        if isinstance(event, events.InputEvent):
            note_activity()  # no collection's pause while the user acts
            self._last_input = time.monotonic()  # nor a lexer's compile
            self._defer_collections()  # full ones after the frame
        await super().on_event(event)

    # ------------------------------------------------ process-wide start-up work

    @on(SessionPane.Opened)
    def _pane_opened(self, message: SessionPane.Opened) -> None:
        """A session is open: the process-wide start-up work, once."""
        message.stop()
        if self.tune_gc and self._gc_after is None:  # once: not every tab, restart
            tune_garbage_collector()  # the start-up heap is loaded by now
            # What is dropped without store changes (cards unmounted as the
            # user scrolls a long session) is collected once all is quiet.
            self.set_interval(
                QUIET_COLLECT_SECONDS / 2,
                lambda: collect_if_quiet(QUIET_COLLECT_SECONDS),
                name="quiet-collect",
            )
            # Full collections while nothing streams and the user acts run
            # after a frame, not in the frame whose allocations brought them on.
            defer_quiet_collections()
            self._gc_after = self.set_interval(
                DEFERRED_COLLECT_CHECK, self._collect_after_frame, name="gc-after"
            )
            set_timer_once(self, START_TRIM_DELAY, trim_heap, name="trim-heap")
        if self._to_warm is None:
            self._to_warm = list(reversed(COMMON_LANGUAGES))
            # The most common fence's lexer at once (50-80 ms here), before any
            # turn: with the quiet wait alone, a prompt answered within about
            # half a second of the session opening (bench/ui.py's, or a replay's
            # first fence) compiled it inside a frame.
            warm_lexer(self._to_warm.pop())
            warm_parser()  # the markdown parser's first parse too (about 20 ms)
            # The rest wait for the session to be used (`_session_used`): an app
            # left idle never holds their modules (about 7 MB; issue 28).
        store = message.pane.store
        if store is not None and store.timeline():
            # A session opened with its history (resumed, loaded) is there to
            # be read: paged through at once, its first diff card looked up its
            # lexer by file name and compiled it inside a frame (25-65 ms).
            self._session_used()

    def _collect_after_frame(self) -> None:
        """A full collection due runs once the screen is painted and quiet.

        `DEFER_AFTER_INPUT` seconds after the user's last input the check
        pauses and Python collects as without it, until the next input
        (`_defer_collections`).
        """
        if time.monotonic() - self._last_input > DEFER_AFTER_INPUT:
            defer_quiet_collections(False)
            if self._gc_after is not None:
                self._gc_after.pause()
            self._gc_after_paused = True
            return
        if deferred_collection_due():
            self.call_after_refresh(collect_deferred)

    def _defer_collections(self) -> None:
        """The user acts: full collections are the app's again, after a frame."""
        if self._gc_after_paused and self._gc_after is not None:
            self._gc_after_paused = False
            defer_quiet_collections()
            self._gc_after.resume()

    @on(TextArea.Changed)
    def _session_used(self) -> None:
        """The session is used: compile the common lexers from now on.

        Text typed into a prompt, or a turn started. They are compiled while the
        session is quiet (`_warm_lexers`).
        """
        if self._to_warm is not None and not self._warming:
            self._warming = True
            set_timer_once(self, WARM_QUIET, self._warm_lexers, name="warm-lexers")

    def on_attention_event(self, message: AttentionEvent) -> None:
        """A turn that starts uses the session.

        Textual calls `AppAttention`'s handler (the signals) after this one.
        """
        if message.kind == "started":
            self._session_used()

    # ------------------------------------------------------------ lexer warming

    @property
    def lexers_to_warm(self) -> tuple[str, ...]:
        """The common languages whose lexers are not compiled ahead of use yet."""
        if self._to_warm is None:
            return COMMON_LANGUAGES
        return tuple(reversed(self._to_warm))

    def _warm_lexers(self) -> None:
        """Compile one common Pygments lexer while every session is quiet.

        The last step imports the terminal emulator (`warm_terminal`): after
        the lexers, so their order and timing stay as they were.
        The first code fence of a language would otherwise stall a frame while
        its lexer compiles (see `render.highlight`); one per step, and only after
        `WARM_QUIET` seconds without store changes in any tab and
        `WARM_INPUT_QUIET` seconds without input, and never while a
        turn runs or a prompt waits (a turn may pause longer), so no streaming
        frame waits. The first such step only starts the steps' imports in a
        worker thread (`_prefetch_modules`), so no step waits on the disk.
        """
        if not self._to_warm and self._terminal_warm:
            return
        bridges = [p.runner.bridge for p in self._panes if p.runner.bridge is not None]
        quiet = min((b.quiet_for() for b in bridges), default=WARM_QUIET)
        if any(pane.runner.busy for pane in self._panes):
            quiet = 0.0
        if quiet < WARM_QUIET:
            set_timer_once(
                self, WARM_QUIET - quiet, self._warm_lexers, name="warm-lexers"
            )
            return
        typed = time.monotonic() - self._last_input
        if typed < WARM_INPUT_QUIET:
            set_timer_once(
                self, WARM_INPUT_QUIET - typed, self._warm_lexers, name="warm-lexers"
            )
            return
        if self._prefetch is not Prefetch.DONE:
            if self._prefetch is Prefetch.NOT_STARTED:
                self._prefetch = Prefetch.RUNNING
                self.run_worker(
                    later(self._prefetch_modules), name="prefetch-lexers", group="warm"
                )
            return  # (`_prefetch_modules` steps on once the imports are done)
        if self._to_warm:
            warm_lexer(self._to_warm.pop())
        else:
            self._terminal_warm = True
            warm_terminal()
        set_timer_once(self, WARM_STEP, self._warm_lexers, name="warm-lexers")

    async def _prefetch_modules(self) -> None:
        """Import what the warm-up steps would import, in a worker thread.

        The steps then compile on the event loop without reading a file: an
        import reads its `.pyc` files, which the kernel may have dropped from
        memory since they were last read (`render.highlight`).
        """
        try:
            await asyncio.to_thread(
                prefetch_lexers, list(self.lexers_to_warm), (TERMINAL_MODULE,)
            )
        except Exception:  # the steps import what is left, as without it
            log.exception("importing the lexers ahead of their compiles failed")
        self._prefetch = Prefetch.DONE
        set_timer_once(self, WARM_STEP, self._warm_lexers, name="warm-lexers")

    # ---------------------------------------- actions (on the tab on screen)

    def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn ("cancelling…" until it ends)."""
        self._active.action_cancel_turn()

    def action_pick_session(self) -> None:
        """Open the session picker and switch to the chosen session."""
        self._active.action_pick_session()

    def action_new_session(self) -> None:
        """Start a new session with the same agent (in this tab)."""
        self._active.action_new_session()

    def action_switch_config(self) -> None:
        """Open the config switcher (mode, model, thought level, …)."""
        pane = self._active
        store = pane.store
        if store is None or not store.settings:
            self.notify("this agent offers no settings", severity="warning")
            return
        self.push_screen(ConfigScreen(store.settings), callback=pane.config_chosen)

    def set_config(self, config_id: str, value: str | bool) -> None:
        """Ask the agent of the tab on screen to change one option."""
        self._active.set_config(config_id, value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """shift+tab changes the mode only over the conversation.

        In a dialog it moves focus back a field (the binding is a priority one).
        """
        if action == "cycle_mode" and isinstance(self.screen, ModalScreen):
            return None  # shown dimmed in the footer, the key goes to the dialog
        return True

    def action_cycle_mode(self) -> None:
        """Switch to the next mode (one key)."""
        store = self.store
        step = cycle_value(store.settings, "mode") if store is not None else None
        if step is None:
            self.notify("this agent has no modes", severity="warning")
            return
        self.set_config(*step)

    def action_toggle_plan(self) -> None:
        """Show or hide the plan side panel."""
        self._active.action_toggle_plan()

    async def action_toggle_inspector(self) -> None:
        """Show or hide the protocol inspector (the traffic with the agent)."""
        await self._active.action_toggle_inspector()

    def action_restart_agent(self) -> None:
        """Restart the agent and resume the current session."""
        self._active.action_restart_agent()

    def action_export_session(self) -> None:
        """Save the session on screen as Markdown in the working directory."""
        self._active.action_export_session()

    async def action_search_conversation(self) -> None:
        """Open the active session's search bar (ctrl+f)."""
        await self._active.action_search()

    def action_review_changes(self) -> None:
        """Review what the last turn changed (revert, keep, comment)."""
        self._active.action_review_changes()

    def action_key_help(self) -> None:
        """Show every key."""
        rows = [(entry.key or "", entry.title) for entry in ACTIONS]
        rows += KEYS_BEYOND_ACTIONS  # tabs, scrolling, focus, the prompt, cards
        self.push_screen(KeyHelpScreen(rows))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The command palette: our actions, config values, then Textual's own."""
        for entry in ACTIONS:
            yield SystemCommand(
                entry.title,
                entry.help,
                functools.partial(self.run_action, entry.action),
            )
        pane = self._active
        if pane.queued_prompts and can_steer(pane.runner):
            yield SystemCommand(
                "Send queued prompt now",
                "Send the queued prompt (the one selected, else the oldest) into "
                "the running turn",
                pane.action_send_now,
            )
        if self._active.runner.can_logout:
            title, help_text = logout_entry(self._active.runner.auth_status.value)
            yield SystemCommand(title, help_text, self._active.action_logout)
        for title, help_text, run in session_commands(self._active):
            yield SystemCommand(title, help_text, run)
        for title, help_text, callback in self._active.cancel_entries():
            yield SystemCommand(title, help_text, callback)
        store = self.store
        if store is not None:
            for title, help_text, callback in config_entries(
                store.settings, self.set_config
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
    additional_directories: Sequence[Path] = (),
    allow_git_writes: bool = False,
    banner: str | None = None,
    attention: AttentionSettings | None = None,
    review: bool = False,
) -> AcpTuiApp:
    """Build the app for an agent command (used by the CLI, tests and benches).

    `banner`: plain text shown as the app starts (`acp-tui replay`: what it
    plays and what to type).
    """
    app = AcpTuiApp(
        AgentSettings(
            command=command,
            name=name,
            cwd=cwd,
            choice=choice,
            init_timeout=init_timeout,
            mcp_servers=dict(mcp_servers or {}),
            record=record,
            additional_directories=tuple(additional_directories),
            allow_git_writes=allow_git_writes,
            review_changes=review,
        ),
        request=request,
        theme=theme,
        tune_gc=tune_gc,
        attention=attention,
    )
    app.banner = banner
    return app
