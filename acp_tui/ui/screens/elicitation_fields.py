"""The form of the elicitation dialog: one widget per field, and its answer.

`compose_form` builds what `ElicitationScreen` shows of a form (`parse_form`):
its title and description, then per property an input for text and numbers,
a checkbox for yes/no, a radio list for one choice, a checklist for several.
Each field sits in a `.field` box (`#field-N`) with its label (the title, `*`
when required, and a hint: format, bounds, how many to pick, optional), its
description, its widget (`#input-N`, default filled in) and its error line
(`#error-N`, hidden until the dialog shows an error). `field_index` and
`field_value` read a widget back: which field it is, and the answer it holds.

Agent text is data: titles, descriptions and choices pass through `printable`
and are shown as `Content`, never as markup. The dialog's CSS styles these
widgets (`ElicitationScreen.DEFAULT_CSS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Static

from acp_tui.client.elicitation_form import (
    FieldInput,
    FieldSpec,
    FormSpec,
    initial_input,
)
from acp_tui.safe_text import printable
from acp_tui.ui.widgets.choice_list import ChoiceList

__all__ = ["compose_form", "field_index", "field_value", "is_quick"]

_Part = str | tuple[str, str]


def is_quick(fields: Sequence[FieldSpec]) -> bool:
    """One question, one choice: a choice first, then only optional text."""
    return (
        bool(fields)
        and fields[0].kind == "choice"
        and all(f.kind == "string" and not f.required for f in fields[1:])
    )


def compose_form(form: FormSpec | None, problem: str | None) -> ComposeResult:
    """The form's widgets; for a form that cannot show (None), why (`problem`).

    The fields come disabled (`#elicitation-fields`): the dialog enables them
    once its key guard arms.
    """
    if form is None:
        yield Static(
            Content.assemble(
                "acp-tui cannot show this form: ", printable(problem or "")
            ),
            id="elicitation-problem",
        )
        return
    about = "\n".join(
        printable(text, keep="\n").strip()
        for text in (form.title, form.description)
        if text
    )
    if about:
        yield Static(Content(about), id="elicitation-about")
    quick = is_quick(form.fields)
    with Vertical(id="elicitation-fields", disabled=True):
        for index, spec in enumerate(form.fields):
            with Vertical(classes="field", id=f"field-{index}"):
                yield from _compose_field(index, spec, quick and index == 0)


def field_index(widget: Widget | None) -> int | None:
    """The index of the field whose widget `widget` is (None: not a field's)."""
    name = widget.id if widget is not None else None
    if name and name.startswith("input-"):
        return int(name[6:])
    return None


def field_value(widget: Widget) -> FieldInput:
    """The answer a field's widget holds now, as the user gives it."""
    if isinstance(widget, (Input, Checkbox)):
        return widget.value
    if isinstance(widget, ChoiceList):
        if widget.multiple:
            return widget.picked
        return widget.picked[0] if widget.picked else None
    return None


def _compose_field(index: int, spec: FieldSpec, quick: bool) -> ComposeResult:
    """Field `index`: label, description, widget and error line.

    `quick`: the choice of a one-question form (its hint does not offer
    Backspace: a digit picks and the same digit again sends).
    """
    start = initial_input(spec)
    title = printable(spec.title)
    mark: list[_Part] = [(" *", "bold $text-error")] if spec.required else []
    if spec.kind == "boolean":
        yield Checkbox(
            Content.assemble(title, *mark),
            value=bool(start),
            id=f"input-{index}",
            compact=True,
        )
    else:
        label: list[_Part] = [(title, "bold"), *mark]
        hint = _field_hint(spec, quick)
        if hint:
            label.append((f"  {hint}", "dim"))
        yield Static(Content.assemble(*label), classes="field-label")
    if spec.description:
        text = printable(spec.description, keep="\n").strip()
        yield Static(Content(text), classes="field-description")
    if spec.kind in ("choice", "choices"):
        picked = (start,) if isinstance(start, str) else start
        yield ChoiceList(
            spec.choices,
            multiple=spec.kind == "choices",
            picked=picked if isinstance(picked, tuple) else (),
            clearable=not spec.required,
            id=f"input-{index}",
            compact=True,
        )
    elif spec.kind != "boolean":
        yield Input(
            value=start if isinstance(start, str) else "",
            placeholder=_placeholder(spec),
            id=f"input-{index}",
            compact=True,
        )
    yield Static("", classes="field-error", id=f"error-{index}")


_FORMAT_HINTS: Final = {
    "email": "email address",
    "uri": "URI",
    "date": "date",
    "date-time": "date and time",
}

_PLACEHOLDERS: Final = {
    "email": "name@example.com",
    "uri": "https://example.com/page",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm:ssZ",
}


def _field_hint(spec: FieldSpec, quick: bool) -> str:
    """What a field takes, in a few words (bounds, format, how many to pick)."""
    parts: list[str] = []
    if spec.kind == "string":
        if spec.format in _FORMAT_HINTS:
            parts.append(_FORMAT_HINTS[spec.format])
        low, high = spec.min_length, spec.max_length
        if low and high is not None:
            parts.append(f"{low}-{high} characters")
        elif low:
            parts.append(f"at least {low} characters")
        elif high is not None:
            parts.append(f"at most {high} characters")
    elif spec.kind in ("number", "integer"):
        parts.append("whole number" if spec.kind == "integer" else "number")
        bounds = _bounds(spec.minimum, spec.maximum)
        if bounds:
            parts.append(bounds)
    elif spec.kind == "choice":
        parts.append("pick one")
        if not spec.required and not quick:
            parts.append("Backspace clears")
    elif spec.kind == "choices":
        parts.append(_picks(spec.min_items, spec.max_items))
    if not spec.required and spec.kind != "boolean":
        parts.append("optional")
    return " · ".join(parts)


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{low:g} to {high:g}"
    if low is not None:
        return f"at least {low:g}"
    if high is not None:
        return f"at most {high:g}"
    return ""


def _picks(low: int | None, high: int | None) -> str:
    if low and high is not None:
        return f"pick {low}" if low == high else f"pick {low}-{high}"
    if low:
        return f"pick at least {low}"
    if high is not None:
        return f"pick up to {high}"
    return "pick any"


def _placeholder(spec: FieldSpec) -> str:
    if spec.kind == "integer":
        return "a whole number"
    if spec.kind == "number":
        return "a number"
    return _PLACEHOLDERS.get(spec.format or "", "")
