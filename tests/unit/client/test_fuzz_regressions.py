"""Regressions found by the fuzz tests (`tests/fuzz/`): the translators.

* A valid update nesting JSON deeper than pydantic can dump (about 250 levels)
  raised `ValueError` from the translator; one nesting it a little less deep, in a
  value the translator passes through (`_meta`, `rawInput`, `rawOutput`), reached
  the store, whose `to_json()` then hit `RecursionError` (for good: the session
  could no longer be exported). Updates nested deeper than `MAX_UPDATE_DEPTH` are
  now skipped with an error notice, in both versions.
* A lone surrogate in an object key of a content block's vendor key made the
  translator raise `UnicodeEncodeError` (see `to_wire`).
* A v2 `state_update` that is not idle but carries an `error` key (an unknown
  extra, any JSON) put that raw value into `SessionState.error`, typed as an
  object or `None`. Only the idle update's validated `error` counts now.
* v1: `current_mode_update` wrote the mode id into the first option of category
  `mode` even when that was a `boolean` (a string where a boolean belongs, which
  an agent's next `session/load` response then fails validation on), and such a
  boolean stopped the `modes` state from being offered as a select. Only a
  `select` of category `mode` counts now.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_tui.client import v1 as translate_v1
from acp_tui.client import v2 as translate_v2
from acp_tui.protocol.schema import v1
from acp_tui.store import RecordNotice
from tests.unit.client.scripts import Player, Update, Version, dump, play


def nest(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"a": value}
    return value


def _deep_updates(version: Version, levels: int) -> list[Update]:
    """Updates whose deepest object is `levels` below the update object."""
    inner = nest(levels - 1)  # `_meta` / `rawInput` / `x` is level 2
    if version == 2:
        return [
            {"sessionUpdate": "agent_message", "messageId": "m", "_meta": inner},
            {"sessionUpdate": "tool_call_update", "toolCallId": "c", "rawInput": inner},
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c",
                "rawOutput": inner,
            },
            {"sessionUpdate": "terminal_update", "terminalId": "t", "_meta": inner},
            {"sessionUpdate": "session_info_update", "_meta": inner},
            {"sessionUpdate": "usage_update", "used": 1, "size": 2, "_meta": inner},
            {"sessionUpdate": "_vendor", "x": inner},
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m",
                "content": {"type": "_chart", "x": nest(levels - 2)},
            },
        ]
    return [
        {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "T", "_meta": inner},
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c",
            "title": "T",
            "rawInput": inner,
        },
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "rawOutput": inner},
        {"sessionUpdate": "plan", "entries": [], "_meta": inner},
        {"sessionUpdate": "usage_update", "used": 1, "size": 2, "_meta": inner},
        {"sessionUpdate": "_vendor", "x": inner},
    ]


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("levels", [translate_v2.MAX_UPDATE_DEPTH + 1, 300, 900])
def test_an_update_nested_too_deeply_is_skipped_with_a_notice(
    version: Version, levels: int
) -> None:
    player = Player(version)
    for update in _deep_updates(version, levels):
        ops = player.ops(update)
        assert len(ops) == 1
        assert isinstance(ops[0], RecordNotice)
        assert ops[0].severity == "error"
        player.store.apply_many(ops)
    document = dump(player.store)
    json.dumps(document)  # still exportable
    assert document["timeline"] == []
    assert document["toolCalls"] == []
    assert document["unknownUpdates"] == []
    assert len(player.store.notices) == len(_deep_updates(version, levels))


@pytest.mark.parametrize("version", [1, 2])
def test_an_update_at_the_depth_limit_is_applied(version: Version) -> None:
    player = Player(version)
    for update in _deep_updates(version, translate_v2.MAX_UPDATE_DEPTH):
        assert not any(isinstance(op, RecordNotice) for op in player.ops(update))
        player.send(update)
    json.dumps(dump(player.store))
    assert player.store.notices == ()


def test_a_lone_surrogate_in_a_vendor_key_of_a_content_block_is_kept() -> None:
    chunk = json.loads(
        '{"sessionUpdate": "agent_message_chunk", "messageId": "m",'
        ' "content": {"type": "_chart", "points": {"\\ud800": 1}}}'
    )
    store = play(2, [chunk])
    assert dump(store)["messages"][0]["content"] == [chunk["content"]]


@pytest.mark.parametrize("state", ["running", "requires_action", "_paused"])
@pytest.mark.parametrize("error", ["oops", [1], {"code": 1, "message": "m"}])
def test_an_error_key_on_a_busy_state_is_not_the_sessions_error(
    state: str, error: Any
) -> None:
    store = play(2, [{"sessionUpdate": "state_update", "state": state, "error": error}])
    assert store.state.state == state
    assert store.state.error is None
    assert "error" not in dump(store)


def test_an_idle_states_error_is_still_kept() -> None:
    error = {"code": -32603, "message": "overloaded"}
    store = play(
        2,
        [
            {"sessionUpdate": "state_update", "state": "running"},
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "error",
                "error": error,
            },
        ],
    )
    assert store.state.error == error


MODES = v1.SessionModeState.model_validate(
    {
        "currentModeId": "ask",
        "availableModes": [
            {"id": "ask", "name": "Ask"},
            {"id": "code", "name": "Code"},
        ],
    }
)
PLAN_MODE: dict[str, Any] = {
    "type": "boolean",
    "id": "plan",
    "name": "Plan mode",
    "category": "mode",
    "currentValue": False,
}


def test_a_boolean_of_category_mode_does_not_hide_the_modes() -> None:
    options = translate_v1.with_modes([PLAN_MODE], MODES)
    assert options == [PLAN_MODE, translate_v1.mode_option(MODES)]


def test_current_mode_update_moves_the_mode_select_not_a_boolean() -> None:
    player = Player(1)
    assert player.v1 is not None
    player.v1.modes = MODES
    player.send({"sessionUpdate": "config_option_update", "configOptions": [PLAN_MODE]})
    player.send({"sessionUpdate": "current_mode_update", "currentModeId": "code"})
    assert dump(player.store)["configOptions"] == [
        PLAN_MODE,
        {**translate_v1.mode_option(MODES), "currentValue": "code"},
    ]
    assert dump(player.store)["unknownUpdates"] == []


def test_current_mode_update_with_only_a_boolean_mode_option_is_unknown() -> None:
    update = {"sessionUpdate": "current_mode_update", "currentModeId": "code"}
    player = Player(1)
    player.send(
        {"sessionUpdate": "config_option_update", "configOptions": [PLAN_MODE]},
        update,
    )
    assert dump(player.store)["configOptions"] == [PLAN_MODE]
    assert dump(player.store)["unknownUpdates"] == [update]
