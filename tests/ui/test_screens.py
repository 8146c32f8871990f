"""Pilot tests of the modal screens, each pushed by a tiny host app.

The host pushes one screen on mount and records what it is dismissed with, so
each test drives the screen with keys and asserts on the result and on what the
screen shows. No agent, no protocol: the screens take plain data and callables.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import pytest
from rich.console import Console
from textual.app import App
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from acp_tui.client.session import SessionSummary
from acp_tui.store.config import ANY_KEYS, read_options
from acp_tui.store.values import JSONObject
from acp_tui.ui.screens.auth import AuthMethodView, AuthScreen
from acp_tui.ui.screens.config import ConfigChoice, ConfigScreen
from acp_tui.ui.screens.help import KeyHelpScreen
from acp_tui.ui.screens.session_picker import (
    ConfirmDeleteScreen,
    SessionPick,
    SessionPickerScreen,
    relative_time,
)
from tests.ui.helpers import wait_for

T = TypeVar("T")
SIZE = (100, 36)
NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


class ScreenHost(App[None], Generic[T]):
    """Pushes one screen on mount and records its results."""

    def __init__(self, make_screen: Callable[[], Screen[T]]) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.results: list[T | None] = []
        self.pushed: Screen[T] | None = None

    def on_mount(self) -> None:
        self.pushed = self.make_screen()
        self.push_screen(self.pushed, callback=self.results.append)


def prompts(option_list: OptionList) -> list[str]:
    """The plain text of every row of an option list."""
    texts: list[str] = []
    for option in option_list.options:
        assert isinstance(option.prompt, Content)  # agent text is never markup
        texts.append(option.prompt.plain)
    return texts


def static_text(screen: Screen[Any], selector: str) -> str:
    content = screen.query_one(selector, Static).content
    assert isinstance(content, Content)
    return content.plain


# --- session picker -----------------------------------------------------------

SESSIONS = [
    SessionSummary(
        "sess-one", "/home/ada/project", "Fix the parser", "2026-03-10T11:55:00Z", {}
    ),
    SessionSummary("sess-two", "/home/ada/other", None, "2026-03-09T09:00:00Z", {}),
    SessionSummary("sess-3", "/srv/Service", "Refactor store", "last tuesday", {}),
]


class FakeSessions:
    """The picker's `load` and `delete` callables, recording calls."""

    def __init__(
        self,
        sessions: Sequence[SessionSummary] = SESSIONS,
        *,
        load_error: Exception | None = None,
        delete_error: Exception | None = None,
    ) -> None:
        self.sessions = list(sessions)
        self.load_error = load_error
        self.delete_error = delete_error
        self.release = asyncio.Event()
        self.release.set()
        self.deleted: list[str] = []

    async def load(self) -> Sequence[SessionSummary]:
        await self.release.wait()
        if self.load_error is not None:
            raise self.load_error
        return self.sessions

    async def delete(self, session_id: str) -> None:
        if self.delete_error is not None:
            raise self.delete_error
        self.deleted.append(session_id)


def picker_app(
    fake: FakeSessions, *, deletable: bool = True, current: str | None = "sess-two"
) -> ScreenHost[SessionPick | None]:
    return ScreenHost(
        lambda: SessionPickerScreen(
            fake.load,
            delete=fake.delete if deletable else None,
            current_session_id=current,
            now=lambda: NOW,
        )
    )


def picker(app: ScreenHost[SessionPick | None]) -> SessionPickerScreen:
    assert isinstance(app.pushed, SessionPickerScreen)
    return app.pushed


async def loaded(pilot: Pilot[None], app: ScreenHost[SessionPick | None]) -> OptionList:
    await wait_for(pilot, lambda: app.pushed is not None and picker(app).loaded)
    await pilot.pause()
    return picker(app).query_one("#session-list", OptionList)


