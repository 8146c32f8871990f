"""Shared base for the ACP wire models of every protocol version.

Conventions that every model in `v1.py` and `v2.py` follows:

* Python names are snake_case; the wire is camelCase (`alias_generator=to_camel`).
  Models accept either spelling on input and always write the wire spelling.
* **Unknown fields are kept** (`extra="allow"`) and written back unchanged. The spec
  reserves root keys for itself, but agents add vendor fields anyway, and a client
  that records or replays traffic must not lose them. (The architecture note
  suggests ignoring unknown fields; keeping them costs nothing measurable and makes
  every model round-trip exactly.)
* **Three states.** A field that was omitted on the wire is absent from
  `model_fields_set`; an explicit `null` is present with the value `None`. Dumping
  with `exclude_unset=True` (see `to_wire`) writes back exactly what was received.
  `field_state()` turns this into `UNSET` / `None` / value for the translators.
* **Constant tags are always written.** A `Literal` field with a default (a union
  tag such as `type: Literal["text"] = "text"`) counts as set even when a model is
  built in Python without it, so `to_wire` never drops a discriminator. Data from
  the wire already carries its tags (a union routes on them), so only `__init__` and
  `model_construct` add them: core validation never calls either (`__init__` is
  flagged as pydantic's own), so parsing pays nothing for this. A model validated
  directly from a dict without its tag writes back what it received.
* **`_meta`** is modelled on every type as `meta` (alias `_meta`), and is lenient.
* **Open unions.** `open_union_discriminator` routes a known tag to its model and
  any other string tag to the union's `Unknown*` model, which keeps the raw payload.
  A *known* tag with a malformed payload fails validation: it is never demoted to
  "unknown". The discriminator is a Python call per union value; a Rust-only
  layout (a `left_to_right` union of a native `Field(discriminator=...)` union and
  an `Unknown*` model that rejects known tags) measured only ~3% faster on the
  inbound path, at the price of noisier errors, so it is not used.
* Raw JSON values (`rawInput`, `_meta` contents, ...) are typed `Any`: pydantic's
  `JsonValue` validates recursively and costs ~70x more on large payloads, while
  anything we received from `json.loads` is already valid JSON.

Nesting depth
-------------

Raw JSON values are not walked by validation, but everything after it walks them
recursively: pydantic dumps at most about 250 levels, and the store and the UI
recurse too, while `json.loads` accepts about 990. `MAX_JSON_DEPTH` (128 levels of
objects and arrays, the message itself being level 1) is the client's limit:
top-level models that set `_max_depth` (the session-setup responses, session lists
and permission requests) reject deeper input with a `ValidationError` in
`model_validate`. `session/update` notifications do not (the inbound hot path
stays one Rust call); the translators skip deeper updates instead
(`json_nested_deeper`).

Lenient parsing
---------------

The schemas mark some fields `x-deserialize-default-on-error` (a malformed value
reads as if the field had been omitted) and some arrays
`x-deserialize-skip-invalid-items` (a malformed item is dropped). Models declare this
with `Annotated` markers, which pydantic ignores:

* `Lenient[T]`: a malformed value is dropped from the input, so the field reads as
  *omitted* (default value, absent from `model_fields_set`), never as `null`: a bad
  patch field means "unchanged", not "clear". A *required* lenient array that is
  malformed as a whole becomes `[]`.
* `SkipInvalid[list[T]]`: the array keeps its valid items.
* `LenientList[list[T] | None]`: both.

The markers cost nothing on valid input: pydantic validates strictly, in Rust, with
no Python validator anywhere. Only when validation fails is the *input* repaired and
validated again:

1. It walks the `loc` of every error down the type, starting at the type validated
   (a model, or the union of a `LenientAdapter`): through model fields (alias or
   name), list indices, dict keys, and the tag that pydantic puts in `loc` for a
   tagged union (or the member's name for a plain union).
2. Walking back up, an error is absorbed by the *deepest* lenient point on its path:
   the bad item of a `SkipInvalid` array is removed, or the key of a `Lenient` field
   is deleted (a required lenient array is set to `[]`). A required key that is
   missing is never absorbed by its own field, only by a lenient field above it.
   For a plain (smart) union, whose error lists hold every member's failures, the
   first member whose errors can all be absorbed inside it wins; the others' errors
   are ignored.
3. Edits are made on copies of the containers on the path; the caller's input is
   never modified. If any error cannot be absorbed, the *original* error is raised.
   A repaired input can still fail (a model's "after" validator only runs once its
   fields are valid), so this repeats, at most `_MAX_REPAIR_ROUNDS` times.

The entry points are `WireModel.model_validate`, `WireModel.model_validate_json`,
`WireModel(...)`, `LenientAdapter` (for a union alias such as `SessionUpdate`: a
plain `pydantic.TypeAdapter` validates strictly) and `validate_lenient` (any other
validator). A nested model needs no validator of its own: the repair at the root sees
the whole path. A model nested in a *non*-`WireModel` model (validated by pydantic's
own `model_validate`) is not repaired.
"""

