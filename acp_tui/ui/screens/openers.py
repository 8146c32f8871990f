"""Where a card's "open full screen" request becomes a pushed screen.

Widgets never import screens (an import-linter contract): a card segment posts
a message (`DiffSegment.OpenFull`, `TerminalSegment.OpenFull`, a cut message's
`MessageView.OpenPager`) and the widget that hosts the conversation mixes in
`FullScreenOpener`, which pushes the screen (`DiffScreen`, `TerminalScreen`,
`MessagePager`, a subagent lane's `SubagentScreen`). `SessionPane` is the host in
the app;
a test app hosting cards mixes it in the same way.

Invariant: each request is handled by the nearest host (the message stops
there) and pushes exactly one screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.ui.screens.diff import DiffScreen
from acp_tui.ui.screens.pager import MessagePager
from acp_tui.ui.screens.terminal import TerminalScreen
from acp_tui.ui.widgets.diff_view import DiffSegment
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.subagent_lane import SubagentLane
from acp_tui.ui.widgets.terminal_view import TerminalSegment

__all__ = ["FullScreenOpener"]

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    _Host = MessagePump
else:
    _Host = object


class FullScreenOpener(_Host):
    """Pushes the full screens its cards ask for.

    A mixin for a `MessagePump` (an app or a widget), listed before the Textual
    base class.
    """

    def on_diff_segment_open_full(self, event: DiffSegment.OpenFull) -> None:
        """Push the whole diff full screen."""
        event.stop()
        self.app.push_screen(DiffScreen(event.item, event.paths))

    def on_terminal_segment_open_full(self, event: TerminalSegment.OpenFull) -> None:
        """Push the terminal's full-screen view."""
        event.stop()
        self.app.push_screen(TerminalScreen(event.store, event.terminal_id))

    def on_message_view_open_pager(self, event: MessageView.OpenPager) -> None:
        """Push the whole message in a pager."""
        event.stop()
        self.app.push_screen(MessagePager(event.message))

    def on_subagent_lane_open_full(self, event: SubagentLane.OpenFull) -> None:
        """Push the subagent's own conversation, full screen."""
        from acp_tui.ui.screens.subagent import SubagentScreen  # (it hosts cards too)

        event.stop()
        self.app.push_screen(SubagentScreen(event.store, event.subagent_id))
