"""Agent text never reaches Textual's markup parser: one test per place it shows.

`tests/fakes/hostile_agent.py` plays the *-full scenarios with every name made
hostile: Textual markup (`[link='javascript:...']`, `[@click=app.quit]`, a stray
`[/]`, `[b]`), benign brackets (`Default [opus]`), tags Textual's own `escape`
misses (`[$accent]`, `[B]`), and a control character (an OSC 8 hyperlink, an
SGR sequence, or a C1 control). Each test opens one place and checks what is
on screen:

* the text reads as the agent sent it, brackets kept, controls escaped
  (`printable`): nothing was parsed as markup, and a `[/]` crashed nothing;
* no rendered segment carries a hyperlink, a click action or a control
  character (`assert_inert`), so nothing reaches the real terminal as OSC 8.

The places: the command palette (listed, searched, run), the settings dialog,
the status bar, the session picker (rows, its failure, the delete
confirmation), the sign-in dialog, the login toast, the slash-command list and
a command's input hint, `@` file completion, tab labels, toasts (a hidden
tab's, a refused setting's, a bad theme file's), the protocol inspector, the
start view, a diff's path (card and full screen), a terminal's command (card
and full screen), a tool call's locations and the conversation's banner.
Widgets that take no agent text are not listed (the footer's bindings, the key
help, fixed button labels and placeholders); the app never sets `App.title`
or `sub_title`. `tests/faults/test_injection.py` covers the rest of the
conversation (messages, thoughts, tool call titles and raw input, plans,
permission requests, notices, the crash banner) and `acp-tui print` through
the bytes written to a terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult, SystemCommand
from textual.command import CommandList, CommandPalette
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Tab
from textual_autocomplete import DropdownItem

from acp_tui.client.session import SessionSummary
from acp_tui.protocol.transport import AgentCommand
from acp_tui.safe_text import printable
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.auth import AuthScreen
from acp_tui.ui.screens.config import ConfigScreen
from acp_tui.ui.screens.diff import DiffScreen
from acp_tui.ui.screens.session_picker import ConfirmDeleteScreen, SessionPickerScreen
from acp_tui.ui.screens.terminal import TerminalScreen
from acp_tui.ui.widgets.conversation import Banner
from acp_tui.ui.widgets.diff_view import DiffSegment
from acp_tui.ui.widgets.inspector import InspectorPanel
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.start_view import StartView
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.fakes import hostile_agent as hostile
from tests.fakes import scripted_agent as base
from tests.ui.helpers import wait_for
from tests.ui.test_app import _home
from tests.ui.test_cards import CardsApp
from tests.ui.test_diff_view import card_store
from tests.ui.test_tabs import hidden_second_tab, open_second_tab

AGENT = pytest.mark.subprocess
"""The tests that run the hostile agent."""

__all__ = ["_home"]  # the autouse fixture: a private ACP_TUI_HOME per test

HOSTILE_AGENT = Path(hostile.__file__).resolve()
WIDE = (160, 40)
"""Wide enough that no hostile name wraps."""


def hostile_app(scenario: str, cwd: Path) -> AcpTuiApp:
    """The app running `hostile_agent.py SCENARIO`."""
    command = AgentCommand(argv=(sys.executable, str(HOSTILE_AGENT), scenario))
    return make_app(command, "hostile", cwd=cwd, init_timeout=10.0)


def shown(name: str) -> str:
    """How an agent's name reads once made safe: as sent, controls escaped."""
    return printable(name)


def screen_segments(app: App[None]) -> list[Segment]:
    """Every segment of the screen as composed (toasts and dialogs included)."""
    strips = app.screen._compositor.render_strips()
    return [segment for strip in strips for segment in strip]


