"""Form elicitations: reading `requestedSchema`, checking answers, the content sent.

The shapes are ACP's `ElicitationSchema` (v1 and v2: `enum`, `oneOf` of
`{const, title}`, arrays of `enum` / `anyOf` items), plus MCP's older
`enumNames`, read kindly. What the form sends is checked against the schema the
agent asked with (JSON Schema, by jsonschema) and against both versions'
`CreateElicitationResponse`.
"""

from __future__ import annotations

import string
from functools import cache
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker

from acp_tui.client.elicitation_form import (
    INT64,
    Choice,
    ElicitationReply,
    FieldInput,
    FieldSpec,
    FormSchemaError,
    answer_form,
    field_error,
    initial_input,
    parse_form,
)
from acp_tui.protocol.schema import v1, v2
from tests.spec_examples import SCHEMAS, load_schema, spec_examples

needs_schemas = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"reference schemas missing: {SCHEMAS}"
)

EVERY_TYPE: Final[dict[str, Any]] = {
    "type": "object",
    "title": "Release",
    "description": "How to ship it",
    "properties": {
        "name": {
            "type": "string",
            "title": "Name",
            "description": "Shown in the changelog",
            "minLength": 3,
            "maxLength": 10,
            "default": "spring",
        },
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "day": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1.5, "default": 0.5},
        "notify": {"type": "boolean", "default": True},
        "plain": {"type": "string", "enum": ["a", "b"], "default": "b"},
        "named": {
            "type": "string",
            "enum": ["lo", "hi"],
            "enumNames": ["Low", "High"],
        },
        "titled": {
            "type": "string",
            "oneOf": [
                {"const": "safe", "title": "Conservative", "description": "Slow"},
                {"const": "fast", "title": "Aggressive"},
            ],
        },
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["x", "y", "z"]},
            "minItems": 1,
            "maxItems": 2,
            "default": ["y", "nope"],
        },
        "targets": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "linux", "title": "Linux"},
                    {"const": "mac", "title": "macOS"},
                ]
            },
        },
    },
    "required": ["name", "email", "titled", "tags"],
}


def fields() -> dict[str, FieldSpec]:
    return {f.name: f for f in parse_form(EVERY_TYPE).fields}


# --- reading the schema -----------------------------------------------------------


def test_every_field_type_is_read() -> None:
    form = parse_form(EVERY_TYPE)
    assert (form.title, form.description) == ("Release", "How to ship it")
    kinds = {f.name: f.kind for f in form.fields}
    assert kinds == {
        "name": "string",
        "email": "string",
        "site": "string",
        "day": "string",
        "at": "string",
        "code": "string",
        "count": "integer",
        "ratio": "number",
        "notify": "boolean",
        "plain": "choice",
        "named": "choice",
        "titled": "choice",
        "tags": "choices",
        "targets": "choices",
    }
    assert [f.name for f in form.fields] == list(kinds)  # the agent's order
    by_name = fields()
    name = by_name["name"]
    assert (name.title, name.description, name.required) == (
        "Name",
        "Shown in the changelog",
        True,
    )
    assert (name.min_length, name.max_length, name.default) == (3, 10, "spring")
    assert by_name["email"].title == "email"  # no title: the property's name
    assert by_name["email"].format == "email"
    assert by_name["code"].pattern == "^[A-Z]{3}$"
    count = by_name["count"]
    assert (count.minimum, count.maximum, count.default) == (1, 10, 3)
    assert by_name["ratio"].default == 0.5
    assert by_name["notify"].default is True
    assert not by_name["notify"].required


