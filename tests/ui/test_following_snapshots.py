"""SVG snapshots of the first screen and of the "new output below" marker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.start_view import StartView, Welcome
from tests.ui.helpers import screen_settled, wait_for
from tests.ui.test_conversation import ConversationApp, show, user_turns

SnapCompare = Callable[..., bool]
SIZE = (80, 24)


class FirstScreenHost(App[None]):
    """A start view showing the first screen of a session."""

    def __init__(self, welcome: Welcome) -> None:
        super().__init__()
        register_themes(self, dirs=[])
        self.theme = "acp-dark"
        self.welcome = welcome

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield StartView(lambda: ())

    def on_mount(self) -> None:
        self.query_one(StartView).welcome(self.welcome)


@pytest.mark.snapshot
def test_first_screen_of_the_demo(snap_compare: SnapCompare) -> None:
    """The first screen with the built-in demo agent.

    Reviewer: a rounded box with a bold title "acp-tui demo agent 0.1.0 · ACP v2",
    then three rows with bold labels aligned: "Directory  ~/demo/project",
    "Session    new (demo-0001)", "Try        /help: what the demo can show (type /
    for commands)"; a blank line, then in muted text "This is the built-in demo
    agent. For a real one: acp-tui --agent claude-code (acp-tui agents lists
    them)." (wrapped).
    """
    welcome = Welcome(
        agent="acp-tui demo agent",
        version="0.1.0",
        protocol_version=2,
        directory="~/demo/project",
        session_id="demo-0001",
        resumed=False,
        demo=True,
    )
    assert snap_compare(FirstScreenHost(welcome), terminal_size=SIZE)


@pytest.mark.snapshot
def test_first_screen_of_a_resumed_real_session(snap_compare: SnapCompare) -> None:
    """The first screen of a real agent's resumed session.

    Reviewer: title "Claude Agent 0.9.1 · ACP v1"; "Directory  ~/src/parser";
    "Session    resumed: Fix the [bold]parser[/] (sess-42)" with the brackets shown
    literally; "Try        /review /init /compact /memory /cost /doctor … (type /
    for all, @ for files)". No demo line.
    """
    welcome = Welcome(
        agent="Claude Agent",
        version="0.9.1",
        protocol_version=1,
        directory="~/src/parser",
        session_id="sess-42",
        resumed=True,
        title="Fix the [bold]parser[/]",
        commands=("review", "init", "compact", "memory", "cost", "doctor", "bug"),
    )
    assert snap_compare(FirstScreenHost(welcome), terminal_size=SIZE)


async def _scrolled_up_then_output(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, ConversationApp)
    store = SessionStore("s")
    conversation = app.conversation
    await show(app, store, *user_turns(30))
    await wait_for(pilot, lambda: conversation.max_scroll_y > 1)
    await screen_settled(pilot)
    # A line up, not to the top: reaching the top mounts earlier entries,
    # and where the view then stands depends on when that happened.
    conversation.scroll_to(
        y=conversation.max_scroll_y - 1, animate=False, release_anchor=True
    )
    await wait_for(pilot, lambda: not conversation.following)
    text = {"type": "text", "text": "a later answer"}
    await show(app, store, ops.UpsertMessage("a1", "agent", content=[text]))
    await wait_for(pilot, lambda: conversation.new_output_below)
    await screen_settled(pilot)


@pytest.mark.snapshot
def test_new_output_below_marker(snap_compare: SnapCompare) -> None:
    """New output while the view is scrolled up.

    Reviewer: user messages "question number N" (scrolled up from the end, so
    not the last ones); on the bottom row, across the conversation's width, a
    highlighted line "▼ new output below · ctrl+end or click to follow",
    centred, over the messages (docked, not scrolled).
    """
    assert snap_compare(
        ConversationApp(), terminal_size=SIZE, run_before=_scrolled_up_then_output
    )
