"""The transcript record of an elicitation (the agent's question) and its answer.

The dialog (`ui.pane_dialogs.elicitation_screen`) asks; this view stays in the
conversation: the question (`message`, and for a URL elicitation the URL, as
plain text, never a link), then how it was answered
(`elicitation_form.answer_text`: `answered — Title: value; ...`, `accepted`,
`declined`, `cancelled`, or waiting) and, for a URL one, that the agent said it
is completed. Inside its tool call's card (`attached`) it is a line or two;
otherwise an entry of its own.

Agent text is data: shown as plain `Content`, passed through `printable`.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

from textual.content import Content

from acp_tui.client.elicitation_form import answer_text
from acp_tui.safe_text import printable
from acp_tui.store.model import Elicitation
from acp_tui.ui.widgets.outcome_card import OutcomeCard

__all__ = ["ElicitationState", "ElicitationView"]

ElicitationState: TypeAlias = Literal["pending", "accepted", "declined", "cancelled"]
"""How an elicitation ended (or `pending` while it waits)."""

_STYLES: Final[dict[ElicitationState, tuple[str, str]]] = {
    "pending": ("…", "$permission-waiting"),
    "accepted": ("✓", "$permission-allowed"),
    "declined": ("✗", "$permission-rejected"),
    "cancelled": ("–", "$foreground-muted"),
}


def elicitation_state(elicitation: Elicitation) -> ElicitationState:
    """The state an elicitation's record shows."""
    action = elicitation.action
    if action is None:
        return "pending"
    if action == "accept":
        return "accepted"
    return "declined" if action == "decline" else "cancelled"


class ElicitationView(OutcomeCard):
    """Shows one elicitation and its answer (state class `-pending`, ...).

    Args:
        elicitation: The snapshot to show first.
        attached: Shown inside its tool call's card.
    """

    def __init__(self, elicitation: Elicitation, *, attached: bool = False) -> None:
        super().__init__(attached=attached)
        self.elicitation = elicitation
        self.state: ElicitationState = "pending"
        self._show(elicitation)

    @property
    def elicitation_id(self) -> str:
        """The store's key of the elicitation shown."""
        return self.elicitation.elicitation_id

    def update_elicitation(self, elicitation: Elicitation) -> None:
        """Show a newer snapshot (nothing happens if it is the one shown)."""
        if elicitation is self.elicitation:
            return
        self.elicitation = elicitation
        self._show(elicitation)

    def _show(self, elicitation: Elicitation) -> None:
        state = self.state = elicitation_state(elicitation)
        self.show_state(state, _STYLES)
        icon, style = _STYLES[state]
        answer = (f"{icon} {printable(answer_text(elicitation))}", style)
        question = (printable(elicitation.message), "bold")
        parts: list[str | tuple[str, str]] = [("Question", "dim"), "  ", question]
        if elicitation.url is not None:
            parts += ["\n", (printable(elicitation.url), "dim")]
        parts += ["\n", answer]
        self.update(Content.assemble(*parts))