async def test_picker_lists_new_row_then_sessions_with_relative_times() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await loaded(pilot, app))
        assert rows[0] == "+ New session"
        assert rows[1] == "Fix the parser\n  /home/ada/project · 5 min ago"
        assert rows[2] == "(untitled)  ● current\n  /home/ada/other · yesterday"
        assert rows[3] == "Refactor store\n  /srv/Service · last tuesday"
        assert not picker(app).query_one("#session-status", Static).display


async def test_picker_shows_loading_until_the_list_arrives() -> None:
    fake = FakeSessions()
    fake.release.clear()
    app = picker_app(fake)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.pushed is not None and app.pushed.is_mounted)
        await pilot.pause()
        screen = picker(app)
        assert static_text(screen, "#session-status") == "Loading sessions…"
        assert prompts(screen.query_one(OptionList)) == ["+ New session"]
        fake.release.set()
        option_list = await loaded(pilot, app)
        assert len(option_list.options) == 4


async def test_picker_enter_resumes_the_highlighted_session() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("resume", "sess-two", "/home/ada/other")]


async def test_picker_first_session_is_highlighted_after_loading() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("resume", "sess-one", "/home/ada/project")]


async def test_picker_new_row_starts_a_new_session() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("new")]


async def test_picker_escape_dismisses_none() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [None]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("PARSER", ["Fix the parser"]),  # title, case-insensitive
        ("service", ["Refactor store"]),  # cwd
        ("sess-t", ["(untitled)"]),  # session id
        ("ada", ["Fix the parser", "(untitled)"]),
    ],
)
async def test_picker_filter_matches_title_cwd_and_id(
    typed: str, expected: list[str]
) -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press(*typed)
        await pilot.pause()
        rows = prompts(option_list)
        assert rows[0] == "+ New session"
        assert [row.split("\n")[0].removesuffix("  ● current") for row in rows[1:]] == (
            expected
        )
        assert option_list.highlighted == 1
        assert len(picker(app).visible_sessions) == len(expected)


async def test_picker_enter_after_filtering_picks_the_match() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press(*"refactor", "enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("resume", "sess-3", "/srv/Service")]


async def test_picker_filter_without_matches_says_so_and_keeps_new_row() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press(*"zzz")
        await pilot.pause()
        assert prompts(option_list) == ["+ New session"]
        assert static_text(picker(app), "#session-status") == "No sessions match “zzz”."
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("new")]


async def test_picker_empty_list_says_so() -> None:
    app = picker_app(FakeSessions([]))
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        assert prompts(option_list) == ["+ New session"]
        assert static_text(picker(app), "#session-status") == "No saved sessions yet."


async def test_picker_load_error_shows_the_message_not_a_traceback() -> None:
    app = picker_app(FakeSessions(load_error=RuntimeError("agent said no")))
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        status = picker(app).query_one("#session-status", Static)
        assert static_text(picker(app), "#session-status") == (
            "Could not load sessions: agent said no"
        )
        assert status.has_class("-error")
        assert "Traceback" not in static_text(picker(app), "#session-status")
        assert prompts(option_list) == ["+ New session"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [SessionPick("new")]


async def test_picker_load_error_without_message_names_the_exception() -> None:
    app = picker_app(FakeSessions(load_error=TimeoutError()))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        assert static_text(picker(app), "#session-status") == (
            "Could not load sessions: TimeoutError"
        )


async def test_picker_delete_confirmed_removes_the_row() -> None:
    fake = FakeSessions()
    app = picker_app(fake)
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: fake.deleted == ["sess-one"])
        await wait_for(pilot, lambda: len(option_list.options) == 3)
        assert "Fix the parser" not in "".join(prompts(option_list))
        assert (
            static_text(picker(app), "#session-status") == "Deleted “Fix the parser”."
        )
        assert option_list.highlighted == 1  # on the next session
        assert not app.results


