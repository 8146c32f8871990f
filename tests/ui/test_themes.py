"""Themes: built-ins, TOML theme files (good and bad), registration, switching."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.theme import Theme

import acp_tui
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.ui.themes import (
    ACP_DARK,
    ACP_LIGHT,
    BUILTIN_THEMES,
    THEME_TOKENS,
    load_themes,
    register_themes,
    theme_dirs,
    theme_variable_defaults,
    with_token_defaults,
)
from acp_tui.ui.widgets.permission_view import PermissionView
from acp_tui.ui.widgets.tool_call_view import ToolCallView

SHIPPED = Path(acp_tui.__file__).resolve().parent.parent / "themes"
SIZE = (80, 20)

GOOD = """
name = "my-theme"
dark = false
primary = "#336699"
background = "#FAFAFA"

[variables]
diff-added = "#00AA00"
footer-key-foreground = "#336699"
input-selection-background = "#336699 35%"
block-cursor-text-style = "bold"
"""


def write(directory: Path, name: str, text: str | bytes) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


class ThemedApp(App[None]):
    """An app with a tool-call card and a permission record."""

    AUTO_FOCUS = None

    def __init__(
        self,
        *,
        register: bool = True,
        hook: bool = True,
        dirs: list[Path] | None = None,
    ) -> None:
        self.hook = hook  # read by the App constructor already
        super().__init__()
        self.errors = register_themes(self, dirs=dirs or []) if register else []
        self.store = SessionStore("s")
        self.store.apply_many(
            [
                ops.PatchToolCall("t1", title="Edit", status="completed"),
                ops.AddPermission("p1", "Run", options=[]),
            ]
        )

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme) if self.hook else {}

    def compose(self) -> ComposeResult:
        tool_call = self.store.tool_call("t1")
        permission = self.store.permission("p1")
        assert tool_call is not None
        assert permission is not None
        yield ToolCallView(self.store, tool_call)
        yield PermissionView(permission)

    def border_colour(self) -> Color:
        return self.query_one(ToolCallView).styles.border_left[1]

    def token(self, name: str) -> Color:
        return Color.parse(self.theme_variables[name])


# --- built-ins and shipped files -------------------------------------------


@pytest.mark.parametrize("theme", [ACP_DARK, ACP_LIGHT], ids=lambda t: t.name)
def test_builtin_themes_set_every_token_to_a_colour(theme: Theme) -> None:
    assert set(THEME_TOKENS) <= set(theme.variables)
    for token in THEME_TOKENS:
        Color.parse(theme.variables[token])
    assert with_token_defaults(theme) is theme
    assert BUILTIN_THEMES[theme.name] is theme


def test_shipped_theme_files_load_without_errors() -> None:
    themes, errors = load_themes([SHIPPED])
    assert errors == []
    names = {theme.name for theme in themes}
    assert names == {"acp-solarized-dark", "paper-light"}
    for theme in themes:
        assert set(THEME_TOKENS) <= set(theme.variables)
        theme.to_color_system().generate()


def test_theme_dirs_are_checkout_then_user_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path))
    assert theme_dirs() == [SHIPPED, tmp_path / "config" / "themes"]


# --- theme files ------------------------------------------------------------


def test_good_file_loads_and_missing_tokens_are_derived(tmp_path: Path) -> None:
    write(tmp_path, "mine.toml", GOOD)
    themes, errors = load_themes([tmp_path])
    assert errors == []
    (theme,) = themes
    assert theme.name == "my-theme"
    assert theme.dark is False
    assert theme.primary == "#336699"
    assert theme.variables["diff-added"] == "#00AA00"
    assert theme.variables["footer-key-foreground"] == "#336699"
    derived = theme_variable_defaults(theme)
    assert theme.variables["tool-failed"] == derived["tool-failed"]


def test_missing_directories_are_skipped(tmp_path: Path) -> None:
    assert load_themes([tmp_path / "nope"]) == ([], [])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('name = "x"\nprimary = ', "invalid TOML"),
        ('name = "x"', "primary: Field required"),
        ('name = "x"\nprimary = "#12345"', "not a colour"),
        ('name = "x"\nprimary = "red"\nsparkle = true', "sparkle: Extra inputs"),
        ('name = "has space"\nprimary = "red"', "name: String should match"),
        ('name = 3\nprimary = "red"', "name: Input should be a valid string"),
        ('name = "x"\nprimary = "red"\ndark = "yes"', "dark: Input should be"),
        (
            'name = "x"\nprimary = "red"\n[variables]\ndiff-added = "bold"',
            "not a colour: 'bold'",
        ),
        (
            'name = "x"\nprimary = "red"\n[variables]\nmy-style = "$x"',
            "bad value for variable 'my-style'",
        ),
        (
            'name = "x"\nprimary = "red"\n[variables]\n"bad name!" = "red"',
            "bad variable name",
        ),
        (
            'name = "x"\nprimary = "red"\n[variables]\nborder = "thick"',
            "bad colour for variable 'border'",
        ),
        (b'name = "x\xff"\nprimary = "red"', "cannot read"),
    ],
)
def test_bad_file_is_reported_with_its_name(
    tmp_path: Path, text: str | bytes, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    write(tmp_path, "a-good.toml", GOOD)
    bad = write(tmp_path, "broken.toml", text)
    with caplog.at_level(logging.WARNING, logger="acp_tui.ui.themes"):
        themes, errors = load_themes([tmp_path])
    assert [theme.name for theme in themes] == ["my-theme"]
    (error,) = errors
    assert str(bad) in error
    assert reason in error
    assert [record.getMessage() for record in caplog.records] == [error]


def test_later_directory_replaces_a_theme_of_the_same_name(tmp_path: Path) -> None:
    write(tmp_path / "shipped", "t.toml", 'name = "t"\nprimary = "red"')
    write(tmp_path / "user", "t.toml", 'name = "t"\nprimary = "blue"')
    themes, errors = load_themes([tmp_path / "shipped", tmp_path / "user"])
    assert errors == []
    assert [(t.name, t.primary) for t in themes] == [("t", "blue")]


def test_every_stock_theme_gets_usable_tokens() -> None:
    for theme in App[None]().available_themes.values():
        defaults = theme_variable_defaults(theme)
        assert set(defaults) == set(THEME_TOKENS)
        for value in defaults.values():
            Color.parse(value)


# --- registration and switching ---------------------------------------------


async def test_register_reports_bad_files_and_adds_user_themes(tmp_path: Path) -> None:
    write(tmp_path, "mine.toml", GOOD)
    write(tmp_path, "zz-bad.toml", "not toml at all [")
    app = ThemedApp(dirs=[tmp_path])
    assert len(app.errors) == 1
    assert "zz-bad.toml" in app.errors[0]
    assert {"acp-dark", "acp-light", "my-theme"} <= set(app.available_themes)
    for theme in app.available_themes.values():
        assert set(THEME_TOKENS) <= set(theme.variables), theme.name
    async with app.run_test(size=SIZE) as pilot:
        app.theme = "my-theme"
        await pilot.pause()
        assert app.theme_variables["diff-added"] == "#00AA00"


async def test_app_switches_theme_and_cards_follow() -> None:
    app = ThemedApp()
    async with app.run_test(size=SIZE) as pilot:
        for name in ("acp-dark", "acp-light", "nord", "textual-light", "ansi-dark"):
            app.theme = name
            await pilot.pause()
            expected = app.token("tool-completed")
            theme = app.current_theme
            if name in BUILTIN_THEMES:
                assert expected == Color.parse(theme.variables["tool-completed"])
            else:
                assert (
                    app.theme_variables["tool-completed"]
                    == (theme_variable_defaults(theme)["tool-completed"])
                )
            assert app.border_colour() == expected
            # Content styles resolve against the current theme, too.
            style = app.stylesheet.parse_style("$diff-added on $diff-added-background")
            assert style.foreground == app.token("diff-added")
            assert style.background == app.token("diff-added-background")


@pytest.mark.parametrize("theme", ["textual-dark", "gruvbox", "textual-light"])
async def test_tokens_resolve_under_a_stock_theme_with_the_hook_only(
    theme: str,
) -> None:
    app = ThemedApp(register=False)
    app.theme = theme
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.current_theme.name == theme
        assert "acp-dark" not in app.available_themes
        assert app.border_colour() == app.token("tool-completed")


async def test_tokens_resolve_under_a_stock_theme_with_registration_only() -> None:
    app = ThemedApp(hook=False)
    app.theme = "dracula"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.current_theme.name == "dracula"
        assert app.border_colour() == app.token("tool-completed")
        assert app.token("permission-waiting") == Color.parse(
            theme_variable_defaults(app.current_theme)["permission-waiting"]
        )
