"""Reading session config options (`SessionConfigOption`) in wire form.

https://agentclientprotocol.com/protocol/session-config-options. The store keeps
the agent's config options exactly as they arrived (`SessionStore.config_options`),
so these helpers read both wire shapes:

* the option's id is `configId` (v2) or `id` (v1);
* a select's choices are flat (`{"value", "name", "description"?}`) or grouped
  (`{"groupId"|"group", "name", "options": [...]}`);
* `type` is `"select"` (string `currentValue`) or `"boolean"` (bool
  `currentValue`); any other type is kept by the store but hidden here;
* `category` is `mode`, `model`, `thought_level`, `model_config`, a custom or
  future name, or absent.

v1 `modes` reach this module as a synthesised select option of category `mode`
(see `client.v1.mode_option`). Everything here is pure and total: a malformed
entry is skipped, nothing raises on arbitrary JSON. Used by the status bar, the
config switcher and the command palette. Stdlib only (no Textual, no Rich).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from acp_tui.store.values import JSONObject, JSONValue

__all__ = [
    "CATEGORY_ORDER",
    "OTHER_CATEGORY",
    "OptionChoice",
    "OptionKind",
    "category_label",
    "current_name",
    "current_value",
    "cycle_value",
    "group_by_category",
    "option_id",
    "option_kind",
    "select_choices",
]

OptionKind = Literal["select", "boolean", "unknown"]
"""What an option is, for display: a select, a boolean toggle, or hidden."""

CATEGORY_ORDER: Final[tuple[str, ...]] = (
    "mode",
    "model",
    "thought_level",
    "model_config",
)
"""The spec's categories, in the order they are shown."""

OTHER_CATEGORY: Final = "other"
"""The group name of options without a category."""

_CATEGORY_LABELS: Final[Mapping[str, str]] = {
    "mode": "Mode",
    "model": "Model",
    "thought_level": "Thought level",
    "model_config": "Model config",
    OTHER_CATEGORY: "Other",
}


@dataclass(frozen=True, slots=True)
class OptionChoice:
    """One selectable value of a select option."""

    value: str
    """The value id (sent back in `session/set_config_option`)."""
    name: str
    """The human-readable label."""
    description: str | None
    """An optional longer description."""
    group: str | None
    """The name of the group the value is listed under, if the options are grouped."""


def _mapping(value: object) -> Mapping[str, JSONValue] | None:
    return value if isinstance(value, Mapping) else None


