"""The base of the parts a `SessionPane` is built from (its mixins).

`SessionPane` (`acp_tui.ui.session_pane`) mixes in `PaneDialogs` and
`PanePrompts`; each is a `PanePart`. At run time a part is a plain class (listed
before `Widget`, it must not hide the pane's CSS base chain: see
`acp_tui.ui.textual_private`); the type checker sees a `Widget` with what the
pane provides to all its parts, declared here once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

__all__ = ["PanePart"]

if TYPE_CHECKING:
    from acp_tui.store.store import SessionStore
    from acp_tui.ui.agent_runner import AgentRunner, AgentSettings
    from acp_tui.ui.widgets.conversation import Conversation
    from acp_tui.ui.widgets.status_bar import StatusBar

    _Widget = Widget
else:
    _Widget = object


class PanePart(_Widget):
    """A part of a `SessionPane`: what every part may use of the pane."""

    if TYPE_CHECKING:  # what the pane provides
        runner: AgentRunner
        settings: AgentSettings
        _rendered_store: SessionStore | None

        @property
        def store(self) -> SessionStore | None:
            """The session's store, once a session is open."""

        @property
        def _live(self) -> bool: ...
        @property
        def _status(self) -> StatusBar: ...
        @property
        def _conversation(self) -> Conversation: ...
        def _refresh_status(self) -> None: ...
        async def _updates_applied(self) -> None:
            """Wait until the store's batches noted so far are applied."""
