"""The markdown component styles every `MarkdownView` of a conversation shares.

Styles come from component classes filled in with theme variables (no literal
colours), so a theme change recolours every message. Textual resolves each
component class of a widget against the whole stylesheet when the widget
mounts, and the 35 of them cost about 10 ms per agent message when every
`MarkdownView` carried its own (bench/ui.py: a tenth of a paced turn's time went
into mounting them). So one hidden `MarkdownStyles` per conversation holds them,
and builds the `MarkdownTheme` the views render with once per stylesheet or
theme change.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.style import Style
from textual.widget import Widget

from acp_tui.render.diff import SYNTAX_ROLES
from acp_tui.render.markdown import MarkdownTheme

__all__ = ["DEFAULT_THEME", "MarkdownStyles"]

_HEADINGS: Final = tuple(f"markdown-view--h{level}" for level in range(1, 7))
_ROLES: Final = (
    *SYNTAX_ROLES,
    "Generic.Inserted",
    "Generic.Deleted",
    "Generic.Subheading",
)
"""The diff roles plus those of `diff` code fences."""
_SYNTAX: Final = {
    role: "markdown-view--" + role.lower().replace(".", "-") for role in _ROLES
}


_PARTS: Final = {
    "strong": "markdown-view--strong",
    "emphasis": "markdown-view--em",
    "strike": "markdown-view--strike",
    "code_inline": "markdown-view--code-inline",
    "link": "markdown-view--link",
    "bullet": "markdown-view--bullet",
    "quote": "markdown-view--quote",
    "quote_mark": "markdown-view--quote-mark",
    "code_block": "markdown-view--code-block",
    "table_border": "markdown-view--table-border",
    "table_header": "markdown-view--table-header",
    "rule": "markdown-view--rule",
    "notice": "markdown-view--cut",
}
"""Each `MarkdownTheme` style (a field) and the component class that gives it."""

DEFAULT_THEME: Final = MarkdownTheme()
"""For a view whose `MarkdownStyles` is not mounted yet (uncoloured)."""


class MarkdownStyles(Widget):
    """The markdown component styles shared by the `MarkdownView`s below its parent.

    Hidden; `theme` is the `MarkdownTheme` its component classes make, built once
    per stylesheet or theme change (see the module docstring).
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *_HEADINGS,
        *_PARTS.values(),
        *_SYNTAX.values(),
    }

    DEFAULT_CSS = """
    MarkdownStyles {
        display: none;
        & > .markdown-view--h1 {
            color: $markdown-h1-color;
            text-style: bold underline;
        }
        & > .markdown-view--h2 { color: $markdown-h2-color; text-style: bold; }
        & > .markdown-view--h3 { color: $markdown-h3-color; text-style: bold; }
        & > .markdown-view--h4 { color: $markdown-h4-color; text-style: bold italic; }
        & > .markdown-view--h5 { color: $markdown-h5-color; text-style: italic; }
        & > .markdown-view--h6 { color: $markdown-h6-color; text-style: italic dim; }
        & > .markdown-view--strong { text-style: bold; }
        & > .markdown-view--em { text-style: italic; }
        & > .markdown-view--strike { text-style: strike; }
        & > .markdown-view--code-inline {
            color: $warning;
            background: $warning-muted;
        }
        & > .markdown-view--link { color: $text-accent; text-style: underline; }
        & > .markdown-view--bullet { color: $text-primary; text-style: bold; }
        & > .markdown-view--quote { color: $text-muted; text-style: italic; }
        & > .markdown-view--quote-mark { color: $primary; }
        & > .markdown-view--code-block { background: $surface; }
        & > .markdown-view--table-border { color: $primary-muted; }
        & > .markdown-view--table-header { color: $text-primary; text-style: bold; }
        & > .markdown-view--rule { color: $primary-muted; }
        & > .markdown-view--cut {
            color: $text-warning;
            background: $warning-muted;
            text-style: italic;
        }
        & > .markdown-view--comment { color: $text-muted; text-style: italic; }
        & > .markdown-view--keyword { color: $accent; text-style: bold; }
        & > .markdown-view--name-builtin { color: $secondary; }
        & > .markdown-view--name-class { color: $warning; text-style: bold; }
        & > .markdown-view--name-decorator { color: $secondary; }
        & > .markdown-view--name-function { color: $primary; }
        & > .markdown-view--name-tag { color: $primary; }
        & > .markdown-view--name-attribute { color: $secondary; }
        & > .markdown-view--string { color: $success; }
        & > .markdown-view--number { color: $warning; }
        & > .markdown-view--operator { color: $foreground; }
        & > .markdown-view--literal { color: $warning; }
        & > .markdown-view--generic-error { color: $error; }
        & > .markdown-view--generic-inserted { color: $success; }
        & > .markdown-view--generic-deleted { color: $error; }
        & > .markdown-view--generic-subheading { color: $primary; }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._theme: MarkdownTheme | None = None

    def notify_style_update(self) -> None:
        """The theme or CSS changed: build the markdown theme again."""
        super().notify_style_update()
        self._theme = None

    @property
    def theme(self) -> MarkdownTheme:
        """The markdown styles, from the component classes."""
        if self._theme is None:
            style = self.get_component_rich_style

            def plain(name: str) -> Style:
                # Component styles carry the widget's background; the lines get
                # it from the view, so only keep what the part changes.
                return style(name, partial=True)

            self._theme = MarkdownTheme(
                text=Style.null(),
                headings=tuple(plain(name) for name in _HEADINGS),
                syntax={role: plain(name) for role, name in _SYNTAX.items()},
                **{part: plain(name) for part, name in _PARTS.items()},
            )
        return self._theme
