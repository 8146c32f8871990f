"""Themes: the built-in `acp-dark` / `acp-light`, user TOML themes, custom tokens.

Widgets never use literal colours. They use Textual's theme variables (`$primary`,
`$error`, ...) and the custom tokens listed in `THEME_TOKENS` (`$tool-completed`,
`$diff-added`, ...), in their `DEFAULT_CSS` and in the styles of `Content` spans.

Every theme must define the custom tokens, or CSS that uses them fails to parse.
Two mechanisms make sure of it:

* `register_themes(app)` registers the built-ins and the user themes, and fills in
  the tokens of every theme the app knows at that moment (Textual's stock themes
  included), derived from the theme's own colours.
* `theme_variable_defaults(theme)` derives the tokens for any theme; the app returns
  it from `App.get_theme_variable_defaults()`, which covers themes registered later.

User themes are TOML files, one theme per file (see `ThemeFile`), read from
`theme_dirs()`: the shipped examples (the checkout's top-level `themes/`, installed
as `acp_tui/themes`) and `paths.user_themes_dir()`. A bad file never stops the app:
it is reported as an error message naming the file, and logged.
"""

from __future__ import annotations

import functools
import logging
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.css.tokenize import tokenize_values
from textual.theme import Theme

import acp_tui
from acp_tui.storage import paths

__all__ = [
    "ACP_DARK",
    "ACP_LIGHT",
    "BUILTIN_THEMES",
    "DEFAULT_THEME",
    "THEME_TOKENS",
    "ThemeFile",
    "ThemeHost",
    "load_themes",
    "register_themes",
    "theme_dirs",
    "theme_names",
    "theme_variable_defaults",
    "unknown_theme_message",
    "with_token_defaults",
]

_log = logging.getLogger(__name__)

THEME_TOKENS: Final[dict[str, str]] = {
    "tool-pending": "foreground-muted",
    "tool-running": "text-primary",
    "tool-completed": "text-success",
    "tool-failed": "text-error",
    "tool-cancelled": "text-warning",
    "diff-added": "text-success",
    "diff-added-background": "success-muted",
    "diff-removed": "text-error",
    "diff-removed-background": "error-muted",
    "diff-hunk": "text-accent",
    "permission-allowed": "text-success",
    "permission-rejected": "text-error",
    "permission-waiting": "text-warning",
}
"""The custom tokens widgets use, each mapped to the generated Textual colour it
defaults to in a theme that does not set it.

* `tool-*`: tool-call statuses (`pending`, `in_progress` = running, `completed`,
  `failed`, `cancelled`); plan entries use the first three too.
* `diff-*`: added / removed patch lines (text and background) and hunk headers.
* `permission-*`: the outcome of a permission request (or still waiting).

Every value must be a plain colour (`#rrggbb`, `rgb(...)`, a colour name), because
widgets also use them in `Content` styles such as `$diff-added on
$diff-added-background`.
"""

DEFAULT_THEME: Final = "acp-dark"
"""The theme the app starts with unless configured otherwise."""

ACP_DARK: Final = Theme(
    name="acp-dark",
    primary="#5FA8D3",
    secondary="#7C9CBF",
    accent="#C792EA",
    warning="#E5C07B",
    error="#E06C75",
    success="#98C379",
    foreground="#D7DAE0",
    background="#16181D",
    surface="#1E2128",
    panel="#272B33",
    dark=True,
    variables={
        "tool-pending": "#8A909C",
        "tool-running": "#5FA8D3",
        "tool-completed": "#98C379",
        "tool-failed": "#E06C75",
        "tool-cancelled": "#E5C07B",
        "diff-added": "#A8D08D",
        "diff-added-background": "#1F3325",
        "diff-removed": "#F08A93",
        "diff-removed-background": "#3A1F24",
        "diff-hunk": "#C792EA",
        "permission-allowed": "#98C379",
        "permission-rejected": "#E06C75",
        "permission-waiting": "#E5C07B",
        "footer-key-foreground": "#5FA8D3",
    },
)
"""The default dark theme."""

