"""Pilot tests of the prompt editor: submit, history, newlines, `/` and `@`."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual import on
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.pilot import Pilot

from acp_tui.client.prompt_content import PromptCapabilities
from acp_tui.storage.history import PromptHistory
from acp_tui.store.values import JSONObject
from acp_tui.ui.widgets import prompt_completion
from acp_tui.ui.widgets.prompt_completion import (
    CompletionContext,
    PromptCompletion,
    SlashCommand,
    completion_context,
    parse_commands,
)
from acp_tui.ui.widgets.prompt_input import PLACEHOLDER, PromptInput
from tests.ui.helpers import wait_for

SIZE = (80, 24)

COMMANDS: list[JSONObject] = [
    {"name": "plan", "description": "Make a plan", "input": {"hint": "what to plan"}},
    {"name": "help", "description": "Show help"},
    {"name": "plugins", "description": "List plugins\x1b[31m"},
]


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print()\n", "utf-8")
    (root / "my notes.md").write_text("notes\n", "utf-8")
    (root / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("", "utf-8")
    return root


class PromptApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [("escape", "escape", "Escape")]

    def __init__(
        self,
        *,
        history: PromptHistory | None = None,
        cwd: Path | None = None,
        commands: Sequence[JSONObject] = (),
    ) -> None:
        super().__init__()
        self._history = history
        self._cwd = cwd
        self._commands = commands
        self.submitted: list[str] = []
        self.escapes = 0

    def compose(self) -> ComposeResult:
        yield PromptInput(id="prompt", history=self._history, cwd=self._cwd)

    def on_mount(self) -> None:
        prompt = self.query_one(PromptInput)
        prompt.set_commands(self._commands)
        prompt.focus()

    def action_escape(self) -> None:
        self.escapes += 1

    @on(PromptInput.Submitted)
    def record(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message.text)


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*text)


def prompt_of(app: App[None]) -> PromptInput:
    return app.query_one(PromptInput)


def shown(completion: PromptCompletion) -> list[str]:
    """The values in the dropdown."""
    option_list = completion.option_list
    values = []
    for index in range(option_list.option_count):
        option = option_list.get_option_at_index(index)
        values.append(getattr(option, "value", ""))
    return values


def shown_text(completion: PromptCompletion) -> list[str]:
    option_list = completion.option_list
    return [
        str(option_list.get_option_at_index(index).prompt)
        for index in range(option_list.option_count)
    ]


# -- submit, newlines, placeholder --------------------------------------------------


async def test_enter_submits_and_clears_and_blank_is_ignored() -> None:
    app = PromptApp()
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        assert prompt.placeholder == PLACEHOLDER
        assert "/ for commands, @ for files" in str(PLACEHOLDER)
        await pilot.press("enter", "space", "enter")
        assert app.submitted == []
        prompt.clear()
        await type_text(pilot, "hi there")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.submitted == ["hi there"])
        assert prompt.text == ""


@pytest.mark.parametrize("key", ["shift+enter", "ctrl+j"])
async def test_newline_keys_insert_a_newline(key: str) -> None:
    app = PromptApp()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "a")
        await pilot.press(key)
        await type_text(pilot, "b")
        assert prompt_of(app).text == "a\nb"
        assert app.submitted == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.submitted == ["a\nb"])


# -- history ------------------------------------------------------------------------


async def test_history_is_persisted_across_app_instances(project: Path) -> None:
    first = PromptApp(history=PromptHistory.for_project(project))
    async with first.run_test(size=SIZE) as pilot:
        await type_text(pilot, "first")
        await pilot.press("enter")
        await pilot.press("ctrl+j")  # a blank prompt: neither sent nor recorded
        await pilot.press("enter")
        assert prompt_of(first).text == "\n"
        prompt_of(first).clear()
        await type_text(pilot, "two")
        await pilot.press("shift+enter")
        await type_text(pilot, "lines")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(first.submitted) == 2)

    second = PromptApp(history=PromptHistory.for_project(project))
    async with second.run_test(size=SIZE) as pilot:
        prompt = prompt_of(second)
        await pilot.press("up")
        assert prompt.text == "two\nlines"
        assert prompt.cursor_location == (1, 5)
        await pilot.press("up")  # moves to the first line of the entry
        assert prompt.text == "two\nlines"
        await pilot.press("up")
        assert prompt.text == "first"


async def test_up_down_browse_history_and_restore_the_draft(project: Path) -> None:
    history = PromptHistory.for_project(project)
    for text in ("one", "two"):
        history.add(text)
    app = PromptApp(history=history)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        await type_text(pilot, "draft")
        await pilot.press("up")
        assert prompt.text == "two"
        await pilot.press("up")
        assert prompt.text == "one"
        await pilot.press("up")  # oldest: stays (the cursor goes to the start)
        assert prompt.text == "one"
        await pilot.press("end")
        await type_text(pilot, "!")  # an edit of the recalled entry is kept
        await pilot.press("down")
        assert prompt.text == "two"
        await pilot.press("up")
        assert prompt.text == "one!"
        await pilot.press("down", "down")
        assert prompt.text == "draft"
        await pilot.press("down")  # not browsing: an ordinary cursor move
        assert prompt.text == "draft"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.submitted == ["draft"])
        assert list(history.entries) == ["one", "two", "draft"]


async def test_up_inside_a_multiline_draft_moves_the_cursor(project: Path) -> None:
    history = PromptHistory.for_project(project)
    history.add("old")
    app = PromptApp(history=history)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        await type_text(pilot, "a")
        await pilot.press("ctrl+j")
        await type_text(pilot, "b")
        await pilot.press("up")
        assert prompt.text == "a\nb"
        assert prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert prompt.text == "old"
        await pilot.press("down")
        assert prompt.text == "a\nb"


async def test_recalled_command_does_not_open_completion(project: Path) -> None:
    history = PromptHistory.for_project(project)
    history.add("/pl")
    history.add("later")
    app = PromptApp(history=history, commands=COMMANDS)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        await pilot.press("up", "up")
        assert prompt.text == "/pl"
        await pilot.pause()
        assert not prompt.completion.is_open
        await pilot.press("down")  # browses history, not the dropdown
        assert prompt.text == "later"


# -- slash commands -----------------------------------------------------------------


async def test_slash_completion_selects_a_command_and_shows_its_hint() -> None:
    app = PromptApp(commands=COMMANDS)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        completion = prompt.completion
        await type_text(pilot, "/")
        await wait_for(pilot, lambda: completion.is_open)
        assert shown(completion) == ["/plan", "/help", "/plugins"]
        texts = shown_text(completion)
        assert texts[0] == "/plan     Make a plan"
        assert texts[2] == "/plugins  List plugins\\x1b[31m"  # escaped, not styled

        await type_text(pilot, "pl")
        await wait_for(pilot, lambda: shown(completion) == ["/plan", "/plugins"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: prompt.text == "/plan ")
        assert app.submitted == []
        assert not completion.is_open
        assert prompt.command_hint == "what to plan"
        assert prompt.border_subtitle == "what to plan"

        await type_text(pilot, "a trip")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.submitted == ["/plan a trip"])
        assert not prompt.border_subtitle


async def test_dropdown_keys_navigate_and_escape_closes() -> None:
    app = PromptApp(commands=COMMANDS)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        completion = prompt.completion
        await type_text(pilot, "/")
        await wait_for(pilot, lambda: completion.is_open)
        await pilot.press("down", "down", "up")
        assert completion.option_list.highlighted == 1
        await pilot.press("tab")
        await wait_for(pilot, lambda: prompt.text == "/help ")
        assert prompt.command_hint is None
        prompt.clear()
        await type_text(pilot, "/he")
        await wait_for(pilot, lambda: completion.is_open)
        await pilot.press("escape")
        assert not completion.is_open
        assert app.escapes == 0  # the app's Esc binding did not fire
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.escapes == 1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.submitted == ["/he"])


async def test_typing_plain_text_leaves_the_hidden_dropdown_alone() -> None:
    """Each keystroke rebuilt the dropdown's list twice, clearing it even when it
    was empty and stayed so: a refresh of a hidden widget, after which Textual
    arranged the whole screen again to answer where a widget is."""
    app = PromptApp(commands=COMMANDS)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        completion = prompt.completion
        option_list = completion.option_list
        refreshes = 0
        refresh = option_list.refresh

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal refreshes
            refreshes += 1
            return refresh(*args, **kwargs)

        option_list.refresh = counted  # type: ignore[method-assign]
        await type_text(pilot, "plain words, no token")
        await pilot.press("backspace", "left", "right")
        await wait_for(pilot, lambda: prompt.text == "plain words, no toke")
        assert refreshes == 0
        assert not completion.is_open
        # The dropdown still opens on a token, and empties when the token goes.
        prompt.clear()
        await type_text(pilot, "/he")
        await wait_for(pilot, lambda: completion.is_open)
        assert shown(completion) == ["/help"]
        await pilot.press("backspace", "backspace", "backspace")
        await wait_for(pilot, lambda: prompt.text == "" and not completion.is_open)
        assert option_list.option_count == 0


async def test_a_key_typed_is_painted_once() -> None:
    """The prompt paints a key at once (`_paint_now`); setting the border's
    subtitle to the same nothing after every key painted it a second time."""
    app = PromptApp(commands=COMMANDS)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        prompt.cursor_blink = False
        await pilot.press("a")
        frames = 0
        display = app._display

        def counted(screen: Any, renderable: Any) -> None:
            nonlocal frames
            frames += renderable is not None
            display(screen, renderable)

        app._display = counted  # type: ignore[method-assign]
        keys = "some words"
        for key in keys:
            await pilot.press(key)
        await wait_for(pilot, lambda: prompt.text == "a" + keys)
        await pilot.pause()
        assert frames <= len(keys) + 1
        # A command's hint still shows, and goes with the command.
        prompt.clear()
        await type_text(pilot, "/plan ")
        await wait_for(pilot, lambda: str(prompt.border_subtitle) == "what to plan")
        await pilot.press("ctrl+u")
        await wait_for(pilot, lambda: prompt.text == "" and not prompt.border_subtitle)


async def test_a_paragraph_of_a_description_shows_on_one_row() -> None:
    """claude-agent-acp describes a skill in a paragraph on one line: it wrapped
    into most of the dropdown's rows. It shows cut to fit, with an ellipsis."""
    paragraph = "Use this skill whenever you are about to create a chart. " * 6
    commands: list[JSONObject] = [
        {"name": "dataviz", "description": paragraph},
        {"name": "help", "description": "Show help"},
    ]
    app = PromptApp(commands=commands)
    async with app.run_test(size=(120, 24)) as pilot:
        completion = prompt_of(app).completion
        await type_text(pilot, "/")
        await wait_for(pilot, lambda: completion.is_open)
        option_list = completion.option_list
        await wait_for(pilot, lambda: option_list.virtual_size.height == 2)
        rows = [strip.text for strip in app.screen._compositor.render_strips()]
        dataviz = [row[row.index("/dataviz") :] for row in rows if "/dataviz" in row]
        helps = [row[row.index("/help") :] for row in rows if "/help" in row]
        assert len(dataviz) == 1
        assert dataviz[0].startswith("/dataviz  Use this skill whenever")
        assert "…" in dataviz[0]
        assert dataviz[0].count("Use this skill") < 6
        assert len(helps) == 1
        assert helps[0].startswith("/help     Show help ")
        # A file's path is not cut: the dropdown is a command list no more.
        await pilot.press("backspace")
        await wait_for(pilot, lambda: not completion.is_open)
        assert not completion.has_class("-commands")


