"""Showing the session's config options: categories, current names, cycling.

https://agentclientprotocol.com/protocol/session-config-options. The store keeps
the options version-neutral (`SessionStore.settings`, `store.config.ConfigOption`):
the dialects read each version's spelling at the seam, so nothing here (nor in
the UI) reads a wire key. These helpers order and summarise them:

* a `kind="unknown"` option (an unknown type, a malformed entry) is hidden;
* `category` is `mode`, `model`, `thought_level`, `model_config`, a custom or
  future name, or absent (`OTHER_CATEGORY`).

Everything here is pure and total. Used by the status bar, the config switcher
and the command palette. Stdlib only (no Textual, no Rich).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from acp_tui.store.config import ConfigChoice, ConfigOption, OptionKind

__all__ = [
    "CATEGORY_ORDER",
    "OTHER_CATEGORY",
    "ConfigChoice",
    "ConfigOption",
    "OptionKind",
    "category_label",
    "current_name",
    "cycle_value",
    "group_by_category",
]

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


def _first_in(options: Sequence[ConfigOption], category: str) -> ConfigOption | None:
    """The first usable option (select or boolean) of `category`."""
    for option in options:
        if option.kind != "unknown" and option.category == category:
            return option
    return None


def current_name(options: Sequence[ConfigOption], category: str) -> str | None:
    """The display name of the current value of the first option in `category`.

    For a select: the current choice's name (the raw value id if it is not among
    the choices). For a boolean: `"on"` or `"off"`. `None` if the category has no
    usable option.

    Args:
        options: The session's config options.
        category: A category such as `"mode"` or `"model"`.
    """
    option = _first_in(options, category)
    if option is None:
        return None
    current = option.current
    if isinstance(current, bool):
        return "on" if current else "off"
    for choice in option.choices:
        if choice.value == current:
            return choice.name
    return current


def cycle_value(
    options: Sequence[ConfigOption], category: str = "mode"
) -> tuple[str, str] | None:
    """The config id and the value after the current one, for cycling a select.

    Takes the first select option of `category`; the value after the current one
    wraps round to the first (a current value that is not among the choices is
    followed by the first choice). `None` if there is no such option or nothing
    else to switch to.

    Args:
        options: The session's config options.
        category: The category to cycle (`"mode"` by default).
    """
    for option in options:
        if option.kind != "select" or option.category != category:
            continue
        config_id = option.config_id
        values = [choice.value for choice in option.choices]
        current = option.current
        if not values:
            return None
        index = values.index(current) if current in values else -1
        following = values[(index + 1) % len(values)]
        return None if following == current else (config_id, following)
    return None


def group_by_category(
    options: Sequence[ConfigOption],
) -> list[tuple[str, list[ConfigOption]]]:
    """The usable options grouped by category, in display order.

    The spec's categories come first (`CATEGORY_ORDER`), then unknown categories
    in first-seen order, then options without a category under `"other"`. Options
    of an unknown type or malformed entries are left out; empty groups are omitted.

    Args:
        options: The session's config options.
    """
    groups: dict[str, list[ConfigOption]] = {}
    for option in options:
        if option.kind != "unknown":
            groups.setdefault(option.category or OTHER_CATEGORY, []).append(option)
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
