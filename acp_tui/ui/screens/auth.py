"""The sign-in dialog: pick one of the agent's authentication methods.

Shown when the agent advertises `authMethods` and asks for authentication (for
example after an `auth_required` error). Keys: `1`-`9` pick a method, Up/Down and
Enter pick the highlighted one, Esc cancels. Dismisses with the chosen method id
(or `None`). The screen does no protocol work: the caller runs `authenticate` (or,
for a terminal method, the login command in this terminal).

Agent strings (method names, descriptions, the message) are shown as `Content`
built from `printable(...)` text, never parsed as markup. A method's label is
never empty or huge (`client.auth.method_label`: its name, else its id, else
"Method N"), so an odd id can still be chosen. A method of a type acp-tui cannot
use (`unsupported_type`) is listed but disabled: choosing it does nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.safe_text import printable
from acp_tui.ui.widgets.frames import DialogBox

__all__ = ["AuthMethodView", "AuthScreen"]

_MUTED: Final = "dim"


@dataclass(frozen=True, slots=True)
class AuthMethodView:
    """One authentication method, as the dialog shows it."""

    method_id: str
    """The id sent back in `authenticate`."""
    name: str
    """The method's label."""
    description: str | None
    """An optional longer description."""
    terminal: bool
    """Whether choosing it runs a login command in this terminal."""
    unsupported_type: str | None = None
    """The wire type, for a method acp-tui cannot log in with (shown disabled)."""


class AuthScreen(ModalScreen[str | None]):
    """Ask the user how to sign in to the agent.

    Args:
        methods: The methods to offer, in order.
        agent_name: The agent's display name (for the heading).
        message: Why sign-in is needed, shown above the methods.
    """

    DEFAULT_CSS = """
    AuthScreen {
        align: center middle;
        & > #auth-dialog {
            padding: 1 2;
        }
        & #auth-title { text-style: bold; }
        & #auth-message {
            color: $warning;
            margin-top: 1;
        }
        & #auth-methods { height: auto; margin-top: 1; }
        & #auth-empty { color: $text-muted; margin-top: 1; }
        & #auth-hint { color: $text-muted; margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(
        self,
        methods: Sequence[AuthMethodView],
        *,
        agent_name: str,
        message: str | None = None,
    ) -> None:
        super().__init__()
        self.methods = list(methods)
        """The methods, in the agent's order (the first nine get number keys)."""
        self.agent_name = agent_name
        """The agent's display name."""
        self.message = message
        """Why sign-in is needed (e.g. the agent's error message), if known."""

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        name = printable(self.agent_name).strip() or "the agent"
        with DialogBox(id="auth-dialog"):
            yield Static(Content.assemble("Sign in to ", name), id="auth-title")
            if self.message:
                yield Static(
                    Content(printable(self.message, keep="\n").strip()),
                    id="auth-message",
                )
            if self.methods:
                yield OptionList(
                    *(
                        Option(
                            _method_row(number, method),
                            id=f"method-{number}",
                            disabled=method.unsupported_type is not None,
                        )
                        for number, method in enumerate(self.methods, start=1)
                    ),
                    id="auth-methods",
                )
                yield Static(
                    Content("1-9 or enter choose · esc cancel"), id="auth-hint"
                )
            else:
                yield Static(
                    Content("The agent offers no sign-in methods. Esc closes."),
                    id="auth-empty",
                )

    def on_mount(self) -> None:
        """Focus the method list."""
        for option_list in self.query("#auth-methods").results(OptionList):
            option_list.focus()

    def _choose(self, index: int) -> None:
        if 0 <= index < len(self.methods):
            method = self.methods[index]
            if method.unsupported_type is None:
                self.dismiss(method.method_id)

    @on(OptionList.OptionSelected, "#auth-methods")
    def _method_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option_index)

    def on_key(self, event: events.Key) -> None:
        """Number keys pick the method with that number."""
        if event.character and event.character in "123456789":
            index = int(event.character) - 1
            if index < len(self.methods):
                event.stop()
                self._choose(index)

    def action_cancel(self) -> None:
        """Close without signing in."""
        self.dismiss(None)


def _method_row(number: int, method: AuthMethodView) -> Content:
    # Imported here: the client stack must not load with the app's first frame
    # (the dialog only opens once a connection, and so the client, is up).
    from acp_tui.client.auth import method_label

    key = f"{number} " if number <= 9 else "  "
    parts: list[str | tuple[str, str]] = [
        (key, "bold $accent"),
        (method_label(method.name, method.method_id, number), "bold"),
    ]
    details: list[str] = []
    if method.description:
        details.append(printable(method.description, keep="\n").strip())
    if method.terminal:
        details.append("runs a login command in this terminal")
    if method.unsupported_type is not None:
        kind = printable(method.unsupported_type)
        details.append(f"not supported by acp-tui (type {kind})")
    for detail in details:
        parts.append((f"\n  {detail}", _MUTED))
    return Content.assemble(*parts)
