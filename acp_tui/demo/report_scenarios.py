"""The demo's scenarios of what an agent reports about itself: `/notice`, `/compact`.

* `/notice`: three notices, one of each severity (`info`, `warning` with a
  description, `error`), between lines of the answer.
* `/compact`: the agent compacts its context: a `compaction_update` in progress,
  the retained summary streamed in `compaction_summary_chunk`s, then completed.

Both exist in v1 (sent only when the client opted in with
`clientCapabilities.session.notices` / `.compaction`) and v2; without the
opt-in, the scenario says so instead.
"""

from __future__ import annotations

from typing import Final

from acp_tui.demo.events import JSONObject, Report
from acp_tui.demo.turn import Turn

__all__ = ["compact_scenario", "notice_scenario"]

SUMMARY: Final = (
    "## Retained context\n\n",
    "- The user is trying out **acp-tui** with the demo agent.\n",
    "- They ran a few scenarios; nothing in their files was changed.\n",
    "- Open question: which real agent to connect next.\n",
)
"""The summary `/compact` retains, streamed one piece per chunk."""


def _notice(severity: str, title: str, description: str | None = None) -> Report:
    payload: JSONObject = {"sessionUpdate": "notice", "severity": severity}
    payload["title"] = title
    if description is not None:
        payload["description"] = description
    return Report(payload)


async def _not_taken(turn: Turn, what: str, capability: str) -> str:
    await turn.say(
        f"I would show you {what}, but your client did not opt in to them "
        f"(ACP v1 `clientCapabilities.session.{capability}`).\n"
    )
    return "end_turn"


async def notice_scenario(turn: Turn, argument: str) -> str:
    """`/notice`: one notice of each severity."""
    if "notices" not in turn.port.reports:
        return await _not_taken(turn, "notices", "notices")
    await turn.say("Notices are advisory lines, not part of the conversation.\n")
    await turn.emit(_notice("info", "Using the demo's fast model"))
    await turn.pause()
    await turn.emit(
        _notice(
            "warning",
            "MCP server `search` is unavailable",
            "Continuing without it: web search is off for this session.",
        )
    )
    await turn.pause()
    await turn.emit(_notice("error", "Could not refresh the usage quota"))
    await turn.say("That was one of each severity: info, warning and error.\n")
    return "end_turn"


async def compact_scenario(turn: Turn, argument: str) -> str:
    """`/compact`: a context compaction with a streamed summary."""
    if "compaction" not in turn.port.reports:
        return await _not_taken(turn, "a context compaction", "compaction")
    await turn.say("My context is getting long, so I will compact it.\n")
    update: JSONObject = {"sessionUpdate": "compaction_update"}
    update["compactionId"] = turn.session.next_id("cmp")
    chunk: JSONObject = {"sessionUpdate": "compaction_summary_chunk"}
    chunk["compactionId"] = update["compactionId"]
    await turn.emit(Report({**update, "status": "in_progress"}))
    for piece in SUMMARY:
        await turn.pause()
        await turn.emit(Report({**chunk, "content": {"type": "text", "text": piece}}))
    await turn.emit(Report({**update, "status": "completed"}))
    await turn.say(
        "Done. The summary above is what I kept; open it to read it.\n",
    )
    return "end_turn"
