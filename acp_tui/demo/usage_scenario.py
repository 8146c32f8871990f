"""`/usage`: the context window fills up past the meter's thresholds.

The demo reports context usage after every turn (`Turn._usage`, a function of
the history). `/usage` fills the window on purpose, one `usage_update` per step,
to 50%, 76%, 91% and then 96% of the model's window (the client's meter warns
from 75%, is high from 90% and critical from 95%, as rfds/session-usage
recommends), with the cumulative cost. The turn then ends with the unstable
end-turn token usage (v1: on the `session/prompt` response; v2: on the idle
`state_update`). Later turns report no less than the last use (the window does not
empty itself). Deterministic: the figures depend only on the model's window.
"""

from __future__ import annotations

from typing import Final

from acp_tui.demo.config import MODEL_CONTEXT
from acp_tui.demo.events import Usage
from acp_tui.demo.turn import Turn

__all__ = ["STEPS", "usage_scenario"]

STEPS: Final = (
    (50, "half full: normal operation"),
    (76, "past 75%: the meter warns that the context is filling up"),
    (91, "past 90%: time to start a new session or to summarize"),
    (96, "past 95%: the next prompt may fail, hand off now"),
)
"""(percent of the window, what the meter means there)."""

PRICE: Final = 0.000003
"""Dollars per token in context (the demo's cumulative cost, as `Turn._usage`)."""


async def usage_scenario(turn: Turn, argument: str) -> str:
    """`/usage`: context usage climbs past 75, 90 and 95% (see the module)."""
    session = turn.session
    size = MODEL_CONTEXT.get(session.config.model, 32_000)
    message = session.next_id("msg")
    await turn.stream(
        message, "Filling my context window step by step; watch the meter.\n\n"
    )
    used = 0
    for percent, meaning in STEPS:
        used = size * percent // 100
        await turn.emit(Usage(used, size, round(used * PRICE, 6)))
        await turn.stream(message, f"- **{percent}%** of {size:,} tokens: {meaning}.\n")
        await turn.pause(2.0)
    output = 1200 + size // 100
    session.turn_tokens = {
        "totalTokens": used + output,
        "inputTokens": used,
        "outputTokens": output,
        "thoughtTokens": output // 4,
        "cachedReadTokens": used // 2,
    }
    await turn.stream(
        message,
        "\nThis turn also reports its own token usage when it ends "
        "(the turn's tokens in the status bar).\n",
    )
    return "end_turn"
