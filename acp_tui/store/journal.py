"""A JSON codec for the store's ops, and a store that journals every op it applies.

The store is event-sourced: its state is a function of the ops applied to it, in
order. `op_to_record` turns an op into a plain JSON object and `op_from_record`
turns it back, so a fresh `SessionStore` fed the decoded ops of another one ends up
equal to it (`to_json()` equal). `JournaledStore` hands every op to a sink just
before applying it: the transcript writer (`acp_tui.storage.transcripts`) appends
them to a file, so a crash of the agent or of the app loses nothing already applied.

Record format: `{"op": "<op class name>", "<field>": value, ...}`, one key per
dataclass field, named as in Python (`message_id`, `tool_call_id`, ...):

* a field that is `UNSET` (omitted on the wire) is left out of the record, and a
  left-out field decodes as the field's default (`UNSET` for patch fields);
* `None` is kept as `null` (an explicit clear);
* `bytes` fields (terminal output) are base64 strings. Which fields are bytes is
  decided by the field's annotation, never by looking at values: wire JSON is
  arbitrary, so a string that happens to look like base64 stays a string;
* wire objects (content blocks, `_meta`, raw payloads) are plain JSON, copied as
  dicts and lists;
* config options (`SetConfigOptions`) are `store.config.option_to_record` objects:
  the neutral option with its wire form under `raw`.

Record formats (`RECORD_FORMAT`; the transcript header says which one its lines
use): 1 kept config options in wire form (either version's spelling). Such
records are upgraded when read (`op_from_record(record, record_format=1)`), so
transcripts saved by older releases still load, with the same options.

Decoding is strict: an unknown op name, an unknown or missing field, or a value of
the wrong JSON type for its field raises `ValueError` with a message that says
which. The field types are read from the annotations of `acp_tui.store.ops` once,
at import; an annotation this codec does not know fails the import, so a new op
field cannot be silently mis-encoded.

Stdlib only, like the rest of `acp_tui.store`.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import logging
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, TypeAlias

from acp_tui.store import ops
from acp_tui.store.changes import Change
from acp_tui.store.config import (
    ANY_KEYS,
    option_from_record,
    option_to_record,
    read_option,
)
from acp_tui.store.ops import Op
from acp_tui.store.store import SessionStore
from acp_tui.store.values import UNSET, JSONValue, plain_json

__all__ = [
    "OP_TYPES",
    "RECORD_FORMAT",
    "JournalSink",
    "JournaledStore",
    "encode_op",
    "op_from_record",
    "op_to_record",
]

_log = logging.getLogger(__name__)

RECORD_FORMAT: Final = 2
"""The record format `op_to_record` writes (see the module docstring)."""

JournalSink: TypeAlias = Callable[[SessionStore, Sequence[Op]], None]
"""Receives the store and the ops of one `apply` / `apply_many`, before they apply."""

OP_TYPES: Final[dict[str, type[Any]]] = {
    name: getattr(ops, name)
    for name in ops.__all__
    if getattr(ops, name) in typing.get_args(ops.Op)
}
"""Every op class (a member of `ops.Op`), by the name used in records."""


# --- field kinds, from the annotations ----------------------------------------

_ROLES: Final = typing.get_args(ops.MessageRole)
_ORIGINS: Final = typing.get_args(ops.MessageOrigin)


def _is_json(value: object) -> bool:
    """Whether `value` is plain JSON as `json.loads` produces it."""
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    return False


def _is_object(value: object) -> bool:
    return isinstance(value, dict) and _is_json(value)


_CHECKS: Final[dict[str, tuple[str, Callable[[object], bool]]]] = {
    "str": ("a string", lambda v: isinstance(v, str)),
    "bool": ("a boolean", lambda v: isinstance(v, bool)),
    "int": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "bytes": ("a base64 string", lambda v: isinstance(v, str)),
    "MessageRole": (
        '"user", "agent" or "thought"',
        lambda v: v in _ROLES,
    ),
    "MessageOrigin": ('"user" or "agent"', lambda v: v in _ORIGINS),
    "JSONObject": ("a JSON object", _is_object),
    "JSONValue": ("a JSON value", _is_json),
    "Sequence[JSONObject]": (
        "a list of JSON objects",
        lambda v: isinstance(v, list) and all(_is_object(i) for i in v),
    ),
    "Sequence[str]": (
        "a list of strings",
        lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
    ),
    "Op": ("a store op record", _is_object),
    "Sequence[Op]": (
        "a list of store op records",
        lambda v: isinstance(v, list) and all(_is_object(i) for i in v),
    ),
    "Sequence[int]": (
        "a list of integers",
        lambda v: (
            isinstance(v, list)
            and all(isinstance(i, int) and not isinstance(i, bool) for i in v)
        ),
    ),
    "Sequence[ConfigOption]": (
        "a list of JSON objects (config option records)",
        lambda v: isinstance(v, list) and all(_is_object(i) for i in v),
    ),
}


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    name: str
    kind: str
    """A key of `_CHECKS`."""
    nullable: bool
    required: bool


def _field_spec(field: dataclasses.Field[Any]) -> _Field:
    annotation = field.type if isinstance(field.type, str) else field.type.__name__
    annotation = annotation.replace(" ", "")
    nullable = False
    if annotation.startswith("Patch[") and annotation.endswith("]"):
        annotation, nullable = annotation[len("Patch[") : -1], True
    parts = annotation.split("|")
    if "None" in parts:
        parts.remove("None")
        nullable = True
    if len(parts) != 1 or parts[0] not in _CHECKS:
        raise TypeError(f"journal: no codec for the annotation {field.type!r}")
    required = (
        field.default is dataclasses.MISSING
        and field.default_factory is dataclasses.MISSING
    )
    return _Field(field.name, parts[0], nullable, required)


_FIELDS: Final[dict[type[Any], tuple[_Field, ...]]] = {
    cls: tuple(_field_spec(f) for f in dataclasses.fields(cls))
    for cls in OP_TYPES.values()
}
assert all(f.name != "op" for specs in _FIELDS.values() for f in specs)


# --- encoding -----------------------------------------------------------------


_CONVERTED: Final = frozenset({"bytes", "Sequence[ConfigOption]", "Op", "Sequence[Op]"})
"""Field kinds whose values `_shallow_record` converts (the others are held)."""

_HELD: Final[dict[type[Any], tuple[str, ...]]] = {
    cls: tuple(spec.name for spec in specs)
    for cls, specs in _FIELDS.items()
    if not any(spec.kind in _CONVERTED for spec in specs)
}
"""The field names of each op type whose values are all held as they are."""


def _shallow_record(op: Op) -> dict[str, object]:
    """The record of `op` with its JSON values as held (not copied)."""
    names = _HELD.get(type(op))
    if names is not None:  # a message chunk's: the streaming case
        record: dict[str, object] = {"op": type(op).__name__}
        for name in names:
            value = getattr(op, name)
            if value is not UNSET:
                record[name] = value
        return record
    specs = _FIELDS.get(type(op))
    if specs is None:
        raise TypeError(f"not a store op: {type(op).__name__}")
    record = {"op": type(op).__name__}
    for spec in specs:
        value = getattr(op, spec.name)
        if value is UNSET:
            continue
        if spec.kind == "bytes" and value is not None:
            record[spec.name] = base64.b64encode(value).decode("ascii")
        elif spec.kind == "Sequence[ConfigOption]":
            record[spec.name] = [option_to_record(option) for option in value]
        elif spec.kind == "Op":  # a subagent's op, nested
            record[spec.name] = _shallow_record(value)
        elif spec.kind == "Sequence[Op]":  # runs of text chunks, interleaved
            record[spec.name] = [_shallow_record(op) for op in value]
        else:
            record[spec.name] = value
    return record


def op_to_record(op: Op) -> dict[str, JSONValue]:
    """Encode an op as a JSON object (see the module docstring for the format).

    Args:
        op: A store op.

    Returns:
        A new dict of plain JSON values, ready for `json.dumps`.

    Raises:
        TypeError: `op` is not a store op, or holds a value that is not JSON.
    """
    return {key: plain_json(value) for key, value in _shallow_record(op).items()}


def _json_default(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return list(value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


_ENCODER: Final = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=True, default=_json_default
)


def encode_op(op: Op) -> str:
    """`op_to_record(op)` as compact ASCII JSON, without copying its values first.

    The journal's hot path: a streaming chunk is encoded in a few microseconds
    (`op_to_record` copies every JSON value into plain dicts and lists, which
    cost more than the encoding itself). Read-only mappings and tuples are
    encoded as objects and arrays by the encoder's `default` hook.

    Raises:
        TypeError: `op` is not a store op, or holds a value that is not JSON.
    """
    try:
        return _ENCODER.encode(_shallow_record(op))
    except ValueError as error:  # a circular reference: not JSON either
        raise TypeError(str(error)) from None


# --- decoding -----------------------------------------------------------------


def op_from_record(record: object, *, record_format: int = RECORD_FORMAT) -> Op:
    """Decode an op encoded by `op_to_record`.

    Args:
        record: A JSON object, as `json.loads` returned it.
        record_format: The format it was written in (older ones are upgraded).

    Returns:
        The op. Its JSON values are the record's own dicts and lists (not copied).

    Raises:
        ValueError: Not an object, an unknown op name, an unknown or missing field,
            a value of the wrong type, or bytes that are not valid base64.
    """
    if not isinstance(record, dict):
        raise ValueError(f"an op record must be a JSON object, not {_kind(record)}")
    if record_format < 2:
        record = _upgrade_from_1(record)
    name = record.get("op")
    cls = OP_TYPES.get(name) if isinstance(name, str) else None
    if cls is None or not isinstance(name, str):
        raise ValueError(f"unknown op {name!r}")
    specs = _FIELDS[cls]
    known = {spec.name for spec in specs}
    unknown = sorted(str(k) for k in record if k != "op" and k not in known)
    if unknown:
        raise ValueError(f"{name}: unknown field(s) {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for spec in specs:
        if spec.name not in record:
            if spec.required:
                raise ValueError(f"{name}: missing field {spec.name}")
            continue
        values[spec.name] = _decode_field(name, spec, record[spec.name])
    op: Op = cls(**values)
    return op


def _upgrade_from_1(record: dict[str, Any]) -> dict[str, Any]:
    """A format-1 record in format 2: wire-form config options made neutral."""
    options = record.get("options")
    if record.get("op") != "SetConfigOptions" or not isinstance(options, list):
        return record
    return {
        **record,
        "options": [
            option_to_record(read_option(o, ANY_KEYS)) if _is_object(o) else o
            for o in options
        ],
    }


def _decode_field(op_name: str, spec: _Field, value: object) -> object:
    if value is None:
        if spec.nullable:
            return None
        raise ValueError(f"{op_name}.{spec.name} must not be null")
    description, check = _CHECKS[spec.kind]
    if not check(value):
        raise ValueError(
            f"{op_name}.{spec.name} must be {description}, not {_kind(value)}"
        )
    if spec.kind == "Sequence[ConfigOption]":
        assert isinstance(value, list)
        try:
            return [option_from_record(option) for option in value]
        except ValueError as error:
            raise ValueError(f"{op_name}.{spec.name}: {error}") from None
    if spec.kind in ("Op", "Sequence[Op]"):  # (nested ops: a subagent's, runs)
        try:
            if spec.kind == "Op":
                return op_from_record(value)
            assert isinstance(value, list)
            return [op_from_record(op) for op in value]
        except ValueError as error:
            raise ValueError(f"{op_name}.{spec.name}: {error}") from None
    if spec.kind == "bytes":
        assert isinstance(value, str)
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{op_name}.{spec.name} is not valid base64") from None
    return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    return names.get(type(value), type(value).__name__)


# --- the journaled store ------------------------------------------------------


class JournaledStore(SessionStore):
    """A `SessionStore` that hands every op to a sink before applying it.

    The sink gets the store and the ops of one `apply` / `apply_many` call (so a
    file writer can flush once per call). It is called before the ops apply, so
    it can still read the state they change. A sink that raises is logged and
    the ops apply all the same: journaling never breaks the live session.

    Args:
        session_id: The ACP session id.
        sink: Receives `(store, ops)` before each apply.
        **kwargs: Passed on to `SessionStore`.
    """

    def __init__(
        self,
        session_id: str,
        sink: JournalSink,
        **kwargs: Any,
    ) -> None:
        super().__init__(session_id, **kwargs)
        self._sink = sink

    @property
    def sink(self) -> JournalSink:
        """Where the ops go."""
        return self._sink

    def apply(self, op: Op) -> tuple[Change, ...]:
        """Journal the op, then apply it (see `SessionStore.apply`)."""
        self._journal((op,))
        return super().apply(op)

    def apply_many(self, ops: Iterable[Op]) -> tuple[Change, ...]:
        """Journal the ops, then apply them (see `SessionStore.apply_many`)."""
        batch = tuple(ops)
        if batch:
            self._journal(batch)
        return super().apply_many(batch)

    def _journal(self, batch: Sequence[Op]) -> None:
        try:
            self._sink(self, batch)
        except Exception:
            _log.exception("journaling ops of %s failed", self.session_id)