def _is_array(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _items(value: object) -> Sequence[JSONValue]:
    """A JSON array as a sequence (anything else: empty)."""
    return value if isinstance(value, Sequence) and _is_array(value) else ()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def option_id(option: object) -> str | None:
    """The option's id: `configId` (v2) or `id` (v1); `None` if it has none.

    Args:
        option: A config option in wire form (anything is accepted).
    """
    fields = _mapping(option)
    if fields is None:
        return None
    for key in ("configId", "id"):
        value = fields.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def option_kind(option: object) -> OptionKind:
    """Whether the option is a usable select, a usable boolean, or neither.

    A select needs an id, a string `currentValue` and an `options` array; a
    boolean needs an id and a bool `currentValue`. Anything else (an unknown
    `type`, a malformed entry) is `"unknown"` and should be hidden.

    Args:
        option: A config option in wire form (anything is accepted).
    """
    fields = _mapping(option)
    if fields is None or option_id(fields) is None:
        return "unknown"
    kind = fields.get("type")
    current = fields.get("currentValue")
    if (
        kind == "select"
        and isinstance(current, str)
        and _is_array(fields.get("options"))
    ):
        return "select"
    if kind == "boolean" and isinstance(current, bool):
        return "boolean"
    return "unknown"


def current_value(option: object) -> str | bool | None:
    """The option's current value (a value id or a bool), if it is usable.

    Args:
        option: A config option in wire form (anything is accepted).
    """
    kind = option_kind(option)
    if kind == "unknown":
        return None
    fields = _mapping(option)
    assert fields is not None
    value = fields.get("currentValue")
    return value if isinstance(value, str | bool) else None


def _choice(entry: object, group: str | None) -> OptionChoice | None:
    fields = _mapping(entry)
    if fields is None:
        return None
    value = _text(fields.get("value"))
    if value is None:
        return None
    return OptionChoice(
        value=value,
        name=_text(fields.get("name")) or value,
        description=_text(fields.get("description")) or None,
        group=group,
    )


def select_choices(option: object) -> list[OptionChoice]:
    """The values of a select option, with groups flattened in order.

    A grouped entry (one with an `options` array) contributes its values with
    `group` set to the group's name (or its id when it has no name). Entries
    without a string `value` are skipped.

    Args:
        option: A config option in wire form (anything is accepted).
    """
    if option_kind(option) != "select":
        return []
    fields = _mapping(option)
    assert fields is not None
    choices: list[OptionChoice] = []
    for entry in _items(fields.get("options")):
        entry_fields = _mapping(entry)
        if entry_fields is None:
            continue
        nested = entry_fields.get("options")
        if "value" not in entry_fields and _is_array(nested):
            group = (
                _text(entry_fields.get("name"))
                or _text(entry_fields.get("groupId"))
                or _text(entry_fields.get("group"))
            )
            for item in _items(nested):
                choice = _choice(item, group)
                if choice is not None:
                    choices.append(choice)
            continue
        choice = _choice(entry_fields, None)
        if choice is not None:
            choices.append(choice)
    return choices


def _category(option: Mapping[str, JSONValue]) -> str | None:
    category = option.get("category")
    return category if isinstance(category, str) and category else None


def _first_in(
    options: Sequence[JSONObject] | object, category: str
) -> Mapping[str, JSONValue] | None:
    """The first usable option (select or boolean) of `category`."""
    for option in _items(options):
        fields = _mapping(option)
        if fields is None or option_kind(fields) == "unknown":
            continue
        if _category(fields) == category:
            return fields
    return None


def current_name(options: Sequence[JSONObject] | object, category: str) -> str | None:
    """The display name of the current value of the first option in `category`.

    For a select: the current choice's name (the raw value id if it is not among
    the choices). For a boolean: `"on"` or `"off"`. `None` if the category has no
    usable option.

    Args:
        options: The session's config options in wire form.
        category: A category such as `"mode"` or `"model"`.
    """
    option = _first_in(options, category)
    if option is None:
        return None
    current = current_value(option)
    if isinstance(current, bool):
        return "on" if current else "off"
    for choice in select_choices(option):
        if choice.value == current:
            return choice.name
    return current


def cycle_value(
    options: Sequence[JSONObject] | object, category: str = "mode"
) -> tuple[str, str] | None:
    """The config id and the value after the current one, for cycling a select.

    Takes the first select option of `category`; the value after the current one
    wraps round to the first (a current value that is not among the choices is
    followed by the first choice). `None` if there is no such option or nothing
    else to switch to.

    Args:
        options: The session's config options in wire form.
        category: The category to cycle (`"mode"` by default).
    """
    for option in _items(options):
        fields = _mapping(option)
        if fields is None or option_kind(fields) != "select":
            continue
        if _category(fields) != category:
            continue
        config_id = option_id(fields)
        values = [choice.value for choice in select_choices(fields)]
        current = fields.get("currentValue")
        if config_id is None or not values:
            return None
        index = values.index(current) if current in values else -1
        following = values[(index + 1) % len(values)]
        return None if following == current else (config_id, following)
    return None


def group_by_category(
    options: Sequence[JSONObject] | object,
) -> list[tuple[str, list[JSONObject]]]:
    """The usable options grouped by category, in display order.

    The spec's categories come first (`CATEGORY_ORDER`), then unknown categories
    in first-seen order, then options without a category under `"other"`. Options
    of an unknown type or malformed entries are left out; empty groups are omitted.

    Args:
        options: The session's config options in wire form.
    """
    groups: dict[str, list[JSONObject]] = {}
    for option in _items(options):
        fields = _mapping(option)
        if fields is None or option_kind(fields) == "unknown":
            continue
        groups.setdefault(_category(fields) or OTHER_CATEGORY, []).append(fields)
    known = [(name, groups[name]) for name in CATEGORY_ORDER if name in groups]
    custom = [
        (name, found)
        for name, found in groups.items()
        if name not in CATEGORY_ORDER and name != OTHER_CATEGORY
    ]
    other = (
        [(OTHER_CATEGORY, groups[OTHER_CATEGORY])] if OTHER_CATEGORY in groups else []
    )
    return known + custom + other


def category_label(category: str) -> str:
    """The heading for a category: `"Mode"`, `"Model"`, ..., or the raw name.

    Args:
        category: A category name as returned by `group_by_category`.
    """
    return _CATEGORY_LABELS.get(category, category)
