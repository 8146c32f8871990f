"""The shared wire-model machinery of `_base`: lenient repair and constant tags.

The repair runs only after strict validation fails: it walks each error's `loc` down
the type and absorbs the error at the deepest `Lenient` / `SkipInvalid` point, then
validates again. These tests pin that on small models of their own; the v1 and v2
test modules pin the same rules on the real ACP types.
"""

from __future__ import annotations

import copy
import json
from typing import Annotated, Any, Literal, Self, get_args, get_origin

import pytest
from pydantic import (
    BaseModel,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from acp_tui.protocol.schema import _base, common, v1, v2
from acp_tui.protocol.schema._base import (
    UNKNOWN_TAG,
    UNSET,
    Lenient,
    LenientAdapter,
    LenientList,
    SkipInvalid,
    WireModel,
    field_state,
    open_union_discriminator,
    to_wire,
    validate_lenient,
)


class Leaf(WireModel):
    name: str
    note: Lenient[str | None] = None


class Box(WireModel):
    type: Literal["box"] = "box"
    leaves: SkipInvalid[list[Leaf]]
    label: Lenient[str | None] = None


class Pair(WireModel):
    type: Literal["pair"] = "pair"
    left: Leaf
    right: Leaf


class UnknownThing(WireModel):
    type: str


Thing = Annotated[
    Annotated[Box, Tag("box")]
    | Annotated[Pair, Tag("pair")]
    | Annotated[UnknownThing, Tag(UNKNOWN_TAG)],
    Discriminator(open_union_discriminator("type", ["box", "pair"])),
]


class Root(WireModel):
    id: str
    things: LenientList[list[Thing]]
    """Required: a malformed value becomes `[]`."""
    more: LenientList[list[Thing] | None] = None
    by_name: dict[str, Leaf] = Field(default_factory=dict)
    either: list[Leaf] | list[Box] = Field(default_factory=list)
    count: int = 0
    """Not lenient."""


class Checked(WireModel):
    """An "after" check that only runs once the fields are valid."""

    value: Lenient[int | None] = None
    fallback: int | None = None

    @model_validator(mode="after")
    def _needs_something(self) -> Self:
        if self.value is None and self.fallback is None:
            raise ValueError("needs a value or a fallback")
        return self


def _box(*leaves: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "box", "leaves": list(leaves), **extra}


def _strict_errors(tp: Any, data: Any) -> list[Any]:
    with pytest.raises(ValidationError) as caught:
        TypeAdapter(tp).validate_python(data)
    return caught.value.errors()


# ------------------------------------------------------------------------------------
# Repair
# ------------------------------------------------------------------------------------


def test_valid_input_is_untouched() -> None:
    wire = {"id": "r", "things": [_box({"name": "a", "note": "n"})], "count": 2}
    assert to_wire(Root.model_validate(wire)) == wire


def test_nested_lenient_field_in_a_list_inside_a_union_member_is_dropped() -> None:
    wire = {
        "id": "r",
        "things": [_box({"name": "a", "note": 5}, {"name": "b", "note": "ok"})],
    }
    root = Root.model_validate(wire)
    (box,) = root.things
    assert isinstance(box, Box)
    first, second = box.leaves
    assert "note" not in first.model_fields_set
    assert field_state(first, "note") is UNSET  # omitted, not null
    assert second.note == "ok"
    assert to_wire(root) == {
        "id": "r",
        "things": [_box({"name": "a"}, {"name": "b", "note": "ok"})],
    }


def test_bad_list_item_is_dropped() -> None:
    wire = {"id": "r", "things": [_box({"note": "no name"}, "junk", {"name": "b"})]}
    root = Root.model_validate(wire)
    assert to_wire(root)["things"] == [_box({"name": "b"})]


def test_bad_union_item_of_a_lenient_list_is_dropped() -> None:
    wire = {
        "id": "r",
        "things": [
            {"type": "pair", "left": {"name": "a"}},  # known tag, malformed: dropped
            {"type": "_future", "x": 1},  # unknown tag: kept
            _box(),
        ],
    }
    root = Root.model_validate(wire)
    assert [type(t) for t in root.things] == [UnknownThing, Box]


def test_required_lenient_list_becomes_empty() -> None:
    root = Root.model_validate({"id": "r", "things": {"not": "a list"}})
    assert root.things == []
    assert field_state(root, "things") == []
    with pytest.raises(ValidationError):  # missing is not malformed
        Root.model_validate({"id": "r"})


def test_optional_lenient_list_that_is_malformed_reads_as_omitted() -> None:
    root = Root.model_validate({"id": "r", "things": [], "more": "nope"})
    assert field_state(root, "more") is UNSET
    root = Root.model_validate({"id": "r", "things": [], "more": None})
    assert field_state(root, "more") is None


def test_dropped_key_is_absent_from_model_fields_set() -> None:
    root = Root.model_validate({"id": "r", "things": [_box(label=3)], "_meta": 7})
    (box,) = root.things
    assert isinstance(box, Box)
    assert "label" not in box.model_fields_set
    assert "meta" not in root.model_fields_set
    assert to_wire(root) == {"id": "r", "things": [_box()]}


def test_non_lenient_error_re_raises_the_original_error() -> None:
    wire = {"id": "r", "things": [_box({"name": "a", "note": 5})], "count": "many"}
    expected = _strict_errors(Root, wire)
    assert len(expected) == 2  # the repairable note and the unrepairable count
    with pytest.raises(ValidationError) as caught:
        Root.model_validate(wire)
    assert caught.value.errors() == expected


def test_a_missing_required_key_is_absorbed_only_above_it() -> None:
    with pytest.raises(ValidationError, match=r"by_name\.k\.name"):
        Root.model_validate({"id": "r", "things": [], "by_name": {"k": {}}})
    pair = {"type": "pair", "left": {"name": "a"}}
    assert Root.model_validate({"id": "r", "things": [pair]}).things == []


def test_the_input_is_not_modified() -> None:
    wire = {
        "id": "r",
        "things": [_box({"name": "a", "note": 5}, "junk", label=3)],
        "more": "x",
        "_meta": 1,
    }
    before = copy.deepcopy(wire)
    Root.model_validate(wire)
    assert wire == before


def test_dict_values_and_plain_unions_are_walked() -> None:
    root = Root.model_validate(
        {
            "id": "r",
            "things": [],
            "by_name": {"k": {"name": "a", "note": []}},
            "either": [_box({"name": "b", "note": {}})],
        }
    )
    assert "note" not in root.by_name["k"].model_fields_set
    (box,) = root.either
    assert isinstance(box, Box)
    assert "note" not in box.leaves[0].model_fields_set


def test_plain_union_member_that_cannot_be_repaired_is_not_chosen() -> None:
    # Neither member repairs `[{"name": 1}]`: a Leaf needs a string name, and a Box
    # needs leaves.
    with pytest.raises(ValidationError):
        Root.model_validate({"id": "r", "things": [], "either": [{"name": 1}]})


def test_repair_runs_again_when_a_repaired_input_fails_later_checks() -> None:
    assert Checked.model_validate({"value": "x", "fallback": 1}).fallback == 1
    with pytest.raises(ValidationError) as caught:
        Checked.model_validate({"value": "x"})
    # The error raised is the first one (the malformed value), not the later one.
    assert [e["loc"] for e in caught.value.errors()] == [("value",)]


def test_every_entry_point_repairs() -> None:
    wire: dict[str, Any] = {"id": "r", "things": [_box({"name": "a", "note": 5})]}
    expected: dict[str, Any] = {"id": "r", "things": [_box({"name": "a"})]}
    assert to_wire(Root.model_validate(wire)) == expected
    assert to_wire(Root.model_validate_json(json.dumps(wire))) == expected
    assert to_wire(Root(**wire)) == expected
    adapter = LenientAdapter[Any](Thing)
    assert to_wire(adapter.validate_python(wire["things"][0])) == expected["things"][0]
    assert to_wire(adapter.validate_json(json.dumps(wire["things"][0]))) == _box(
        {"name": "a"}
    )
    strict = TypeAdapter[Any](Root).validate_python
    assert to_wire(validate_lenient(Root, wire, strict)) == expected
    with pytest.raises(ValidationError):
        TypeAdapter[Any](Thing).validate_python(wire["things"][0])  # strict


def test_json_entry_points_raise_the_original_error() -> None:
    with pytest.raises(ValidationError, match="json_invalid"):
        Root.model_validate_json("{not json")
    with pytest.raises(ValidationError, match="count"):
        Root.model_validate_json('{"id": "r", "things": [], "count": "x"}')


def test_python_construction_is_lenient_too() -> None:
    leaf = Leaf(name="a", note=5)  # type: ignore[arg-type]
    assert field_state(leaf, "note") is UNSET
    with pytest.raises(ValidationError):
        Leaf(note="n")  # type: ignore[call-arg]


# ------------------------------------------------------------------------------------
# Constant tags
# ------------------------------------------------------------------------------------


def test_models_built_in_python_write_their_constant_tags() -> None:
    assert to_wire(Box(leaves=[])) == {"type": "box", "leaves": []}
    assert to_wire(Box.model_construct(leaves=[])) == {"type": "box", "leaves": []}
    assert to_wire(Leaf(name="a")) == {"name": "a"}


def test_parsed_models_keep_exactly_what_was_received() -> None:
    box = Box.model_validate({"leaves": []})  # an untagged Box, validated directly
    assert to_wire(box) == {"leaves": []}


# ------------------------------------------------------------------------------------
# Zero cost on valid input, for every real model
# ------------------------------------------------------------------------------------


def _models() -> list[type[WireModel]]:
    return [
        value
        for module in (common, v1, v2)
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, WireModel)
        and value.__module__ == module.__name__
    ]


