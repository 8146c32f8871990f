"""Config options: read from either wire form, then shown from the neutral entity.

The helpers of the old wire-form API (`option_id`, `option_kind`, ...) are kept
here as thin adapters over `store.config.read_option` (with either version's
spelling, as a transcript upgrade reads them), so the assertions stay those the
wire-form helpers had; the dialects' own spellings have tests at the end.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.client import options as shown
from acp_tui.client import v1 as dialect_v1
from acp_tui.client import v2 as dialect_v2
from acp_tui.client.options import CATEGORY_ORDER, category_label
from acp_tui.client.v1 import mode_option
from acp_tui.protocol.schema import v1
from acp_tui.store.config import (
    ANY_KEYS,
    ConfigChoice,
    ConfigOption,
    OptionKind,
    read_option,
)
from acp_tui.store.values import JSONObject

OptionChoice = ConfigChoice


def read(option: object) -> ConfigOption | None:
    """A wire-form option read with either spelling (None: not an object)."""
    return read_option(option, ANY_KEYS) if isinstance(option, dict) else None


def neutral(options: object) -> list[ConfigOption]:
    """Every object of a wire-form list, read (anything else: no options)."""
    found = options if isinstance(options, list) else []
    return [o for o in map(read, found) if o is not None]


def option_id(option: object) -> str | None:
    found = read(option)
    return found.config_id or None if found is not None else None


def option_kind(option: object) -> OptionKind:
    found = read(option)
    return found.kind if found is not None else "unknown"


def current_value(option: object) -> str | bool | None:
    found = read(option)
    return found.current if found is not None else None


def select_choices(option: object) -> list[ConfigChoice]:
    found = read(option)
    return list(found.choices) if found is not None else []


def current_name(options: object, category: str) -> str | None:
    return shown.current_name(neutral(options), category)


def cycle_value(options: object, category: str = "mode") -> tuple[str, str] | None:
    return shown.cycle_value(neutral(options), category)


def group_by_category(options: object) -> list[tuple[str, list[JSONObject]]]:
    grouped = shown.group_by_category(neutral(options))
    return [(category, [o.raw for o in found]) for category, found in grouped]


def select(
    config_id: str,
    current: str,
    values: list[Any],
    *,
    category: str | None = None,
    v1_shape: bool = False,
) -> dict[str, Any]:
    option: dict[str, Any] = {
        "id" if v1_shape else "configId": config_id,
        "name": config_id.title(),
        "type": "select",
        "currentValue": current,
        "options": values,
    }
    if category is not None:
        option["category"] = category
    return option


def boolean(
    config_id: str, current: bool, *, category: str | None = None
) -> dict[str, Any]:
    option: dict[str, Any] = {
        "configId": config_id,
        "name": config_id.title(),
        "type": "boolean",
        "currentValue": current,
    }
    if category is not None:
        option["category"] = category
    return option


def flat(*names: str) -> list[dict[str, Any]]:
    return [{"value": name.lower(), "name": name} for name in names]


MODES = select("mode", "ask", flat("Ask", "Code", "Plan"), category="mode")
GROUPED_V2 = select(
    "model",
    "opus",
    [
        {"groupId": "anthropic", "name": "Anthropic", "options": flat("Opus")},
        {"groupId": "local", "name": "Local", "options": flat("Llama", "Qwen")},
    ],
    category="model",
)


def test_option_id_reads_v2_config_id_and_v1_id() -> None:
    assert option_id({"configId": "model"}) == "model"
    assert option_id({"id": "mode"}) == "mode"
    assert option_id({"configId": "a", "id": "b"}) == "a"
    assert option_id({"configId": 3}) is None
    assert option_id({"id": ""}) is None
    assert option_id("mode") is None


@pytest.mark.parametrize(
    ("option", "kind"),
    [
        (MODES, "select"),
        (boolean("fast", True), "boolean"),
        ({**MODES, "type": "slider"}, "unknown"),
        ({**MODES, "currentValue": 1}, "unknown"),
        ({**MODES, "options": "ask"}, "unknown"),
        ({**boolean("fast", True), "currentValue": "true"}, "unknown"),
        ({k: v for k, v in MODES.items() if k != "configId"}, "unknown"),
        ([], "unknown"),
    ],
)
def test_option_kind(option: object, kind: str) -> None:
    assert option_kind(option) == kind


def test_select_choices_flat_keeps_order_and_descriptions() -> None:
    option = select(
        "mode",
        "ask",
        [
            {"value": "ask", "name": "Ask", "description": "Asks first"},
            {"value": "code", "name": "Code", "description": None},
        ],
    )
    assert select_choices(option) == [
        OptionChoice("ask", "Ask", "Asks first", None),
        OptionChoice("code", "Code", None, None),
    ]


def test_select_choices_flattens_v2_groups_with_group_names() -> None:
    assert select_choices(GROUPED_V2) == [
        OptionChoice("opus", "Opus", None, "Anthropic"),
        OptionChoice("llama", "Llama", None, "Local"),
        OptionChoice("qwen", "Qwen", None, "Local"),
    ]


def test_select_choices_flattens_v1_groups_falling_back_to_group_id() -> None:
    option = select(
        "model",
        "a",
        [{"group": "g1", "options": flat("A")}, {"group": "g2", "name": "Two"}],
        v1_shape=True,
    )
    assert select_choices(option) == [OptionChoice("a", "A", None, "g1")]


def test_select_choices_skips_malformed_entries() -> None:
    option = select(
        "mode",
        "a",
        [
            {"value": "a", "name": "A"},
            {"name": "no value"},
            {"value": 7, "name": "number"},
            "b",
            None,
            {"value": "c"},  # no name: the value id is shown
        ],
    )
    assert select_choices(option) == [
        OptionChoice("a", "A", None, None),
        OptionChoice("c", "c", None, None),
    ]
    assert select_choices(boolean("fast", True)) == []


def test_current_value() -> None:
    assert current_value(MODES) == "ask"
    assert current_value(boolean("fast", False)) is False
    assert current_value({"type": "slider"}) is None


def test_current_name_of_select_boolean_and_missing() -> None:
    options = [GROUPED_V2, MODES, boolean("think", True, category="thought_level")]
    assert current_name(options, "mode") == "Ask"
    assert current_name(options, "model") == "Opus"
    assert current_name(options, "thought_level") == "on"
    assert current_name([boolean("t", False, category="x")], "x") == "off"
    assert current_name(options, "model_config") is None


def test_current_name_unknown_value_falls_back_to_the_raw_value() -> None:
    assert current_name([{**MODES, "currentValue": "yolo"}], "mode") == "yolo"


def test_current_name_skips_unusable_options_of_the_category() -> None:
    broken = {**MODES, "type": "slider", "currentValue": "x"}
    assert current_name([broken, MODES], "mode") == "Ask"


def test_current_name_reads_the_v1_synthesised_mode_option() -> None:
    modes = v1.SessionModeState.model_validate(
        {
            "currentModeId": "code",
            "availableModes": [
                {"id": "ask", "name": "Ask"},
                {"id": "code", "name": "Code"},
            ],
        }
    )
    option = mode_option(modes)
    assert option_id(option) == "mode"
    assert current_name([option], "mode") == "Code"
    assert cycle_value([option]) == ("mode", "ask")


def test_cycle_value_moves_to_the_next_and_wraps() -> None:
    assert cycle_value([MODES]) == ("mode", "code")
    assert cycle_value([{**MODES, "currentValue": "plan"}]) == ("mode", "ask")
    assert cycle_value([GROUPED_V2], "model") == ("model", "llama")


def test_cycle_value_from_an_unknown_current_value_picks_the_first() -> None:
    assert cycle_value([{**MODES, "currentValue": "gone"}]) == ("mode", "ask")


def test_cycle_value_none_when_nothing_to_switch_to() -> None:
    assert cycle_value([]) is None
    assert cycle_value([select("mode", "ask", flat("Ask"), category="mode")]) is None
    assert cycle_value([select("mode", "ask", [], category="mode")]) is None
    assert cycle_value([boolean("mode", True, category="mode")]) is None
    assert cycle_value([MODES], "model") is None


def test_group_by_category_orders_known_then_custom_then_other() -> None:
    plain = boolean("verbose", True)
    custom_b = boolean("b", False, category="_vendor_b")
    custom_a = boolean("a", True, category="_vendor_a")
    level = boolean("think", True, category="thought_level")
    config = boolean("temp", True, category="model_config")
    hidden = {**MODES, "configId": "x", "type": "slider"}
    options: list[JSONObject] = [
        plain,
        custom_b,
        config,
        GROUPED_V2,
        hidden,
        level,
        custom_a,
        MODES,
        boolean("y", False, category="_vendor_b"),
    ]
    grouped = group_by_category(options)
    assert [name for name, _ in grouped] == [
        "mode",
        "model",
        "thought_level",
        "model_config",
        "_vendor_b",
        "_vendor_a",
        "other",
    ]
    assert dict(grouped)["_vendor_b"] == [custom_b, options[-1]]
    assert dict(grouped)["other"] == [plain]
    assert all(hidden not in found for _, found in grouped)


def test_group_by_category_treats_empty_and_non_string_category_as_other() -> None:
    a = {**boolean("a", True), "category": ""}
    b = {**boolean("b", True), "category": 5}
    assert group_by_category([a, b]) == [("other", [a, b])]


def test_category_labels() -> None:
    assert [category_label(c) for c in CATEGORY_ORDER] == [
        "Mode",
        "Model",
        "Thought level",
        "Model config",
    ]
    assert category_label("other") == "Other"
    assert category_label("_vendor") == "_vendor"


JSON: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.sampled_from(["select", "boolean", "mode", "model", "a", "b"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "configId",
                    "type",
                    "currentValue",
                    "options",
                    "value",
                    "name",
                    "description",
                    "group",
                    "groupId",
                    "category",
                ]
            ),
            inner,
            max_size=6,
        )
    ),
    max_leaves=30,
)


@given(JSON)
def test_helpers_never_raise_on_arbitrary_json(value: Any) -> None:
    option_id(value)
    option_kind(value)
    current_value(value)
    for choice in select_choices(value):
        assert isinstance(choice.value, str)
        assert isinstance(choice.name, str)
    for options in (value, [value], [value, value]):
        for category in ("mode", "model", "a"):
            name = current_name(options, category)
            assert name is None or isinstance(name, str)
            cycled = cycle_value(options, category)
            assert cycled is None or all(isinstance(part, str) for part in cycled)
        for category, found in group_by_category(options):
            assert isinstance(category, str)
            assert all(option_kind(option) != "unknown" for option in found)


# --- each dialect reads its own spelling ----------------------------------------


def test_v2_reads_config_id_and_group_id_only() -> None:
    [option] = dialect_v2.config_options([GROUPED_V2])
    assert (option.config_id, option.kind, option.current) == (
        "model",
        "select",
        "opus",
    )
    assert option.choices[0] == ConfigChoice("opus", "Opus", None, "Anthropic")
    assert option.raw == GROUPED_V2  # kept for export and the inspector
    [v1_shaped] = dialect_v2.config_options(
        [select("m", "a", flat("A"), v1_shape=True)]
    )
    assert (v1_shaped.config_id, v1_shaped.kind) == ("", "unknown")
    no_name = {"groupId": "g", "options": flat("A")}
    [grouped] = dialect_v2.config_options([select("m", "a", [no_name])])
    assert grouped.choices == (ConfigChoice("a", "A", None, "g"),)


def test_v1_reads_id_and_group_only() -> None:
    grouped = select(
        "model", "a", [{"group": "g1", "options": flat("A")}], v1_shape=True
    )
    option = read_option(grouped, dialect_v1.OPTION_KEYS)
    assert (option.config_id, option.kind) == ("model", "select")
    assert option.choices == (ConfigChoice("a", "A", None, "g1"),)
    v2_shaped = read_option(MODES, dialect_v1.OPTION_KEYS)
    assert (v2_shaped.config_id, v2_shaped.kind) == ("", "unknown")