def screen_lines(app: App[None]) -> list[str]:
    """The text of every line of the screen."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def on_screen(app: App[None], *names: str) -> bool:
    """Every name is on one line of the screen, as sent (controls escaped)."""
    lines = screen_lines(app)
    return all(any(shown(name) in line for line in lines) for name in names)


def words_on_screen(app: App[None], text: str) -> bool:
    """Every word of `text`, as sent, is on a line of the screen (for text that
    wraps, as in a toast)."""
    lines = screen_lines(app)
    return all(any(word in line for line in lines) for word in shown(text).split())


def assert_inert(segments: Iterable[Segment]) -> None:
    """No segment links, clicks, or holds a control character."""
    for segment in segments:
        assert all(c.isprintable() for c in segment.text), repr(segment.text)
        style = segment.style
        if style is None:
            continue
        assert style.link is None, (segment.text, style.link)
        meta = style.meta
        assert "@click" not in meta or "quit" not in str(meta["@click"]), meta


def assert_plain(content: Content) -> None:
    """No span of `content` came from markup: none links, clicks or is a tag."""
    for span in content.spans:
        style = str(span.style)
        assert "link" not in style, style
        assert "@click" not in style, style
        assert style not in ("b", "B", "$accent"), style


# --- the command palette ----------------------------------------------------------


def palette_prompts(app: App[None]) -> list[Content]:
    """The palette's entries as built (title, then the help under it)."""
    lists = app.screen.query(CommandList).results(CommandList)
    command_list = next(lists, None)
    if command_list is None:
        return []
    prompts = [option.prompt for option in command_list.options]
    return [prompt for prompt in prompts if isinstance(prompt, Content)]


def palette_text(app: App[None]) -> list[str]:
    return [prompt.plain for prompt in palette_prompts(app)]


async def open_palette(pilot: Pilot[None], app: AcpTuiApp) -> None:
    await wait_for(
        pilot, lambda: app.store is not None and bool(app.store.config_options)
    )
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))


class PaletteApp(App[None]):
    """An app with the real app's palette providers and one command of its own."""

    COMMANDS = AcpTuiApp.COMMANDS

    def __init__(self, title: str, help_text: str) -> None:
        super().__init__()
        self.command = SystemCommand(title, help_text, self.bell)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield self.command


PIECE_IDS = "js-link click close bold opus variable upper osc8 ansi c1".split()  # noqa: SIM905


@pytest.mark.parametrize("piece", hostile.PIECES, ids=PIECE_IDS)
@pytest.mark.parametrize("query", ["", "pick"])
async def test_palette_entry_is_plain_text(piece: str, query: str) -> None:
    """Each kind of hostile title and help, listed (no query) and found (a query):
    it reads as sent (a `[/]` raised MarkupError, `Default [opus]` lost its
    brackets), no span is a tag, a link or a click action, and no control
    character is drawn."""
    title, help_text = f"Pick {piece}", f"Help {piece}"
    app = PaletteApp(title, help_text)
    expected = f"{shown(title)}\n{shown(help_text)}"
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*query)
        await wait_for(pilot, lambda: expected in palette_text(app))
        for prompt in palette_prompts(app):
            assert_plain(prompt)
        assert on_screen(app, title, help_text)
        assert_inert(screen_segments(app))
        assert app.is_running


ASK, CODE, PLAN = ((name, description) for _, name, description in hostile.MODES)
MINI = hostile.MODEL_GROUPS[0][2][0][1]
LARGE, MAX = (name for _, name in hostile.MODEL_GROUPS[1][2])
LOW = hostile.THOUGHT_LEVELS[0][1]
MODE = hostile.OPTION_NAMES["mode"]
MODEL = hostile.OPTION_NAMES["model"]
THINKING = hostile.OPTION_NAMES["thought_level"]
AUTO = hostile.OPTION_NAMES["auto_approve"]

CONFIG_ENTRIES = {
    # (title, help) of values that are not current. v1 has a model option and
    # modes (which the client names "Mode").
    "v2": (
        (f"{MODE}: {CODE[0]}", CODE[1]),
        (f"{MODE}: {PLAN[0]}", PLAN[1]),
        (f"{MODEL}: {MINI}", f"Set {MODEL} to {MINI}"),
        (f"{THINKING}: {LOW}", f"Set {THINKING} to {LOW}"),
        (f"{AUTO}: on", f"Turn {AUTO} on"),
    ),
    "v1": (
        (f"Mode: {CODE[0]}", CODE[1]),
        (f"{MODEL}: {MINI}", f"Set {MODEL} to {MINI}"),
    ),
}


@AGENT
@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_palette_lists_config_values_as_plain_text(
    tmp_path: Path, version: str
) -> None:
    """Ctrl+p with a `[/]` in a name opens (it raised MarkupError); every entry
    reads as the agent named it, brackets kept, its help too; no span is a tag."""
    app = hostile_app(f"{version}-full", tmp_path)
    expected = [
        f"{shown(title)}\n{shown(help_text)}"
        for title, help_text in CONFIG_ENTRIES[version]
    ]
    async with app.run_test(size=WIDE) as pilot:
        await open_palette(pilot, app)
        await wait_for(pilot, lambda: set(expected) <= set(palette_text(app)))
        for prompt in palette_prompts(app):
            assert_plain(prompt)
        assert_inert(screen_segments(app))
        assert app.is_running


