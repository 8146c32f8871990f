"""The permission dialog: a modal that answers one `PermissionRequest`.

Keys: `1`-`9` pick an option, `y` the first `allow_once`, `n` the first
`reject_once`, Esc cancels (the request is answered `cancelled`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from acp_tui.client.ports import PermissionChoice, PermissionRequest
from acp_tui.protocol.framing import printable
from acp_tui.store.model import ToolCall
from acp_tui.store.values import JSONObject
from acp_tui.ui.widgets.diff_view import DiffView, diff_document, diff_patch_text

__all__ = ["PermissionScreen", "subject_diffs", "subject_patches", "subject_summary"]


def subject_summary(subject: JSONObject | None) -> str:
    """A one-or-two-line plain description of a permission subject."""
    if not subject:
        return ""
    kind = subject.get("type")
    lines: list[str] = []
    if kind == "command" or "command" in subject:
        lines.append(f"$ {subject.get('command', '')}")
        if subject.get("cwd"):
            lines.append(f"in {subject['cwd']}")
    else:
        tool = subject.get("toolCall")
        fields = tool if isinstance(tool, dict) else subject
        title = fields.get("title") or fields.get("toolCallId") or kind or "subject"
        lines.append(f"tool call: {title}")
        if fields.get("kind"):
            lines.append(f"kind: {fields['kind']}")
    return printable("\n".join(str(line) for line in lines), keep="\n")


def subject_diffs(
    subject: JSONObject | None, tool_call: ToolCall | None
) -> list[JSONObject]:
    """The `diff` content items to show for a permission subject.

    From the subject's own tool-call content when it carries diffs, else from the
    store's copy of that tool call (agents often send the diff before asking).
    """
    items: list[object] = []
    fields = subject.get("toolCall") if subject else None
    if isinstance(fields, dict) and isinstance(fields.get("content"), list):
        items = list(fields["content"])
    if not items and tool_call is not None:
        items = list(tool_call.content)
    return [
        item for item in items if isinstance(item, dict) and item.get("type") == "diff"
    ]


def subject_patches(
    subject: JSONObject | None, tool_call: ToolCall | None
) -> list[str]:
    """The patch texts of `subject_diffs` (diffs without a patch are left out)."""
    patches: list[str] = []
    for item in subject_diffs(subject, tool_call):
        text = diff_patch_text(item)
        if text:
            patches.append(text)
    return patches


class PermissionScreen(ModalScreen[str | None]):
    """Ask the user to choose one of the agent's permission options."""

    DEFAULT_CSS = """
    PermissionScreen {
        align: center middle;
        & > #permission-dialog {
            width: 80%;
            max-width: 90;
            height: auto;
            border: thick $primary;
            background: $surface;
            padding: 1 2;
        }
        & #permission-title { text-style: bold; }
        & #permission-subject { color: $text-muted; margin: 1 0; }
        & #permission-options { height: auto; margin-top: 1; }
        & #permission-diff {
            height: auto;
            max-height: 16;
            border: round $border;
            padding: 0 1;
            & > DiffView { height: auto; overflow-x: hidden; background: $surface; }
        }
        & Button { margin-right: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("y", "allow", "Allow once"),
        Binding("n", "reject", "Reject once"),
    ]

    def __init__(
        self, request: PermissionRequest, tool_call: ToolCall | None = None
    ) -> None:
        super().__init__()
        self.request = request
        self.tool_call = tool_call
        """The subject tool call as the store knows it (its diff is shown)."""

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        request = self.request
        with Vertical(id="permission-dialog"):
            yield Static(
                Text(printable(request.title or "Permission requested")),
                id="permission-title",
            )
            if request.description:
                yield Static(
                    Text(printable(request.description, keep="\n")),
                    id="permission-description",
                )
            summary = subject_summary(request.subject)
            if summary:
                yield Static(Text(summary), id="permission-subject")
            diffs = subject_diffs(request.subject, self.tool_call)
            if diffs:
                with VerticalScroll(id="permission-diff"):
                    for item in diffs:
                        view = DiffView(diff_document(item), layout="unified")
                        view.can_focus = False  # focus stays on the options
                        yield view
            with Horizontal(id="permission-options"):
                for number, option in enumerate(request.options[:9], start=1):
                    yield Button(
                        Text(f"{number} {printable(option.name)}"),
                        id=f"option-{number}",
                        variant=_variant(option),
                    )

    def _choose(self, option: PermissionChoice | None) -> None:
        self.dismiss(option.option_id if option is not None else None)

    def _first(self, kind: str) -> PermissionChoice | None:
        return next((o for o in self.request.options if o.kind == kind), None)

    @on(Button.Pressed)
    def _option_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("option-"):
            self._choose(self.request.options[int(event.button.id[7:]) - 1])

    def on_key(self, event: events.Key) -> None:
        """Number keys pick the option with that number."""
        if event.character and event.character in "123456789":
            index = int(event.character) - 1
            if index < len(self.request.options):
                event.stop()
                self._choose(self.request.options[index])

    def action_allow(self) -> None:
        """Pick the first `allow_once` option, if offered."""
        option = self._first("allow_once")
        if option is not None:
            self._choose(option)

    def action_reject(self) -> None:
        """Pick the first `reject_once` option, if offered."""
        option = self._first("reject_once")
        if option is not None:
            self._choose(option)

    def action_cancel(self) -> None:
        """Answer `cancelled`."""
        self.dismiss(None)


def _variant(option: PermissionChoice) -> ButtonVariant:
    if option.kind.startswith("allow"):
        return "success"
    if option.kind.startswith("reject"):
        return "error"
    return "default"
