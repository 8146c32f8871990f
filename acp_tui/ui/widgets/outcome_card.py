"""The card of a request the user answered: a permission or an elicitation.

`PermissionView` and `ElicitationView` are both this card: a block in the
conversation whose left border shows the outcome (the state class the view
sets, `-allowed`, `-declined`, …; waiting while none is set), or, inside its
tool call's card (`attached`), a line or two with no frame of its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import Static

from acp_tui.ui.widgets.terminal_view import static_plain

__all__ = ["OutcomeCard"]


class OutcomeCard(Static):
    """A request's record in the conversation, framed by its outcome.

    Args:
        attached: Shown inside its tool call's card.
    """

    DEFAULT_CSS = """
    OutcomeCard {
        height: auto;
        border-left: outer $permission-waiting;
        background: $boost;
        padding: 0 1;
        margin: 0 0 1 0;
        &.-allowed { border-left: outer $permission-allowed; }
        &.-accepted { border-left: outer $permission-allowed; }
        &.-rejected { border-left: outer $permission-rejected; }
        &.-declined { border-left: outer $permission-rejected; }
        &.-cancelled { border-left: outer $foreground-muted; }
        &.-other { border-left: outer $secondary; }
        &.-attached {
            border-left: none;
            background: transparent;
            padding: 0;
            margin: 0;
        }
    }
    """

    def __init__(self, *, attached: bool) -> None:
        super().__init__(classes="-attached" if attached else "")
        self.attached = attached
        """Shown inside its tool call's card (see the module docstring)."""

    @property
    def text(self) -> str:
        """What is shown, as plain text."""
        return static_plain(self)

    def show_state(self, state: str, states: Iterable[str]) -> None:
        """Set the state class `-state`, clearing the other `states`' classes."""
        for name in states:
            self.set_class(name == state, f"-{name}")