from __future__ import annotations

import enum
import functools
import json
import types
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    ClassVar,
    Final,
    Generic,
    Literal,
    Self,
    TypeAlias,
    TypeVar,
    Union,
    get_args,
    get_origin,
)

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictFloat,
    StrictInt,
    Tag,
    TypeAdapter,
    ValidationError,
)
from pydantic.alias_generators import to_camel
from pydantic.config import ExtraValues
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

__all__ = [
    "MAX_JSON_DEPTH",
    "UNKNOWN_TAG",
    "UNSET",
    "JSONNumber",
    "Lenient",
    "LenientAdapter",
    "LenientList",
    "MethodSpec",
    "SkipInvalid",
    "Unset",
    "WireModel",
    "field_state",
    "json_nested_deeper",
    "open_union_discriminator",
    "to_wire",
    "validate_lenient",
]

JSONNumber: TypeAlias = StrictInt | StrictFloat
"""A JSON number that keeps its form: `1` stays an int and `1.5` a float, so a
round-trip writes back exactly what was received (a plain `float` would turn `1`
into `1.0`). Booleans and numeric strings are rejected."""

UNKNOWN_TAG: Final = "__unknown__"
"""The pydantic `Tag` of the catch-all variant in an open tagged union."""

MAX_JSON_DEPTH: Final = 128
"""How many levels objects and arrays may nest in one message (see "Nesting
depth" above)."""


