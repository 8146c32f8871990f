"""The last line of `acp-tui print --format text`: what the agent reported using.

`[usage] context 48000/200000 tokens (24%), cost 0.42 USD; turn 53000 tokens
(35000 in, 12000 out)`: the context window and cumulative cost from
`usage_update`, and the last turn's tokens from the end-turn usage. Parts the
agent did not report are left out, and there is no line when it reported none.
The JSON document has the same under `usage` and `turnUsage`.
"""

from __future__ import annotations

from acp_tui.safe_text import printable
from acp_tui.store.model import TurnUsage, Usage

__all__ = ["usage_line"]


def _context(usage: Usage) -> list[str]:
    parts: list[str] = []
    if usage.used is not None and usage.size:
        percent = 100 * usage.used / usage.size
        parts.append(f"context {usage.used}/{usage.size} tokens ({percent:.0f}%)")
    elif usage.used is not None:
        parts.append(f"context {usage.used} tokens")
    cost = usage.cost or {}
    amount = cost.get("amount")
    if isinstance(amount, int | float) and not isinstance(amount, bool):
        currency = cost.get("currency")
        unit = f" {currency}" if isinstance(currency, str) else ""
        parts.append(f"cost {amount:g}{unit}")
    return parts


def _turn(usage: TurnUsage) -> str:
    details = [f"{usage.input} in", f"{usage.output} out"]
    for count, what in (
        (usage.thought, "thought"),
        (usage.cached_read, "cache read"),
        (usage.cached_write, "cache write"),
    ):
        if count is not None:
            details.append(f"{count} {what}")
    return f"turn {usage.total} tokens ({', '.join(details)})"


def usage_line(usage: Usage | None, turn: TurnUsage | None) -> str | None:
    """The `[usage] ...` line, or None if the agent reported no usage."""
    context = _context(usage) if usage is not None else []
    sections = [", ".join(context)] if context else []
    if turn is not None:
        sections.append(_turn(turn))
    if not sections:
        return None
    return printable("[usage] " + "; ".join(sections))
