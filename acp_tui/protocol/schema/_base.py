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
  built in Python without it, so `to_wire` never drops a discriminator.
* **`_meta`** is modelled on every type as `meta` (alias `_meta`).
* **Open unions.** `open_union_discriminator` routes a known tag to its model and
  any other string tag to the union's `Unknown*` model, which keeps the raw payload.
  A *known* tag with a malformed payload fails validation: it is never demoted to
  "unknown".
* Raw JSON values (`rawInput`, `_meta` contents, ...) are typed `Any`: pydantic's
  `JsonValue` validates recursively and costs ~70x more on large payloads, while
  anything we received from `json.loads` is already valid JSON.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = [
    "UNKNOWN_TAG",
    "UNSET",
    "MethodSpec",
    "Unset",
    "WireModel",
    "field_state",
    "open_union_discriminator",
    "to_wire",
]

UNKNOWN_TAG: Final = "__unknown__"
"""The pydantic `Tag` of the catch-all variant in an open tagged union."""


class Unset(enum.Enum):
    """The type of `UNSET`: a field that was not on the wire."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = Unset.UNSET
"""Marks a field that was omitted, as opposed to sent as `null`."""


class WireModel(BaseModel):
    """Base class of every ACP wire model."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        frozen=False,
    )

    meta: dict[str, Any] | None = Field(default=None, alias="_meta")
    """Extension metadata. Kept verbatim; never given meaning."""

    _constant_tags: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        tags = set()
        for name, info in cls.model_fields.items():
            if typing.get_origin(info.annotation) is Literal and not info.is_required():
                tags.add(name)
        cls._constant_tags = frozenset(tags)

    def model_post_init(self, context: Any, /) -> None:
        """Mark constant union tags as set so that `to_wire` always writes them."""
        if self._constant_tags:
            self.__pydantic_fields_set__.update(self._constant_tags)


def to_wire(model: BaseModel) -> dict[str, Any]:
    """Dump a model in wire form: aliases, and only the fields that are set."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)




def field_state(model: BaseModel, name: str) -> Any | Unset:
    """Return `UNSET` if `name` was omitted on the wire, else its value or `None`."""
    if name in model.model_fields_set:
        return getattr(model, name)
    return UNSET


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
        if isinstance(value, Mapping):
            tag = value.get(tag_field, value.get(attr))
        else:
            tag = getattr(value, attr, None)
        if not isinstance(tag, str):
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
