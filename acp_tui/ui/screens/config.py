"""The config switcher: pick a value of one of the session's config options.

Shows the agent's config options (version-neutral, `SessionStore.settings`) under
category headings: Mode, Model, Thought level, Model config, then custom
categories by their raw name, then Other. A select option lists its choices with
the current one marked (grouped choices under their group's name); a boolean
option is one toggle row. Enter or a click on a choice dismisses with a
`ConfigChoice`; on a toggle, with the flipped value. Esc dismisses `None`.

The screen does no protocol work: the caller sends `session/set_config_option`
(or v1 `session/set_mode`) for the returned choice. Agent strings are shown as
`Content` built from `printable(...)` text, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.options import ConfigOption, category_label, group_by_category
from acp_tui.safe_text import printable
from acp_tui.ui.widgets.frames import DialogBox

__all__ = ["ConfigChoice", "ConfigScreen"]

_MUTED: Final = "dim"


@dataclass(frozen=True, slots=True)
class ConfigChoice:
    """The value picked for one config option."""

    config_id: str
    """The option's id (`ConfigOption.config_id`)."""
    value: str | bool
    """A select's value id, or a boolean's new value."""


def _text(value: str | None) -> str:
    return printable(value).strip() if value else ""


class _Rows:
    """Builds the option list's rows (and what each selectable row picks)."""

    def __init__(self, focus_category: str | None) -> None:
        self.focus_category = focus_category
        self.rows: list[Option | None] = []
        """The rows; `None` draws a divider under the previous row (not a row)."""
        self.choices: dict[str, ConfigChoice] = {}
        self._count = 0
        self._category = ""
        self._first_current: int | None = None
        self._focus_current: int | None = None
        self._focus_first: int | None = None

    @property
    def start(self) -> int | None:
        """The row to highlight first.

        The current value in the focused category, else that category's first
        row, else the first current value of all.
        """
        for row in (self._focus_current, self._focus_first, self._first_current):
            if row is not None:
                return row
        return None

    def _add(
        self, content: Content, choice: ConfigChoice | None, *, current: bool = False
    ) -> None:
        row = self._count
        self._count += 1
        if choice is None:
            self.rows.append(Option(content, disabled=True))
            return
        row_id = f"choice-{len(self.choices)}"
        self.choices[row_id] = choice
        self.rows.append(Option(content, id=row_id))
        focused = self._category == self.focus_category
        if focused and self._focus_first is None:
            self._focus_first = row
        if current and self._first_current is None:
            self._first_current = row
        if current and focused and self._focus_current is None:
            self._focus_current = row

    def category(self, category: str) -> None:
        """Start a category: a separator, then its heading."""
        if self.rows:
            self.rows.append(None)
        self._category = category
        label = printable(category_label(category))
        self._add(Content.styled(label, "bold $primary"), None)

    def boolean(self, option: ConfigOption) -> None:
        """One toggle row; picking it flips the value."""
        config_id = option.config_id
        on = option.current is True
        parts: list[str | tuple[str, str]] = [
            "  ",
            ("[x] " if on else "[ ] ", "$success" if on else ""),
            (_name(option), "bold"),
        ]
        description = _text(option.description)
        if description:
            parts.append((f"  {description}", _MUTED))
        self._add(
            Content.assemble(*parts), ConfigChoice(config_id, not on), current=True
        )

    def select(self, option: ConfigOption, *, show_name: bool, label: str) -> None:
        """An optional name row, then one row per choice (under group headings)."""
        config_id = option.config_id
        name = _name(option)
        show_name = show_name or name.casefold() != label.casefold()
        description = _text(option.description)
        heading: list[str | tuple[str, str]] = []
        if show_name:
            heading += ["  ", (name, "bold")]
        if description:
            heading.append(((" — " if heading else "  ") + description, _MUTED))
        if heading:
            self._add(Content.assemble(*heading), None)
        indent = "    " if show_name else "  "
        choices = option.choices
        if not choices:
            self._add(Content.styled(f"{indent}(no choices)", _MUTED), None)
        current = option.current
        group: str | None = None
        for choice in choices:
            prefix = indent
            if choice.group is not None:
                if choice.group != group:
                    group = choice.group
                    text = f"{indent}{printable(group)}"
                    self._add(Content.styled(text, f"italic {_MUTED}"), None)
                prefix = indent + "  "
            is_current = choice.value == current
            parts: list[str | tuple[str, str]] = [
                prefix,
                ("● ", "$success") if is_current else "  ",
                (printable(choice.name), "bold" if is_current else ""),
            ]
            if choice.description:
                parts.append((f"  {printable(choice.description)}", _MUTED))
            self._add(
                Content.assemble(*parts),
                ConfigChoice(config_id, choice.value),
                current=is_current,
            )


def _name(option: ConfigOption) -> str:
    return _text(option.name) or printable(option.config_id or "?")


class ConfigScreen(ModalScreen[ConfigChoice | None]):
    """Choose a session config value (mode, model, thought level, ...).

    Args:
        options: The session's config options (unusable ones are hidden).
        focus_category: Start on the current value of this category's first
            option (else on the first current value).
        title: The dialog's heading.
    """

    DEFAULT_CSS = """
    ConfigScreen {
        align: center middle;
        & > #config-dialog {
            padding: 0 1;
        }
        & #config-title { dock: top; text-style: bold; padding: 0 1; }
        & #config-list {
            height: auto;
            max-height: 100%;
            & > .option-list--option-disabled { color: $text; }
        }
        & #config-empty { color: $text-muted; padding: 1; }
        & #config-hint { dock: bottom; color: $text-muted; padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close"),
    ]

    def __init__(
        self,
        options: Sequence[ConfigOption],
        *,
        focus_category: str | None = None,
        title: str = "Session settings",
    ) -> None:
        super().__init__()
        self.options = list(options)
        """The config options as given."""
        self.focus_category = focus_category
        """The category whose current value is highlighted first, if any."""
        self.title_text = title
        """The dialog's heading."""
        self.choices: dict[str, ConfigChoice] = {}
        """What each selectable row (by option id in the list) dismisses with."""
        self._start: int | None = None

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        rows = self._rows()
        with DialogBox(id="config-dialog"):
            yield Static(Content(self.title_text), id="config-title")
            if self.choices:
                yield OptionList(*rows, id="config-list")
            else:
                yield Static(
                    Content("The agent offers no settings."), id="config-empty"
                )
            yield Static(
                Content("↑↓ move · enter select · esc close"), id="config-hint"
            )

    def on_mount(self) -> None:
        """Highlight the current value of the focused category (or the first)."""
        lists = self.query("#config-list").results(OptionList)
        option_list = next(lists, None)
        if option_list is None:
            return
        option_list.focus()
        if self._start is not None:
            option_list.highlighted = self._start
            # Keep the heading above the highlighted row in view.
            self.call_after_refresh(option_list.scroll_to_highlight)

    def _rows(self) -> list[Option | None]:
        rows = _Rows(self.focus_category)
        for category, options in group_by_category(self.options):
            rows.category(category)
            label = printable(category_label(category))
            for option in options:
                if option.kind == "boolean":
                    rows.boolean(option)
                else:
                    alone = len(options) == 1
                    rows.select(option, show_name=not alone, label=label)
        self.choices = rows.choices
        self._start = rows.start
        return rows.rows

    @on(OptionList.OptionSelected, "#config-list")
    def _choice_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = self.choices.get(event.option.id or "")
        if choice is not None:
            self.dismiss(choice)

    def action_cancel(self) -> None:
        """Close without choosing."""
        self.dismiss(None)