ACP_LIGHT: Final = Theme(
    name="acp-light",
    primary="#1F6FB2",
    secondary="#4A6A8F",
    accent="#8E44AD",
    warning="#A86800",
    error="#C0392B",
    success="#2E7D32",
    foreground="#1F2328",
    background="#FAFAF7",
    surface="#F0F0EB",
    panel="#E2E2DA",
    dark=False,
    variables={
        "tool-pending": "#6B7280",
        "tool-running": "#1F6FB2",
        "tool-completed": "#2E7D32",
        "tool-failed": "#C0392B",
        "tool-cancelled": "#A86800",
        "diff-added": "#1E6B2A",
        "diff-added-background": "#DFF2E1",
        "diff-removed": "#A3222F",
        "diff-removed-background": "#F9E0E2",
        "diff-hunk": "#8E44AD",
        "permission-allowed": "#2E7D32",
        "permission-rejected": "#C0392B",
        "permission-waiting": "#A86800",
        "footer-key-foreground": "#1F6FB2",
    },
)
"""The default light theme."""

BUILTIN_THEMES: Final[dict[str, Theme]] = {
    theme.name: theme for theme in (ACP_DARK, ACP_LIGHT)
}
"""acp-tui's own themes by name."""

_NAME: Final = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_VARIABLE_NAME: Final = re.compile(r"[A-Za-z_-][A-Za-z0-9_-]*")


class ThemeHost(Protocol):
    """What `register_themes` needs from an app (any `textual.app.App`)."""

    @property
    def available_themes(self) -> dict[str, Theme]:
        """The themes registered so far, by name."""
        ...

    def register_theme(self, theme: Theme) -> None:
        """Register (or replace) a theme."""
        ...


def _check_colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError as error:
        raise ValueError(f"not a colour: {value!r}") from error
    return value


_COLOUR_VALUE: Final = re.compile(r"(?P<colour>\S+)(\s+\d+(\.\d+)?%)?")


def _is_colour_value(value: str) -> bool:
    """Whether `value` is a CSS colour value: a colour or `auto`, maybe `NN%`."""
    match = _COLOUR_VALUE.fullmatch(value.strip())
    if match is None:
        return False
    colour = match.group("colour")
    if colour == "auto":
        return True
    try:
        Color.parse(colour)
    except ColorParseError:
        return False
    return True


_COLOUR_VARIABLES: Final = frozenset(
    name
    for name, value in Theme("probe", primary="#000000")
    .to_color_system()
    .generate()
    .items()
    if _is_colour_value(value)
)
"""Textual's own variables that hold colours (a theme file may override them)."""


class ThemeFile(BaseModel):
    """One user theme file (TOML): one theme per file.

    Colours are CSS colours: `#rrggbb`, `rgb(...)`, `hsl(...)` or a colour name.
    Colours that are left out are derived by Textual from the others.

    Example:
        name = "my-theme"
        dark = true
        primary = "#5FA8D3"
        background = "#16181D"

        [variables]
        diff-added = "#A8D08D"
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(pattern=_NAME.pattern)
    """The theme's name, as shown in the theme picker: a letter, then letters,
    digits, `-` or `_` (at most 64). A file whose name matches a theme that is
    already registered replaces that theme."""
    dark: bool = True
    """Whether it is a dark theme (text defaults to light on dark)."""
    primary: str
    """The main accent colour (borders of focused widgets, links, buttons)."""
    secondary: str | None = None
    """A second accent colour."""
    accent: str | None = None
    """A colour for highlights that should stand out from primary and secondary."""
    warning: str | None = None
    """Warnings (and cancelled tool calls, unless overridden)."""
    error: str | None = None
    """Errors (and failed tool calls, removed diff lines, unless overridden)."""
    success: str | None = None
    """Success (and completed tool calls, added diff lines, unless overridden)."""
    foreground: str | None = None
    """The default text colour."""
    background: str | None = None
    """The screen's background."""
    surface: str | None = None
    """The background of widgets drawn on the screen."""
    panel: str | None = None
    """The background of panels, bars and cards that sit above surfaces."""
    boost: str | None = None
    """A (usually translucent) colour layered on top to lift an area."""
    variables: dict[str, str] = Field(default_factory=dict)
    """Theme variables: the custom tokens in `THEME_TOKENS` (plain colours) and any
    Textual variable (such as `footer-key-foreground`). Values cannot refer to
    other variables (`$...`)."""

    @field_validator(
        "primary",
        "secondary",
        "accent",
        "warning",
        "error",
        "success",
        "foreground",
        "background",
        "surface",
        "panel",
        "boost",
    )
    @classmethod
    def _colour(cls, value: str | None) -> str | None:
        return None if value is None else _check_colour(value)

    @field_validator("variables")
    @classmethod
    def _variables(cls, variables: dict[str, str]) -> dict[str, str]:
        for name, value in variables.items():
            if not _VARIABLE_NAME.fullmatch(name):
                raise ValueError(f"bad variable name {name!r}")
            if name in THEME_TOKENS:
                _check_colour(value)
                continue
            if name in _COLOUR_VARIABLES and not _is_colour_value(value):
                raise ValueError(f"bad colour for variable {name!r}: {value!r}")
            if not value.strip() or any(c in value for c in "$;{}\n"):
                raise ValueError(f"bad value for variable {name!r}: {value!r}")
            try:
                tokenize_values({name: value})
            except Exception as error:  # Textual's tokenizer raises several types
                raise ValueError(
                    f"bad value for variable {name!r}: {value!r}"
                ) from error
        return variables

    def to_textual_theme(self) -> Theme:
        """Build the Textual theme (custom tokens it does not set are derived)."""
        theme = Theme(
            name=self.name,
            primary=self.primary,
            secondary=self.secondary,
            accent=self.accent,
            warning=self.warning,
            error=self.error,
            success=self.success,
            foreground=self.foreground,
            background=self.background,
            surface=self.surface,
            panel=self.panel,
            boost=self.boost,
            dark=self.dark,
            variables=dict(self.variables),
        )
        return with_token_defaults(theme)


