"""Pilot tests of the conversation search (ctrl+f), against the fake agent.

The `v2` scenario's turn has a collapsed thought ("Thinking about it."), a plan,
a tool call running `ls` in a terminal ("file.txt", then "done"; the card
collapses once completed) and the answer "Hello world".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Collapsible
from textual.widgets._collapsible import CollapsibleTitle

from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.pane_search import PaneSearch
from acp_tui.ui.screens.help import KEYS_BEYOND_ACTIONS
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.search_bar import SearchBar
from acp_tui.ui.widgets.search_highlight import MATCH_STYLE
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, _home, fake_app, permission_armed, turn_ended
from tests.ui.test_app_flows import app_for, record, sent
from tests.ui.test_markup_injection import palette_text

pytestmark = pytest.mark.subprocess

# Fixtures: a private ACP_TUI_HOME per test (autouse), and what the agents were sent.
__all__ = ["_home", "record"]


def pane(app: AcpTuiApp) -> PaneSearch:
    return app.active_pane


def bar(app: AcpTuiApp) -> SearchBar:
    found = pane(app).search_bar
    assert found is not None
    return found


def marked_text(card: Widget) -> str:
    """The text drawn in the match style anywhere in `card` (visible or not)."""
    marked: list[str] = []
    for widget in card.walk_children(Widget, with_self=True):
        width, height = widget.size
        if not width or not height or not widget.display:
            continue
        for strip in widget.render_lines(Region(0, 0, width, height)):
            for segment in strip:
                style = segment.style
                if style is not None and style.bgcolor == MATCH_STYLE.bgcolor:
                    marked.append(segment.text)
    return "".join(marked)


async def one_turn(pilot: Pilot[None], app: AcpTuiApp, text: str = "hello") -> None:
    app.active_pane.query_one(PromptInput).focus()
    store = app.store
    assert store is not None
    ended = store.state.turns_ended
    await pilot.press(*text, "enter")
    await wait_for(pilot, lambda: permission_armed(app))
    await pilot.press("y", "y")
    await wait_for(pilot, lambda: store.state.turns_ended > ended)
    await wait_for(pilot, lambda: turn_ended(app))


async def test_ctrl_f_finds_a_terminal_line_and_enter_opens_its_card(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await one_turn(pilot, app)
        card = app.query_one(ToolCallView)
        # A small terminal stays open: the user collapses it.
        title = card.query_one(CollapsibleTitle)
        title.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: card.collapsed)
        prompt = app.active_pane.query_one(PromptInput)
        prompt.focus()
        await wait_for(pilot, lambda: app.focused is prompt)
        await pilot.press("ctrl+f")  # from the prompt: its own ctrl+f is not used
        await wait_for(pilot, lambda: pane(app).search_open)
        assert isinstance(app.focused, Widget)
        assert bar(app) in app.focused.ancestors
        assert prompt.text == ""
        await pilot.press(*"FILE.TXT")  # case-insensitive
        await wait_for(pilot, lambda: bar(app).count_text == "1 found")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bar(app).count_text == "1 / 1")
        await wait_for(pilot, lambda: not card.collapsed)
        conversation = app.query_one(Conversation)
        await wait_for(  # its top in view
            pilot,
            lambda: conversation.region.y <= card.region.y < conversation.region.bottom,
        )
        await wait_for(pilot, lambda: marked_text(card).lower() == "file.txt")
        # The conversation stays in view: the bar is not a modal screen.
        assert app.screen is app.active_pane.screen
        # Esc closes, clears the marks, and the prompt has the focus again.
        await pilot.press("escape")
        await wait_for(pilot, lambda: not pane(app).search_open)
        assert app.focused is prompt
        assert marked_text(card) == ""


async def test_next_and_previous_wrap_and_expand_a_thought(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await one_turn(pilot, app)
        thought = next(v for v in app.query(MessageView) if v.role == "thought")
        collapsible = thought.query_one(Collapsible)
        assert collapsible.collapsed
        await pilot.press("ctrl+f", *"about it")
        await wait_for(pilot, lambda: bar(app).count_text == "1 found")
        await pilot.press("f3")
        await wait_for(pilot, lambda: not collapsible.collapsed)
        await wait_for(pilot, lambda: "about it" in marked_text(thought))
        # "o" is in the thought, the plan, the tool call and the answer.
        await pilot.press("up")  # the only match: back to it
        await wait_for(pilot, lambda: bar(app).count_text == "1 / 1")
        await pilot.press("ctrl+f", *"world")  # the query selected: replaced
        await wait_for(pilot, lambda: bar(app).count_text == "1 found")
        await pilot.press("down")
        await wait_for(pilot, lambda: bar(app).count_text == "1 / 1")
        answer = next(v for v in app.query(MessageView) if v.role == "agent")
        await wait_for(pilot, lambda: "world" in marked_text(answer))
        assert "about it" not in marked_text(thought)  # the old card is cleared
        # Case-sensitive: "WORLD" is not there.
        await pilot.press("ctrl+f", *"WORLD", "alt+c")
        await wait_for(pilot, lambda: bar(app).count_text == "no matches")
        assert bar(app).query_text == "WORLD"  # alt+c typed nothing
        await pilot.press("alt+c")
        await wait_for(pilot, lambda: bar(app).count_text == "1 found")
        # The key help names the search and the fork key.
        keys = dict(KEYS_BEYOND_ACTIONS)
        assert "Search" in keys["ctrl+f"]
        assert "Fork" in keys["f (on a message)"]


async def test_the_count_follows_new_output(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await one_turn(pilot, app)
        await pilot.press("ctrl+f", *"file.txt")
        await wait_for(pilot, lambda: bar(app).count_text == "1 found")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bar(app).count_text == "1 / 1")
        # Another turn: the same terminal prints "file.txt" again.
        await one_turn(pilot, app, "again")
        assert pane(app).search_open
        await wait_for(pilot, lambda: bar(app).count_text == "1 / 2")


async def test_ctrl_f_on_a_message_card_searches_and_f_forks(
    tmp_path: Path, record: Path
) -> None:
    app = app_for("v2-sessions", tmp_path, SessionRequest("resume", "s-alpha"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: any(v.message.message_id == "h-a1" for v in app.query(MessageView)),
        )
        card = next(v for v in app.query(MessageView) if v.message.message_id == "h-a1")
        await wait_for(pilot, card.allow_focus)  # once the agent's forks are known
        card.focus()
        await wait_for(pilot, lambda: app.focused is card)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: pane(app).search_open)
        assert len(app.panes) == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: not pane(app).search_open)
        card.focus()
        await wait_for(pilot, lambda: app.focused is card)
        await pilot.press("f")
        await wait_for(pilot, lambda: len(app.panes) == 2)
        await wait_for(pilot, lambda: app.panes[1].store is not None)
        (params,) = sent(record, "session/fork")
        assert params["sessionId"] == "s-alpha"


async def test_the_palette_opens_the_search_bar(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await one_turn(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Search conversation")
        await wait_for(
            pilot, lambda: any("Search conversation" in t for t in palette_text(app))
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: pane(app).search_open)
        await pilot.press(*"file.txt")
        await wait_for(pilot, lambda: bar(app).count_text == "1 found")
