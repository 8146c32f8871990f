"""Session config options as one version-neutral entity (`ConfigOption`).

https://agentclientprotocol.com/protocol/session-config-options. The two protocol
versions spell an option differently (its id is v2 `configId`, v1 `id`; a group
of choices is v2 `groupId`, v1 `group`), and v1 `modes` are no option at all. The
dialects (`client.v1`, `client.v2`) read their own spelling at the seam, through
`read_option` with their `OptionKeys`, and hand the store `ConfigOption`s; the UI
reads only these, never a wire key.

Invariants:

* `read_option` is total: it never raises on arbitrary JSON. An option that is
  not a usable select (an id, a string current value, a choices array) or a usable
  boolean (an id, a bool current value) is kept with `kind="unknown"`, and shown
  nowhere; a choice without a string `value` is dropped.
* `raw` is the option exactly as the agent (or, for v1 modes, the dialect) gave
  it: the store's `to_json` exports it unchanged, so `acp-tui print`'s document
  and the inspector show the wire form.
* `option_to_record` / `option_from_record` are the journal's codec; decoding is
  strict (`ValueError` naming what is wrong), so a damaged transcript line is
  skipped, not half-applied.

Stdlib only, like the rest of `acp_tui.store`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple

from acp_tui.store.values import JSONObject, JSONValue, plain_json

__all__ = [
    "ANY_KEYS",
    "ConfigChoice",
    "ConfigOption",
    "OptionKeys",
    "OptionKind",
    "option_from_record",
    "option_to_record",
    "read_option",
    "read_options",
]

OptionKind = Literal["select", "boolean", "unknown"]
"""What an option is, for display: a select, a boolean toggle, or hidden."""

_KINDS: Final[tuple[OptionKind, ...]] = ("select", "boolean", "unknown")


@dataclass(frozen=True, slots=True)
class ConfigChoice:
    """One selectable value of a select option."""

    value: str
    """The value id (sent back in `session/set_config_option`)."""
    name: str
    """The human-readable label (the value id when the agent gave none)."""
    description: str | None
    """An optional longer description."""
    group: str | None
    """The name of the group the value is listed under, if the choices are grouped."""


@dataclass(frozen=True, slots=True)
class ConfigOption:
    """One session config option (mode, model, thought level, ...), neutral."""

    config_id: str
    """The option's id (`""` if the agent gave none: then `kind` is unknown)."""
    name: str
    """The option's name as given (`""` if none)."""
    description: str | None
    """An optional longer description."""
    category: str | None
    """`mode`, `model`, `thought_level`, `model_config`, a custom name, or None."""
    kind: OptionKind
    """A usable select, a usable boolean, or neither (hidden)."""
    current: str | bool | None
    """The current value: a value id (select), a bool (boolean), None (unknown)."""
    choices: tuple[ConfigChoice, ...]
    """A select's values, groups flattened in order (empty for other kinds)."""
    raw: JSONObject
    """The option in wire form, for export and the inspector only."""


class OptionKeys(NamedTuple):
    """How a protocol version spells an option's id and a choice group's id."""

    ids: tuple[str, ...]
    """The keys that may hold the option's id, tried in order."""
    groups: tuple[str, ...]
    """The keys that may hold a group's id (its name is preferred)."""


ANY_KEYS: Final = OptionKeys(("configId", "id"), ("groupId", "group"))
"""Either version's spelling: for transcripts saved before options were neutral."""


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _array(value: object) -> Sequence[JSONValue] | None:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return value
    return None


def _choice(entry: object, group: str | None) -> ConfigChoice | None:
    if not isinstance(entry, Mapping):
        return None
    value = _text(entry.get("value"))
    if value is None:
        return None
    return ConfigChoice(
        value=value,
        name=_text(entry.get("name")) or value,
        description=_text(entry.get("description")) or None,
        group=group,
    )