def _flat_colour(generated: dict[str, str], key: str, background: bool) -> str:
    """A generated colour as one opaque colour a `Content` style can use.

    Translucent colours (such as `foreground-muted`) are flattened onto the
    background. ANSI themes generate values like `ansi_green 50%` that are no
    colour: their base colour is used instead (for a background, the theme's own
    background, so text stays readable).
    """
    return _flattened(generated[key], generated["background"], background)


@functools.lru_cache(maxsize=1024)
def _flattened(value: str, backdrop: str, background: bool) -> str:
    """`_flat_colour` of `value` over the theme background `backdrop`.

    Kept per process (a pure function of its arguments): `register_themes` asks
    it about 300 times per app, each of Textual's 20-odd stock themes once per
    token, and `Color.parse` caches only what parses. Each value that does not
    parse (an ANSI theme's `ansi_green 50%`) made it raise again and look for a
    suggestion among the colour names (`difflib`). `register_themes` for a
    second app in a process (the tests boot hundreds): 2.6 ms before, 0.6 ms
    with this; for the first, 14.5 ms before, 13.7 ms with it.
    """
    try:
        colour = Color.parse(value)
    except ColorParseError:
        if background:
            return backdrop
        return value.split()[0]
    if colour.a >= 1 or colour.ansi is not None:
        return value
    try:
        return (Color.parse(backdrop) + colour).hex
    except ColorParseError:
        return value


def theme_variable_defaults(theme: Theme | None = None) -> dict[str, str]:
    """The custom tokens for a theme that may not set them.

    Each token defaults to one of the colours Textual generates from the theme
    (see `THEME_TOKENS`); a value the theme sets itself wins over this in Textual.
    The app returns this from `App.get_theme_variable_defaults()`:

        def get_theme_variable_defaults(self) -> dict[str, str]:
            return theme_variable_defaults(self.current_theme)

    Args:
        theme: The theme to derive from (`ACP_DARK` if `None`).

    Returns:
        A value for every token in `THEME_TOKENS`.
    """
    generated = (theme or ACP_DARK).to_color_system().generate()
    return {
        token: _flat_colour(generated, source, token.endswith("-background"))
        for token, source in THEME_TOKENS.items()
    }


def with_token_defaults(theme: Theme) -> Theme:
    """The theme itself if it sets every custom token, else a copy that does.

    Args:
        theme: Any Textual theme.

    Returns:
        A theme whose `variables` contain every token in `THEME_TOKENS` (values the
        theme sets are kept).
    """
    if all(token in theme.variables for token in THEME_TOKENS):
        return theme
    variables = {**theme_variable_defaults(theme), **theme.variables}
    return Theme(
        name=theme.name,
        primary=theme.primary,
        secondary=theme.secondary,
        warning=theme.warning,
        error=theme.error,
        success=theme.success,
        accent=theme.accent,
        foreground=theme.foreground,
        background=theme.background,
        surface=theme.surface,
        panel=theme.panel,
        boost=theme.boost,
        dark=theme.dark,
        luminosity_spread=theme.luminosity_spread,
        text_alpha=theme.text_alpha,
        variables=variables,
        ansi=theme.ansi,
    )


def _validation_reason(error: ValidationError) -> str:
    reasons: list[str] = []
    for detail in error.errors(include_url=False):
        where = ".".join(str(part) for part in detail["loc"]) or "file"
        reasons.append(f"{where}: {detail['msg']}")
    return "; ".join(reasons)