def test_every_enum_shape_is_read() -> None:
    by_name = fields()
    assert by_name["plain"].choices == (Choice("a", "a"), Choice("b", "b"))
    assert by_name["plain"].default == "b"
    assert by_name["named"].choices == (Choice("lo", "Low"), Choice("hi", "High"))
    assert by_name["titled"].choices == (
        Choice("safe", "Conservative", "Slow"),
        Choice("fast", "Aggressive"),
    )
    tags = by_name["tags"]
    assert [c.value for c in tags.choices] == ["x", "y", "z"]
    assert (tags.min_items, tags.max_items) == (1, 2)
    assert tags.default == ("y",)  # a default outside the choices is dropped
    assert by_name["targets"].choices == (
        Choice("linux", "Linux"),
        Choice("mac", "macOS"),
    )


@pytest.mark.parametrize("model", [v1.ElicitationSchema, v2.ElicitationSchema])
def test_a_schema_dumped_by_the_wire_models_reads_the_same(model: Any) -> None:
    """The wire side may hand over a model dump, with `null` for every omission."""
    bare = {**EVERY_TYPE, "properties": dict(EVERY_TYPE["properties"])}
    del bare["properties"]["named"]  # `enumNames` is not ACP's: the models drop it
    dumped = model.model_validate(bare).model_dump(by_alias=True, mode="json")
    assert dumped["properties"]["email"]["minLength"] is None
    assert parse_form(dumped) == parse_form(bare)


def test_wrongly_typed_annotations_and_defaults_are_ignored() -> None:
    """The schema reads titles, descriptions and defaults "default on error"."""
    form = parse_form(
        {
            "properties": {
                "a": {"type": "string", "title": 3, "description": [], "default": 1},
                "b": {"type": "integer", "default": 1.5},
                "c": {"type": "integer", "default": True},
                "d": {"type": "boolean", "default": "yes"},
                "e": {"type": "string", "enum": ["x"], "default": "y"},
                "f": {"type": "number", "default": "2"},
                "g": {"type": "string", "format": "_vendor-format"},
            }
        }
    )
    a, b, c, d, e, f, g = form.fields
    assert (a.title, a.description, a.default) == ("a", None, None)
    assert b.default is None
    assert c.default is None
    assert d.default is None
    assert e.default is None
    assert f.default is None
    assert field_error(g, "anything") is None  # an unknown format: annotation


def test_a_form_without_fields_is_a_form() -> None:
    assert parse_form({"type": "object"}).fields == ()
    assert parse_form({"type": "object", "properties": None}).fields == ()
    assert answer_form(parse_form({}), {}).content == {}


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ([], "not an object"),
        ({"type": "array"}, "type “array”"),
        ({"properties": []}, "`properties` is not an object"),
        ({"properties": {}, "required": "a"}, "`required` is not a list"),
        ({"properties": {}, "required": [1]}, "`required` is not a list"),
        ({"properties": {}, "required": ["ghost"]}, "requires “ghost”"),
        ({"properties": {"a": "string"}}, "field “a” is not described"),
        ({"properties": {"a": {}}}, "field “a” has no type"),
        ({"properties": {"a": {"type": "_vendor"}}}, "type “_vendor”"),
        ({"properties": {"a": {"type": "object"}}}, "cannot show"),
        ({"properties": {"a": {"type": "string", "enum": []}}}, "no choices"),
        ({"properties": {"a": {"type": "string", "enum": [1]}}}, "list of text"),
        ({"properties": {"a": {"type": "string", "oneOf": []}}}, "no choices"),
        (
            {"properties": {"a": {"type": "string", "oneOf": [{"title": "A"}]}}},
            "without a text `const`",
        ),
        (
            {"properties": {"a": {"type": "string", "enum": ["x"], "oneOf": []}}},
            "twice",
        ),
        ({"properties": {"a": {"type": "string", "minLength": -1}}}, "not a count"),
        ({"properties": {"a": {"type": "string", "maxLength": "9"}}}, "not a count"),
        (
            {"properties": {"a": {"type": "string", "minLength": 5, "maxLength": 2}}},
            "at least 5 and at most 2",
        ),
        ({"properties": {"a": {"type": "string", "pattern": 5}}}, "`pattern`"),
        ({"properties": {"a": {"type": "string", "format": 5}}}, "`format`"),
        ({"properties": {"a": {"type": "number", "minimum": "0"}}}, "not a number"),
        ({"properties": {"a": {"type": "integer", "maximum": True}}}, "not a number"),
        (
            {"properties": {"a": {"type": "integer", "minimum": 5, "maximum": 1}}},
            "minimum above its maximum",
        ),
        ({"properties": {"a": {"type": "array"}}}, "without `items`"),
        (
            {"properties": {"a": {"type": "array", "items": {"type": "number"}}}},
            "items acp-tui cannot show",
        ),
        (
            {"properties": {"a": {"type": "array", "items": {"anyOf": []}}}},
            "no choices",
        ),
        (
            {
                "properties": {
                    "a": {
                        "type": "array",
                        "items": {"enum": ["x"]},
                        "minItems": 3,
                        "maxItems": 1,
                    }
                }
            },
            "at least 3 and at most 1 picks",
        ),
    ],
)
def test_a_shape_that_cannot_be_shown_is_a_clear_error(schema: Any, says: str) -> None:
    with pytest.raises(FormSchemaError) as raised:
        parse_form(schema)
    assert says in str(raised.value)


