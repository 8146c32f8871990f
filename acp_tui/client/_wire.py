"""Helpers shared by the translators: wire three-state fields to store patches.

A wire model knows whether a field was omitted (absent from `model_fields_set`),
sent as `null`, or sent with a value. Store patches say the same with the store's
own `UNSET`. Nested wire objects become plain JSON in wire form (`to_wire`), so the
store keeps exactly the keys that were on the wire.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from acp_tui.protocol.schema._base import to_wire
from acp_tui.store import ops
from acp_tui.store.values import UNSET, JSONObject, Patch

__all__ = ["decode_base64", "json_list", "json_object", "patch", "tool_call_patch"]

_T = TypeVar("_T")


def patch(
    model: BaseModel, name: str, convert: Callable[[Any], _T] | None = None
) -> Patch[Any]:
    """The store patch for field `name`: `UNSET` if omitted, `None` if null."""
    if name not in model.model_fields_set:
        return UNSET
    value = getattr(model, name)
    if value is None:
        return None
    return convert(value) if convert is not None else value


def json_object(value: Any) -> JSONObject:
    """A wire object (model or dict) as plain JSON in wire form."""
    if isinstance(value, BaseModel):
        return to_wire(value)
    result: JSONObject = value
    return result


def json_list(values: Sequence[Any]) -> list[JSONObject]:
    """A list of wire objects as plain JSON."""
    return [json_object(value) for value in values]


def decode_base64(data: str) -> bytes | None:
    """RFC 4648 base64 of one chunk or snapshot; None if it is not valid base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def tool_call_patch(update: BaseModel) -> ops.PatchToolCall:
    """A tool-call update of either version (v1/v2 `ToolCallUpdate`) as a patch.

    The two versions share the field names; v2-only fields (`name`,
    `capabilities`) are simply never set on a v1 model, so they stay `UNSET`.
    """
    return ops.PatchToolCall(
        getattr(update, "tool_call_id"),  # noqa: B009 - both versions, one field
        title=patch(update, "title"),
        kind=patch(update, "kind"),
        status=patch(update, "status"),
        content=patch(update, "content", json_list),
        locations=patch(update, "locations", json_list),
        raw_input=patch(update, "raw_input"),
        raw_output=patch(update, "raw_output"),
        meta=patch(update, "meta"),
        name=patch(update, "name"),
        capabilities=patch(update, "capabilities", json_object),
    )
