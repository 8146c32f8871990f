"""Following output, keyboard scrolling and focus, Enter with completions, the
first screen (issue 23), against the scripted fake agent.

The `v2` fake agent answers "hello" with a turn that asks permission for the
tool call `c1` (the same id every turn, so its card stays where the first turn
put it), and "hang" with a turn that runs until cancelled.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Static

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.help import KeyHelpScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.start_view import StartView
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.ui.helpers import wait_for

pytestmark = pytest.mark.subprocess

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"
SIZE = (100, 24)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


def fake_app(cwd: Path, scenario: str = "v2") -> AcpTuiApp:
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), scenario))
    return make_app(command, "fake", cwd=cwd, init_timeout=10.0)


def conversation(app: AcpTuiApp) -> Conversation:
    return app.active_pane.query_one(Conversation)


def prompt(app: AcpTuiApp) -> PromptInput:
    return app.active_pane.query_one(PromptInput)


def turns_ended(app: AcpTuiApp) -> int:
    store = app.store
    return store.state.turns_ended if store is not None else 0


def user_texts(app: AcpTuiApp) -> list[str]:
    return [v.text for v in app.query(MessageView) if v.role == "user"]


def permission_armed(app: AcpTuiApp) -> bool:
    screen = app.screen
    return isinstance(screen, PermissionScreen) and screen.armed


async def hello_turn(pilot: object, app: AcpTuiApp) -> None:
    """One "hello" turn, its permission allowed."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    ended = turns_ended(app)
    await pilot.press(*"hello", "enter")
    await wait_for(pilot, lambda: permission_armed(app))
    await pilot.press("y", "y")
    await wait_for(pilot, lambda: turns_ended(app) > ended and app.store is not None)
    await wait_for(pilot, lambda: app.store is not None and app.store.state.is_idle)


async def paths_turns(pilot: object, app: AcpTuiApp, count: int) -> None:
    """`count` "paths" turns (an edit and a command, both allowed): a screen and
    more of output after the card `c1`, which every "hello" turn updates (its
    card keeps each turn's permission record, so hello turns barely add below).
    """
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    for _ in range(count):
        ended = turns_ended(app)
        await pilot.press(*"paths", "enter")
        while turns_ended(app) == ended:  # the edit, then the command: allowed
            await wait_for(
                pilot,
                lambda: permission_armed(app) or turns_ended(app) > ended,  # noqa: B023
            )
            dialog = app.screen
            if permission_armed(app):
                await pilot.press("y", "y")
                await wait_for(pilot, lambda: app.screen is not dialog)  # noqa: B023


