"""Steering: a prompt sent into the turn that is running ("send now").

The wire is claude-agent-acp's de facto extension, the same in v1 and v2 (an
underscore method is an extension in both): the agent advertises it in its
`initialize` result as `_meta.steering.supported: true`, and the client sends
`_session/steering` with `{sessionId, prompt}` (the prompt's content blocks).
The agent answers `{outcome}`:

* `injected`: the prompt went into the running turn; its output streams in that
  turn's updates (the agent does not echo the prompt back, so the client shows
  it as a user message of its own, where it was sent);
* `promptRequired` (with a `reason`): no turn was running, and, because the
  client opted in with `_meta.steering.idleBehavior: "promptRequired"`, the
  agent left the prompt to the client, which sends it as an ordinary prompt;
* `startedNewTurn`: no turn was running and the agent started one with the
  prompt itself (an agent that ignores the opt-in).

No protocol draft has a steering capability yet (neither v2's nor the
TypeScript SDK 2.4's unstable schema; codex-acp offers none): the dialects
read and write this extension with the helpers here, and `AcpClient` users
reach it through `steer`. Nothing above the client names these keys: the
answer is a `SteerAnswer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias
from uuid import uuid4

from acp_tui.store import ops
from acp_tui.store.values import JSONObject

if TYPE_CHECKING:
    from acp_tui.client.runner import ClientRunner
    from acp_tui.client.session import AcpClient

__all__ = [
    "STEER_METHOD",
    "SteerAnswer",
    "SteerOutcome",
    "advertised",
    "answer_from",
    "can_steer",
    "steer",
    "steer_params",
    "steer_text",
]

STEER_METHOD: Final = "_session/steering"
"""The extension's request (claude-agent-acp's name for it)."""

SteerOutcome: TypeAlias = Literal["injected", "prompt_required", "new_turn", "other"]
"""What the agent did with a steered prompt (neutral)."""

_OUTCOMES: Final[dict[str, SteerOutcome]] = {
    "injected": "injected",
    "promptRequired": "prompt_required",
    "startedNewTurn": "new_turn",
}


@dataclass(frozen=True, slots=True)
class SteerAnswer:
    """The agent's answer to a steered prompt, version-neutral."""

    outcome: SteerOutcome
    reason: str | None = None
    """Why (with `prompt_required`: say, no turn was running)."""
    said: str | None = None
    """The outcome as the agent spelled it, when it is none of the known ones."""
    message_id: str | None = None
    """The user message the client added for it (`steer`; None: none)."""

    @property
    def words(self) -> str:
        """The answer as a short phrase for the user."""
        if self.outcome == "injected":
            return "injected into the running turn"
        if self.outcome == "new_turn":
            return "the agent started a new turn with it"
        if self.outcome == "prompt_required":
            why = " (no turn was running)" if self.reason == "noRunningTurn" else ""
            return f"sent as the next prompt{why}"
        return f"the agent answered {self.said or 'nothing'}"

    @property
    def shown_here(self) -> bool:
        """Whether the client shows the prompt itself (the agent took it)."""
        return self.outcome in ("injected", "new_turn")

    @property
    def needs_prompt(self) -> bool:
        """Whether the client must still send it as an ordinary prompt."""
        return self.outcome == "prompt_required"


def advertised(meta: Any) -> bool:
    """Whether an `initialize` result's `_meta` offers steering."""
    if not isinstance(meta, dict):
        return False
    steering = meta.get("steering")
    return isinstance(steering, dict) and steering.get("supported") is True


def steer_params(session_id: str, blocks: Sequence[JSONObject]) -> JSONObject:
    """The `_session/steering` params: ask for the prompt back when idle."""
    return {
        "sessionId": session_id,
        "prompt": list(blocks),
        "_meta": {"steering": {"idleBehavior": "promptRequired"}},
    }


def answer_from(raw: Any) -> SteerAnswer:
    """The agent's `_session/steering` result, read."""
    said = raw.get("outcome") if isinstance(raw, dict) else None
    reason = raw.get("reason") if isinstance(raw, dict) else None
    outcome = _OUTCOMES.get(said) if isinstance(said, str) else None
    return SteerAnswer(
        outcome=outcome or "other",
        reason=reason if isinstance(reason, str) else None,
        said=None if outcome is not None else str(said)[:80],
    )


async def steer(
    client: AcpClient, session_id: str, blocks: Sequence[JSONObject]
) -> SteerAnswer:
    """Send a prompt into the session's running turn; the agent's answer.

    When the agent took it (injected, or a turn of its own), the prompt is
    added to the session's store as a user message there and then, and the
    message the agent was streaming ends, so what it says next follows it.

    Raises:
        UnsupportedOperation: The agent does not advertise steering.
        RpcError: The agent refused it.
    """
    method, params = client.dialect.steer_request(session_id, blocks)
    raw = await client.connection.dispatcher.request(method, params)
    answer = client.dialect.steer_answer(raw)
    if answer.shown_here:
        message_id = f"steered-{uuid4().hex[:12]}"
        client.session_translator(session_id).end_message()
        client.store(session_id).apply(
            ops.UpsertMessage(message_id, "user", content=list(blocks))
        )
        answer = replace(answer, message_id=message_id)
    return answer


def can_steer(runner: ClientRunner) -> bool:
    """Whether a prompt can be sent into the runner's session now.

    The connected agent advertises steering, a session is open and a turn
    runs in it.
    """
    client = runner.client
    return (
        client is not None
        and runner.store is not None
        and runner.in_turn
        and client.dialect.steering
    )


async def steer_text(runner: ClientRunner, text: str) -> SteerAnswer:
    """Send what the user typed into the runner's running turn (`steer`).

    The prompt is built as an ordinary one would be (files it mentions are
    attached); the call is bounded by the runner's `CALL_TIMEOUT`.

    Raises:
        UnsupportedOperation: Not connected, or the agent does not steer.
        RpcError: The agent refused it.
        TimeoutError: The agent did not answer in time.
    """
    import anyio

    from acp_tui.client.errors import UnsupportedOperation
    from acp_tui.client.prompt_content import PromptCapabilities, build_prompt
    from acp_tui.client.runner import CALL_TIMEOUT

    client, store = runner.client, runner.store
    if client is None or store is None:
        raise UnsupportedOperation("the agent is not connected")
    blocks = await anyio.to_thread.run_sync(
        build_prompt,
        text,
        runner.session_cwd,
        runner.prompt_caps or PromptCapabilities(),
    )
    with anyio.fail_after(CALL_TIMEOUT):
        return await steer(client, store.session_id, blocks)