async def test_picker_delete_cancelled_keeps_the_row() -> None:
    fake = FakeSessions()
    app = picker_app(fake)
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is app.pushed)
        assert fake.deleted == []
        assert len(option_list.options) == 4


async def test_picker_delete_confirm_enter_defaults_to_cancel() -> None:
    fake = FakeSessions()
    app = picker_app(fake)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is app.pushed)
        assert fake.deleted == []


async def test_picker_delete_failure_shows_error_and_keeps_the_row() -> None:
    fake = FakeSessions(delete_error=RuntimeError("session is locked"))
    app = picker_app(fake)
    async with app.run_test(size=SIZE) as pilot:
        option_list = await loaded(pilot, app)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))
        await pilot.press("y")
        status = picker(app).query_one("#session-status", Static)
        await wait_for(pilot, lambda: status.has_class("-error"))
        assert static_text(picker(app), "#session-status") == (
            "Could not delete “Fix the parser”: session is locked"
        )
        assert len(option_list.options) == 4


async def test_picker_delete_key_edits_the_filter_before_deleting() -> None:
    app = picker_app(FakeSessions())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        filter_input = picker(app).query_one(Input)
        await pilot.press(*"ada", "left", "delete")
        assert filter_input.value == "ad"
        assert app.screen is app.pushed
        await pilot.press("delete")  # cursor at the end: delete the session
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))


async def test_picker_refuses_to_delete_the_current_session() -> None:
    fake = FakeSessions()
    app = picker_app(fake)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        await pilot.press("down", "ctrl+d")
        await pilot.pause()
        assert app.screen is app.pushed
        assert "current session" in static_text(picker(app), "#session-status")
        assert fake.deleted == []


async def test_picker_without_delete_leaves_delete_keys_to_the_filter() -> None:
    app = picker_app(FakeSessions(), deletable=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, app)
        filter_input = picker(app).query_one(Input)
        await pilot.press(*"ab", "left", "ctrl+d")
        await pilot.pause()
        assert app.screen is app.pushed
        assert filter_input.value == "a"
        assert "delete" not in static_text(picker(app), "#session-hint")


async def test_picker_shows_markup_in_titles_literally() -> None:
    sessions = [SessionSummary("s", "/[red]x[/]", "[bold]x[/]", None, {})]
    app = picker_app(FakeSessions(sessions))
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await loaded(pilot, app))
        assert rows[1] == "[bold]x[/]\n  /[red]x[/]"


async def test_picker_blank_title_is_untitled() -> None:
    sessions = [SessionSummary("s", "/tmp", "  ", None, {})]
    app = picker_app(FakeSessions(sessions))
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await loaded(pilot, app))
        assert rows[1] == "(untitled)\n  /tmp"


async def test_picker_escapes_control_characters_in_agent_text() -> None:
    sessions = [SessionSummary("s", "/tmp", "evil\x1b[2Jtitle", None, {})]
    app = picker_app(FakeSessions(sessions))
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await loaded(pilot, app))
        assert "\x1b" not in rows[1]
        assert rows[1].startswith("evil\\x1b[2Jtitle")


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        (None, ""),
        ("", ""),
        ("2026-03-10T11:59:30Z", "just now"),
        ("2026-03-10T11:55:00Z", "5 min ago"),
        ("2026-03-10T12:00:30Z", "just now"),  # a little clock skew
        ("2026-03-10T09:00:00+00:00", "3 h ago"),
        ("2026-03-10T09:00:00", "3 h ago"),  # no zone: UTC
        ("2026-03-10T10:00:00+01:00", "3 h ago"),
        ("2026-03-10T05:00:00Z", "7 h ago"),
        ("2026-03-09T23:00:00Z", "yesterday"),
        ("2026-03-09T20:00:00-05:00", "11 h ago"),  # the 9th there, the 10th here
        ("2026-03-09T02:00:00Z", "yesterday"),
        ("2026-03-06T12:00:00.123456Z", "4 days ago"),
        ("2026-01-02T10:00:00Z", "2026-01-02"),
        ("2026-03-11T12:00:00Z", "2026-03-11 12:00"),  # in the future
        ("last tuesday", "last tuesday"),
        ("bell\x07", "bell\\x07"),
    ],
)
def test_relative_time(stamp: str | None, expected: str) -> None:
    assert relative_time(stamp, NOW) == expected


