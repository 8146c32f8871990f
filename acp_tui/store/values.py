"""Value vocabulary shared by the store's operations and entities.

* `JSONValue` / `JSONObject`: wire objects arrive as plain JSON (what `json.loads`
  produced, or a pydantic model dumped with its wire aliases). The store keeps them
  exactly as received and never reshapes them, so `SessionStore.to_json` can write
  back objects with exactly the wire keys.
* `UNSET` / `Patch[T]`: the three states of a patch field. `UNSET` means the field
  was omitted on the wire (unchanged), `None` means an explicit `null` (clear), and
  any other value replaces. `UNSET` is falsy, so never test a patch field with
  `if field:`; compare with `is UNSET` / `is None`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import fields
from types import MappingProxyType
from typing import Final, Literal, TypeAlias, TypeVar, cast

__all__ = [
    "UNSET",
    "JSONObject",
    "JSONValue",
    "Patch",
    "Unset",
    "fields_json",
    "plain_json",
]

JSONValue: TypeAlias = (
    "Mapping[str, JSONValue] | Sequence[JSONValue] | str | int | float | bool | None"
)
"""Any JSON value, as read-only containers."""

JSONObject: TypeAlias = "Mapping[str, JSONValue]"
"""A JSON object (a wire object such as a content block or a `_meta`)."""


class Unset(enum.Enum):
    """The type of `UNSET`, the "field omitted" marker of a patch."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> Literal[False]:
        return False


UNSET: Final = Unset.UNSET
"""A patch field that was omitted on the wire: leave the stored value unchanged."""

_T = TypeVar("_T")

Patch: TypeAlias = _T | Unset | None
"""A three-state patch field: `UNSET` = unchanged, `None` = clear, value = replace."""


def plain_json(value: object) -> JSONValue:
    """A JSON-ready deep copy (plain dicts and lists) of a JSON value.

    The store holds wire objects as read-only views (mapping proxies, tuples);
    `json.dumps` and callers that mutate need plain ones.

    The containers the store holds (dicts, mapping proxies, lists, tuples) and
    their scalars are told by their exact type, and a scalar item is taken as it
    is without a call: a message of 20,000 streamed chunks is copied in a third
    of the time (`acp-tui print --format json`). Anything else (subclasses, other
    mappings and sequences) is checked as the ABCs say.

    Raises:
        TypeError: `value` holds something that is not JSON.
    """
    kind = type(value)
    if kind in _SCALARS:
        return cast("str | int | float | bool | None", value)
    if kind in _MAPPINGS:
        return {
            (k if type(k) is str else str(k)): (
                v if type(v) in _SCALARS else plain_json(v)
            )
            for k, v in value.items()  # type: ignore[attr-defined]
        }
    if kind in _ARRAYS:
        return [v if type(v) in _SCALARS else plain_json(v) for v in value]  # type: ignore[attr-defined]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [plain_json(v) for v in value]
    raise TypeError(f"not a JSON value: {type(value).__name__}")


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_MAPPINGS: Final = frozenset({dict, MappingProxyType})
_ARRAYS: Final = frozenset({list, tuple})


def fields_json(entity: object, keys: Mapping[str, str]) -> dict[str, JSONValue]:
    """A dataclass entity as JSON: its fields under their document keys.

    Only the fields `keys` names, in the entity's field order; `None`s are left out.
    """
    out: dict[str, JSONValue] = {}
    for spec in fields(entity):  # type: ignore[arg-type]
        key = keys.get(spec.name)
        value = getattr(entity, spec.name)
        if key is not None and value is not None:
            out[key] = plain_json(list(value) if isinstance(value, tuple) else value)
    return out
