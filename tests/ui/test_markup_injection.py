"""Agent names never reach Textual's markup parser: one test per place they show.

`tests/fakes/hostile_agent.py` plays the *-full scenarios with every name made
hostile: Textual markup (`[link='javascript:...']`, `[@click=app.quit]`, a stray
`[/]`, `[b]`), benign brackets (`Default [opus]`), tags Textual's own `escape`
misses (`[$accent]`, `[B]`), an OSC 8 hyperlink and an SGR sequence. Each test
opens one place (the command palette, the settings dialog, the status bar, the
session picker, the sign-in dialog, the slash-command list, tab labels,
notifications...) and checks what is on screen:

* the name reads as the agent sent it, brackets kept, controls escaped
  (`printable`): nothing was parsed as markup, and a `[/]` crashed nothing;
* no rendered segment carries a hyperlink, a click action or a control
  character (`assert_inert`), so nothing reaches the real terminal as OSC 8.

`tests/faults/test_injection.py` covers the conversation itself (messages,
thoughts, tool calls, plans, permission requests, notices, the crash banner)
through the bytes written to a terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.app import App, SystemCommand
from textual.command import CommandList, CommandPalette
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import Screen

from acp_tui.protocol.framing import printable
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import AcpTuiApp, make_app
from tests.fakes import hostile_agent as hostile
from tests.ui.test_app import _home, wait_for

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


PIECE_IDS = "js-link click close bold opus variable upper osc8 ansi".split()


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


MODE = hostile.OPTION_NAMES["mode"]
MODEL = hostile.OPTION_NAMES["model"]
THINKING = hostile.OPTION_NAMES["thought_level"]
AUTO = hostile.OPTION_NAMES["auto_approve"]

CONFIG_ENTRIES = {
    # (title, help) of values that are not current. v1 has a model option and
    # modes (which the client names "Mode").
    "v2": (
        (f"{MODE}: Code {hostile.CLOSE}", f"Edit {hostile.OSC8}"),
        (f"{MODE}: Plan {hostile.CLICK}", f"{hostile.OPUS} plans"),
        (f"{MODEL}: {hostile.OPUS}", f"Set {MODEL} to {hostile.OPUS}"),
        (f"{THINKING}: Low {hostile.CLOSE}", f"Set {THINKING} to Low {hostile.CLOSE}"),
        (f"{AUTO}: on", f"Turn {AUTO} on"),
    ),
    "v1": (
        (f"Mode: Code {hostile.CLOSE}", f"Edit {hostile.OSC8}"),
        (f"{MODEL}: {hostile.OPUS}", f"Set {MODEL} to {hostile.OPUS}"),
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
    title = f"{MODEL}: {hostile.OPUS}"
    async with app.run_test(size=WIDE) as pilot:
        await open_palette(pilot, app)
        await pilot.press(*"[opus]")
        await wait_for(
            pilot, lambda: any(t.startswith(shown(title)) for t in palette_text(app))
        )
        prompt = next(p for p in palette_prompts(app) if p.plain.startswith(title))
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
        plan = f"{MODE}: Plan {hostile.CLICK}"
        await wait_for(
            pilot, lambda: any(t.startswith(plan) for t in palette_text(app))
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
