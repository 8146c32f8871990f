"""The permission dialog: a modal that answers one `PermissionRequest`.

Keys: `1`-`9` pick an option, `y` the first `allow_once`, `n` the first
`reject_once`, Esc cancels (the request is answered `cancelled`), `p` shows the
full paths the subject names (and copies them). The buttons carry their letter
key (`y`, `n`), "Esc cancel" sits beside them, and the hint below says that a key
selects and the same key again (or Enter) chooses. When one row cannot show them
all (claude-agent-acp's "No, and tell Claude what to do differently"), the
options stack, one compact line each (a name too long for the dialog wraps), and
"Esc cancel" takes the line below them.

Invariants:

* Keys typed for the prompt never answer (`acp_tui.ui.key_guard.KeyGuard`).
  For `KEY_GUARD` seconds after the dialog is shown (again: another screen over
  it took the keyboard) no key, Enter or click chooses an option, and after that
  not until the keyboard has been quiet for `KEY_IDLE` seconds: a key in the
  meantime is dropped and restarts the wait. The options are disabled (dimmed)
  until then and a hint says the keys are held. Clicks wait too: a click aimed
  at the prompt as the dialog appeared is the same mistake as a key. Esc works
  at once: cancelling never approves.
* The first key never chooses. Once armed, a key that names an option (`1`-`9`,
  `y`, `n`, or Enter on the focused option) selects it and says so; the same
  key again, or Enter, chooses it. So a key typed for the prompt after a pause,
  by someone who has not looked up yet, is at worst a selection. A click on an
  option (once armed) is deliberate and chooses at once.
* The subject is shown as the agent stated it, from the same `SubjectFacts` that
  key an "allow always" grant (`PermissionRequest.grant`), and the dialog says
  what "always" covers or that acp-tui will ask again. An unknown subject type is
  listed generically (its type and fields as data), never as a command or a tool
  call.
* Agent text is data: every line passes through `printable`, one line at a time,
  so a newline inside a command is shown, not obeyed.
* Paths read relative to the session's directory (`~` for the home directory,
  `acp_tui.display_paths`) in the subject and the "always" text, whole (never
  shortened: this is where the user decides); the subject's tooltip and `p`
  give them exactly as the agent sent them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar, Final

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from acp_tui.client.grants import subject_facts
from acp_tui.client.ports import PermissionChoice, PermissionRequest
from acp_tui.display_paths import AS_SENT, PathDisplay
from acp_tui.safe_text import printable
from acp_tui.store.model import ToolCall
from acp_tui.ui.key_guard import HELD_HINT, KEY_GUARD, KEY_IDLE, Guarded, KeyGuard
from acp_tui.ui.widgets.diff_view import DiffView, diff_document
from acp_tui.ui.widgets.path_lines import copy_full_paths, full_paths_text
from acp_tui.ui.widgets.permission_subject import (
    subject_diffs,
    subject_lines,
    subject_patches,
    subject_paths,
    subject_summary,
)

__all__ = [
    "KEY_GUARD",
    "KEY_IDLE",
    "PermissionScreen",
    "subject_diffs",
    "subject_patches",
    "subject_paths",
    "subject_summary",
]


class PermissionScreen(Guarded, ModalScreen[str | None]):
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
        & #permission-always { color: $text-muted; }
        & #permission-options { height: auto; margin-top: 1; }
        & #permission-esc {
            width: auto;
            height: 3;
            content-align: left middle;
            color: $text-muted;
        }
        & #permission-options.-stacked {
            layout: vertical;
            margin-top: 0;
            & > Button {
                max-width: 100%;
                text-align: left;
                content-align: left middle;
                margin: 0;
            }
            & > #permission-esc { height: 1; padding-left: 1; }
        }
        & #permission-hint { color: $text-muted; margin-top: 1; }
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
        Binding("p", "show_paths", "Full paths"),
    ]

    clock: Callable[[], float] = time.monotonic
    """The time in seconds (tests set their own)."""

    def __init__(
        self,
        request: PermissionRequest,
        tool_call: ToolCall | None = None,
        paths: PathDisplay = AS_SENT,
    ) -> None:
        super().__init__()
        self.request = request
        self.tool_call = tool_call
        """The subject tool call as the store knows it (its diff is shown)."""
        self.paths = paths
        """How paths are shown (relative to the session's directory)."""
        grant = request.grant
        self.facts = (
            grant.subject
            if grant is not None
            else subject_facts(request.subject, tool_call)
        )
        """What the request is about (what an "always" grant is keyed by)."""
        self.guard = KeyGuard(self, self._armed_changed, lambda: self.clock())
        """Holds keys and clicks typed for the prompt (see the module docstring)."""
        self._selected: int | None = None
        """The option the last choosing key selected (None: none since armed)."""

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        request = self.request
        facts = self.facts
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
            lines = subject_lines(facts, request.subject, self.tool_call, self.paths)
            if lines:
                subject = Static(Text("\n".join(lines)), id="permission-subject")
                full = self._full_paths()
                subject.tooltip = Content(full) if full else None
                yield subject
            diffs = subject_diffs(request.subject, self.tool_call)
            if diffs:
                with VerticalScroll(id="permission-diff"):
                    for item in diffs:
                        document = diff_document(item, self.paths)
                        view = DiffView(document, layout="unified")
                        view.can_focus = False  # focus stays on the options
                        yield view
            if any(option.kind == "allow_always" for option in request.options):
                yield Static(Text(printable(self._always())), id="permission-always")
            with _OptionRow(id="permission-options"):
                for number, option in enumerate(request.options[:9], start=1):
                    yield Button(
                        self._label(number, option),
                        id=f"option-{number}",
                        variant=_variant(option),
                        disabled=True,
                    )
                yield Static(Text("Esc cancel"), id="permission-esc")
            yield Static(Text(HELD_HINT), id="permission-hint")

    def _label(self, number: int, option: PermissionChoice) -> Text:
        """An option's button: its number, its name, and its letter key if any."""
        label = Text(f"{number} {printable(option.name)}")
        for key, kind in (("y", "allow_once"), ("n", "reject_once")):
            if self._first(kind) is option:
                label.append(f"  {key}", style="bold")
        return label

    def _always(self) -> str:
        """What choosing an `allow_always` option makes acp-tui do later."""
        grant = self.request.grant
        if grant is None:
            return "acp-tui will ask again next time (the agent may remember)."
        return grant.covers_for(self.paths)

    def _full_paths(self) -> str:
        return full_paths_text(self.paths, subject_paths(self.facts))

    def action_show_paths(self) -> None:
        """Show the full paths the subject names, and copy them (`p`)."""
        copy_full_paths(self, self._full_paths(), none="the request names no path")

    # ------------------------------------------------------------- key guard

    @property
    def armed(self) -> bool:
        """Whether keys and clicks choose options (see the module docstring)."""
        return self.guard.armed

    def _armed_changed(self, armed: bool) -> None:
        self._selected = None
        for button in self.query(Button):
            button.disabled = not armed
        hint = self.query_one("#permission-hint", Static)
        hint.update(Text(self._keys_hint() if armed else HELD_HINT))
        if armed and self.request.options:
            self.query_one("#option-1", Button).focus()

    def _keys_hint(self) -> str:
        """What the keys do: a key selects, the same key again (or Enter) chooses."""
        keys: list[str] = []
        if self._first("allow_once") is not None:
            keys.append("y")
        if self._first("reject_once") is not None:
            keys.append("n")
        count = min(len(self.request.options), 9)
        keys.append("1" if count == 1 else f"1-{count}")
        parts = [
            f"{', '.join(keys[:-1])} or {keys[-1]}" if len(keys) > 1 else keys[0],
            "selects; the same key again or Enter chooses · Esc cancels",
        ]
        if self._full_paths():
            parts.append("· p full paths")
        return " ".join(parts)

    def on_key(self, event: events.Key) -> None:
        """Hold keys until armed; then number keys pick the option with that number.

        Esc and keys with ctrl or alt (app shortcuts) pass while held: none of
        them chooses an option.
        """
        if self.guard.drops(event):
            return
        index = self._named_option(event)
        if index is not None:
            event.stop()
            event.prevent_default()  # Enter never presses the button itself
            self._select_or_choose(index, _KEY_NAMES.get(event.key, event.key))

    def _named_option(self, event: events.Key) -> int | None:
        """The index of the option a key names (None: it names none)."""
        options = self.request.options
        if event.key.startswith(("ctrl+", "alt+", "shift+")):
            return None  # an app shortcut (alt+1 switches tabs)
        if event.key in ("enter", "space"):
            # No option focused yet: this key armed the dialog, whose focus
            # moves to the first option after it.
            focused = self.focused
            name = (focused.id or "") if isinstance(focused, Button) else ""
            if name.startswith("option-"):
                return int(name[7:]) - 1
            return 0 if options else None
        if event.key in ("y", "n"):
            option = self._first("allow_once" if event.key == "y" else "reject_once")
            return None if option is None else options.index(option)
        if event.character and event.character in "123456789":
            index = int(event.character) - 1
            return index if index < min(len(options), 9) else None
        return None

    def _select_or_choose(self, index: int, key: str) -> None:
        """Choose option `index` if a key selected it last; else select it."""
        option = self.request.options[index]
        if self._selected == index:
            self._choose(option)
            return
        self._selected = index
        self.query_one(f"#option-{index + 1}", Button).focus()
        hint = self.query_one("#permission-hint", Static)
        again = f"{key} again" if key == "Enter" else f"{key} again or Enter"
        hint.update(Text(f"Press {again} to choose “{printable(option.name)}”"))

    # --------------------------------------------------------------- answers

    def _choose(self, option: PermissionChoice | None) -> None:
        self.dismiss(option.option_id if option is not None else None)

    def _first(self, kind: str) -> PermissionChoice | None:
        return next((o for o in self.request.options if o.kind == kind), None)

    @on(Button.Pressed)
    def _option_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if not self.armed:
            return
        if event.button.id and event.button.id.startswith("option-"):
            self._choose(self.request.options[int(event.button.id[7:]) - 1])

    def action_allow(self) -> None:
        """Select the first `allow_once` option, then choose it (once armed)."""
        self._by_kind("allow_once", "y")

    def action_reject(self) -> None:
        """Select the first `reject_once` option, then choose it (once armed)."""
        self._by_kind("reject_once", "n")

    def _by_kind(self, kind: str, key: str) -> None:
        option = self._first(kind)
        if option is not None and self.guard.check():
            self._select_or_choose(self.request.options.index(option), key)

    def action_cancel(self) -> None:
        """Answer `cancelled`."""
        self.dismiss(None)


class _OptionRow(Horizontal):
    """The options and "Esc cancel": one row if they fit, else one per line.

    Long option names (claude-agent-acp's "No, and tell Claude what to do
    differently") would be cut in a row; stacked, each shows whole (wrapped if it
    must) and "Esc cancel" gets a line of its own.
    """

    _row_width = 0
    """The width the options take in one row (measured while in one row)."""

    def on_resize(self, event: events.Resize) -> None:
        """Stack the options when one row would not show them all."""
        if not self.has_class("-stacked"):
            self._row_width = event.virtual_size.width
        stacked = self._row_width > event.size.width
        self.set_class(stacked, "-stacked")
        for button in self.query_children(Button):
            button.compact = stacked


_KEY_NAMES: Final = {"enter": "Enter", "space": "Space"}
"""How the hint names a key that is not a character."""


def _variant(option: PermissionChoice) -> ButtonVariant:
    if option.kind.startswith("allow"):
        return "success"
    if option.kind.startswith("reject"):
        return "error"
    return "default"