def _choices(entries: Sequence[JSONValue], keys: OptionKeys) -> list[ConfigChoice]:
    """Flat choices, or groups of them flattened with the group's name."""
    choices: list[ConfigChoice] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        nested = _array(entry.get("options"))
        if "value" not in entry and nested is not None:
            group = _text(entry.get("name")) or next(
                (_text(entry.get(k)) for k in keys.groups if _text(entry.get(k))),
                None,
            )
            found = (_choice(item, group) for item in nested)
            choices.extend(choice for choice in found if choice is not None)
            continue
        choice = _choice(entry, None)
        if choice is not None:
            choices.append(choice)
    return choices


def read_option(raw: JSONObject, keys: OptionKeys) -> ConfigOption:
    """A wire-form option as a `ConfigOption` (total: never raises).

    Args:
        raw: The option as the agent sent it (any JSON object).
        keys: The spelling of the version it came in.
    """
    config_id = next((i for k in keys.ids if (i := _text(raw.get(k)))), "")
    current = raw.get("currentValue")
    entries = _array(raw.get("options"))
    kind: OptionKind = "unknown"
    value: str | bool | None = None
    if config_id and raw.get("type") == "select" and entries is not None:
        if isinstance(current, str):
            kind, value = "select", current
    elif config_id and raw.get("type") == "boolean" and isinstance(current, bool):
        kind, value = "boolean", current
    category = _text(raw.get("category")) or None
    return ConfigOption(
        config_id=config_id,
        name=_text(raw.get("name")) or "",
        description=_text(raw.get("description")) or None,
        category=category,
        kind=kind,
        current=value,
        choices=tuple(_choices(entries or (), keys)) if kind == "select" else (),
        raw=raw,
    )


def read_options(options: Sequence[JSONObject], keys: OptionKeys) -> list[ConfigOption]:
    """`read_option` of each option, in order (the array order is the priority)."""
    return [read_option(option, keys) for option in options]


# --- the journal's codec ------------------------------------------------------


def option_to_record(option: ConfigOption) -> dict[str, JSONValue]:
    """The option as a plain JSON object (the journal's record of it)."""
    return {
        "id": option.config_id,
        "name": option.name,
        "description": option.description,
        "category": option.category,
        "kind": option.kind,
        "current": option.current,
        "choices": [
            {
                "value": c.value,
                "name": c.name,
                "description": c.description,
                "group": c.group,
            }
            for c in option.choices
        ],
        "raw": plain_json(option.raw),
    }


def _field(record: Mapping[str, object], key: str, *types: type) -> object:
    if key not in record:
        raise ValueError(f"config option: missing {key!r}")
    value = record[key]
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise ValueError(f"config option: {key!r} has the wrong type")
    return value


def _optional_text(record: Mapping[str, object], key: str) -> str | None:
    value = _field(record, key, str, type(None))
    return value if isinstance(value, str) else None


def _choice_from_record(value: object) -> ConfigChoice:
    if not isinstance(value, Mapping):
        raise ValueError("config option: a choice is not an object")
    return ConfigChoice(
        value=str(_field(value, "value", str)),
        name=str(_field(value, "name", str)),
        description=_optional_text(value, "description"),
        group=_optional_text(value, "group"),
    )


def option_from_record(value: object) -> ConfigOption:
    """An option back from `option_to_record`'s JSON.

    Raises:
        ValueError: `value` is not such a record (says what is wrong).
    """
    if not isinstance(value, Mapping):
        raise ValueError("config option: not an object")
    kind = _field(value, "kind", str)
    if kind not in _KINDS:
        raise ValueError(f"config option: unknown kind {kind!r}")
    current = _field(value, "current", str, bool, type(None))
    choices = _field(value, "choices", list)
    raw = _field(value, "raw", dict)
    assert isinstance(choices, list)
    assert isinstance(raw, dict)
    known: OptionKind = next(k for k in _KINDS if k == kind)
    return ConfigOption(
        config_id=str(_field(value, "id", str)),
        name=str(_field(value, "name", str)),
        description=_optional_text(value, "description"),
        category=_optional_text(value, "category"),
        kind=known,
        current=current if isinstance(current, str | bool) else None,
        choices=tuple(_choice_from_record(c) for c in choices),
        raw=raw,
    )
