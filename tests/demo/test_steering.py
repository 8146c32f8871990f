"""The demo agent's steering (issue 25, item 2): `/slow` takes a prompt sent into
it (`_session/steering`, advertised in `initialize` in both versions); another
turn, or none, hands the prompt back to the client."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import anyio
import pytest

from acp_tui.client.session import AcpClient
from acp_tui.client.steering import SteerAnswer, steer
from acp_tui.store.store import SessionStore
from tests.demo.client import demo_client
from tests.demo.recorder import BOUND

pytestmark = pytest.mark.subprocess

VERSIONS = [1, 2]


def text(value: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": value}]


async def steer_during(
    client: AcpClient, store: SessionStore, prompt: str, steered: str
) -> tuple[str | None, SteerAnswer]:
    """Run `prompt`; once the agent has said something, steer with `steered`."""
    said = anyio.Event()
    unsubscribe = store.subscribe(
        lambda changes: (
            said.set()
            if any(m.role == "agent" and m.text for m in store.messages())
            else None
        )
    )
    stop: list[str | None] = []
    answers: list[SteerAnswer] = []
    try:
        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as tasks:

                async def turn() -> None:
                    stop.append(await client.prompt(store.session_id, text(prompt)))

                tasks.start_soon(turn)
                await said.wait()
                answers.append(await steer(client, store.session_id, text(steered)))
                if prompt != "/slow":
                    await client.cancel(store.session_id)
    finally:
        unsubscribe()
    return stop[0], answers[0]


@pytest.mark.parametrize("version", VERSIONS)
async def test_slow_takes_a_prompt_sent_into_it(
    project: Path, version: Literal[1, 2]
) -> None:
    async with demo_client(version) as client:
        assert client.dialect.steering
        store = await client.new_session(project)
        stop, answer = await steer_during(client, store, "/slow", "mind the tests")
    assert stop == "end_turn"
    assert answer.outcome == "injected"
    said = [(m.role, m.text) for m in store.messages()]
    steered = said.index(("user", "mind the tests"))
    heard = [i for i, (_, t) in enumerate(said) if "You sent “mind the tests”" in t]
    assert heard
    assert heard[0] > steered
    assert "- mind the tests" in said[-1][1]  # the turn lists what it was sent


@pytest.mark.parametrize("version", VERSIONS)
async def test_other_turns_and_no_turn_hand_the_prompt_back(
    project: Path, version: Literal[1, 2]
) -> None:
    async with demo_client(version) as client:
        store = await client.new_session(project)
        with anyio.fail_after(BOUND):
            idle = await steer(client, store.session_id, text("later"))
        assert (idle.outcome, idle.reason) == ("prompt_required", "noRunningTurn")
        _, busy = await steer_during(client, store, "/long", "now")
        assert busy.outcome == "prompt_required"
        assert busy.reason == "turnTakesNoPrompts"
    assert [m.text for m in store.messages() if m.role == "user"] == ["/long"]
