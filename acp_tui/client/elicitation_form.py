"""What an elicitation asks, read from the wire, and the answer to send back.

An agent asks the user through `elicitation/create` (v1 and v2 alike): a form
(`requestedSchema`, a restricted JSON Schema) or a URL to open out of band. This
module is the dialog's model, pure and version-neutral, so the protocol side and
the dialog (`acp_tui.ui.screens.elicitation`) share it without Textual:

* `ElicitationAsk` (what the dialog shows) and `ElicitationReply` (what it
  answers: `accept` with the form's content, `decline` or `cancel`).
* `parse_form(schema)` reads a form's schema into `FormSpec` / `FieldSpec`, one
  field per property: `string` (lengths, `pattern`, the formats email, uri, date
  and date-time), `number` and `integer` (bounds), `boolean`, `choice` (a
  single-select enum: `enum`, `oneOf` of `{const, title}`, or `enum` titled by
  MCP's older `enumNames`) and `choices` (a multi-select: `type: "array"` whose
  `items` hold `enum` or `anyOf` of `{const, title}`, with `minItems` /
  `maxItems`). A shape it cannot show raises `FormSchemaError`, whose message
  says which property and why: the caller declines or shows the raw request.
* `field_error(field, value)` checks one answer as the user gives it (the text
  of an input, a bool, the picked values) and `answer_form(form, values)` checks
  them all and builds the `content` object to send.
* `answer_text(elicitation)` says how a recorded elicitation was answered, with
  the requested schema's titles (`Approach: Big`, a choice by its title), where
  it has them; the property name and the value sent where it has none.
* A URL-mode address is read for display, and opened, by
  `acp_tui.ui.url_facts`.

Invariants:

* Parsing follows ACP's `ElicitationSchema` in both versions: `null` reads as
  omitted everywhere; a title, description or default of the wrong type is
  ignored (the schema marks them "default on error"), as are defaults outside
  the choices; an unknown string `format` is an annotation, not an error (v2's
  open `StringFormat`); a property `type` acp-tui does not know is an error
  (the schema says it must not be shown as a known control).
* `answer_form` puts in `content` only values that pass `field_error`, of the
  wire types `ElicitationContentValue` allows (str, int, float, bool, list of
  str); an optional field left empty is left out, a boolean is always sent.
* Nothing here prefetches or opens a URL.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Final, Literal, TypeAlias

from acp_tui.safe_text import printable
from acp_tui.store.model import Elicitation, FieldLabel
from acp_tui.store.values import JSONObject, JSONValue

__all__ = [
    "FORMATS",
    "INT64",
    "Choice",
    "ContentValue",
    "ElicitationAsk",
    "ElicitationReply",
    "FieldInput",
    "FieldKind",
    "FieldSpec",
    "FormAnswer",
    "FormSchemaError",
    "FormSpec",
    "answer_form",
    "answer_text",
    "field_error",
    "initial_input",
    "parse_form",
]

# ------------------------------------------------------------------ ask, reply


@dataclass(frozen=True)
class ElicitationAsk:
    """One `elicitation/create` request, as the dialog shows it."""

    agent: str
    """The name of the agent that asks (shown: the user must know who asks)."""
    message: str
    """Why the agent asks (the request's `message`)."""
    mode: Literal["form", "url"]
    """A form to fill in, or a URL to open out of band."""
    schema: JSONObject | None
    """Form mode: the `requestedSchema` as received (read with `parse_form`)."""
    url: str | None
    """URL mode: the address to open once the user consents."""
    elicitation_id: str | None
    """URL mode: the id `elicitation/complete` names when the agent is done."""


@dataclass(frozen=True)
class ElicitationReply:
    """The user's answer: the `action` of the response, and a form's `content`."""

    action: Literal["accept", "decline", "cancel"]
    """`accept`: sent the form or consented to the URL; `decline`: said no;
    `cancel`: dismissed the dialog without choosing."""
    content: Mapping[str, JSONValue] | None = None
    """For an accepted form, the values (`answer_form`); otherwise `None`."""


# ------------------------------------------------------------------ the form

FieldKind: TypeAlias = Literal[
    "string", "number", "integer", "boolean", "choice", "choices"
]
"""What a field asks for: text, a number, a whole number, yes/no, one of several
choices, or any number of them."""

ContentValue: TypeAlias = str | int | float | bool | list[str]
"""A value `content` may hold (the wire's `ElicitationContentValue`)."""

FieldInput: TypeAlias = str | bool | tuple[str, ...] | None
"""A field's answer as the user gives it: the text typed for `string`, `number`
and `integer`; a bool for `boolean`; the picked value or `None` for `choice`;
the picked values for `choices`."""

FORMATS: Final = frozenset({"email", "uri", "date", "date-time"})
"""The string formats that are checked (others are annotations)."""

INT64: Final = 2**63
"""Integers are 64-bit signed on the wire: |n| must stay below this."""


class FormSchemaError(ValueError):
    """A form's schema has a shape acp-tui cannot show (the message says what)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a `choice` or `choices` field."""

    value: str
    """The value sent when it is picked (the enum value or `const`)."""
    title: str
    """What the user reads (the `title`, else the value itself)."""
    description: str | None = None
    """An optional longer text (a titled option's `description`)."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a form, typed (see `FieldKind`)."""

    name: str
    """The property name: the key of the answer in `content`."""
    kind: FieldKind
    """What the field asks for."""
    title: str
    """The label: the property's `title`, else its name."""
    description: str | None = None
    """Help text shown with the field."""
    required: bool = False
    """Whether the form lists it in `required`."""
    default: str | int | float | bool | tuple[str, ...] | None = None
    """The declared default, if valid for the kind (pre-filled)."""
    min_length: int | None = None
    """`string`: the fewest characters (code points)."""
    max_length: int | None = None
    """`string`: the most characters (code points)."""
    pattern: str | None = None
    """`string`: a regular expression the text must contain a match of."""
    format: str | None = None
    """`string`: email, uri, date, date-time (checked), or another (shown only)."""
    minimum: int | float | None = None
    """`number` / `integer`: the least value (inclusive)."""
    maximum: int | float | None = None
    """`number` / `integer`: the greatest value (inclusive)."""
    choices: tuple[Choice, ...] = ()
    """`choice` / `choices`: the options, in the agent's order."""
    min_items: int | None = None
    """`choices`: the fewest picks."""
    max_items: int | None = None
    """`choices`: the most picks."""

    def choice_titled(self, value: str) -> Choice | None:
        """The option whose value is `value` (None: there is none)."""
        return next((c for c in self.choices if c.value == value), None)


@dataclass(frozen=True, slots=True)
class FormSpec:
    """A form: its optional title and description, and its fields in order."""

    fields: tuple[FieldSpec, ...]
    """One per property, in the order the agent listed them."""
    title: str | None = None
    """The schema's `title`, if any."""
    description: str | None = None
    """The schema's `description`, if any."""


@dataclass(frozen=True, slots=True)
class FormAnswer:
    """The checked answers of a form: the content to send, or what is wrong."""

    content: dict[str, ContentValue] = field(default_factory=dict)
    """The values that passed, keyed by property name (what `accept` sends)."""
    errors: dict[str, str] = field(default_factory=dict)
    """Property name -> what is wrong with its answer (empty: all good)."""

    @property
    def ok(self) -> bool:
        """Whether every answer passed (the form may be sent)."""
        return not self.errors


def parse_form(schema: JSONValue) -> FormSpec:
    """Read a form elicitation's `requestedSchema` into typed fields.

    Args:
        schema: The schema as received (plain JSON; `null` members read as
            omitted).

    Returns:
        The form, its fields in the order of `properties`.

    Raises:
        FormSchemaError: The schema is not a flat object of the supported
            property shapes (the message names the property and the problem).
    """
    if not isinstance(schema, Mapping):
        raise FormSchemaError("the form's schema is not an object")
    kind = schema.get("type")
    if kind is not None and kind != "object":
        raise FormSchemaError(f"the form's schema has type {_shown(kind)}, not object")
    properties = schema.get("properties")
    if properties is None:
        properties = {}
    if not isinstance(properties, Mapping):
        raise FormSchemaError("the form's `properties` is not an object")
    required = _names(schema.get("required"))
    unknown = [name for name in required if name not in properties]
    if unknown:
        raise FormSchemaError(
            f"the form requires {_shown(unknown[0])}, which it does not describe"
        )
    fields = tuple(
        _field(str(name), prop, name in required) for name, prop in properties.items()
    )
    return FormSpec(
        fields, _text(schema.get("title")), _text(schema.get("description"))
    )


def _names(value: JSONValue) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise FormSchemaError("the form's `required` is not a list of names")
    if not all(isinstance(name, str) for name in value):
        raise FormSchemaError("the form's `required` is not a list of names")
    return frozenset(str(name) for name in value)


def _field(name: str, prop: JSONValue, required: bool) -> FieldSpec:
    where = f"field {_shown(name)}"
    if not isinstance(prop, Mapping):
        raise FormSchemaError(f"{where} is not described by an object")
    kind = prop.get("type")
    base = FieldSpec(
        name,
        "string",
        _text(prop.get("title")) or name,
        _text(prop.get("description")),
        required,
    )
    if kind == "string":
        return _string_field(base, prop, where)
    if kind in ("number", "integer"):
        return _number_field(base, prop, where, kind == "integer")
    if kind == "boolean":
        default = prop.get("default")
        return replace(
            base, kind="boolean", default=default if isinstance(default, bool) else None
        )
    if kind == "array":
        return _choices_field(base, prop, where)
    if kind is None:
        raise FormSchemaError(f"{where} has no type")
    raise FormSchemaError(
        f"{where} has type {_shown(kind)}, which acp-tui cannot show as a form field"
    )


def _string_field(base: FieldSpec, prop: JSONObject, where: str) -> FieldSpec:
    default = prop.get("default")
    options = _single_choices(prop, where)
    if options is not None:
        return replace(
            base,
            kind="choice",
            choices=options,
            default=(
                default
                if isinstance(default, str) and any(c.value == default for c in options)
                else None
            ),
        )
    low = _count(prop.get("minLength"), where, "minLength")
    high = _count(prop.get("maxLength"), where, "maxLength")
    if low is not None and high is not None and low > high:
        raise FormSchemaError(
            f"{where} needs at least {low} and at most {high} characters"
        )
    pattern = prop.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise FormSchemaError(f"{where} has a `pattern` that is not text")
    fmt = prop.get("format")
    if fmt is not None and not isinstance(fmt, str):
        raise FormSchemaError(f"{where} has a `format` that is not text")
    return replace(
        base,
        default=default if isinstance(default, str) else None,
        min_length=low,
        max_length=high,
        pattern=pattern,
        format=fmt,
    )


def _single_choices(prop: JSONObject, where: str) -> tuple[Choice, ...] | None:
    """A single-select's options (None: the string is free text)."""
    plain = prop.get("enum")
    titled = prop.get("oneOf")
    if plain is not None and titled is not None:
        raise FormSchemaError(f"{where} lists its choices twice (`enum` and `oneOf`)")
    if titled is not None:
        return _titled(titled, where, "oneOf")
    if plain is None:
        return None
    values = _plain(plain, where, "enum")
    names = prop.get("enumNames")  # MCP's older titles (not ACP's; read kindly)
    if (
        isinstance(names, Sequence)
        and not isinstance(names, str)
        and len(names) == len(values)
        and all(isinstance(n, str) for n in names)
    ):
        return _unique(Choice(v, str(n)) for v, n in zip(values, names, strict=True))
    return _unique(Choice(v, v) for v in values)


def _plain(value: JSONValue, where: str, key: str) -> list[str]:
    if (
        isinstance(value, str)
        or not isinstance(value, Sequence)
        or not all(isinstance(v, str) for v in value)
    ):
        raise FormSchemaError(f"{where} has an `{key}` that is not a list of text")
    if not value:
        raise FormSchemaError(f"{where} offers no choices (an empty `{key}`)")
    return [str(v) for v in value]


def _titled(value: JSONValue, where: str, key: str) -> tuple[Choice, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise FormSchemaError(f"{where} has a `{key}` that is not a list of options")
    if not value:
        raise FormSchemaError(f"{where} offers no choices (an empty `{key}`)")
    options: list[Choice] = []
    for option in value:
        if not isinstance(option, Mapping) or not isinstance(option.get("const"), str):
            raise FormSchemaError(
                f"{where} has a `{key}` option without a text `const`"
            )
        const = str(option.get("const"))
        options.append(
            Choice(
                const,
                _text(option.get("title")) or const,
                _text(option.get("description")),
            )
        )
    return _unique(options)


def _unique(options: Iterable[Choice]) -> tuple[Choice, ...]:
    """The options, each value once (the first wins)."""
    seen: set[str] = set()
    kept: list[Choice] = []
    for option in options:
        if option.value not in seen:
            seen.add(option.value)
            kept.append(option)
    return tuple(kept)


def _number_field(
    base: FieldSpec, prop: JSONObject, where: str, integer: bool
) -> FieldSpec:
    low = _bound(prop.get("minimum"), where, "minimum")
    high = _bound(prop.get("maximum"), where, "maximum")
    if low is not None and high is not None and low > high:
        raise FormSchemaError(f"{where} has a minimum above its maximum")
    return replace(
        base,
        kind="integer" if integer else "number",
        minimum=low,
        maximum=high,
        default=_number_default(prop.get("default"), integer),
    )


def _number_default(value: JSONValue, integer: bool) -> int | float | None:
    """A number's default, if it is one of the field's kind."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        return None if integer or not math.isfinite(value) else value
    return None if integer and abs(value) >= INT64 else value


def _choices_field(base: FieldSpec, prop: JSONObject, where: str) -> FieldSpec:
    items = prop.get("items")
    if not isinstance(items, Mapping):
        raise FormSchemaError(
            f"{where} is a list without `items` describing its choices"
        )
    item_type = items.get("type")
    if items.get("anyOf") is not None and item_type is None:
        options = _titled(items.get("anyOf"), where, "items.anyOf")
    elif item_type in ("string", None) and items.get("enum") is not None:
        options = _unique(
            Choice(v, v) for v in _plain(items.get("enum"), where, "items.enum")
        )
    else:
        raise FormSchemaError(
            f"{where} is a list whose items acp-tui cannot show "
            "(only `enum` or `anyOf` choices)"
        )
    low = _count(prop.get("minItems"), where, "minItems")
    high = _count(prop.get("maxItems"), where, "maxItems")
    if low is not None and high is not None and low > high:
        raise FormSchemaError(f"{where} needs at least {low} and at most {high} picks")
    default = prop.get("default")
    picked: tuple[str, ...] | None = None
    if isinstance(default, Sequence) and not isinstance(default, str):
        values = {c.value for c in options}
        picked = tuple(v for v in default if isinstance(v, str) and v in values)
    return replace(
        base,
        kind="choices",
        choices=options,
        min_items=low,
        max_items=high,
        default=picked,
    )


def _count(value: JSONValue, where: str, key: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FormSchemaError(f"{where} has a `{key}` that is not a count")
    return value


def _bound(value: JSONValue, where: str, key: str) -> int | float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FormSchemaError(f"{where} has a `{key}` that is not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise FormSchemaError(f"{where} has a `{key}` that is not a finite number")
    return value


def _text(value: JSONValue) -> str | None:
    """A title or description: text, or None if absent or of the wrong type."""
    return value if isinstance(value, str) and value.strip() else None


def _shown(value: object) -> str:
    """A value from the agent, quoted for an error message (printable, bounded)."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > 60:
        text = text[:59] + "…"
    return f"“{printable(text)}”"


# ------------------------------------------------------------------ answers


def initial_input(spec: FieldSpec) -> FieldInput:
    """The answer a field starts with: its default, as the user would give it."""
    default = spec.default
    if spec.kind == "boolean":
        return bool(default)
    if spec.kind == "choice":
        return default if isinstance(default, str) else None
    if spec.kind == "choices":
        return default if isinstance(default, tuple) else ()
    if default is None or isinstance(default, tuple):
        return ""
    return str(default)


class _Invalid(Exception):
    """An answer that does not pass (its message is shown by the field)."""


def field_error(spec: FieldSpec, value: FieldInput) -> str | None:
    """What is wrong with one answer (None: it passes).

    Args:
        spec: The field.
        value: The answer as the user gives it (see `FieldInput`).
    """
    try:
        _converted(spec, value)
    except _Invalid as problem:
        return str(problem)
    return None


def answer_form(form: FormSpec, values: Mapping[str, FieldInput]) -> FormAnswer:
    """Check every answer and build the `content` to send with `accept`.

    Args:
        form: The form.
        values: Property name -> the answer as the user gives it (a field
            missing here is unanswered).

    Returns:
        The content of the answers that pass and the errors of those that do not;
        send `content` only when `ok`.
    """
    content: dict[str, ContentValue] = {}
    errors: dict[str, str] = {}
    for spec in form.fields:
        try:
            value = _converted(spec, values.get(spec.name))
        except _Invalid as problem:
            errors[spec.name] = str(problem)
            continue
        if value is not None:
            content[spec.name] = value
    return FormAnswer(content, errors)


def json_answer(form: FormSpec, answer: Mapping[str, object]) -> FormAnswer:
    """Check a scripted answer (`acp-tui print --answers`) as `answer_form` does.

    Only the form's fields the answer names are answered and checked (a
    boolean it leaves out is not sent `false`; an optional field it leaves out
    is not an error), besides the required ones; other names are ignored. A
    JSON value is given as the user would give it: a number as its text, a list
    of strings as picks; a value of the wrong kind for its field is an error,
    never a guess.
    """
    values: dict[str, FieldInput] = {}
    wrong: dict[str, str] = {}
    for spec in form.fields:
        if spec.name not in answer:
            continue
        given = _json_input(spec, answer[spec.name])
        if given is None and answer[spec.name] is not None:
            shown = _shown(answer[spec.name])
            wrong[spec.name] = f"{shown} is not {_KINDS[spec.kind]}"
        else:
            values[spec.name] = given
    checked = answer_form(form, values)
    asked = {spec.name for spec in form.fields if spec.required} | set(values)
    content = {name: v for name, v in checked.content.items() if name in values}
    errors = {name: e for name, e in checked.errors.items() if name in asked}
    return FormAnswer(content, {**errors, **wrong})


_KINDS: Final = {
    "string": "text",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "choice": "one of the choices",
    "choices": "a list of choices",
}
"""What a field's JSON answer must be, for an error message."""


def answer_text(elicitation: Elicitation) -> str:
    """How `elicitation` was answered, in words (`Elicitation.answer_text`).

    A form's values are labelled with their fields' titles, and a choice reads
    as its title, not its value sent. A field with no title keeps its property
    name, and a schema acp-tui cannot read keeps every name and value as sent.
    Plain text, not yet made printable.
    """
    return elicitation.answer_text(_titles(elicitation.requested_schema))


def _titles(schema: JSONValue) -> FieldLabel | None:
    """The labeller for the answers to a form (None: the schema is unreadable)."""
    try:
        form = parse_form(schema)
    except FormSchemaError:
        return None
    fields = {spec.name: spec for spec in form.fields}

    def label(name: str, value: JSONValue) -> tuple[str, JSONValue]:
        spec = fields.get(name)
        if spec is None:
            return name, value
        return spec.title, _choice_titles(spec, value)

    return label


def _choice_titles(spec: FieldSpec, value: JSONValue) -> JSONValue:
    """A choice's value as its title (a list of choices: each one's)."""
    if isinstance(value, str):
        choice = spec.choice_titled(value)
        return value if choice is None else choice.title
    if isinstance(value, list):
        return [_choice_titles(spec, item) for item in value]
    return value


def _json_input(spec: FieldSpec, value: object) -> FieldInput:
    """A JSON value as `FieldInput` for `spec` (None: of the wrong kind, or null)."""
    if spec.kind == "boolean":
        return value if isinstance(value, bool) else None
    if spec.kind == "choices":
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        return None
    if spec.kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return str(value)
    return value if isinstance(value, str) else None


def _converted(spec: FieldSpec, value: FieldInput) -> ContentValue | None:
    """The wire value of an answer (None: left out), or `_Invalid` raised."""
    if spec.kind == "boolean":
        return bool(value)
    if spec.kind == "choice":
        return _one_choice(spec, value)
    if spec.kind == "choices":
        return _many_choices(spec, value)
    text = value if isinstance(value, str) else ""
    if not text.strip():
        if spec.required:
            raise _Invalid("Required: enter a value.")
        return None
    if spec.kind == "string":
        return _checked_string(spec, text)
    return _checked_number(spec, text.strip())


def _one_choice(spec: FieldSpec, value: FieldInput) -> str | None:
    if value is None or value == () or value == "":
        if spec.required:
            raise _Invalid("Required: pick one.")
        return None
    if not isinstance(value, str) or spec.choice_titled(value) is None:
        raise _Invalid("Pick one of the choices.")
    return value


def _many_choices(spec: FieldSpec, value: FieldInput) -> list[str] | None:
    if isinstance(value, str):
        value = (value,)
    picked = list(value) if isinstance(value, tuple) else []
    if any(spec.choice_titled(v) is None for v in picked):
        raise _Invalid("Pick only from the choices.")
    picked = [c.value for c in spec.choices if c.value in picked]  # agent's order
    low, high = spec.min_items, spec.max_items
    if not picked and not spec.required and not low:
        return None
    if not picked and spec.required and not low:
        raise _Invalid("Required: pick at least one.")
    if low is not None and len(picked) < low:
        raise _Invalid(f"Pick at least {low}.")
    if high is not None and len(picked) > high:
        raise _Invalid(f"Pick at most {high}." if high else "Pick none.")
    return picked


def _checked_string(spec: FieldSpec, text: str) -> str:
    low, high = spec.min_length, spec.max_length
    if low is not None and len(text) < low:
        raise _Invalid(f"Too short: at least {_characters(low)}.")
    if high is not None and len(text) > high:
        raise _Invalid(f"Too long: at most {_characters(high)} ({len(text)} now).")
    fmt = spec.format
    if fmt in FORMATS:
        text = text.strip()
        check, problem = _FORMAT_CHECKS[fmt]
        if not check(text):
            raise _Invalid(problem)
    if spec.pattern is not None:
        try:
            found = re.search(spec.pattern, text) is not None
        except re.error:
            found = True  # a pattern Python cannot read is only an annotation
        if not found:
            raise _Invalid(f"Does not match the pattern {printable(spec.pattern)}.")
    return text


def _characters(count: int) -> str:
    return "1 character" if count == 1 else f"{count} characters"


_INTEGER: Final = re.compile(r"[+-]?[0-9]+")
_NUMBER: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _checked_number(spec: FieldSpec, text: str) -> int | float:
    number: int | float
    if _INTEGER.fullmatch(text):
        try:
            number = int(text)
        except ValueError:  # more digits than Python converts
            raise _Invalid("Too large.") from None
        if spec.kind == "integer" and abs(number) >= INT64:
            raise _Invalid("Too large for a 64-bit whole number.")
    elif spec.kind == "integer":
        raise _Invalid("Enter a whole number, such as 42.")
    elif _NUMBER.fullmatch(text):
        number = float(text)
        if not math.isfinite(number):
            raise _Invalid("Too large.")
    else:
        raise _Invalid("Enter a number, such as 3.5.")
    low, high = spec.minimum, spec.maximum
    if (low is not None and number < low) or (high is not None and number > high):
        raise _Invalid(_range(low, high))
    return number


def _range(low: int | float | None, high: int | float | None) -> str:
    if low is not None and high is not None:
        return f"Enter a value from {_num(low)} to {_num(high)}."
    if low is not None:
        return f"Enter a value of at least {_num(low)}."
    return f"Enter a value of at most {_num(high)}."


def _num(value: int | float | None) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


_EMAIL: Final = re.compile(r"[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+")
_URI: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:\S+")
_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATE_TIME: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
    r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def _is_date(text: str) -> bool:
    if not _DATE.fullmatch(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    """RFC 3339 (a leap second's :60 is read as :59, which Python cannot hold)."""
    if not _DATE_TIME.fullmatch(text):
        return False
    moment = text[:17] + "59" + text[19:] if text[17:19] == "60" else text
    try:
        datetime.fromisoformat(moment.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_FORMAT_CHECKS: Final[dict[str, tuple[Callable[[str], bool], str]]] = {
    "email": (
        lambda text: bool(_EMAIL.fullmatch(text)),
        "Not an email address (name@example.com).",
    ),
    "uri": (
        lambda text: bool(_URI.fullmatch(text)),
        "Not a URI: it needs a scheme, as in https://example.com/page.",
    ),
    "date": (_is_date, "Not a date: write it as YYYY-MM-DD, as in 2026-03-10."),
    "date-time": (
        _is_date_time,
        "Not a date and time: write it as 2026-03-10T14:30:00Z "
        "(or with an offset such as +02:00).",
    ),
}
"""Format -> (its check, what the user is told when it fails)."""
