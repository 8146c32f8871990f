"""A list of options to pick one of (a radio list) or several (a checklist).

The elicitation dialog's enum fields. Each option shows its mark (`(•)` / `( )`
for one, `[x]` / `[ ]` for several), its number (`1`-`9`), its title and, under
it, its description. Keys: Up/Down move, Enter or Space picks the highlighted
option (toggles it, for several), a digit picks the option with that number,
Backspace/Delete clears the pick of an optional single choice. A click picks.

Picking the option that is already picked, by its digit or Enter, posts
`Confirmed` (the dialog moves on, or sends a one-question form): a key selects,
the same key again chooses, as in the permission dialog. A click never
confirms.

Agent text is data: titles and descriptions pass through `printable` and are
shown as `Content`, never markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from textual import events, on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.client.elicitation_form import Choice
from acp_tui.safe_text import printable

__all__ = ["ChoiceList"]


class ChoiceList(OptionList):
    """Pick one option or several (see the module docstring).

    Args:
        choices: The options, in order.
        multiple: Several may be picked (else at most one).
        picked: The values picked at first.
        clearable: A single pick may be cleared (the field is optional).
        id: The widget's id.
        compact: Without a border.
    """

    DEFAULT_CSS = """
    ChoiceList {
        height: auto;
        max-height: 12;
        border: tall $border-blurred;
        padding: 0;
        &:focus { border: tall $border; }
        &.-invalid { border: tall $error 60%; }
        &.-invalid:focus { border: tall $error; }
        &.-textual-compact.-invalid { background-tint: $error 20%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "pick", "Pick", show=False),
        Binding("backspace,delete", "clear", "Clear", show=False),
    ]

    class _Event(Message):
        def __init__(self, choice_list: ChoiceList) -> None:
            super().__init__()
            self.choice_list = choice_list

        @property
        def control(self) -> ChoiceList:
            """The list it comes from."""
            return self.choice_list

    class Changed(_Event):
        """The picked values changed."""

    class Confirmed(_Event):
        """The picked option was picked again by a key: the user is done here."""

    def __init__(
        self,
        choices: Sequence[Choice],
        *,
        multiple: bool,
        picked: Iterable[str] = (),
        clearable: bool = False,
        id: str | None = None,
        compact: bool = False,
    ) -> None:
        self.choices = tuple(choices)
        """The options, in order."""
        self.multiple = multiple
        """Whether several may be picked."""
        self.clearable = clearable
        """Whether a single pick may be cleared."""
        values = {c.value for c in self.choices}
        first = [v for v in picked if v in values]
        self._picked: set[str] = set(first if multiple else first[:1])
        super().__init__(
            *(self._option(i, c) for i, c in enumerate(self.choices)),
            id=id,
            compact=compact,
        )

    @property
    def picked(self) -> tuple[str, ...]:
        """The picked values, in the options' order."""
        return tuple(c.value for c in self.choices if c.value in self._picked)

    def on_mount(self) -> None:
        """Highlight the first picked option (else the first)."""
        picked = [i for i, c in enumerate(self.choices) if c.value in self._picked]
        self.highlighted = picked[0] if picked else 0

    def _option(self, index: int, choice: Choice) -> Option:
        on = choice.value in self._picked
        marks = ("[x] ", "[ ] ") if self.multiple else ("(•) ", "( ) ")
        mark = marks[0] if on else marks[1]
        number = f"{index + 1} " if index < 9 else "  "
        parts: list[str | tuple[str, str]] = [
            (mark, "bold $accent" if on else ""),
            (number, "bold $accent"),
            (printable(choice.title), "bold" if on else ""),
        ]
        if choice.description:
            text = printable(choice.description, keep="\n").strip()
            indent = " " * (len(mark) + len(number))
            parts.append((f"\n{indent}" + text.replace("\n", f"\n{indent}"), "dim"))
        return Option(Content.assemble(*parts))

    def _refresh(self) -> None:
        for index, choice in enumerate(self.choices):
            self.replace_option_prompt_at_index(
                index, self._option(index, choice).prompt
            )

    def pick(self, index: int, *, confirm: bool) -> None:
        """Pick option `index` (toggle it, for several).

        Args:
            index: The option.
            confirm: Post `Confirmed` if it was already the single pick.
        """
        if not 0 <= index < len(self.choices):
            return
        value = self.choices[index].value
        self.highlighted = index
        if self.multiple:
            self._picked ^= {value}
        elif value in self._picked:
            if confirm:
                self.post_message(self.Confirmed(self))
            return
        else:
            self._picked = {value}
        self._refresh()
        self.post_message(self.Changed(self))

    def action_pick(self) -> None:
        """Pick the highlighted option (Enter, Space)."""
        if self.highlighted is not None:
            self.pick(self.highlighted, confirm=True)

    def action_clear(self) -> None:
        """Clear a single pick, if the field may be left unanswered."""
        if self.multiple or not self.clearable or not self._picked:
            return
        self._picked = set()
        self._refresh()
        self.post_message(self.Changed(self))

    def on_key(self, event: events.Key) -> None:
        """A digit picks the option with that number."""
        if event.character and event.character in "123456789":
            index = int(event.character) - 1
            if index < len(self.choices):
                event.stop()
                event.prevent_default()
                self.pick(index, confirm=True)

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        """A click (Enter and Space are bound to `pick`): pick, never confirm."""
        event.stop()
        self.pick(event.option_index, confirm=False)