def _load_file(path: Path) -> Theme:
    """Read one theme file; raises `ValueError` with a reason if it is bad."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read: {error}") from error
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"invalid TOML: {error}") from error
    try:
        theme_file = ThemeFile.model_validate(data)
    except ValidationError as error:
        raise ValueError(_validation_reason(error)) from error
    try:
        theme = theme_file.to_textual_theme()
        theme.to_color_system().generate()
    except Exception as error:  # a colour Textual cannot build on
        raise ValueError(f"unusable colours: {error}") from error
    return theme


def load_themes(dirs: Sequence[Path]) -> tuple[list[Theme], list[str]]:
    """Load every `*.toml` theme file in the given directories.

    Missing directories are skipped. Files are read in name order, directory by
    directory, so a later directory's theme replaces an earlier one of the same
    name (user themes come after the shipped ones).

    Args:
        dirs: Directories to read.

    Returns:
        The themes (custom tokens filled in), and one message per bad file, each
        naming the file and the reason.
    """
    themes: dict[str, Theme] = {}
    errors: list[str] = []
    for directory in dirs:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = _load_file(path)
            except ValueError as error:
                message = f"theme file {path}: {error}"
                _log.warning("%s", message)
                errors.append(message)
                continue
            if theme.name in themes:
                _log.info("theme %s from %s replaces an earlier one", theme.name, path)
            themes[theme.name] = theme
    return list(themes.values()), errors


def theme_dirs() -> list[Path]:
    """Where theme files are looked for, in order.

    Returns:
        The shipped example themes (installed from a wheel: `acp_tui/themes`,
        which the wheel build copies from the checkout's top-level `themes/`;
        from a source checkout: that `themes/` folder), then
        `paths.user_themes_dir()` (which need not exist).
    """
    dirs: list[Path] = []
    package = Path(acp_tui.__file__).resolve().parent
    installed = package / "themes"
    checkout = package.parent
    if installed.is_dir():
        dirs.append(installed)
    # Installed, the parent is site-packages: a `themes` folder there is not ours.
    elif (checkout / "themes").is_dir() and (checkout / "pyproject.toml").is_file():
        dirs.append(checkout / "themes")
    dirs.append(paths.user_themes_dir())
    return dirs


def register_themes(app: ThemeHost, dirs: Sequence[Path] | None = None) -> list[str]:
    """Register the built-in and user themes; give every known theme the tokens.

    Call it from the app's `__init__` (before the first stylesheet parse) or
    `on_mount`. Themes the app already knows (Textual's stock themes) are
    re-registered with the custom tokens filled in, so CSS that uses them parses
    under every theme.

    Args:
        app: The app (anything with `available_themes` and `register_theme`).
        dirs: Directories with theme files (default: `theme_dirs()`).

    Returns:
        One message per bad theme file (empty if all loaded).
    """
    for theme in list(app.available_themes.values()):
        filled = with_token_defaults(theme)
        if filled is not theme:
            app.register_theme(filled)
    for theme in BUILTIN_THEMES.values():
        app.register_theme(theme)
    user_themes, errors = load_themes(theme_dirs() if dirs is None else dirs)
    for theme in user_themes:
        app.register_theme(theme)
    return errors


def theme_names(dirs: Sequence[Path] | None = None) -> tuple[list[str], list[str]]:
    """Every theme the app offers, by name, without an app; and the bad files.

    The names are acp-tui's built-ins first, then Textual's, then the theme
    files' (as `register_themes` registers them), each once.

    Args:
        dirs: Directories with theme files (default: `theme_dirs()`).

    Returns:
        The names, and one message per bad theme file.
    """
    from textual.theme import BUILTIN_THEMES as TEXTUAL_THEMES

    files, errors = load_themes(theme_dirs() if dirs is None else dirs)
    names = [*BUILTIN_THEMES, *TEXTUAL_THEMES, *(theme.name for theme in files)]
    return list(dict.fromkeys(names)), errors


def unknown_theme_message(name: str, dirs: Sequence[Path] | None = None) -> str | None:
    """What is wrong with choosing theme `name`, or None if it is known.

    The message lists the themes, and the theme files that could not be loaded
    (one of them may be the theme meant).
    """
    names, errors = theme_names(dirs)
    if name in names:
        return None
    import difflib

    message = f"no theme named {name!r}"
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if close:
        message += f" (did you mean: {', '.join(close)}?)"
    message += f"; the themes are: {', '.join(names)}"
    folder = paths.user_themes_dir()
    message += f" (add your own as TOML files in {folder})"
    if errors:
        message += ". These theme files could not be loaded: " + "; ".join(errors)
    return message
