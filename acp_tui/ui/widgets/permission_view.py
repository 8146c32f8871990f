"""The transcript record of a permission request and its outcome.

The dialog (`screens.permission.PermissionScreen`) asks; this view stays in the
conversation afterwards: the request's title, what it was about (a command with
its cwd, the tool call, or an unknown subject's type and fields, listed as data:
see `subject_summary`), and how it was answered. A request about a tool call
that has a card is recorded inside that card (`attached`: the outcome first, and
no repeat of the tool call's title and kind, which the card shows); any other
is an entry of its own. The outcome comes from the
store (`ResolvePermission`, read through `Permission.outcome_kind` and
`Permission.chosen_option`): the option chosen tells "allowed once" from
"rejected always", and a cancelled request reads "cancelled".
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

from textual.content import Content

from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.safe_text import printable
from acp_tui.store.model import Permission
from acp_tui.ui.widgets.outcome_card import OutcomeCard
from acp_tui.ui.widgets.permission_subject import subject_summary

__all__ = ["OutcomeState", "PermissionView", "permission_outcome"]

OutcomeState: TypeAlias = Literal[
    "pending", "allowed", "rejected", "cancelled", "other"
]
"""How a permission request ended (or `pending` while it waits)."""

_KIND_OUTCOMES: Final[dict[str, tuple[str, OutcomeState]]] = {
    "allow_once": ("allowed once", "allowed"),
    "allow_always": ("allowed always", "allowed"),
    "reject_once": ("rejected once", "rejected"),
    "reject_always": ("rejected always", "rejected"),
}

_STATE_STYLES: Final[dict[OutcomeState, tuple[str, str]]] = {
    "pending": ("…", "$permission-waiting"),
    "allowed": ("✓", "$permission-allowed"),
    "rejected": ("✗", "$permission-rejected"),
    "cancelled": ("⊘", "dim"),
    "other": ("•", ""),
}


def permission_outcome(permission: Permission) -> tuple[str, OutcomeState]:
    """Describe a permission's outcome.

    Args:
        permission: The permission snapshot.

    Returns:
        The label (`"allowed once"`, `"allowed always"`, `"rejected once"`,
        `"rejected always"`, `"cancelled"`, `"waiting for your answer"`, or for an
        option of unknown kind `"chose <name>"`) and its state.
    """
    if permission.pending:
        return "waiting for your answer", "pending"
    kind = permission.outcome_kind
    if kind == "cancelled":
        return "cancelled", "cancelled"
    if kind == "selected":
        option_id = permission.chosen_id
        option = permission.chosen_option
        if option is None:
            return f"chose {printable(str(option_id))}", "other"
        known = _KIND_OUTCOMES.get(str(option.kind))
        if known is not None:
            return known
        return f"chose {printable(option.name or option.option_id)}", "other"
    return printable(str(kind)), "other"


_CARD_LINES: Final = ("tool call: ", "tool: ", "kind: ")
"""Subject lines a card already shows (left out of a record inside it)."""


def _summary(permission: Permission, paths: PathDisplay, attached: bool) -> str:
    summary = subject_summary(permission.subject, paths=paths)
    if attached:
        lines = summary.splitlines()
        return "\n".join(line for line in lines if not line.startswith(_CARD_LINES))
    if summary:
        return summary
    if permission.tool_call_id:
        return printable(f"tool call: {permission.tool_call_id}")
    return ""


class PermissionView(OutcomeCard):
    """Shows one permission request and its outcome.

    The outcome's state is also a class: `-pending`, `-allowed`, `-rejected`,
    `-cancelled` or `-other`.

    Args:
        permission: The permission snapshot to show first.
        paths: How paths are shown (the conversation passes its session's:
            relative to the session's directory).
    """

    def __init__(
        self,
        permission: Permission,
        paths: PathDisplay = AS_SENT,
        *,
        attached: bool = False,
    ) -> None:
        super().__init__(attached=attached)
        self.permission = permission
        self.paths = paths
        self.outcome_label = ""
        """The outcome as shown (see `permission_outcome`)."""
        self.outcome_state: OutcomeState = "pending"
        """The outcome's state (also the widget's state class)."""
        self._show(permission)

    @property
    def permission_id(self) -> str:
        """The id of the request shown."""
        return self.permission.permission_id

    def update_permission(self, permission: Permission) -> None:
        """Show a newer snapshot (nothing happens if it is the one shown)."""
        if permission is self.permission:
            return
        self.permission = permission
        self._show(permission)

    def _show(self, permission: Permission) -> None:
        label, state = permission_outcome(permission)
        self.outcome_label = label
        self.outcome_state = state
        self.show_state(state, _STATE_STYLES)
        icon, style = _STATE_STYLES[state]
        title = printable(permission.title or "Permission requested")
        outcome = (f"{icon} {label}", style)
        parts: list[str | tuple[str, str]]
        if self.attached:
            parts = [outcome, "  ", ("Permission: ", "dim"), (title, "bold")]
        else:
            parts = [("Permission", "dim"), "  ", (title, "bold")]
        if permission.description:
            parts += ["\n", (printable(permission.description, keep="\n"), "dim")]
        summary = _summary(permission, self.paths, self.attached)
        if summary:
            parts += ["\n", (summary, "dim")]
        if not self.attached:
            parts += ["\n", outcome]
        self.update(Content.assemble(*parts))