@AGENT
async def test_palette_search_highlights_plain_text(tmp_path: Path) -> None:
    """A typed query matches the names as sent (`opus` finds `Default [opus]`),
    and only the matched letters are highlighted."""
    app = hostile_app("v2-full", tmp_path)
    title = f"{MODEL}: {MINI}"
    async with app.run_test(size=WIDE) as pilot:
        await open_palette(pilot, app)
        await pilot.press(*"[opus]")
        await wait_for(
            pilot, lambda: any(t.startswith(shown(title)) for t in palette_text(app))
        )
        prompt = next(
            p for p in palette_prompts(app) if p.plain.startswith(shown(title))
        )
        assert_plain(prompt)
        marked = "".join(prompt.plain[s.start : s.end] for s in prompt.spans)
        assert "[opus]" in marked
        assert on_screen(app, title)
        assert_inert(screen_segments(app))


@AGENT
async def test_palette_runs_a_hostile_entry(tmp_path: Path) -> None:
    """Choosing an entry whose name holds markup sets that value (the click
    action in its name does nothing)."""
    app = hostile_app("v2-full", tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await open_palette(pilot, app)
        await pilot.press(*"Plan [@click")
        plan = f"{MODE}: {PLAN[0]}"
        await wait_for(
            pilot, lambda: any(t.startswith(shown(plan)) for t in palette_text(app))
        )
        await pilot.press("enter")

        def mode() -> object:
            assert app.store is not None
            options = app.store.config_options
            return next(o for o in options if o.get("configId") == "mode")[
                "currentValue"
            ]

        await wait_for(pilot, lambda: mode() == "plan")
        assert app.is_running


# --- screens and widgets fed by the agent ------------------------------------------

BOTH = pytest.mark.parametrize("version", ["v2", "v1"])


def notification_text(app: App[None]) -> list[str]:
    """Every notification (toast) as title and message."""
    return [f"{n.title}\n{n.message}" for n in app._notifications]


async def session_open(pilot: Pilot[None], app: AcpTuiApp) -> None:
    await wait_for(pilot, lambda: app.store is not None)
    app.query_one(PromptInput).focus()


@AGENT
@BOTH
async def test_settings_dialog_shows_names_as_sent(
    tmp_path: Path, version: str
) -> None:
    app = hostile_app(f"{version}-full", tmp_path)
    names = [mode[1] for mode in hostile.MODES[: 3 if version == "v2" else 2]]
    names += [mode[2] for mode in hostile.MODES[: 3 if version == "v2" else 2]]
    names += [MINI, LARGE, MAX]
    if version == "v2":
        names += [group[1] for group in hostile.MODEL_GROUPS]
        names += [level[1] for level in hostile.THOUGHT_LEVELS]
        names += [AUTO, f"{hostile.OSC8} {hostile.OPUS}"]  # the description wraps
    async with app.run_test(size=WIDE) as pilot:
        await session_open(pilot, app)
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfigScreen))
        await wait_for(pilot, lambda: on_screen(app, *names))
        assert_inert(screen_segments(app))


@AGENT
@BOTH
async def test_status_bar_shows_names_as_sent(tmp_path: Path, version: str) -> None:
    """The agent's title, the mode and model names and the session title."""
    app = hostile_app(f"{version}-full", tmp_path)
    parts = [
        hostile.TITLE,
        f"mode: {ASK[0]}",
        f"model: {LARGE}",
        hostile.SESSION_TITLE[:39],  # long titles are cut at 40 characters
    ]
    async with app.run_test(size=(240, 40)) as pilot:
        await session_open(pilot, app)
        await wait_for(pilot, lambda: on_screen(app, *parts))
        line = app.query_one(StatusBar).status_text()
        assert all(shown(part) in line for part in parts)
        assert_inert(screen_segments(app))