def test_an_error_message_shows_agent_text_safely() -> None:
    with pytest.raises(FormSchemaError) as raised:
        parse_form({"properties": {"a\x1b[31m" + "x" * 100: {"type": "_x"}}})
    message = str(raised.value)
    assert "\x1b" not in message
    assert "…" in message  # a long name is cut


@needs_schemas
def test_the_spec_examples_read_as_forms() -> None:
    forms = [
        e
        for e in spec_examples()
        if e.method == "elicitation/create" and e.message["params"]["mode"] == "form"
    ]
    assert {e.version for e in forms} == {1, 2}
    for example in forms:
        (strategy,) = parse_form(example.message["params"]["requestedSchema"]).fields
        assert (strategy.kind, strategy.required) == ("choice", True)
        assert [c.value for c in strategy.choices] == [
            "conservative",
            "balanced",
            "aggressive",
        ]


# --- checking answers -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [
        ("name", "", "Required"),
        ("name", "   ", "Required"),
        ("name", "ab", "at least 3 characters"),
        ("name", "a" * 11, "at most 10 characters (11 now)"),
        ("email", "ann", "Not an email address"),
        ("email", "ann@example", "Not an email address"),
        ("email", "ann @example.com", "Not an email address"),
        ("site", "example.com/x", "Not a URI"),
        ("site", "https://exa mple.com", "Not a URI"),
        ("day", "2026-02-30", "Not a date"),
        ("day", "10/03/2026", "Not a date"),
        ("at", "2026-03-10", "Not a date and time"),
        ("at", "2026-03-10T25:00:00Z", "Not a date and time"),
        ("at", "2026-03-10T12:00:00", "Not a date and time"),  # no offset
        ("code", "AB", "Does not match the pattern ^[A-Z]{3}$."),
        ("count", "2.5", "Enter a whole number"),
        ("count", "three", "Enter a whole number"),
        ("count", "0", "from 1 to 10"),
        ("count", "11", "from 1 to 10"),
        ("count", str(INT64), "Too large"),
        ("ratio", "abc", "Enter a number"),
        ("ratio", "nan", "Enter a number"),
        ("ratio", "inf", "Enter a number"),
        ("ratio", "1e999", "Too large"),
        ("ratio", "2", "from 0 to 1.5"),
        ("ratio", "-0.1", "from 0 to 1.5"),
        ("titled", None, "Required: pick one"),
        ("titled", "slow", "Pick one of the choices"),
        ("plain", "c", "Pick one of the choices"),
        ("tags", (), "Pick at least 1"),
        ("tags", ("x", "y", "z"), "Pick at most 2"),
        ("tags", ("w",), "Pick only from the choices"),
    ],
)
def test_a_wrong_answer_says_what_is_wrong(
    name: str, value: FieldInput, error: str
) -> None:
    problem = field_error(fields()[name], value)
    assert problem is not None
    assert error in problem


