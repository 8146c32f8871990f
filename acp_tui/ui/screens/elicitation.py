"""The elicitation dialog: the agent asks the user through a form or a URL.

`ElicitationScreen(ask)` shows one `ElicitationAsk` and dismisses with an
`ElicitationReply` (`accept` with the form's content, `decline` or `cancel`).
It does no protocol work: the caller sends the reply.

Form mode: one field per property of the form (`parse_form`): an input for
text and numbers, a checkbox for yes/no, a radio list for one choice, a
checklist for several (`elicitation_fields`). Titles, descriptions and hints
(format, bounds, how many to pick) sit by each field, defaults are filled in,
required fields carry `*`. A field's error shows under it once the user leaves
it (or tries to send), and then follows each change. Tab and Enter move from
field to field.

* Send: ctrl+s, the Send button, or Enter in the last field. Nothing is sent
  while a field is wrong: its error shows, and the first wrong field gets the
  focus. An Enter before any answer was touched only moves to Send (the user
  reviews the form before it goes; the spec requires that they can).
* Decline: the Decline button. Cancel: Esc, at any time.
* One question, one choice (the shape Claude's AskUserQuestion sends: a choice,
  then optional free-text boxes such as "Other"): a digit picks that option and
  the same digit again (or Enter) sends, as quick as the permission dialog; Tab
  reaches the free-text box.
* A form acp-tui cannot show (`FormSchemaError`) says why, and offers Decline
  and Cancel only.

URL mode (`elicitation_url`): the full URL, its host highlighted (and named
apart, decoded from Punycode), and a warning for each suspicious trait
(`url_facts`: not HTTPS, an IP or Punycode host, a user name before `@`...).
Nothing is opened or fetched until the user chooses:

* `o` / Open in browser: opens it (a graphical browser, or the user's browser
  under `acp-tui serve`) and accepts. Where no browser can open (over SSH), the
  dialog stays and says so.
* `c` / Copy URL: copies it (OSC 52) for the user to open, and accepts.
* `d` / Decline; Esc cancels. A letter selects its button; the same letter
  again (or Enter) chooses it.

Invariants:

* Keys typed for the prompt never answer (`KeyGuard`, the permission dialog's
  times): until the dialog arms, the fields and buttons are disabled and every
  key but Esc is dropped (a dropped key restarts the quiet time).
* Agent text is data: the agent's name, the message, titles, descriptions,
  choices and the URL pass through `printable` and are shown as `Content`,
  never as markup. No URL is ever rendered as a link.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar, Final

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Static
from textual.widgets.button import ButtonVariant

from acp_tui.client.elicitation_form import (
    ElicitationAsk,
    ElicitationReply,
    FieldInput,
    FieldSpec,
    FormSchemaError,
    FormSpec,
    answer_form,
    field_error,
    parse_form,
)
from acp_tui.safe_text import printable
from acp_tui.ui.key_guard import HELD_HINT, Guarded, KeyGuard
from acp_tui.ui.screens.elicitation_fields import (
    compose_form,
    field_index,
    field_value,
    is_quick,
)
from acp_tui.ui.screens.elicitation_url import (
    NO_BROWSER,
    choice_hint,
    compose_url,
    open_url,
    url_choice,
)
from acp_tui.ui.url_facts import url_facts
from acp_tui.ui.widgets.choice_list import ChoiceList
from acp_tui.ui.widgets.frames import DialogBox

__all__ = ["ElicitationScreen"]


class ElicitationScreen(Guarded, ModalScreen[ElicitationReply]):
    """Ask the user what the agent wants to know (see the module docstring).

    Args:
        ask: The request.
        opener: Opens a URL, returning whether it did (default: the user's
            browser under `acp-tui serve`, else `open_in_browser`).
    """

    DEFAULT_CSS = """
    ElicitationScreen {
        align: center middle;
        & > #elicitation-dialog { padding: 1 2; }
        & #elicitation-body { height: auto; max-height: 1fr; }
        & #elicitation-title { text-style: bold; }
        & #elicitation-message { margin-top: 1; }
        & #elicitation-about { color: $text-muted; margin-top: 1; }
        & #elicitation-fields { height: auto; }
        & .field {
            height: auto;
            margin-top: 1;
            padding-left: 1;
            border-left: blank;
            &:focus-within { border-left: thick $accent; }
        }
        & .field-description { color: $text-muted; }
        & .field-error { color: $text-error; display: none; }
        & .field-error.-shown { display: block; }
        & .field > Input { background: $panel; }
        & .field > Input.-invalid { background-tint: $error 20%; }
        & #elicitation-problem { color: $text-error; margin-top: 1; }
        & #url-address { margin-top: 1; }
        & #url-site { margin-top: 1; }
        & #url-warnings { color: $text-warning; margin-top: 1; }
        & #url-note { color: $text-muted; margin-top: 1; }
        & #elicitation-foot { dock: bottom; height: auto; margin-top: 1; }
        & #elicitation-buttons { height: auto; }
        & #elicitation-esc {
            width: auto;
            height: 3;
            content-align: left middle;
            color: $text-muted;
        }
        & #elicitation-hint { color: $text-muted; }
        & Button { margin-right: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "send", "Send"),
    ]

    clock: Callable[[], float] = time.monotonic
    """The time in seconds (tests set their own before the dialog is shown)."""

    def __init__(
        self, ask: ElicitationAsk, *, opener: Callable[[str], bool] | None = None
    ) -> None:
        super().__init__()
        self.ask = ask
        """The request."""
        self.opener = opener
        """Opens a URL (None: see `open_url`)."""
        self.form: FormSpec | None = None
        """The form (form mode, when its schema could be read)."""
        self.problem: str | None = None
        """Why the form cannot be shown (form mode), or None."""
        if ask.mode == "form":
            try:
                self.form = parse_form(ask.schema)
            except FormSchemaError as error:
                self.problem = str(error)
        self.quick = is_quick(self.fields)
        """One question, one choice: a choice first, then only optional text."""
        self.facts = url_facts(ask.url or "")
        """URL mode: the URL as the dialog shows it."""
        self.guard = KeyGuard(self, self._armed_changed, lambda: self.clock())
        """Holds keys typed for the prompt (see the module docstring)."""
        self._touched = False
        """Whether the user has answered anything since the dialog armed."""
        self._shown_errors: set[int] = set()
        """The fields whose errors are shown."""
        self._selected: str | None = None
        """URL mode: the button the last letter selected."""

    # ---------------------------------------------------------------- compose

    @property
    def fields(self) -> tuple[FieldSpec, ...]:
        """The form's fields (none in URL mode or for a form that cannot show)."""
        return self.form.fields if self.form is not None else ()

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        agent = printable(self.ask.agent).strip() or "The agent"
        url_mode = self.ask.mode == "url"
        with DialogBox(id="elicitation-dialog"):
            with VerticalScroll(id="elicitation-body", can_focus=False):
                asks = " asks you to open a web page" if url_mode else " asks"
                yield Static(
                    Content.assemble((agent, "bold $accent"), asks),
                    id="elicitation-title",
                )
                message = printable(self.ask.message, keep="\n").strip()
                if message:
                    yield Static(Content(message), id="elicitation-message")
                if url_mode:
                    yield from compose_url(self.facts)
                else:
                    yield from compose_form(self.form, self.problem)
            with Vertical(id="elicitation-foot"):
                with Horizontal(id="elicitation-buttons"):
                    yield from self._buttons()
                    yield Static(Content("Esc cancel"), id="elicitation-esc")
                yield Static(Content(HELD_HINT), id="elicitation-hint")

    def _buttons(self) -> ComposeResult:
        if self.ask.mode == "url":
            yield _button("Open in browser  o", "url-open", "success")
            yield _button("Copy URL  c", "url-copy", "primary")
        elif self.form is not None:
            yield _button("Send  ctrl+s", "send", "success")
        yield _button("Decline  d" if self.ask.mode == "url" else "Decline", "decline")

    # ------------------------------------------------------------ key guard

    def _armed_changed(self, armed: bool) -> None:
        self._selected = None
        for button in self.query(Button):
            button.disabled = not armed
        for fields in self.query("#elicitation-fields"):
            fields.disabled = not armed
        self._hint(self._keys_hint() if armed else HELD_HINT)
        if armed:
            self._touched = False
            self._first_focus()

    def _first_focus(self) -> None:
        """Focus the first field, or Open; nothing in a form without fields.

        So a first Enter never answers.
        """
        if self.fields:
            self._field_widget(0).focus()
        elif self.ask.mode == "url":
            self.query_one("#url-open", Button).focus()
        else:
            self.set_focus(None)

    def _keys_hint(self) -> str:
        if self.ask.mode == "url":
            return f"o, c or d selects; {_AGAIN} chooses · Esc cancels"
        if self.form is None:
            return "Decline to say no · Esc cancels"
        if self.quick:
            count = min(len(self.fields[0].choices), 9)
            keys = "1" if count == 1 else f"1-{count}"
            more = " · Tab to type your own" if len(self.fields) > 1 else ""
            return f"{keys} picks; {_AGAIN} sends{more} · Esc cancels"
        required = " · * required" if any(f.required for f in self.fields) else ""
        return f"Tab/Enter next field · ctrl+s sends · Esc cancels{required}"

    def on_key(self, event: events.Key) -> None:
        """Drop keys while held; in URL mode a letter selects, then chooses."""
        # ctrl+s passes while held: it checks the guard itself.
        if self.guard.drops(event):
            return
        if event.key not in _NOT_ANSWERING:
            self._touched = True
        if self.ask.mode == "url":
            target = url_choice(event, self.focused)
            if target is not None:
                event.stop()
                event.prevent_default()
                self._select_or_press(target, event.key)

    # ----------------------------------------------------------------- form

    def _field_widget(self, index: int) -> Widget:
        return self.query_one(f"#input-{index}")

    def value(self, index: int) -> FieldInput:
        """Field `index`'s answer as the user gives it now."""
        return field_value(self._field_widget(index))

    def values(self) -> dict[str, FieldInput]:
        """Every field's answer, by property name."""
        return {spec.name: self.value(i) for i, spec in enumerate(self.fields)}

    def _show_error(self, index: int) -> str | None:
        """Show field `index`'s error (if any) under it; the error."""
        self._shown_errors.add(index)
        error = field_error(self.fields[index], self.value(index))
        shown = self.query_one(f"#error-{index}", Static)
        shown.update(Content(error or ""))
        shown.set_class(error is not None, "-shown")
        self._field_widget(index).set_class(error is not None, "-invalid")
        return error

    def _changed(self, widget: Widget | None, *, at_once: bool) -> None:
        index = field_index(widget)
        if index is None or not self.guard.armed:
            return
        self._touched = True
        if at_once or index in self._shown_errors:
            self._show_error(index)

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        self._changed(event.input, at_once=False)

    @on(Input.Blurred)
    def _input_left(self, event: Input.Blurred) -> None:
        index = field_index(event.input)
        if index is not None and self.guard.armed and self._touched:
            self._show_error(index)

    @on(Checkbox.Changed)
    def _checkbox_changed(self, event: Checkbox.Changed) -> None:
        self._changed(event.checkbox, at_once=True)

    @on(ChoiceList.Changed)
    def _choice_changed(self, event: ChoiceList.Changed) -> None:
        self._changed(event.choice_list, at_once=True)
        picked = event.choice_list.picked
        if self.quick and field_index(event.choice_list) == 0 and picked:
            values = [c.value for c in self.fields[0].choices]
            number = values.index(picked[0]) + 1
            key = f"{number} again or Enter" if number <= 9 else "Enter"
            title = self.fields[0].choices[number - 1].title
            self._hint(f"Press {key} to send “{printable(title)}”")

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._done_with(field_index(event.input))

    @on(ChoiceList.Confirmed)
    def _choice_confirmed(self, event: ChoiceList.Confirmed) -> None:
        event.stop()
        index = field_index(event.choice_list)
        if self.quick and index == 0:
            self.action_send()
        else:
            self._done_with(index)

    def _done_with(self, index: int | None) -> None:
        """Enter in field `index`: on to the next field; from the last, send."""
        if index is None or not self.guard.armed:
            return
        self._show_error(index)
        if index + 1 < len(self.fields):
            self._field_widget(index + 1).focus()
        elif self._touched:
            self.action_send()
        else:
            self.query_one("#send", Button).focus()
            self._hint("Review the answers; Enter sends · Esc cancels")

    def action_send(self) -> None:
        """Send the form (ctrl+s), if every answer passes."""
        form = self.form
        if form is None or not self.guard.check():
            return
        answer = answer_form(form, self.values())
        if answer.ok:
            self.dismiss(ElicitationReply("accept", dict(answer.content)))
            return
        wrong = [i for i in range(len(self.fields)) if self._show_error(i)]
        self._field_widget(wrong[0]).focus()
        count = "1 answer needs" if len(wrong) == 1 else f"{len(wrong)} answers need"
        self._hint(f"{count} fixing before sending (see the marked fields)")

    # ------------------------------------------------------------------ URL

    def _select_or_press(self, button_id: str, key: str) -> None:
        """Press `button_id` if a key selected it last; else select it."""
        if self._selected == button_id:
            self._act(button_id)
            return
        self._selected = button_id
        self.query_one(f"#{button_id}", Button).focus()
        self._hint(choice_hint(button_id, key))

    def _act(self, button_id: str | None) -> None:
        if button_id == "url-open":
            self._open_url()
        elif button_id == "url-copy":
            self._copy_url()
        elif button_id == "send":
            self.action_send()
        elif button_id == "decline":
            self.dismiss(ElicitationReply("decline"))

    def _open_url(self) -> None:
        if open_url(self.app, self.ask.url or "", self.facts, self.opener):
            self.dismiss(ElicitationReply("accept"))
            return
        self._selected = None
        self.query_one("#url-copy", Button).focus()
        self._hint(NO_BROWSER)

    def _copy_url(self) -> None:
        url = self.ask.url or ""
        self.app.copy_to_clipboard(url)
        self.notify(
            printable(url), title="URL copied: open it in your browser", markup=False
        )
        self.dismiss(ElicitationReply("accept"))

    # -------------------------------------------------------------- answers

    @on(Button.Pressed)
    def _button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.guard.check():
            self._act(event.button.id)

    def action_cancel(self) -> None:
        """Dismiss without choosing: answer `cancel`."""
        self.dismiss(ElicitationReply("cancel"))

    def _hint(self, text: str) -> None:
        self.query_one("#elicitation-hint", Static).update(Content(text))


def _button(label: str, button_id: str, variant: ButtonVariant = "default") -> Button:
    return Button(Content(label), id=button_id, variant=variant, disabled=True)


_AGAIN: Final = "the same key again or Enter"
_NOT_ANSWERING: Final = frozenset({"enter", "tab", "shift+tab"})
"""Keys that only move (an Enter in a field is `_done_with`'s): they answer nothing,
so Enter in the last field still asks for a review."""
