"""Steering (issue 25, item 2): claude-agent-acp's `_session/steering` extension.

The dialects read `_meta.steering.supported` from the `initialize` result and
write the request alike in v1 and v2; `client.steering.steer` sends it into the
running turn, shows the steered prompt as a user message where it was sent (the
agent does not echo it), and reads the agent's answer into a neutral value.
"""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.client.session import UnsupportedOperation
from acp_tui.client.steering import answer_from, steer
from tests.unit.client.peer import JSON, open_harness, v1_init, v2_init

VERSIONS = [pytest.param(1, id="v1"), pytest.param(2, id="v2")]

STEERING: JSON = {"_meta": {"steering": {"supported": True}}}


def text(value: str) -> JSON:
    return {"type": "text", "text": value}


def init_for(version: int, **extra: Any) -> JSON:
    result = v1_init() if version == 1 else v2_init({})
    return {**result, **extra}


@pytest.mark.parametrize("version", VERSIONS)
async def test_steering_is_offered_only_where_advertised(version: int) -> None:
    async with open_harness(init_for(version, **STEERING)) as h:
        assert h.client.dialect.steering
    async with open_harness(init_for(version)) as h:
        assert not h.client.dialect.steering
        with pytest.raises(UnsupportedOperation):
            h.client.dialect.steer_request("s1", [text("now")])
    odd = {"_meta": {"steering": {"supported": "yes"}}}
    async with open_harness(init_for(version, **odd)) as h:
        assert not h.client.dialect.steering


@pytest.mark.parametrize("version", VERSIONS)
async def test_an_injected_prompt_is_shown_where_it_was_sent(version: int) -> None:
    async with open_harness(init_for(version, **STEERING)) as h:
        store = await h.new_session()
        turn = h.start(h.client.prompt, "s1", [text("work")])
        prompt = await h.peer.expect_request("session/prompt")
        chunk: JSON = {"sessionUpdate": "agent_message_chunk", "content": text("a")}
        if version == 2:
            chunk["messageId"] = "m1"
            await h.peer.reply(prompt, {})
            await h.peer.update(
                "s1",
                {"sessionUpdate": "user_message", "messageId": "u1", "content": []},
            )
        await h.peer.update("s1", chunk)
        await h.peer.sync()
        call = h.start(steer, h.client, "s1", [text("also this")])
        request = await h.peer.expect_request("_session/steering")
        assert request["params"] == {
            "sessionId": "s1",
            "prompt": [text("also this")],
            "_meta": {"steering": {"idleBehavior": "promptRequired"}},
        }
        await h.peer.reply(request, {"outcome": "injected"})
        answer = await call.wait()
        assert answer.outcome == "injected"
        assert answer.message_id is not None
        assert answer.words == "injected into the running turn"
        later: JSON = {"sessionUpdate": "agent_message_chunk", "content": text("b")}
        if version == 2:
            later["messageId"] = "m2"
        await h.peer.update("s1", later)
        await h.peer.sync()
        shown = [(m.role, m.text) for m in store.messages() if m.text]
        # v1: the client shows the first prompt itself; v2: the agent's echo
        # of it is empty here.
        assert shown[-3:] == [("agent", "a"), ("user", "also this"), ("agent", "b")]
        steered = [m for m in store.messages() if m.text == "also this"]
        assert not steered[0].from_agent
        assert steered[0].key == answer.message_id
        if version == 1:
            await h.peer.reply(prompt, {"stopReason": "end_turn"})
        else:
            await h.peer.update(
                "s1",
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "end_turn",
                },
            )
        assert await turn.wait() == "end_turn"


@pytest.mark.parametrize("version", VERSIONS)
async def test_prompt_required_leaves_the_prompt_to_the_client(version: int) -> None:
    async with open_harness(init_for(version, **STEERING)) as h:
        store = await h.new_session()
        call = h.start(steer, h.client, "s1", [text("late")])
        request = await h.peer.expect_request("_session/steering")
        await h.peer.reply(
            request, {"outcome": "promptRequired", "reason": "noRunningTurn"}
        )
        answer = await call.wait()
        assert answer.needs_prompt
        assert not answer.shown_here
        assert answer.words == "sent as the next prompt (no turn was running)"
        assert [m.text for m in store.messages()] == []  # sent as a prompt later


def test_the_answers_are_read_into_neutral_values() -> None:
    assert answer_from({"outcome": "startedNewTurn"}).outcome == "new_turn"
    assert answer_from({"outcome": "startedNewTurn"}).shown_here
    assert answer_from({"outcome": "injected"}).outcome == "injected"
    odd = answer_from({"outcome": "queued"})
    assert (odd.outcome, odd.said) == ("other", "queued")
    assert odd.words == "the agent answered queued"
    assert answer_from(None).outcome == "other"
    assert answer_from({"outcome": "promptRequired", "reason": 5}).reason is None