def test_relative_time_just_before_midnight_counts_hours() -> None:
    early = datetime(2026, 3, 10, 2, 0, tzinfo=UTC)
    assert relative_time("2026-03-09T22:00:00Z", early) == "4 h ago"
    assert relative_time("2026-03-09T19:00:00Z", early) == "yesterday"


def test_relative_time_naive_now_is_utc() -> None:
    assert relative_time("2026-03-10T11:00:00Z", NOW.replace(tzinfo=None)) == "1 h ago"


# --- config switcher ----------------------------------------------------------

CONFIG_OPTIONS: list[JSONObject] = [
    {
        "configId": "verbose",
        "name": "Verbose",
        "type": "boolean",
        "currentValue": True,
        "description": "Say more",
    },
    {
        "configId": "model",
        "name": "Model",
        "type": "select",
        "category": "model",
        "currentValue": "opus",
        "options": [
            {
                "groupId": "a",
                "name": "Anthropic",
                "options": [
                    {"value": "opus", "name": "Opus", "description": "Most capable"},
                    {"value": "sonnet", "name": "Sonnet"},
                ],
            },
            {
                "groupId": "l",
                "name": "Local",
                "options": [{"value": "llama", "name": "Llama"}],
            },
        ],
    },
    {
        "id": "mode",
        "name": "Mode",
        "type": "select",
        "category": "mode",
        "currentValue": "code",
        "options": [
            {"value": "ask", "name": "Ask", "description": "Ask before edits"},
            {"value": "code", "name": "Code"},
            {"value": "plan", "name": "Plan"},
        ],
    },
    {
        "configId": "x",
        "name": "Vendor [red]thing[/]",
        "type": "boolean",
        "category": "_vendor",
        "currentValue": False,
    },
    {"configId": "hidden", "name": "Slider", "type": "slider", "currentValue": 3},
]


def config_app(
    options: Sequence[JSONObject] = CONFIG_OPTIONS, focus: str | None = None
) -> ScreenHost[ConfigChoice | None]:
    neutral = read_options(options, ANY_KEYS)  # either spelling, as a transcript
    return ScreenHost(lambda: ConfigScreen(neutral, focus_category=focus))


async def config_list(
    pilot: Pilot[None], app: ScreenHost[ConfigChoice | None]
) -> OptionList:
    await wait_for(pilot, lambda: app.pushed is not None and app.pushed.is_mounted)
    await pilot.pause()
    assert app.pushed is not None
    return app.pushed.query_one("#config-list", OptionList)


def highlighted_text(option_list: OptionList) -> str:
    option = option_list.highlighted_option
    assert option is not None
    assert isinstance(option.prompt, Content)
    return option.prompt.plain


async def test_config_shows_categories_in_order_with_choices() -> None:
    app = config_app()
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await config_list(pilot, app))
        assert rows == [
            "Mode",
            "    Ask  Ask before edits",
            "  ● Code",
            "    Plan",
            "Model",
            "  Anthropic",
            "    ● Opus  Most capable",
            "      Sonnet",
            "  Local",
            "      Llama",
            "_vendor",
            "  [ ] Vendor [red]thing[/]",
            "Other",
            "  [x] Verbose  Say more",
        ]
        assert "Slider" not in "".join(rows)


async def test_config_starts_on_the_first_current_value() -> None:
    app = config_app()
    async with app.run_test(size=SIZE) as pilot:
        option_list = await config_list(pilot, app)
        assert highlighted_text(option_list) == "  ● Code"