@AGENT
@BOTH
async def test_session_picker_shows_titles_as_sent(
    tmp_path: Path, version: str
) -> None:
    app = hostile_app(f"{version}-full", tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await session_open(pilot, app)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        titles = hostile.STORED_TITLES.values()
        await wait_for(pilot, lambda: on_screen(app, *titles))
        assert_inert(screen_segments(app))


@AGENT
async def test_delete_confirmation_shows_the_title_as_sent(tmp_path: Path) -> None:
    app = hostile_app("v2-full", tmp_path)
    title = hostile.STORED_TITLES["s-beta"]
    async with app.run_test(size=WIDE) as pilot:
        await session_open(pilot, app)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await wait_for(pilot, lambda: on_screen(app, title))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        while (row := picker.highlighted_session()) is None or (
            row.session_id != "s-beta"
        ):
            await pilot.press("down")
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDeleteScreen))
        await wait_for(pilot, lambda: on_screen(app, f"Delete session “{title}”?"))
        assert_inert(screen_segments(app))


@AGENT
@BOTH
async def test_sign_in_dialog_shows_methods_as_sent(
    tmp_path: Path, version: str
) -> None:
    app = hostile_app(f"{version}-auth", tmp_path)
    texts = [*hostile.AUTH_NAMES.values(), *hostile.AUTH_DESCRIPTIONS.values()]
    texts.append(f"Sign in to {hostile.TITLE}")
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen))
        await wait_for(pilot, lambda: on_screen(app, *texts))
        assert_inert(screen_segments(app))


@AGENT
async def test_login_notification_shows_the_output_as_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A terminal login's output (and the method's name) in the toast."""
    monkeypatch.setenv("FAKE_AGENT_AUTH_FILE", str(tmp_path / "auth.json"))
    app = hostile_app("v2-auth", tmp_path)
    output = hostile.LOGGED_IN_TEXT.strip()
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AuthScreen))
        await pilot.press("2")  # the terminal method
        await wait_for(
            pilot, lambda: any(shown(output) in n for n in notification_text(app))
        )
        method = hostile.AUTH_NAMES[base.TERMINAL_LOGIN]
        assert any(shown(method) in n for n in notification_text(app))
        await wait_for(pilot, lambda: words_on_screen(app, output))
        assert_inert(screen_segments(app))


@AGENT
@BOTH
async def test_command_list_shows_commands_as_sent(
    tmp_path: Path, version: str
) -> None:
    app = hostile_app(f"{version}-full", tmp_path)
    texts = [f"/{name}" for name, _, _ in hostile.COMMANDS]
    texts += [description for _, description, _ in hostile.COMMANDS]
    async with app.run_test(size=WIDE) as pilot:
        await session_open(pilot, app)
        await wait_for(
            pilot, lambda: len(app.query_one(PromptInput).completion.commands) > 1
        )
        await pilot.press("/")
        await wait_for(pilot, lambda: on_screen(app, *texts))
        assert_inert(screen_segments(app))


@AGENT
async def test_command_hint_shows_as_sent(tmp_path: Path) -> None:
    """A command's input hint, in the prompt's bottom border."""
    app = hostile_app("v2-full", tmp_path)
    hint = hostile.COMMANDS[1][2]
    assert hint is not None
    async with app.run_test(size=WIDE) as pilot:
        await session_open(pilot, app)
        await wait_for(
            pilot, lambda: len(app.query_one(PromptInput).completion.commands) > 1
        )
        await pilot.press(*"/search ")
        await wait_for(pilot, lambda: on_screen(app, hint))
        assert_inert(screen_segments(app))


@AGENT
async def test_tab_labels_show_names_as_sent(tmp_path: Path) -> None:
    """The agent's title and the session title, in the labels of two tabs."""
    app = hostile_app("v2-full", tmp_path)
    label = f"{shown(hostile.TITLE)} · {shown(hostile.SESSION_TITLE)[:23]}…"
    async with app.run_test(size=(240, 40)) as pilot:
        await session_open(pilot, app)
        await open_second_tab(pilot, app)

        def labels() -> list[Content]:
            return [tab.label for tab in app.query(Tab)]

        await wait_for(
            pilot,
            lambda: (
                [t.plain for t in labels()] == [f"1 {label}", f"2 {label} ●"]
                or [t.plain for t in labels()] == [f"1 {label}", f"2 {label}"]
            ),
        )
        for content in labels():
            assert_plain(content)
        await wait_for(pilot, lambda: on_screen(app, f"1 {label}"))
        assert_inert(screen_segments(app))