class Unset(enum.Enum):
    """The type of `UNSET`: a field that was not on the wire."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = Unset.UNSET
"""Marks a field that was omitted, as opposed to sent as `null`."""

# ------------------------------------------------------------------------------------
# Leniency markers
# ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _DefaultOnError:
    """Field marker for `x-deserialize-default-on-error`."""


@dataclass(frozen=True, slots=True)
class _SkipInvalidItems:
    """Field marker for `x-deserialize-skip-invalid-items`."""


DEFAULT_ON_ERROR: Final = _DefaultOnError()
SKIP_INVALID_ITEMS: Final = _SkipInvalidItems()

_T = TypeVar("_T")

Lenient: TypeAlias = Annotated[_T, DEFAULT_ON_ERROR]
"""A malformed value is dropped, as if the field had been omitted."""
SkipInvalid: TypeAlias = Annotated[_T, SKIP_INVALID_ITEMS]
"""An array whose malformed items are dropped."""
LenientList: TypeAlias = Annotated[_T, DEFAULT_ON_ERROR, SKIP_INVALID_ITEMS]
"""An array that loses its malformed items, and is dropped if it is not an array (a
required one becomes `[]`)."""

# ------------------------------------------------------------------------------------
# The base model
# ------------------------------------------------------------------------------------


class WireModel(BaseModel):
    """Base class of every ACP wire model."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        frozen=False,
        defer_build=True,
    )

    meta: Lenient[dict[str, Any] | None] = Field(default=None, alias="_meta")
    """Extension metadata. Kept verbatim; never given meaning."""

    _constant_tags: ClassVar[frozenset[str]] = frozenset()

    _max_depth: ClassVar[int | None] = None
    """Set on a top-level model to reject input nested deeper than this in
    `model_validate` (see "Nesting depth" in the module docstring)."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        tags = set()
        for name, info in cls.model_fields.items():
            if typing.get_origin(info.annotation) is Literal and not info.is_required():
                tags.add(name)
        cls._constant_tags = frozenset(tags)

    def __init__(self, /, **data: Any) -> None:
        """Build a model in Python: lenient like the wire, constant tags set."""
        validate = self.__pydantic_validator__.validate_python
        try:
            validate(data, self_instance=self)
        except ValidationError as error:
            retry = functools.partial(validate, self_instance=self)
            if _repair_rounds(type(self), data, error, retry) is _FAILED:
                raise
        if self._constant_tags:
            self.__pydantic_fields_set__.update(self._constant_tags)

    # Not a "custom" __init__ for pydantic: nested models are still built by core
    # validation (in Rust), which never calls it.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def model_construct(  # type: ignore[override]  # the plugin's signature
        cls, _fields_set: set[str] | None = None, **values: Any
    ) -> Self:
        model = super().model_construct(_fields_set, **values)
        if cls._constant_tags:
            model.__pydantic_fields_set__.update(cls._constant_tags)
        return model

    # `model_validate` keeps its hot path free of closures and keyword handling: on
    # valid input it costs one Rust call, like pydantic's own.

    @classmethod
    def model_validate(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        from_attributes: bool | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """Validate, repairing what the schema allows (see the module docstring)."""
        if cls._max_depth is not None and json_nested_deeper(obj, cls._max_depth):
            raise _too_deep(cls, obj, cls._max_depth)
        if (
            strict is None
            and extra is None
            and from_attributes is None
            and context is None
            and by_alias is None
            and by_name is None
        ):
            try:
                result: Self = cls.__pydantic_validator__.validate_python(obj)
                return result
            except ValidationError as error:
                first = error
            validate = super().model_validate
        else:
            validate = functools.partial(
                super().model_validate,
                strict=strict,
                extra=extra,
                from_attributes=from_attributes,
                context=context,
                by_alias=by_alias,
                by_name=by_name,
            )
            try:
                return validate(obj)
            except ValidationError as error:
                first = error
        result = _repaired(first, _repair_rounds(cls, obj, first, validate))
        return result

    @classmethod
    def model_validate_json(
        cls,
        json_data: str | bytes | bytearray,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """Like `model_validate`, from JSON text."""
        validate = functools.partial(
            super().model_validate_json,
            strict=strict,
            extra=extra,
            context=context,
            by_alias=by_alias,
            by_name=by_name,
        )
        try:
            return validate(json_data)
        except ValidationError as error:
            first = error
        result: Self = _repaired(
            first, _repair_json_rounds(cls, json_data, first, validate)
        )
        return result


# ------------------------------------------------------------------------------------
# Helpers
# ------------------------------------------------------------------------------------


def to_wire(model: BaseModel) -> dict[str, Any]:
    r"""Dump a model in wire form: aliases, and only the fields that are set.

    JSON mode cannot dump an object *key* holding a lone surrogate, which
    `json.loads` makes from a `\ud800` escape inside a raw JSON value (`_meta`,
    `rawInput`, a vendor key). Such a model is dumped in Python mode instead: the
    values come from `json.loads`, so that is plain JSON too, kept as received.
    """
    try:
        return model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    except UnicodeEncodeError:
        return model.model_dump(mode="python", by_alias=True, exclude_unset=True)


def field_state(model: BaseModel, name: str) -> Any | Unset:
    """Return `UNSET` if `name` was omitted on the wire, else its value or `None`."""
    if name in model.model_fields_set:
        return getattr(model, name)
    return UNSET


def json_nested_deeper(value: Any, limit: int) -> bool:
    """Whether objects and arrays nest more than `limit` levels in `value`.

    `value` is raw JSON, or a model (its fields and extra keys count, and the raw
    JSON inside them); a top-level object or array is level 1. Iterative, so any
    depth `json.loads` can produce is safe to walk; a small update costs about a
    microsecond (a third of translating it).
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        children: Any
        if kind is dict:
            children = item.values()
        elif kind is list:
            children = item
        elif isinstance(item, BaseModel):
            extra = item.__pydantic_extra__
            children = item.__dict__.values()
            if extra:
                children = [*children, *extra.values()]
        else:
            continue
        if depth > limit:
            return True
        depth += 1
        for child in children:
            if type(child) not in _JSON_LEAVES:
                push((child, depth))
    return False


_JSON_LEAVES: Final = frozenset({str, int, float, bool, type(None)})


def _too_deep(cls: type[BaseModel], obj: Any, limit: int) -> ValidationError:
    return ValidationError.from_exception_data(
        cls.__name__,
        [
            {
                "type": PydanticCustomError(
                    "json_too_deep",
                    "JSON nested more than {limit} levels deep",
                    {"limit": limit},
                ),
                "loc": (),
                "input": obj,
            }
        ],
    )


