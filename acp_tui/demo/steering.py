"""Steering in the demo: `/slow`, a turn that takes prompts sent into it.

The demo advertises claude-agent-acp's steering extension (`initialize`
result `_meta.steering.supported`, in both versions) and serves
`_session/steering` (`steer`):

* while a `/slow` turn runs, the prompt goes into it (`{outcome: injected}`):
  the turn says, at its next step, that it heard it, and lists what it was
  sent at the end;
* while another turn runs (it takes nothing in), or when none runs and the
  client asked for it (`_meta.steering.idleBehavior: "promptRequired"`), it
  answers `{outcome: promptRequired, reason}`: the client sends it as an
  ordinary prompt;
* with no turn running and no such request, it starts a turn with the prompt
  (`{outcome: startedNewTurn}`), as claude-agent-acp does.

Deterministic like every scenario: what a `/slow` turn says depends only on
its prompt and on what was sent into it, and when.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from acp_tui.demo.events import JSONObject
from acp_tui.demo.turn import Turn, text_of
from acp_tui.protocol.dispatcher import RequestContext
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, RpcError

if TYPE_CHECKING:
    from acp_tui.demo.server import DemoServer

__all__ = ["SLOW_STEPS", "STEERING_META", "slow_scenario", "steer"]

STEERING_META: Final[JSONObject] = {"steering": {"supported": True}}
"""The `_meta` of the `initialize` result that advertises steering."""

SLOW_STEPS: Final = 6
"""The steps of a `/slow` turn."""

STEP_SECONDS: Final = 0.5
"""The least time a step takes, even in tests (time to send a prompt in)."""


async def slow_scenario(turn: Turn, argument: str) -> str:
    """`/slow`: a slow turn of steps that takes prompts sent into it."""
    turn.steerable = True
    await turn.say(
        f"Working through {SLOW_STEPS} slow steps. Type a prompt meanwhile: it "
        "is queued above the prompt. Select it (**↑** in the empty prompt) and "
        "press **s** to send it *into this turn* instead of after it.\n"
    )
    heard: list[str] = []
    for step in range(1, SLOW_STEPS + 1):
        await turn.say(f"Step {step} of {SLOW_STEPS}…\n")
        for _ in range(5):
            await turn.pace.tick(minimum=STEP_SECONDS / 5)
        while turn.steered:
            text = turn.steered.pop(0)
            heard.append(text)
            await turn.say(
                f"You sent “{text}” into this turn: taking it into account "
                f"from step {min(step + 1, SLOW_STEPS)}.\n"
            )
    if heard:
        listed = "\n".join(f"- {text}" for text in heard)
        await turn.say(f"Done. What you sent into this turn:\n\n{listed}\n")
    else:
        await turn.say(
            "Done. Nothing was sent into this turn; try `/slow` again and "
            "send a queued prompt now with **s**.\n"
        )
    return "end_turn"


async def steer(server: DemoServer, params: Any, context: RequestContext) -> Any:
    """`_session/steering` (see the module docstring)."""
    from acp_tui.demo.server import _session_id

    session = server._session(_session_id(params))
    prompt = params.get("prompt")
    if not isinstance(prompt, list) or not prompt:
        raise RpcError(INVALID_PARAMS, "Invalid params", "the prompt is empty")
    blocks = [block for block in prompt if isinstance(block, dict)]
    running = session.turns[0] if session.turns and session.lock.locked() else None
    if running is not None and running.steerable:
        running.steered.append(text_of(blocks))
        return {"outcome": "injected"}
    if running is not None:
        return {"outcome": "promptRequired", "reason": "turnTakesNoPrompts"}
    meta = params.get("_meta")
    steering = meta.get("steering") if isinstance(meta, dict) else None
    if isinstance(steering, dict) and steering.get("idleBehavior") == "promptRequired":
        return {"outcome": "promptRequired", "reason": "noRunningTurn"}
    server.start_turn(session, blocks)
    return {"outcome": "startedNewTurn"}