@AGENT
async def test_a_hidden_tabs_notification_shows_its_label_as_sent(
    tmp_path: Path,
) -> None:
    """The toast "another tab asks": that tab's label (agent and session title)."""
    app = hostile_app("v2-full", tmp_path)
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        _, second = await hidden_second_tab(pilot, app)
        second.runner.prompts.put_nowait((1, "hello"))
        await wait_for(
            pilot,
            lambda: any("needs your permission" in n for n in notification_text(app)),
        )
        asks = next(n for n in notification_text(app) if "needs your" in n)
        assert f"2 {shown(hostile.TITLE)}" in asks
        await wait_for(pilot, lambda: on_screen(app, "needs your permission"))
        assert_inert(screen_segments(app))


@AGENT
async def test_a_refusal_notification_shows_the_message_as_sent(
    tmp_path: Path,
) -> None:
    """The agent refuses a setting: its error message, in a toast."""
    app = hostile_app("v2-full", tmp_path)
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await session_open(pilot, app)
        app.set_config("model", hostile.REFUSED_VALUE)
        await wait_for(
            pilot,
            lambda: any(shown(hostile.REFUSAL) in n for n in notification_text(app)),
        )
        await wait_for(pilot, lambda: words_on_screen(app, hostile.REFUSAL))
        assert_inert(screen_segments(app))
        assert app.is_running


@AGENT
async def test_inspector_shows_methods_as_sent(tmp_path: Path) -> None:
    """An unknown notification's method, in the protocol inspector's rows."""
    app = hostile_app("v2-full", tmp_path)
    method = hostile.NOTIFICATION_METHOD
    async with app.run_test(size=WIDE) as pilot:
        await session_open(pilot, app)
        await pilot.press("f5")
        await wait_for(pilot, lambda: app.query_one(InspectorPanel).display)
        app.query_one("#inspector-filter", Input).value = "_hostile"
        await wait_for(pilot, lambda: on_screen(app, method))
        assert_inert(screen_segments(app))


@AGENT
async def test_theme_error_notification_shows_the_file_as_named(
    tmp_path: Path,
) -> None:
    """A bad theme file whose name holds markup (no `/` in a file name: an
    unclosed quote is as fatal) and an escape: the warning names it as it is
    (it raised MarkupError as the toast rendered)."""
    themes = tmp_path / "home" / "config" / "themes"
    themes.mkdir(parents=True)
    name = f'[link="evil] [@click=app.quit]quit [b]bold {hostile.ANSI}.toml'
    (themes / name).write_text("not toml [", encoding="utf-8")
    app = hostile_app("v2-full", tmp_path)
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await wait_for(
            pilot, lambda: any(shown(name) in n for n in notification_text(app))
        )
        await wait_for(pilot, lambda: words_on_screen(app, name))
        assert_inert(screen_segments(app))
        await wait_for(pilot, lambda: app.store is not None)
        assert app.is_running


# --- widgets fed directly (no agent process) ---------------------------------------


class StartApp(App[None]):
    """The start view alone, with the agent's stderr lines."""

    def compose(self) -> ComposeResult:
        yield StartView(lambda: STDERR)


STDERR = (f"warn {hostile.CLICK} {hostile.OSC8}", f"{hostile.CLOSE} {hostile.UPPER}")
"""What a hostile agent writes to stderr while it starts."""


async def test_start_view_shows_the_agent_and_its_stderr_as_sent() -> None:
    """The agent's title (once it introduced itself) and its stderr lines."""
    app = StartApp()
    async with app.run_test(size=WIDE) as pilot:
        view = app.query_one(StartView)
        view.starting(hostile.TITLE, f"agent {hostile.BOLD}", "Opening a session with")
        await wait_for(pilot, lambda: on_screen(app, *STDERR))
        assert on_screen(app, f"Opening a session with {hostile.TITLE}…")
        assert on_screen(app, f"$ agent {hostile.BOLD}")
        assert_inert(screen_segments(app))


DIFF_PATH = f"/p/{hostile.CLOSE}{hostile.JS_LINK}{hostile.ANSI}.py"


async def test_diff_card_and_screen_show_the_path_as_sent() -> None:
    """A diff's path (agent data): in the card, then in the full-screen title."""
    item: JSONObject = {
        "type": "diff",
        "path": DIFF_PATH,
        "oldText": "old\n",
        "newText": "new\n",
    }
    app = CardsApp(card_store(item), panel=False)
    async with app.run_test(size=WIDE) as pilot:
        (segment,) = app.card("t1").query(DiffSegment)
        await wait_for(pilot, lambda: on_screen(app, DIFF_PATH))
        assert_inert(screen_segments(app))
        segment.focus()
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen))
        await wait_for(pilot, lambda: on_screen(app, f"diff · {DIFF_PATH}"))
        assert_inert(screen_segments(app))