@pytest.mark.parametrize(
    ("name", "value", "sent"),
    [
        ("name", "abc", "abc"),
        ("name", " spaced ", " spaced "),  # plain text is sent as typed
        ("email", " ann@example.com ", "ann@example.com"),
        ("site", "https://example.com/x?y=1", "https://example.com/x?y=1"),
        ("site", "urn:isbn:0451450523", "urn:isbn:0451450523"),
        ("day", "2024-02-29", "2024-02-29"),
        ("at", "2026-03-10T12:00:00Z", "2026-03-10T12:00:00Z"),
        ("at", "2026-03-10t12:00:00.25+02:00", "2026-03-10t12:00:00.25+02:00"),
        ("at", "2016-12-31T23:59:60Z", "2016-12-31T23:59:60Z"),  # a leap second
        ("code", "ABC", "ABC"),
        ("count", "+7", 7),
        ("count", " 10 ", 10),
        ("ratio", "1", 1),
        ("ratio", ".25", 0.25),
        ("ratio", "1.5e0", 1.5),
        ("notify", False, False),
        ("plain", "a", "a"),
        ("named", "hi", "hi"),
        ("titled", "fast", "fast"),
        ("tags", ("z", "x"), ["x", "z"]),  # the agent's order
        ("targets", ("mac",), ["mac"]),
    ],
)
def test_a_good_answer_is_sent_as_its_wire_value(
    name: str, value: FieldInput, sent: object
) -> None:
    spec = fields()[name]
    assert field_error(spec, value) is None
    answer = answer_form(parse_form(EVERY_TYPE), {name: value})
    assert answer.content[name] == sent
    assert type(answer.content[name]) is type(sent)


def test_optional_fields_left_empty_are_left_out() -> None:
    answer = answer_form(
        parse_form(EVERY_TYPE),
        {
            "name": "autumn",
            "email": "a@b.co",
            "titled": "safe",
            "tags": ("x",),
            "site": "",
            "count": "  ",
            "plain": None,
            "targets": (),
        },
    )
    assert answer.ok
    assert answer.content == {
        "name": "autumn",
        "email": "a@b.co",
        "titled": "safe",
        "tags": ["x"],
        "notify": False,  # a boolean always has an answer
    }


def test_every_wrong_answer_is_reported_and_nothing_wrong_is_sent() -> None:
    answer = answer_form(parse_form(EVERY_TYPE), {"name": "ab", "count": "99"})
    assert not answer.ok
    assert set(answer.errors) == {"name", "email", "titled", "tags", "count"}
    assert "name" not in answer.content
    assert "count" not in answer.content


def test_a_pattern_python_cannot_read_checks_nothing() -> None:
    (spec,) = parse_form(
        {"properties": {"a": {"type": "string", "pattern": "(?<=a+)b"}}}
    ).fields
    assert field_error(spec, "zzz") is None


def test_the_defaults_fill_the_fields() -> None:
    by_name = fields()
    assert initial_input(by_name["name"]) == "spring"
    assert initial_input(by_name["email"]) == ""
    assert initial_input(by_name["count"]) == "3"
    assert initial_input(by_name["ratio"]) == "0.5"
    assert initial_input(by_name["notify"]) is True
    assert initial_input(by_name["plain"]) == "b"
    assert initial_input(by_name["titled"]) is None
    assert initial_input(by_name["tags"]) == ("y",)
    assert initial_input(by_name["targets"]) == ()


def test_a_required_multi_select_without_minimum_needs_one_pick() -> None:
    (spec,) = parse_form(
        {
            "properties": {"a": {"type": "array", "items": {"enum": ["x"]}}},
            "required": ["a"],
        }
    ).fields
    assert field_error(spec, ()) == "Required: pick at least one."
    (none,) = parse_form(
        {
            "properties": {
                "a": {"type": "array", "items": {"enum": ["x"]}, "maxItems": 0}
            }
        }
    ).fields
    assert field_error(none, ("x",)) == "Pick none."