def open_union_discriminator(
    tag_field: str, known: Collection[str]
) -> Callable[[Any], str | None]:
    """Build a pydantic callable discriminator for an open tagged union.

    Args:
        tag_field: The wire name of the tag (`"type"`, `"sessionUpdate"`, ...).
        known: The tags that have their own model.

    Returns:
        A function mapping raw input or a model instance to its pydantic `Tag`: the tag
        itself when known, `UNKNOWN_TAG` for any other string, and `None` (a
        validation error) when the tag is missing or not a string.
    """
    known_tags = frozenset(known)
    attr = _snake(tag_field)

    def discriminate(value: Any) -> str | None:
        # Called from Rust for every value of the union: keep the dict path short.
        if type(value) is dict:
            tag = value.get(tag_field)
            if tag is None:
                tag = value.get(attr)
        elif isinstance(value, Mapping):
            tag = value.get(tag_field, value.get(attr))
        else:
            tag = getattr(value, attr, None)
        if type(tag) is not str and not isinstance(tag, str):
            return None
        return tag if tag in known_tags else UNKNOWN_TAG

    return discriminate


def _snake(name: str) -> str:
    out = []
    for ch in name:
        if ch.isupper():
            out.append("_")
            out.append(ch.lower())
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """The wire models of one request method: its params and its result."""

    params: type[WireModel]
    result: type[WireModel]


# ------------------------------------------------------------------------------------
# Lenient validation: repair the input after a failure, then validate again
# ------------------------------------------------------------------------------------

_MAX_REPAIR_ROUNDS: Final = 8


class LenientAdapter(Generic[_T]):
    """A `pydantic.TypeAdapter` that applies the leniency markers.

    Use it for types that are not a `WireModel` (the union aliases: `SessionUpdate`,
    `ContentBlock`, ...). `adapter` is the underlying strict `TypeAdapter`.
    """

    __slots__ = ("adapter", "type")

    def __init__(self, tp: Any) -> None:
        self.type = tp
        self.adapter: TypeAdapter[_T] = TypeAdapter(tp)

    def validate_python(self, obj: Any, /, **kwargs: Any) -> _T:
        """`TypeAdapter.validate_python`, with the lenient repair."""
        validate = functools.partial(self.adapter.validate_python, **kwargs)
        return validate_lenient(self.type, obj, validate)

    def validate_json(self, data: str | bytes | bytearray, /, **kwargs: Any) -> _T:
        """`TypeAdapter.validate_json`, with the lenient repair."""
        validate = functools.partial(self.adapter.validate_json, **kwargs)
        return validate_lenient(self.type, data, validate, json_input=True)


def validate_lenient(
    tp: Any, data: Any, validate: Callable[[Any], _T], *, json_input: bool = False
) -> _T:
    """`validate(data)`; on failure, repair `data` as type `tp` allows and retry.

    For validators other than the entry points above (`tp` is the type that
    `validate` checks: a model class or a union alias). `json_input`: `data` is
    JSON text, and `validate` takes JSON text.

    Raises:
        ValidationError: the first error, if it cannot be repaired.
    """
    try:
        return validate(data)
    except ValidationError as error:
        first = error
    rounds = _repair_json_rounds if json_input else _repair_rounds
    result: _T = _repaired(first, rounds(tp, data, first, validate))
    return result


class _Failed(enum.Enum):
    FAILED = "FAILED"


_FAILED: Final = _Failed.FAILED
"""An error that cannot be absorbed at this point of the type."""

_Errors: TypeAlias = list[tuple[tuple[int | str, ...], str]]
"""(remaining loc, error type) pairs."""


def _repair_rounds(
    tp: Any, data: Any, error: ValidationError, validate: Callable[[Any], Any]
) -> Any:
    """Repair and revalidate until valid; `_FAILED` if some error is not repairable."""
    node = _node_for(tp)
    for _ in range(_MAX_REPAIR_ROUNDS):
        errors: _Errors = [
            (tuple(e["loc"]), e["type"])
            for e in error.errors(
                include_url=False, include_context=False, include_input=False
            )
        ]
        data = node.repair(data, errors)
        if data is _FAILED:
            return _FAILED
        try:
            return validate(data)
        except ValidationError as exc:
            error = exc
    return _FAILED


def _repaired(first: ValidationError, repaired: Any) -> Any:
    """What the repair rounds gave, or `first` (the original error) raised again."""
    if repaired is _FAILED:
        raise first
    return repaired


def _repair_json_rounds(
    tp: Any,
    json_data: str | bytes | bytearray,
    error: ValidationError,
    validate: Callable[[str], Any],
) -> Any:
    """`_repair_rounds` for JSON input: repair the parsed value, validate it as JSON."""
    try:
        data = json.loads(json_data)
    except ValueError:
        return _FAILED
    return _repair_rounds(tp, data, error, lambda value: validate(json.dumps(value)))


