"""The Textual adapter of a session tab's client runner (`client.runner`).

`AgentRunner` is a `ClientRunner` whose reports become messages posted to its tab
(`_TabPort`), so they never reach another tab, and whose questions (a session to
pick, a login method) and permission dialogs go to the tab's `RunnerUI`. All the
connection logic (start, connect, open or resume, login, prompts, cancel, the
session actions) is the runner's; this module only adds what is the app's: the
`StoreBridge` that feeds the current session's changes to the widgets (and
finishes its transcript when it is left), the cap on protocol-problem
notifications, and the permission prompter that shows dialogs.

One `AgentRunner.run()` call is one connection; a restart is another `run()` with
a request to resume the same session. Every failure becomes an `AgentFailed`
message with a plain explanation and the agent's stderr tail; nothing here raises
to the app. The runner never touches a widget.

The client stack is imported by the runner inside the methods that use it, so
the app's first frame does not wait for the wire models (see `client.runner`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol

from textual.message_pump import MessagePump

from acp_tui.client.ports import ElicitationPrompter, RememberingPrompter
from acp_tui.client.runner import (
    AgentSettings,
    AuthCancelled,
    ClientRunner,
    LoginInTerminal,
    RunFailure,
    SessionRequest,
    UserQuestions,
)
from acp_tui.client.traffic import TrafficLog
from acp_tui.display_paths import PathDisplay
from acp_tui.protocol.transport import AgentCommand
from acp_tui.storage import paths
from acp_tui.storage.transcripts import close_transcript, transcript_store_factory
from acp_tui.store.model import ToolCall
from acp_tui.store.store import SessionStore
from acp_tui.ui.bridge import DialogHost, ModalPermissionPrompter, StoreBridge
from acp_tui.ui.messages import (
    AgentConnected,
    AgentFailed,
    AgentNotice,
    AgentReconnecting,
    PromptEnded,
    PromptStarted,
    SessionStarted,
    TerminalLoginRequested,
)
from acp_tui.ui.widgets.path_lines import session_paths

if TYPE_CHECKING:
    from acp_tui.client.auth import AuthChoice
    from acp_tui.client.connection import ClientFeatures, Connection
    from acp_tui.client.reconnect import Reconnecting
    from acp_tui.protocol.dispatcher import Diagnostic

__all__ = [
    "AgentRunner",
    "AgentSettings",
    "AuthCancelled",
    "LoginInTerminal",
    "RunnerUI",
    "SessionRequest",
]

DIAGNOSTIC_NOTICES: Final = 3
"""Protocol problems (unreadable lines, malformed updates...) shown as
notifications per connection; the ones after are only logged, so a flood of bad
lines cannot bury the screen in notifications."""


class RunnerUI(DialogHost, UserQuestions, ElicitationPrompter, Protocol):
    """What the runner asks of the user interface (its session's tab).

    `ask_user` shows the permission dialogs; `elicit` the agent's elicitations
    (a form, or consent to open a URL); `choose_session` and `choose_auth` ask
    the user to pick a session or a login method.
    """


class _TabPort:
    """The runner's reports, posted to its tab as messages (`RunnerPort`).

    Holds the current session's `StoreBridge`: a newly opened session replaces
    it, and the one left is closed and its transcript finished.
    """

    def __init__(self, target: MessagePump) -> None:
        self.target = target
        self.bridge: StoreBridge | None = None
        self.diagnostics = 0
        """Protocol problems reported on this connection so far."""

    def drop_bridge(self) -> None:
        """Stop following the current store, and finish its transcript."""
        if self.bridge is not None:
            close_transcript(self.bridge.store)
            self.bridge.close()
        self.bridge = None

    def agent_connected(self, connection: Connection) -> None:
        self.target.post_message(
            AgentConnected(
                connection.agent,
                connection.protocol_version,
                tuple(connection.fallbacks),
            )
        )

    def session_opened(self, store: SessionStore) -> None:
        self.drop_bridge()
        self.bridge = StoreBridge(store, self.target)
        self.target.post_message(SessionStarted(store))

    def notice(self, text: str) -> None:
        self.target.post_message(AgentNotice(text))

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """Show the first few protocol problems of a connection (all are logged)."""
        self.diagnostics += 1
        if self.diagnostics <= DIAGNOSTIC_NOTICES:
            self.notice(f"the agent sent a bad message: {diagnostic}")
        elif self.diagnostics == DIAGNOSTIC_NOTICES + 1:
            self.notice(
                "the agent keeps sending bad messages; further ones are only "
                f"logged ({paths.log_file()})"
            )

    def prompt_started(self, prompt_id: int, text: str) -> None:
        self.target.post_message(PromptStarted(prompt_id, text))

    def prompt_ended(self, prompt_id: int) -> None:
        self.target.post_message(PromptEnded(prompt_id))

    def prompt_failed(self, prompt_id: int, message: str) -> None:
        self.target.post_message(AgentFailed(message, prompt_id=prompt_id))

    def run_failed(self, failure: RunFailure) -> None:
        self.target.post_message(
            AgentFailed(
                failure.message,
                failure.stderr_tail,
                restartable=failure.restartable,
                retry=failure.retry,
            )
        )

    def reconnecting(self, attempt: Reconnecting) -> None:
        self.target.post_message(AgentReconnecting(attempt))

    def login_in_terminal(
        self, command: AgentCommand, choice: AuthChoice, then: SessionRequest
    ) -> None:
        self.target.post_message(TerminalLoginRequested(command, choice.name, then))


class AgentRunner(ClientRunner):
    """A tab's `ClientRunner`: the client, the current session and the prompt queue.

    Args:
        target: Receives the messages (the session's tab, so they never reach
            another tab).
        ui: Shows permission dialogs, asks the user to pick sessions and login
            methods.
        settings: The agent to run.
    """

    prepare_models = True

    def __init__(
        self, target: MessagePump, ui: RunnerUI, settings: AgentSettings
    ) -> None:
        self.target = target
        self.ui = ui
        self.traffic = TrafficLog()
        """The last JSON-RPC lines of every connection, for the inspector."""
        self._port = _TabPort(target)
        super().__init__(
            settings,
            self._port,
            prompter=RememberingPrompter(
                ModalPermissionPrompter(ui, self._tool_call, self._paths),
                self._tool_call,
            ),
            elicitor=ui,
            questions=ui,
            # Every session's transcript is saved as it grows.
            store_factory=transcript_store_factory(settings.name),
            wrappers=(self.traffic.wrap,),
        )

    def client_features(self) -> ClientFeatures:
        """Every client method, the terminal login too (imported when connecting)."""
        from acp_tui.client.connection import ClientFeatures

        return ClientFeatures(
            read_text_file=True,
            write_text_file=True,
            terminal=True,
            terminal_auth=True,
            git_writes=self.settings.allow_git_writes,
            elicitation_form=True,
            elicitation_url=True,
        )

    @property
    def bridge(self) -> StoreBridge | None:
        """Feeds the current session's changes to the tab."""
        return self._port.bridge

    def _tool_call(self, tool_call_id: str) -> ToolCall | None:
        return self.store.tool_call(tool_call_id) if self.store is not None else None

    def _paths(self) -> PathDisplay:
        return session_paths(self.store)

    async def run(self, request: SessionRequest) -> None:
        """Run one connection until it fails, is stopped or is cancelled."""
        self._port.diagnostics = 0
        try:
            await self.serve(request)
        finally:
            self._port.drop_bridge()
