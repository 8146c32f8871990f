"""`acp-tui check`'s steering probe, where the agent advertises steering.

Steering (`acp_tui.client.steering`: claude-agent-acp's `_session/steering`)
is probed with the session idle, the one moment the probe cannot disturb a
turn: the client asks for the prompt back when no turn runs
(`idleBehavior: promptRequired`), so the agent must answer "prompt required".
An agent that starts a turn anyway passes with a note (claude-agent-acp's
older default); an error or an unknown answer fails. An agent that does not
advertise steering gets no row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import anyio

from acp_tui.client.steering import steer

if TYPE_CHECKING:
    from acp_tui.frontends.check import _Run

__all__ = ["PROBE_PROMPT", "STEERING_ROW", "steering_probe"]

STEERING_ROW: Final = "steering"
"""The probe's row."""

PROBE_PROMPT: Final = "(acp-tui check: a steering probe, with no turn running)"
"""What the probe sends; an agent that honours the request never runs it."""


async def steering_probe(run: _Run, session_id: str) -> None:
    """Add the steering row, if the agent advertises steering."""
    from acp_tui.frontends.check import _STEP_ERRORS

    if not run.connection.dialect.steering:
        return
    if run.closed:
        run.skip([STEERING_ROW], "the connection ended")
        return
    blocks = [{"type": "text", "text": PROBE_PROMPT}]
    try:
        with anyio.fail_after(run.options.timeout):
            answer = await steer(run.client, session_id, blocks)
    except _STEP_ERRORS as error:
        detail = await run.failure(error)
        if isinstance(error, TimeoutError):
            detail = f"no _session/steering answer within {run.options.timeout:g} s"
        run.row(STEERING_ROW, "fail", detail)
        return
    if answer.outcome == "prompt_required":
        run.row(
            STEERING_ROW,
            "pass",
            "advertised; with no turn running it hands the prompt back "
            f"(promptRequired: {answer.reason or 'no reason given'})",
        )
    elif answer.outcome == "new_turn":
        run.row(
            STEERING_ROW,
            "pass",
            "advertised; with no turn running it started a turn itself "
            "(startedNewTurn), although asked for the prompt back",
        )
    else:
        run.row(
            STEERING_ROW,
            "fail",
            f"with no turn running, expected promptRequired: {answer.words}",
        )