async def test_config_select_dismisses_the_choice() -> None:
    app = config_app()
    async with app.run_test(size=SIZE) as pilot:
        await config_list(pilot, app)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [ConfigChoice("mode", "plan")]


async def test_config_grouped_choice_skips_group_headings() -> None:
    app = config_app(focus="model")
    async with app.run_test(size=SIZE) as pilot:
        option_list = await config_list(pilot, app)
        assert highlighted_text(option_list) == "    ● Opus  Most capable"
        await pilot.press("down", "down")  # Sonnet, then over "Local" to Llama
        assert highlighted_text(option_list) == "      Llama"
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [ConfigChoice("model", "llama")]


async def test_config_boolean_toggle_dismisses_the_flipped_value() -> None:
    app = config_app(focus="other")
    async with app.run_test(size=SIZE) as pilot:
        option_list = await config_list(pilot, app)
        assert highlighted_text(option_list) == "  [x] Verbose  Say more"
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [ConfigChoice("verbose", False)]


async def test_config_unknown_category_is_shown_and_toggles_on() -> None:
    app = config_app(focus="_vendor")
    async with app.run_test(size=SIZE) as pilot:
        option_list = await config_list(pilot, app)
        assert highlighted_text(option_list) == "  [ ] Vendor [red]thing[/]"
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [ConfigChoice("x", True)]


async def test_config_click_selects_a_choice() -> None:
    app = config_app()
    async with app.run_test(size=SIZE) as pilot:
        option_list = await config_list(pilot, app)
        # Row 3 is "Plan"; the list has a one-cell border and padding.
        await pilot.click(option_list, offset=(6, 1 + 3))
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [ConfigChoice("mode", "plan")]


async def test_config_escape_dismisses_none() -> None:
    app = config_app()
    async with app.run_test(size=SIZE) as pilot:
        await config_list(pilot, app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [None]


async def test_config_option_name_and_description_head_its_choices() -> None:
    options: list[JSONObject] = [
        {
            "configId": "effort",
            "name": "Effort",
            "description": "How hard to think",
            "type": "select",
            "category": "thought_level",
            "currentValue": "zzz",
            "options": [{"value": "low", "name": "Low"}],
        },
        {
            "configId": "empty",
            "name": "Empty",
            "type": "select",
            "category": "thought_level",
            "currentValue": "x",
            "options": [],
        },
    ]
    app = config_app(options)
    async with app.run_test(size=SIZE) as pilot:
        rows = prompts(await config_list(pilot, app))
        assert rows == [
            "Thought level",
            "  Effort — How hard to think",
            "      Low",
            "  Empty",
            "    (no choices)",
        ]


async def test_config_without_options_says_so() -> None:
    app = config_app([{"configId": "s", "name": "S", "type": "slider"}])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.pushed is not None and app.pushed.is_mounted)
        assert app.pushed is not None
        assert not app.pushed.query("#config-list")
        text = static_text(app.pushed, "#config-empty")
        assert text == "The agent offers no settings."
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [None]


# --- sign-in ------------------------------------------------------------------

METHODS = [
    AuthMethodView("oauth", "Log in with browser", "Opens a browser", False),
    AuthMethodView("cli", "Claude [b]login[/b]", None, True),
    AuthMethodView("key", "API key", "Set ANTHROPIC_API_KEY", False),
]


def auth_app(
    methods: Sequence[AuthMethodView] = METHODS, message: str | None = None
) -> ScreenHost[str | None]:
    return ScreenHost(
        lambda: AuthScreen(methods, agent_name="Claude Code", message=message)
    )


async def auth_screen(pilot: Pilot[None], app: ScreenHost[str | None]) -> AuthScreen:
    await wait_for(pilot, lambda: app.pushed is not None and app.pushed.is_mounted)
    await pilot.pause()
    assert isinstance(app.pushed, AuthScreen)
    return app.pushed