async def overflowing(
    pilot: object, app: AcpTuiApp, turns: int = 2, paths: int = 0
) -> Conversation:
    """`turns` hello turns, then `paths` ones: more than a screen of conversation."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await wait_for(pilot, lambda: app.store is not None)
    for _ in range(turns):
        await hello_turn(pilot, app)
    await paths_turns(pilot, app, paths)
    view = conversation(app)
    await wait_for(pilot, lambda: view.max_scroll_y > 5)
    return view


# ---------------------------------------------------------------- following


async def test_sending_a_prompt_brings_the_view_back_and_follows(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        view = await overflowing(pilot, app)
        view.scroll_home(animate=False)
        await wait_for(pilot, lambda: not view.following and view.scroll_y == 0)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await wait_for(
            pilot, lambda: view.following and view.scroll_y == view.max_scroll_y
        )
        await pilot.press("escape")  # cancel the hanging turn
        await wait_for(pilot, lambda: turns_ended(app) >= 3)


async def test_new_output_while_scrolled_up_shows_a_marker_and_end_follows(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        view = await overflowing(pilot, app)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press("pageup")  # from the prompt, which keeps the focus
        await wait_for(pilot, lambda: not view.following)
        assert prompt(app).has_focus
        assert not view.new_output_below
        await pilot.press("escape")  # the agent's "stopped" arrives below
        await wait_for(pilot, lambda: view.new_output_below)
        marker = view.query_one("#new-output-below", Static)
        assert "new output below" in str(marker.content)
        assert marker.region.bottom == view.region.bottom  # docked at the bottom
        await pilot.press("ctrl+end")
        await wait_for(
            pilot, lambda: view.following and view.scroll_y == view.max_scroll_y
        )
        assert not view.new_output_below
        assert prompt(app).has_focus


async def test_clicking_the_marker_follows_again(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        view = await overflowing(pilot, app)
        view.scroll_home(animate=False)
        await wait_for(pilot, lambda: not view.following)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")
        await wait_for(pilot, lambda: turns_ended(app) >= 3)
        view.scroll_home(animate=False)  # up again, then more output
        await wait_for(pilot, lambda: not view.following)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        view.scroll_home(animate=False)
        await wait_for(pilot, lambda: not view.following)
        await pilot.press("escape")
        await wait_for(pilot, lambda: view.new_output_below)
        await pilot.click("#new-output-below")
        await wait_for(pilot, lambda: view.following and not view.new_output_below)


async def test_a_permission_dialog_shows_its_tool_call_behind_it(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        view = await overflowing(pilot, app, turns=1, paths=1)
        card = view.entries[("tool_call", "c1")]  # the first turn's, kept in place
        assert isinstance(card, ToolCallView)
        await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y)
        assert card.region.bottom <= view.region.y  # scrolled off the top
        ended = turns_ended(app)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await wait_for(
            pilot,
            lambda: (
                bool(view.region.intersection(card.region))
                and card.region.y >= view.region.y
            ),
        )
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")
        await wait_for(pilot, lambda: turns_ended(app) > ended)
        # Answered: the view follows the output again.
        await wait_for(
            pilot, lambda: view.following and view.scroll_y == view.max_scroll_y
        )


async def test_looking_at_a_card_does_not_stop_following_later(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        view = await overflowing(pilot, app, turns=1, paths=1)
        await wait_for(pilot, lambda: view.following)
        await pilot.press("tab")  # into the conversation
        await wait_for(pilot, lambda: not prompt(app).has_focus)
        focused = app.focused
        assert focused is not None
        assert view in focused.ancestors_with_self
        # Focus somewhere up the conversation (it scrolls there).
        card = view.entries[("tool_call", "c1")]
        card.query("CollapsibleTitle").first().focus()
        await wait_for(pilot, lambda: not view.following)
        await pilot.press("escape")  # no turn: back to the prompt
        await wait_for(pilot, lambda: prompt(app).has_focus)
        await wait_for(pilot, lambda: view.following)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await wait_for(
            pilot, lambda: view.following and view.scroll_y == view.max_scroll_y
        )
        ended = turns_ended(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: turns_ended(app) > ended)


# ---------------------------------------------------------------- keys and focus


async def test_pageup_and_pagedown_scroll_the_conversation_from_the_prompt(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        view = await overflowing(pilot, app)
        await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y)
        bottom = view.scroll_y
        await pilot.press("pageup")
        await wait_for(pilot, lambda: view.scroll_y < bottom)
        assert prompt(app).has_focus
        await pilot.press("ctrl+home")
        await wait_for(pilot, lambda: view.scroll_y == 0)
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: view.scroll_y > 0)
        assert prompt(app).has_focus
        await pilot.press("ctrl+end")
        await wait_for(
            pilot, lambda: view.following and view.scroll_y == view.max_scroll_y
        )


async def test_esc_returns_focus_and_typing_on_a_card_goes_to_the_prompt(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        view = await overflowing(pilot, app)
        card = view.entries[("tool_call", "c1")]
        title = card.query("CollapsibleTitle").first()
        title.focus()
        await wait_for(pilot, lambda: title.has_focus)
        await pilot.press("escape")
        await wait_for(pilot, lambda: prompt(app).has_focus)
        title.focus()
        await wait_for(pilot, lambda: title.has_focus)
        await pilot.press(*"ok go")
        await wait_for(pilot, lambda: prompt(app).text == "ok go")
        assert prompt(app).has_focus


async def test_ctrl_c_in_the_prompt_clears_it_or_cancels_the_turn(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"draft")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: prompt(app).text == "")
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: app.runner.in_turn)
        await pilot.press(*"next")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: turns_ended(app) >= 1)
        assert app.store is not None
        assert app.store.state.last_stop_reason == "cancelled"
        assert prompt(app).text == "next"  # a turn ran: cancelled, text kept
        assert not any("quit" in n.message for n in app._notifications)


async def test_key_help_lists_scrolling_and_focus(tmp_path: Path) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, KeyHelpScreen))
        screen = app.screen
        assert isinstance(screen, KeyHelpScreen)
        keys = dict(screen.bindings)
        assert "pgup / pgdn" in keys
        assert "ctrl+home / ctrl+end" in keys
        assert "esc" in keys
        assert "prompt" in keys["esc"]
        assert "tab" in keys


async def test_tabs_step_with_ctrl_pagedown_where_alt_digits_do_not_arrive(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        first = app.active_pane
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: app.active_pane is not first)
        await pilot.press("ctrl+pagedown")  # wraps to the first tab
        await wait_for(pilot, lambda: app.active_pane is first)
        await pilot.press("ctrl+pageup")
        await wait_for(pilot, lambda: app.active_pane is not first)


# ---------------------------------------------------------------- Enter


def burst(app: AcpTuiApp, text: str) -> None:
    """Type `text`, then Enter, as one read from a terminal: no pause between keys.

    (`pilot.press` lets the app idle after every key, so the dropdown is always
    up to date there; a terminal delivers a fast typist's keys together.)
    """
    driver = app._driver
    assert driver is not None
    for character in text:
        key = "slash" if character == "/" else character
        event = events.Key(key, character)
        event.set_sender(app)
        driver.send_message(event)
    enter = events.Key("enter", "\r")
    enter.set_sender(app)
    driver.send_message(enter)


async def test_a_command_typed_in_full_is_sent_whatever_the_dropdown_shows(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await wait_for(pilot, lambda: bool(prompt(app).completion.commands))
        await pilot.press(*"/help", "enter")
        await wait_for(pilot, lambda: "/help" in user_texts(app))
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")
        await wait_for(pilot, lambda: turns_ended(app) >= 1)
        await pilot.press("slash")
        await wait_for(pilot, lambda: prompt(app).completion.is_open)
        burst(app, "help")  # the open dropdown lists what "/" matched
        await wait_for(pilot, lambda: permission_armed(app))  # the second turn
        assert prompt(app).text == ""
        assert user_texts(app) == ["/help"]  # (the fake agent's ids repeat)


async def test_enter_on_a_highlighted_completion_completes_it(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await wait_for(pilot, lambda: bool(prompt(app).completion.commands))
        await pilot.press(*"/he", "enter")
        await wait_for(pilot, lambda: prompt(app).text == "/help ")
        prompt(app).clear()
        await wait_for(pilot, lambda: prompt(app).text == "")
        burst(app, "/he")
        await wait_for(pilot, lambda: prompt(app).text == "/help ")
        assert app.runner.prompts.empty()
        assert turns_ended(app) == 0
        assert not app.runner.in_turn


# ---------------------------------------------------------------- first screen


async def test_the_first_screen_says_who_where_which_session_and_what_to_try(
    tmp_path: Path,
) -> None:
    app = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        start = app.active_pane.query_one(StartView)
        await wait_for(pilot, lambda: start.display and start.welcoming is not None)
        title = str(start.query_one("#start-title", Static).content)
        assert title == "Fake Agent 1.0.0 · ACP v2"
        body = str(start.query_one("#start-welcome", Static).content)
        assert tmp_path.name in body
        assert "Session    new (s1)" in body
        await wait_for(
            pilot,
            lambda: "/help" in str(start.query_one("#start-welcome", Static).content),
        )
        assert not start.query_one("#start-demo").display  # not the demo agent
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: not start.display)