def _group(errors: _Errors) -> dict[int | str, _Errors] | None:
    """Errors by their first `loc` item; `None` if one ends here (nothing below)."""
    groups: dict[int | str, _Errors] = {}
    for loc, kind in errors:
        if not loc:
            return None
        groups.setdefault(loc[0], []).append((loc[1:], kind))
    return groups


class _Node:
    """How one type absorbs the errors located inside a value of it."""

    __slots__ = ()

    def repair(self, data: Any, errors: _Errors) -> Any:
        """`data` with every error absorbed (a new container), or `_FAILED`."""
        return _FAILED


_LEAF: Final = _Node()
"""Scalars, `Any`, `Literal`, ...: nothing inside to drop."""


@dataclass(slots=True)
class _FieldPlan:
    name: str
    keys: tuple[str, ...]
    node: _Node
    lenient: bool
    required: bool


class _ModelNode(_Node):
    __slots__ = ("_fields", "cls")

    def __init__(self, cls: type[BaseModel]) -> None:
        self.cls = cls
        self._fields: dict[str, _FieldPlan] | None = None

    def fields(self) -> dict[str, _FieldPlan]:
        if self._fields is None:
            fields: dict[str, _FieldPlan] = {}
            for name, info in self.cls.model_fields.items():
                keys = [name]
                if info.alias:
                    keys.insert(0, info.alias)
                if isinstance(info.validation_alias, str):
                    keys.insert(0, info.validation_alias)
                plan = _FieldPlan(
                    name=name,
                    keys=tuple(dict.fromkeys(keys)),
                    node=_build_annotated(
                        info.annotation, info.metadata, info.discriminator, False
                    ),
                    lenient=DEFAULT_ON_ERROR in info.metadata,
                    required=info.is_required(),
                )
                for key in plan.keys:
                    fields[key] = plan
            self._fields = fields
        return self._fields

    def repair(self, data: Any, errors: _Errors) -> Any:
        groups = _group(errors)
        if groups is None or not isinstance(data, Mapping):
            return _FAILED
        fields = self.fields()
        repaired = dict(data)
        for key, inner in groups.items():
            plan = fields.get(key) if isinstance(key, str) else None
            if plan is None:
                return _FAILED
            if any(not loc and kind == "missing" for loc, kind in inner):
                return _FAILED  # a required key is absent: nothing to fall back to
            present = next((k for k in (key, *plan.keys) if k in data), None)
            if present is None:
                return _FAILED
            value = plan.node.repair(data[present], inner)
            if value is not _FAILED:
                repaired[present] = value
            elif not plan.lenient:
                return _FAILED
            elif not plan.required:
                del repaired[present]  # omitted, not null
            elif isinstance(plan.node, _ListNode):
                repaired[present] = []
            else:
                return _FAILED
        return repaired


class _ListNode(_Node):
    __slots__ = ("item", "skip")

    def __init__(self, item: _Node, skip: bool) -> None:
        self.item = item
        self.skip = skip

    def repair(self, data: Any, errors: _Errors) -> Any:
        groups = _group(errors)
        if groups is None or not isinstance(data, list | tuple):
            return _FAILED
        repaired = list(data)
        dropped: set[int] = set()
        for index, inner in groups.items():
            if not isinstance(index, int) or not 0 <= index < len(data):
                return _FAILED
            value = self.item.repair(data[index], inner)
            if value is not _FAILED:
                repaired[index] = value
            elif self.skip:
                dropped.add(index)
            else:
                return _FAILED
        return [item for i, item in enumerate(repaired) if i not in dropped]


class _DictNode(_Node):
    __slots__ = ("value",)

    def __init__(self, value: _Node) -> None:
        self.value = value

    def repair(self, data: Any, errors: _Errors) -> Any:
        groups = _group(errors)
        if groups is None or not isinstance(data, Mapping):
            return _FAILED
        repaired = dict(data)
        for key, inner in groups.items():
            if key not in data:
                return _FAILED
            value = self.value.repair(data[key], inner)
            if value is _FAILED:
                return _FAILED
            repaired[key] = value
        return repaired