async def test_auth_lists_methods_with_numbers_and_terminal_note() -> None:
    app = auth_app(message="Authentication required [x]")
    async with app.run_test(size=SIZE) as pilot:
        screen = await auth_screen(pilot, app)
        assert static_text(screen, "#auth-title") == "Sign in to Claude Code"
        assert static_text(screen, "#auth-message") == "Authentication required [x]"
        assert prompts(screen.query_one(OptionList)) == [
            "1 Log in with browser\n  Opens a browser",
            "2 Claude [b]login[/b]\n  runs a login command in this terminal",
            "3 API key\n  Set ANTHROPIC_API_KEY",
        ]


async def test_auth_number_key_picks_that_method() -> None:
    app = auth_app()
    async with app.run_test(size=SIZE) as pilot:
        await auth_screen(pilot, app)
        await pilot.press("2")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == ["cli"]


async def test_auth_number_beyond_the_methods_is_ignored() -> None:
    app = auth_app()
    async with app.run_test(size=SIZE) as pilot:
        await auth_screen(pilot, app)
        await pilot.press("7")
        await pilot.pause()
        assert app.screen is app.pushed
        assert not app.results


async def test_auth_enter_picks_the_highlighted_method() -> None:
    app = auth_app()
    async with app.run_test(size=SIZE) as pilot:
        await auth_screen(pilot, app)
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == ["key"]


async def test_auth_escape_dismisses_none() -> None:
    app = auth_app()
    async with app.run_test(size=SIZE) as pilot:
        await auth_screen(pilot, app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [None]


async def test_auth_without_methods_says_so() -> None:
    app = auth_app([])
    async with app.run_test(size=SIZE) as pilot:
        screen = await auth_screen(pilot, app)
        assert "no sign-in methods" in static_text(screen, "#auth-empty")
        assert not screen.query("#auth-message")
        await pilot.press("1", "escape")
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [None]


# --- key help -----------------------------------------------------------------

KEYS = [("ctrl+p", "Command palette"), ("ctrl+s", "Sessions"), ("?", "This help")]


def help_text(screen: Screen[Any]) -> str:
    console = Console(record=True, width=80)
    console.print(screen.query_one("#help-table", Static).content)
    return console.export_text()


@pytest.mark.parametrize("key", ["escape", "q", "question_mark"])
async def test_key_help_shows_the_keys_and_closes(key: str) -> None:
    app: ScreenHost[None] = ScreenHost(lambda: KeyHelpScreen(KEYS))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.pushed is not None and app.pushed.is_mounted)
        assert app.pushed is not None
        lines = help_text(app.pushed).splitlines()
        assert [line.split() for line in lines] == [
            ["ctrl+p", "Command", "palette"],
            ["ctrl+s", "Sessions"],
            ["?", "This", "help"],
        ]
        await pilot.press(key)
        await wait_for(pilot, lambda: bool(app.results))
        assert app.results == [None]
        assert app.screen is not app.pushed


async def test_key_help_shows_markup_literally() -> None:
    app: ScreenHost[None] = ScreenHost(lambda: KeyHelpScreen([("[b]k[/b]", "[i]d")]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.pushed is not None and app.pushed.is_mounted)
        assert app.pushed is not None
        assert help_text(app.pushed).split() == ["[b]k[/b]", "[i]d"]


def test_picker_filter_is_empty_before_it_is_composed() -> None:
    """Asking which sessions show before the screen is composed (the app polls it
    while the picker opens) must not raise: no filter yet, so all of them."""
    screen = SessionPickerScreen(FakeSessions().load, now=lambda: NOW)
    screen.sessions = [
        SessionSummary("sess-1", "/tmp/a", "First", None, {}),
        SessionSummary("sess-2", "/tmp/b", "Second", None, {}),
    ]
    assert screen.filter_text == ""
    assert [s.session_id for s in screen.visible_sessions] == ["sess-1", "sess-2"]
