"""The elicitation dialog: a form to fill in, or a URL to open, and its three exits.

A tiny host app pushes the dialog and keeps what it answers. The dialog's clock
is driven by hand (its key guard is the permission dialog's), so nothing waits
on time except the one test that watches it arm itself.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Static

from acp_tui.client.elicitation_form import ElicitationAsk, ElicitationReply
from acp_tui.store.values import JSONObject, JSONValue
from acp_tui.ui.key_guard import KEY_GUARD, KEY_IDLE
from acp_tui.ui.screens.elicitation import ElicitationScreen
from acp_tui.ui.themes import register_themes, theme_variable_defaults
from acp_tui.ui.widgets.choice_list import ChoiceList
from tests.ui.helpers import wait_for
from tests.unit.client.test_traffic import FakeClock

SIZE = (100, 30)

FORM: JSONObject = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 3},
        "count": {
            "type": "integer",
            "title": "Replicas",
            "minimum": 1,
            "maximum": 9,
            "default": 2,
        },
        "notify": {"type": "boolean", "title": "Notify the team"},
        "strategy": {
            "type": "string",
            "title": "Strategy",
            "oneOf": [
                {"const": "safe", "title": "Conservative"},
                {"const": "fast", "title": "Aggressive"},
            ],
        },
        "targets": {
            "type": "array",
            "title": "Targets",
            "items": {"type": "string", "enum": ["linux", "mac", "win"]},
            "maxItems": 2,
        },
        "email": {"type": "string", "title": "Contact", "format": "email"},
    },
    "required": ["name", "strategy"],
}

QUESTION: JSONObject = {
    "type": "object",
    "properties": {
        "question_0": {
            "type": "string",
            "title": "Approach",
            "oneOf": [
                {"const": "Rewrite", "title": "Rewrite", "description": "Start over"},
                {"const": "Patch", "title": "Patch"},
            ],
        },
        "question_0_custom": {
            "type": "string",
            "title": "Other",
            "description": "Type your own answer (optional).",
        },
    },
}
"""What claude-agent-acp sends for one AskUserQuestion question."""

URL = "https://agent.example.com/connect?elicitationId=github-oauth-001"


def form_ask(schema: JSONObject = FORM, agent: str = "Demo") -> ElicitationAsk:
    return ElicitationAsk(agent, "How should I ship it?", "form", schema, None, None)


def url_ask(url: str = URL) -> ElicitationAsk:
    return ElicitationAsk("Demo", "Please sign in.", "url", None, url, "gh-1")


class Host(App[None]):
    """Pushes the dialog on mount and keeps its answers."""

    def __init__(self, dialog: ElicitationScreen, theme: str = "acp-dark") -> None:
        super().__init__()
        self.dialog = dialog
        self.start_theme = theme
        self.results: list[ElicitationReply | None] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        register_themes(self, dirs=[])
        self.theme = self.start_theme
        self.push_screen(self.dialog, callback=self.results.append)


def host(ask: ElicitationAsk, **kwargs: Any) -> tuple[Host, FakeClock]:
    dialog = ElicitationScreen(ask, **kwargs)
    clock = FakeClock()
    dialog.clock = clock
    return Host(dialog), clock


async def arm(app: Host, clock: FakeClock) -> None:
    """Let the guard pass (the keyboard was quiet long enough)."""
    clock.now += KEY_IDLE + 1
    assert app.dialog.guard.check()


async def answered(
    ask: ElicitationAsk, *keys: str, **kwargs: Any
) -> list[ElicitationReply | None]:
    """What the dialog answers to `keys`, typed once it has armed."""
    app, clock = host(ask, **kwargs)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        await pilot.press(*keys)
        await pilot.pause()
    return app.results


def hint(app: Host) -> str:
    return str(app.dialog.query_one("#elicitation-hint", Static).content)


def error(app: Host, index: int) -> str | None:
    shown = app.dialog.query_one(f"#error-{index}", Static)
    return str(shown.content) if shown.has_class("-shown") else None


def field(app: Host, index: int) -> Any:
    return app.dialog.query_one(f"#input-{index}")


# --- form mode ------------------------------------------------------------------


async def test_a_filled_form_is_sent_with_its_values() -> None:
    """Defaults are filled in; each kind of field takes its answer; ctrl+s sends."""
    app, clock = host(form_ask())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        await pilot.pause()
        assert app.focused is field(app, 0)
        assert field(app, 1).value == "2"  # the default
        await pilot.press(*"Ada", "enter")  # Enter: on to the next field
        assert app.focused is field(app, 1)
        await pilot.press("backspace", "5", "tab", "space")  # Replicas 5, notify
        assert field(app, 2).value is True
        await pilot.press("tab", "2")  # Strategy: Aggressive
        await pilot.press("tab", "1", "3")  # Targets: linux, win
        await pilot.press("tab", *"ada@example.com")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [
        ElicitationReply(
            "accept",
            {
                "name": "Ada",
                "count": 5,
                "notify": True,
                "strategy": "fast",
                "targets": ["linux", "win"],
                "email": "ada@example.com",
            },
        )
    ]


async def test_a_wrong_value_shows_its_error_and_blocks_sending() -> None:
    app, clock = host(form_ask())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        await pilot.press("A", "b")
        assert error(app, 0) is None  # not while typing the first time
        await pilot.press("tab")
        await pilot.pause()
        assert error(app, 0) == "Too short: at least 3 characters."
        assert field(app, 0).has_class("-invalid")
        await pilot.press("backspace", "backspace", "0", "ctrl+s")
        await pilot.pause()
        assert app.results == []
        assert error(app, 1) == "Enter a value from 1 to 9."
        assert error(app, 3) == "Required: pick one."  # shown on sending
        assert app.focused is field(app, 0)  # the first wrong field
        assert "3 answers need fixing" in hint(app)
        await pilot.press("end", "c", "shift+tab")  # "Abc": the error follows it
        assert error(app, 0) is None
        field(app, 1).focus()
        await pilot.press("backspace", "1")
        assert error(app, 1) is None
        field(app, 3).focus()
        await pilot.press("1")
        assert error(app, 3) is None
        field(app, 4).focus()
        await pilot.press("1", "2", "3")  # three picks: at most two
        assert error(app, 4) == "Pick at most 2."
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == []
        await pilot.press("3")
        field(app, 5).focus()
        await pilot.press(*"not an address", "ctrl+s")
        await pilot.pause()
        assert app.results == []
        assert error(app, 5) == "Not an email address (name@example.com)."
        field(app, 5).clear()
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [
        ElicitationReply(
            "accept",
            {
                "name": "Abc",
                "count": 1,
                "notify": False,
                "strategy": "safe",
                "targets": ["linux", "mac"],
            },
        )
    ]


async def test_decline_and_cancel() -> None:
    assert await answered(
        form_ask(), "tab", "tab", "tab", "tab", "tab", "tab", "tab", "enter"
    ) == [
        ElicitationReply("decline")
    ]  # from the last field, Tab reaches Send, then Decline
    app, _clock = host(form_ask())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")  # at once: cancelling never answers
        await pilot.pause()
    assert app.results == [ElicitationReply("cancel")]


async def test_keys_typed_as_it_opens_do_not_fill_or_send() -> None:
    """Held: keys are dropped (none reaches a field), ctrl+s and clicks send
    nothing, the fields and buttons are disabled, and each key restarts the
    quiet time."""
    app, clock = host(form_ask())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        clock.now += 0.08
        await pilot.press(*"Ada", "enter", "ctrl+s", "1")
        await pilot.click("#send")
        await pilot.pause()
        assert app.results == []
        assert not app.dialog.guard.armed
        assert field(app, 0).value == ""
        assert field(app, 0).is_disabled
        assert app.dialog.query_one("#send", Button).disabled
        assert "held" in hint(app)
        clock.now += KEY_GUARD + 0.1  # past the guard, but not quiet for long
        await pilot.press("x")
        assert not app.dialog.guard.armed
        await arm(app, clock)
        await pilot.pause()
        assert not field(app, 0).is_disabled
        assert app.focused is field(app, 0)
        assert field(app, 0).value == ""


async def test_the_dialog_arms_itself() -> None:
    """On the real clock: the fields come alive and the first has the focus."""
    app = Host(ElicitationScreen(form_ask()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        guard = app.dialog.guard
        # Held at first, unless a loaded machine took longer than KEY_GUARD to
        # get here (the fake-clock tests above check the hold itself).
        if guard.clock() < guard._due():
            assert not guard.armed
        await wait_for(pilot, lambda: app.dialog.guard.armed, KEY_GUARD + 5)
        await pilot.pause()
        assert app.focused is field(app, 0)
        assert "ctrl+s sends" in hint(app)


async def test_the_guard_starts_again_when_the_dialog_is_shown_again() -> None:
    app, clock = host(form_ask())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        app.push_screen(ModalScreen[None]())
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        assert not app.dialog.guard.armed
        await pilot.press("A", "ctrl+s")
        await pilot.pause()
        assert app.results == []
        assert field(app, 0).value == ""


async def test_enter_in_the_last_field_sends_once_the_user_has_answered() -> None:
    schema: JSONObject = {
        "properties": {"name": {"type": "string", "default": "Ada"}},
    }
    app, clock = host(form_ask(schema))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        await pilot.press("enter")  # nothing answered yet: review first
        await pilot.pause()
        assert app.results == []
        assert app.focused is app.dialog.query_one("#send", Button)
        assert "Review" in hint(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [ElicitationReply("accept", {"name": "Ada"})]
    assert await answered(form_ask(schema), "end", "!", "enter") == [
        ElicitationReply("accept", {"name": "Ada!"})
    ]


async def test_moving_between_fields_is_not_answering() -> None:
    """Tab and shift+tab only move: Enter in the last field still asks for review."""
    schema: JSONObject = {
        "properties": {
            "name": {"type": "string", "default": "Ada"},
            "city": {"type": "string", "default": "Paris"},
        },
    }
    app, clock = host(form_ask(schema))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        await pilot.press("tab", "shift+tab", "tab")
        await pilot.pause()
        assert app.focused is field(app, 1)
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == []
        assert app.focused is app.dialog.query_one("#send", Button)
        assert "Review" in hint(app)


async def test_a_single_choice_question_is_answered_by_its_number_twice() -> None:
    """The AskUserQuestion shape: `2` picks Patch and says so; `2` again sends."""
    app, clock = host(form_ask(QUESTION))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        assert "1-2 picks" in hint(app)
        await pilot.press("2")
        await pilot.pause()
        assert app.results == []
        assert "Press 2 again or Enter to send “Patch”" in hint(app)
        await pilot.press("2")
        await pilot.pause()
    assert app.results == [ElicitationReply("accept", {"question_0": "Patch"})]


@pytest.mark.parametrize(
    ("keys", "content"),
    [
        (("1", "enter"), {"question_0": "Rewrite"}),
        (("2", "tab", "enter"), {"question_0": "Patch"}),
        (("tab", *"Neither", "enter"), {"question_0_custom": "Neither"}),
        (
            ("1", "tab", *"soon", "enter"),
            {"question_0": "Rewrite", "question_0_custom": "soon"},
        ),
    ],
)
async def test_a_question_takes_a_pick_an_answer_of_ones_own_or_both(
    keys: tuple[str, ...], content: dict[str, JSONValue]
) -> None:
    assert await answered(form_ask(QUESTION), *keys) == [
        ElicitationReply("accept", content)
    ]


async def test_an_optional_choice_can_be_cleared_and_a_click_only_picks() -> None:
    schema: JSONObject = {
        "properties": {
            "size": {"type": "string", "enum": ["S", "M"], "default": "M"},
            "note": {"type": "string"},
        }
    }
    app, clock = host(form_ask(schema))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        choices = field(app, 0)
        assert isinstance(choices, ChoiceList)
        assert choices.picked == ("M",)
        await pilot.press("backspace")
        assert not choices.picked
        await pilot.click("#input-0", offset=(2, 0))
        await pilot.click("#input-0", offset=(2, 0))  # a click never sends
        await pilot.pause()
        assert choices.picked == ("S",)
        assert app.results == []
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [ElicitationReply("accept", {"size": "S"})]


async def test_agent_text_is_shown_as_data() -> None:
    """Markup and control codes from the agent are shown, never obeyed."""
    schema: JSONObject = {
        "properties": {
            "a": {
                "type": "string",
                "title": "[bold]T[/]\x1b[31m",
                "description": "see [link=https://x.example]here[/]",
                "oneOf": [{"const": "v", "title": "[red]V[/red]\x07"}],
            }
        }
    }
    app, _clock = host(form_ask(schema, agent="Evil [b]agent[/b]\x1b]0;x\x07"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = "\n".join(str(widget.content) for widget in app.dialog.query(Static))
        assert "Evil [b]agent[/b]\\x1b]0;x\\x07 asks" in shown
        assert "[bold]T[/]\\x1b[31m" in shown
        assert "see [link=https://x.example]here[/]" in shown
        assert "\x1b" not in shown
        choices = field(app, 0)
        prompt = choices.get_option_at_index(0).prompt
        assert isinstance(prompt, Content)
        assert "[red]V[/red]\\x07" in prompt.plain


async def test_a_form_acp_tui_cannot_show_offers_decline_and_cancel() -> None:
    schema: JSONObject = {"properties": {"when": {"type": "_calendar"}}}
    app, clock = host(form_ask(schema))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        problem = str(app.dialog.query_one("#elicitation-problem", Static).content)
        assert "cannot show this form" in problem
        assert "“_calendar”" in problem
        assert not app.dialog.query("#send")
        await pilot.press("enter", "ctrl+s")  # nothing is focused, nothing is sent
        await pilot.pause()
        assert app.results == []
        await pilot.click("#decline")
        await pilot.pause()
    assert app.results == [ElicitationReply("decline")]


async def test_a_boolean_is_a_checkbox_with_its_default() -> None:
    schema: JSONObject = {
        "properties": {"ok": {"type": "boolean", "title": "OK", "default": True}}
    }
    app, clock = host(form_ask(schema))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        box = field(app, 0)
        assert isinstance(box, Checkbox)
        assert box.value is True
        await pilot.press("space", "ctrl+s")
        await pilot.pause()
    assert app.results == [ElicitationReply("accept", {"ok": False})]


# --- URL mode -----------------------------------------------------------------


class Opener:
    """Stands in for the browser: records what it was asked to open."""

    def __init__(self, works: bool = True) -> None:
        self.works = works
        self.opened: list[str] = []

    def __call__(self, url: str) -> bool:
        self.opened.append(url)
        return self.works


async def test_open_needs_its_key_twice_and_accepts() -> None:
    opener = Opener()
    app, clock = host(url_ask(), opener=opener)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("o", "o")  # held: nothing opens
        await arm(app, clock)
        await pilot.press("o")
        await pilot.pause()
        assert opener.opened == []  # the first key only selects
        assert "Press o again or Enter to open it" in hint(app)
        await pilot.press("o")
        await pilot.pause()
    assert opener.opened == [URL]
    assert app.results == [ElicitationReply("accept")]


async def test_without_a_browser_the_url_is_copied_instead() -> None:
    opener = Opener(works=False)
    app, clock = host(url_ask(), opener=opener)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        await pilot.press("enter", "enter")  # Open is focused first
        await pilot.pause()
        assert opener.opened == [URL]
        assert app.results == []
        assert "No browser could open it here" in hint(app)
        assert app.focused is app.dialog.query_one("#url-copy", Button)
        await pilot.press("c", "c")
        await pilot.pause()
        assert app.clipboard == URL
    assert app.results == [ElicitationReply("accept")]


async def test_refusing_the_url_opens_nothing() -> None:
    opener = Opener()
    assert await answered(url_ask(), "d", "d", opener=opener) == [
        ElicitationReply("decline")
    ]
    app, _clock = host(url_ask(), opener=opener)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [ElicitationReply("cancel")]
    assert opener.opened == []


async def test_the_url_is_shown_whole_with_its_host_apart_and_warnings() -> None:
    url = "http://github.com@xn--pple-43d.com/login"
    opener = Opener()
    app, clock = host(url_ask(url), opener=opener)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        address = app.dialog.query_one("#url-address", Static).content
        assert isinstance(address, Content)
        assert address.plain == f"Address: {url}"
        host_spans = [
            address.plain[s.start : s.end]
            for s in address.spans
            if "reverse" in str(s.style)
        ]
        assert host_spans == ["xn--pple-43d.com"]
        site = str(app.dialog.query_one("#url-site", Static).content)
        decoded = b"xn--pple-43d.com".decode("idna")  # a Cyrillic "а"
        assert decoded != "apple.com"
        assert site == f"Site: xn--pple-43d.com ({decoded})"
        warnings = str(app.dialog.query_one("#url-warnings", Static).content)
        assert "Not HTTPS" in warnings
        assert "user name" in warnings
        assert "Punycode" in warnings
        await arm(app, clock)
        await pilot.click("#url-open")  # a click chooses at once
        await pilot.pause()
    assert opener.opened == [url]


async def test_a_url_that_is_not_a_web_page_is_never_opened() -> None:
    opener = Opener()
    app, clock = host(url_ask("file:///etc/passwd"), opener=opener)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await arm(app, clock)
        await pilot.click("#url-open")
        await pilot.pause()
        assert app.results == []
        assert "press c to copy" in hint(app)
    assert opener.opened == []
