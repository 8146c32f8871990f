"""Subagents as words: a status line and a plain transcript (UI and `print`).

Version-neutral: reads `store.subagents.Subagent` and a subagent's own
`SessionStore`. Agent text is returned as is; callers show it through
`printable` (print) or rich `Text` (the app), never as markup.
"""

from __future__ import annotations

from typing import Final

from acp_tui.store.store import SessionStore
from acp_tui.store.subagents import Subagent

__all__ = [
    "STATUS_MARKS",
    "STATUS_WORDS",
    "elapsed_text",
    "status_line",
    "subagent_report",
    "tool_call_count",
    "transcript_lines",
]

STATUS_WORDS: Final = {
    "running": "running",
    "waiting": "waiting for you",
    "done": "done",
    "failed": "failed",
    "cancelled": "cancelled",
    "unknown": "status unknown",
}
"""What each neutral status reads as."""

STATUS_MARKS: Final = {
    "running": "◐",
    "waiting": "?",
    "done": "✓",
    "failed": "✗",
    "cancelled": "⊘",
    "unknown": "·",
}
"""A one-character mark per status."""


def elapsed_text(ms: int | None) -> str:
    """`12s`, `3m 04s`, `1h 02m`; empty when unknown."""
    if ms is None:
        return ""
    seconds = ms // 1000
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def status_line(subagent: Subagent, now_ms: int, tool_calls: int = 0) -> str:
    """`running · 12s · 3 tool calls` (the error last, when it failed)."""
    parts = [STATUS_WORDS.get(subagent.status, subagent.status)]
    elapsed = elapsed_text(subagent.elapsed_ms(now_ms))
    if elapsed:
        parts.append(elapsed)
    if tool_calls:
        parts.append(f"{tool_calls} tool call{'s' if tool_calls != 1 else ''}")
    if subagent.error:
        parts.append(subagent.error)
    return " · ".join(parts)


def tool_call_count(store: SessionStore | None) -> int:
    """How many tool calls a (subagent's) store shows (cheap: its timeline)."""
    if store is None:
        return 0
    return sum(1 for kind, _ in store.timeline() if kind == "tool_call")


def transcript_lines(store: SessionStore, indent: str = "  ") -> list[str]:
    """A subagent's own work as plain lines: messages, tool calls, terminals."""
    lines: list[str] = []
    for kind, entity_id in store.timeline():
        if kind == "message":
            message = store.message(entity_id)
            if message is not None and message.text:
                label = {"user": "prompt", "agent": "agent"}.get(
                    message.role, message.role
                )
                text = message.text.rstrip().replace("\n", "\n" + indent + "  ")
                lines.append(f"{indent}[{label}] {text}")
        elif kind == "tool_call":
            call = store.tool_call(entity_id)
            if call is not None:
                title = call.title or call.tool_call_id
                lines.append(f"{indent}[tool {call.kind}] {title} ({call.status})")
        elif kind == "terminal":
            terminal = store.terminal(entity_id)
            if terminal is not None:
                lines.append(f"{indent}[terminal {terminal.command or entity_id}]")
        elif kind == "subagent":
            nested = store.subagent(entity_id)
            inner = store.subagent_store(entity_id)
            if nested is not None:
                lines.append(f"{indent}[subagent {nested.name}] {nested.status}")
                if inner is not None:
                    lines.extend(transcript_lines(inner, indent + "  "))
    return lines


def subagent_report(
    subagent: Subagent, own: SessionStore | None, *, final: bool = False
) -> str:
    """`[subagent NAME] STATUS` (and the error), for `print`.

    Once it ended (or with `final`) its own work follows, indented
    (`transcript_lines`).
    """
    status = STATUS_WORDS.get(subagent.status, subagent.status)
    line = f"[subagent {subagent.name}] {status}"
    if subagent.error:
        line += f": {subagent.error}"
    if (final or not subagent.running) and own is not None:
        line = "\n".join([line, *transcript_lines(own)])
    return line
