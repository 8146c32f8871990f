"""Demo scenarios about cards: one tool call cancelled alone, plan documents.

* `/cancel-tool`: a named search, then a long link check (`check_links`) that
  the client may cancel alone (`capabilities.cancel`; v2 `tool_call/cancel`):
  the check stops, and the turn goes on to its end. Unless cancelled, the check
  takes 40 steps of at least 0.1 s (so there is time to press `x`, even in
  tests).
* `/plan-docs`: a checklist plan and a markdown plan; the checklist is worked
  through, then removed (`plan_removed`); the markdown plan stays.

Deterministic like every scenario: the output depends only on the prompt and on
whether (and after how many steps) the user cancelled the check. Tool calls
carry their tool's `name`.
"""

from __future__ import annotations

from typing import Final

from acp_tui.demo.turn import Turn

__all__ = ["CHECK_STEPS", "DESIGN", "cancel_tool_scenario", "plan_docs_scenario"]

CHECK_STEPS: Final = 40
"""Links the long tool call checks, one step each."""

DESIGN: Final = """\
## Greeting API

**Goal:** one function, `greet(name)`, that never fails.

1. Validate the name (*strip* it; empty means "friend")
2. Format the greeting
3. Return it

| Case | Result |
|---|---|
| `greet("Ada")` | `Hello, Ada!` |
| `greet("")` | `Hello, friend!` |
"""


async def cancel_tool_scenario(turn: Turn, argument: str) -> str:
    """`/cancel-tool`: a long tool call the user can cancel alone."""
    await turn.think(
        (
            "The docs link to many pages; checking them all is slow.",
            "The client may stop that one check without stopping the whole turn.",
            "Whatever happens to the check, I finish the turn with a report.",
        )
    )
    await turn.tool_call(
        "Find the links in docs/",
        "search",
        status="completed",
        name="grep",
        raw_input={"pattern": "https?://", "path": "docs/"},
    )
    call = await turn.tool_call(
        f"Check {CHECK_STEPS} links",
        "fetch",
        status="in_progress",
        name="check_links",
        cancellable=True,
        raw_input={"links": CHECK_STEPS},
    )
    await turn.say(
        "Checking the links takes a while. Focus its card and press **x** (or "
        "ctrl+p, *Cancel tool call*) to stop this one tool call: the turn goes "
        "on. (ACP v2 only: v1 has no way to cancel one tool call.)\n"
    )
    requested = turn.cancel_one_requested(call)
    checked = 0
    while checked < CHECK_STEPS and not requested.is_set():
        await turn.pace.tick(15, minimum=0.1)
        if requested.is_set():
            break
        checked += 1
        if checked % 10 == 0:
            line = f"{checked} of {CHECK_STEPS} links checked, all fine\n"
            await turn.tool_chunk(call, {"type": "text", "text": line})
    if requested.is_set():
        await turn.update_tool(
            call, status="cancelled", capabilities=None, raw_output={"checked": checked}
        )
        outcome = f"You stopped the link check after {checked} links."
    else:
        await turn.update_tool(
            call,
            status="completed",
            capabilities=None,
            raw_output={"checked": checked, "broken": 0},
        )
        outcome = f"All {checked} links work."
    await turn.tool_call(
        "Summarise the check",
        "think",
        status="completed",
        name="summarise",
    )
    await turn.say(f"{outcome} The turn went on to this report.\n")
    return "end_turn"


async def plan_docs_scenario(turn: Turn, argument: str) -> str:
    """`/plan-docs`: a markdown plan, and a checklist plan that is removed."""
    await turn.think(
        (
            "A design reads best as prose: a markdown plan.",
            "The small steps are a checklist, which goes away once it is done.",
        )
    )
    checklist = await turn.plan(
        None,
        [
            {"content": "Read the issue", "priority": "high", "status": "pending"},
            {"content": "Write the design", "priority": "high", "status": "pending"},
            {"content": "Ask for review", "priority": "low", "status": "pending"},
        ],
    )
    await turn.markdown_plan(None, DESIGN)
    await turn.say(
        "Two plans: a checklist, and the design as a **markdown** plan. "
        "Press F4 for the plan panel.\n\n"
    )
    for index in range(3):
        await turn.plan_status(checklist, index, "in_progress")
        await turn.pause()
        await turn.plan_status(checklist, index, "completed")
    await turn.remove_plan(checklist)
    await turn.say(
        "The checklist is done, so I removed it (`plan_removed`): it left the "
        "conversation and the plan panel. The design stays.\n"
    )
    return "end_turn"