# --- what is sent conforms ---------------------------------------------------------

HYPOTHESIS: Final = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

TEXT: Final = st.one_of(
    st.text(max_size=14),
    st.text(alphabet=string.digits + "+-.eE ", max_size=8),
    st.sampled_from(
        [
            "ann@example.com",
            "https://example.com/a",
            "2026-03-10",
            "2026-03-10T12:00:00Z",
            "ABC",
            "7",
            "0.75",
        ]
    ),
)


def answer_for(spec: FieldSpec) -> st.SearchStrategy[FieldInput]:
    values = [c.value for c in spec.choices] + ["ghost"]
    if spec.kind == "boolean":
        return st.booleans()
    if spec.kind == "choice":
        return st.one_of(st.none(), st.sampled_from(values))
    if spec.kind == "choices":
        return st.lists(st.sampled_from(values), unique=True).map(tuple)
    return TEXT


GOOD: Final[dict[str, FieldInput]] = {
    "name": "autumn",
    "email": "ann@example.com",
    "site": "https://example.com/a",
    "day": "2026-03-10",
    "at": "2026-03-10T12:00:00+01:00",
    "code": "XYZ",
    "count": "4",
    "ratio": "0.25",
    "notify": True,
    "plain": "a",
    "named": "lo",
    "titled": "safe",
    "tags": ("x", "z"),
    "targets": ("linux", "mac"),
}
"""An answer to every field that passes."""

FIELDS: Final = {spec.name: spec for spec in parse_form(EVERY_TYPE).fields}

ONE_ANSWER: Final = st.sampled_from(sorted(FIELDS)).flatmap(
    lambda name: answer_for(FIELDS[name]).map(lambda value: (name, value))
)
"""Any answer to any one field."""

ANSWERS: Final = st.lists(ONE_ANSWER, max_size=3).map(lambda pairs: GOOD | dict(pairs))
"""The good answers, up to three of them replaced by anything."""


@cache
def response_validator(schema: str) -> Any:
    root = load_schema(schema)
    return Draft202012Validator(
        {"$ref": "#/$defs/CreateElicitationResponse", "$defs": root["$defs"]}
    )


CONFORMS: Final = Draft202012Validator(
    {k: v for k, v in EVERY_TYPE.items() if k != "title"},
    format_checker=FormatChecker(["email", "date"]),
)
"""The agent's own check of what the form sends (jsonschema's email and date
checks are the ones it has without extra packages)."""


def test_the_good_answers_pass() -> None:
    assert answer_form(parse_form(EVERY_TYPE), GOOD).ok


@needs_schemas
@HYPOTHESIS
@given(ANSWERS)
def test_what_passes_conforms_to_the_requested_schema_and_the_wire(
    answers: dict[str, FieldInput],
) -> None:
    form = parse_form(EVERY_TYPE)
    answer = answer_form(form, answers)  # never raises, whatever is typed
    for spec in form.fields:
        assert (spec.name in answer.errors) == (
            field_error(spec, answers[spec.name]) is not None
        )
    if not answer.ok:
        return
    assert not list(CONFORMS.iter_errors(answer.content))
    reply = ElicitationReply("accept", dict(answer.content))
    wire = {"action": reply.action, "content": reply.content}
    for schema in ("v1/schema.json", "v2/schema.json"):
        assert not list(response_validator(schema).iter_errors(wire))
    v1.CreateElicitationResponse.model_validate(wire)


@HYPOTHESIS
@given(st.text(max_size=30))
def test_any_text_in_any_field_is_checked_without_raising(text: str) -> None:
    for spec in parse_form(EVERY_TYPE).fields:
        if spec.kind in ("string", "number", "integer"):
            error = field_error(spec, text)
            assert error is None or error.endswith(".")