class _UnionNode(_Node):
    """A union: `loc` names the member (a tag, or a plain member's name).

    The first member whose errors can all be absorbed inside it wins.
    """

    __slots__ = ("members",)

    def __init__(self, members: Sequence[tuple[str, _Node]]) -> None:
        self.members = tuple(members)

    def repair(self, data: Any, errors: _Errors) -> Any:
        groups = _group(errors)
        if groups is None:
            return _FAILED
        for label, node in self.members:
            inner = groups.get(label)
            if inner is not None:
                value = node.repair(data, inner)
                if value is not _FAILED:
                    return value
        return _FAILED


class _LazyModelNode(_Node):
    """A reference to a model's node, resolved on first use (models can recurse)."""

    __slots__ = ("cls",)

    def __init__(self, cls: type[BaseModel]) -> None:
        self.cls = cls

    def repair(self, data: Any, errors: _Errors) -> Any:
        return _model_node(self.cls).repair(data, errors)


_MODEL_NODES: dict[type[BaseModel], _ModelNode] = {}
_TYPE_NODES: dict[Any, _Node] = {}


def _model_node(cls: type[BaseModel]) -> _ModelNode:
    node = _MODEL_NODES.get(cls)
    if node is None:
        node = _MODEL_NODES[cls] = _ModelNode(cls)
    return node


def _node_for(tp: Any) -> _Node:
    """The repair plan of a type validated at the top level."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _model_node(tp)
    try:
        node = _TYPE_NODES.get(tp)
    except TypeError:  # unhashable metadata
        return _build(tp)
    if node is None:
        node = _TYPE_NODES[tp] = _build(tp)
    return node


_UNION_ORIGINS: Final = (Union, types.UnionType)


def _build(tp: Any, discriminator: Any = None, *, skip_items: bool = False) -> _Node:
    """The repair plan of `tp`, as pydantic lays out its error locations."""
    if get_origin(tp) is Annotated:
        tp, *metadata = get_args(tp)
        return _build_annotated(tp, metadata, discriminator, skip_items)
    if isinstance(discriminator, Discriminator):
        discriminator = discriminator.discriminator
    origin = get_origin(tp)
    if origin in _UNION_ORIGINS:
        members = [m for m in get_args(tp) if m is not type(None)]
        if len(members) == 1:  # `T | None`: pydantic adds no `loc` item
            return _build(members[0], discriminator, skip_items=skip_items)
        if discriminator is None:
            return _UnionNode([(_label(m), _build(m)) for m in members])
        if isinstance(discriminator, str):
            return _UnionNode(_field_tagged(members, discriminator))
        return _UnionNode([(_tag(m), _build(m)) for m in members])
    if origin in (list, Sequence) or tp is list:
        args = get_args(tp)
        return _ListNode(_build(args[0]) if args else _LEAF, skip_items)
    if origin in (dict, Mapping):
        args = get_args(tp)
        return _DictNode(_build(args[1]) if args else _LEAF)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _LazyModelNode(tp)
    return _LEAF


def _build_annotated(
    tp: Any, metadata: Sequence[Any], discriminator: Any, skip_items: bool
) -> _Node:
    """`_build` of `Annotated[tp, *metadata]` (a field's metadata is kept apart)."""
    for item in metadata:
        if isinstance(item, Discriminator | FieldInfo):
            discriminator = item.discriminator or discriminator
        elif item is SKIP_INVALID_ITEMS:
            skip_items = True
    return _build(tp, discriminator, skip_items=skip_items)


def _tag(member: Any) -> str:
    """The pydantic `Tag` of a member of a callable-discriminated union."""
    if get_origin(member) is Annotated:
        for item in get_args(member)[1:]:
            if isinstance(item, Tag):
                return item.tag
    return _label(member)


def _field_tagged(members: list[Any], field: str) -> list[tuple[str, _Node]]:
    """Members of a union discriminated by a `Literal` field, keyed by tag value."""
    out: list[tuple[str, _Node]] = []
    for member in members:
        cls = get_args(member)[0] if get_origin(member) is Annotated else member
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            continue
        for name, info in cls.model_fields.items():
            if field in (name, info.alias) and get_origin(info.annotation) is Literal:
                out += [(str(v), _build(member)) for v in get_args(info.annotation)]
    return out


def _label(tp: Any) -> str:
    """The name pydantic gives a plain union member in `loc` (models and lists)."""
    if get_origin(tp) is Annotated:
        return _label(get_args(tp)[0])
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp.__name__
    if get_origin(tp) is list:
        return f"list[{_label(get_args(tp)[0])}]"
    return getattr(tp, "__name__", repr(tp))