@pytest.mark.parametrize(
    "model", _models(), ids=lambda m: f"{m.__module__}.{m.__name__}"
)
def test_models_have_no_python_hooks_on_the_parse_path(model: type[WireModel]) -> None:
    assert not model.__pydantic_custom_init__  # core validation never calls __init__
    assert model.__pydantic_post_init__ is None
    decorators = model.__pydantic_decorators__
    assert not decorators.field_validators
    assert all(d.info.mode != "wrap" for d in decorators.model_validators.values())


_MARKERS = (_base.DEFAULT_ON_ERROR, _base.SKIP_INVALID_ITEMS)


def _nested_markers(tp: Any) -> bool:
    if get_origin(tp) is Annotated:
        base, *metadata = get_args(tp)
        if any(
            m in (_base.DEFAULT_ON_ERROR, _base.SKIP_INVALID_ITEMS) for m in metadata
        ):
            return True
        return _nested_markers(base)
    return any(_nested_markers(arg) for arg in get_args(tp))


@pytest.mark.parametrize(
    "model", _models(), ids=lambda m: f"{m.__module__}.{m.__name__}"
)
def test_leniency_markers_sit_on_fields(model: type[BaseModel]) -> None:
    """The repair reads markers from field metadata only: nested ones would be lost."""
    for name, info in model.model_fields.items():
        assert not _nested_markers(info.annotation), name