async def test_slash_inside_text_is_not_a_command() -> None:
    app = PromptApp(commands=COMMANDS)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        await type_text(pilot, "a /pl")
        await pilot.pause()
        assert not prompt.completion.is_open
        prompt.clear()
        await type_text(pilot, "/plan x")
        await pilot.pause()
        assert not prompt.completion.is_open


# -- @ files ------------------------------------------------------------------------


async def test_at_completion_lists_files_and_inserts_the_path(project: Path) -> None:
    app = PromptApp(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        completion = prompt.completion
        await type_text(pilot, "look at @")
        await wait_for(pilot, lambda: completion.is_open)
        assert sorted(shown(completion)) == ["my notes.md", "src/main.py"]
        await type_text(pilot, "ma")
        await wait_for(pilot, lambda: shown(completion) == ["src/main.py"])
        await pilot.press("tab")
        await wait_for(pilot, lambda: prompt.text == "look at @src/main.py ")
        assert not completion.is_open

        await type_text(pilot, "and @my")
        await wait_for(pilot, lambda: completion.is_open)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: prompt.text == 'look at @src/main.py and @"my notes.md" '
        )
        assert app.submitted == []


async def test_at_completion_offers_images_only_when_supported(project: Path) -> None:
    app = PromptApp(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        completion = prompt.completion
        await type_text(pilot, "@")
        await wait_for(pilot, lambda: completion.is_open)
        assert "pic.png" not in shown(completion)
        await type_text(pilot, "pic")
        await wait_for(pilot, lambda: not completion.is_open)

        prompt.set_capabilities(PromptCapabilities(image=True))
        prompt.clear()
        await type_text(pilot, "@pi")
        await wait_for(pilot, lambda: completion.is_open)
        assert shown(completion) == ["pic.png"]


async def test_the_file_names_are_checked_off_the_event_loop(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether each name can be drawn is checked in the scan's thread: in a folder
    of thousands of files the check took 55 ms of the event loop at every start."""
    checked_in: list[bool] = []
    check = prompt_completion._drawable

    def recording(path: str) -> bool:
        checked_in.append(threading.current_thread() is threading.main_thread())
        return check(path)

    monkeypatch.setattr(prompt_completion, "_drawable", recording)
    app = PromptApp(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        completion = prompt_of(app).completion
        await type_text(pilot, "@")
        await wait_for(pilot, lambda: completion.is_open)
        assert sorted(shown(completion)) == ["my notes.md", "src/main.py"]
    assert checked_in  # every file was checked
    assert not any(checked_in)  # none of them on the event loop's thread


async def test_without_cwd_there_is_no_file_completion() -> None:
    app = PromptApp()
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        await type_text(pilot, "@")
        await pilot.pause()
        assert not prompt.completion.is_open
        assert list(prompt.completion.files) == []


async def test_completion_in_the_middle_keeps_the_rest(project: Path) -> None:
    app = PromptApp(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        completion = prompt.completion
        await type_text(pilot, " tail")
        prompt.move_cursor((0, 0))
        await type_text(pilot, "@ma")
        await wait_for(pilot, lambda: completion.is_open)
        await pilot.press("tab")
        await wait_for(pilot, lambda: prompt.text == "@src/main.py tail")
        assert prompt.cursor_location == (0, len("@src/main.py "))

        prompt.clear()
        await type_text(pilot, '@"my')
        await wait_for(pilot, lambda: shown(completion)[:1] == ["my notes.md"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: prompt.text == '@"my notes.md" ')


async def test_files_already_mentioned_are_not_offered_again(project: Path) -> None:
    app = PromptApp(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        completion = prompt_of(app).completion
        await type_text(pilot, "@src/main.py @")
        await wait_for(pilot, lambda: completion.is_open)
        assert shown(completion) == ["my notes.md"]


async def test_stale_file_index_is_rescanned(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_completion, "FILE_INDEX_TTL", 0.0)
    app = PromptApp(cwd=project)
    async with app.run_test(size=SIZE) as pilot:
        prompt = prompt_of(app)
        completion = prompt.completion
        await type_text(pilot, "@")
        await wait_for(pilot, lambda: completion.is_open)
        assert "zzz.txt" not in shown(completion)
        await pilot.press("escape")
        prompt.clear()
        (project / "zzz.txt").write_text("new", "utf-8")
        await type_text(pilot, "@zz")
        await wait_for(pilot, lambda: shown(completion) == ["zzz.txt"])


# -- pure helpers -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cursor", "expected"),
    [
        ("/", 1, CompletionContext("command", 0, 1, "")),
        ("/pl", 2, CompletionContext("command", 0, 3, "p")),
        ("/plan x", 7, None),
        (" /plan", 6, None),
        ("a/b", 3, None),
        ("@", 1, CompletionContext("file", 0, 1, "")),
        ("see @sr/x rest", 7, CompletionContext("file", 4, 9, "sr")),
        ('x @"my no', 9, CompletionContext("file", 2, 9, "my no")),
        ('@"my notes.md" y', 4, CompletionContext("file", 0, 14, "my")),
        ('@"a b" ', 7, None),
        ("me@host", 7, None),
        ("line\n@src", 9, CompletionContext("file", 5, 9, "src")),
        ("/cmd\n@f", 7, CompletionContext("file", 5, 7, "f")),
    ],
)
def test_completion_context(
    text: str, cursor: int, expected: CompletionContext | None
) -> None:
    assert completion_context(text, cursor) == expected


def test_parse_commands_skips_bad_entries_and_escapes_text() -> None:
    commands = parse_commands(
        [
            {"name": "ok", "description": "Fine", "input": {"hint": "args"}},
            {"name": "/slashed", "description": 3, "input": None},
            {"name": "two words", "description": "no"},
            {"name": "", "description": "no"},
            {"description": "no name"},
            {"name": "esc\x1b", "description": "bell\x07", "input": {"hint": ""}},
        ]
    )
    assert commands == (
        SlashCommand("ok", "Fine", "args"),
        SlashCommand("slashed", "", None),
        SlashCommand("esc\\x1b", "bell\\x07", None),
    )