async def test_terminal_card_and_screen_show_the_command_as_sent() -> None:
    """A terminal's command and folder (agent data in v2): in the card's
    header, then in the full-screen title."""
    command, cwd = f"make {hostile.CLICK} {hostile.ANSI}", f"/p/{hostile.CLOSE}"
    store = SessionStore("terminal")
    store.apply_many(
        [
            ops.PatchToolCall(
                "t1",
                title="Run",
                kind="execute",
                status="in_progress",
                content=[{"type": "terminal", "terminalId": "term"}],
            ),
            ops.PatchTerminal("term", command=command, cwd=cwd),
        ]
    )
    title = f"$ {command}  (in {cwd})"
    app = CardsApp(store, panel=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(pilot, lambda: on_screen(app, title))
        assert_inert(screen_segments(app))
        await pilot.click(".terminal-header")
        await wait_for(pilot, lambda: isinstance(app.screen, TerminalScreen))
        await wait_for(pilot, lambda: on_screen(app, title))
        assert_inert(screen_segments(app))


MARKUP_FILE = "[@click=app.quit]quit [b]bold Default [opus] [link=x]y.txt"
ESCAPE_FILE = "\x1b[31mred\x1b[0m \x1b]8;;https:evil\x1b\\osc8\x1b]8;;\x1b\\\u202e.txt"
"""Files the agent may have written into the project (no `/` in a file name)."""


@AGENT
async def test_file_completion_shows_file_names_as_they_are(tmp_path: Path) -> None:
    """`@` lists the project's files: a name with markup reads as it is; one
    with escapes is not offered (it would reach the terminal raw, in the list
    and in the prompt once chosen)."""
    project = tmp_path / "project"
    project.mkdir()
    for name in (MARKUP_FILE, ESCAPE_FILE):
        (project / name).write_text("x", encoding="utf-8")
    app = hostile_app("v2-full", project)
    async with app.run_test(size=WIDE) as pilot:
        await session_open(pilot, app)
        await pilot.press("@")
        await wait_for(pilot, lambda: on_screen(app, MARKUP_FILE))
        completion = app.query_one(PromptInput).completion
        options = completion.option_list.options
        offered = [o.value for o in options if isinstance(o, DropdownItem)]
        assert offered == [MARKUP_FILE]
        assert_inert(screen_segments(app))


class HostApp(App[None]):
    """A bare app to push a screen onto or mount a widget in."""


AGENT_ERROR = f"list failed {hostile.JS_LINK} {hostile.CLOSE} {hostile.ANSI}"
"""An agent's error message."""


async def test_session_picker_shows_the_agents_error_as_sent() -> None:
    """The agent could not list its sessions: its message, in the picker."""

    async def load() -> list[SessionSummary]:
        raise RuntimeError(AGENT_ERROR)

    app = HostApp()
    async with app.run_test(size=WIDE) as pilot:
        app.push_screen(SessionPickerScreen(load))
        failure = f"Could not load sessions: {AGENT_ERROR}"
        await wait_for(pilot, lambda: words_on_screen(app, failure))
        assert_inert(screen_segments(app))


async def test_banner_shows_the_agents_error_as_sent() -> None:
    """A failed turn or connection: the agent's message and its stderr lines."""
    app = HostApp()
    async with app.run_test(size=WIDE) as pilot:
        await app.mount(Banner(f"The turn failed: {AGENT_ERROR}", STDERR))
        await wait_for(pilot, lambda: on_screen(app, AGENT_ERROR, *STDERR))
        assert_inert(screen_segments(app))


async def test_tool_call_locations_show_paths_as_sent() -> None:
    """The files a tool call touches (agent data), under its title."""
    store = SessionStore("locations")
    path = f"/p/{hostile.CLICK}{hostile.OSC8}"
    store.apply(
        ops.PatchToolCall(
            "t1",
            title="Read",
            kind="read",
            status="completed",
            locations=[{"path": path, "line": 3}],
        )
    )
    app = CardsApp(store, panel=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(pilot, lambda: on_screen(app, f"↳ {path}:3"))
        assert_inert(screen_segments(app))
