"""`/subagents`: three subagents work in parallel; one of them fails.

The parent announces each child session with a `subagent_update` (the
subagents RFD: v2 baseline; v1 only when the client declared the `subagents`
capability), then each child streams its own messages and tool calls under
its own session id, round by round (deterministic: the same prompt gives the
same documents), while the parent waits. "Lint the docs" ends failed; the
others end done. A cancel marks the children still running cancelled.

A client that did not declare subagents (v1) gets the same work as plain text
in the parent's answer instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import anyio

from acp_tui.demo.events import JSONObject, MessageChunk, ToolCall
from acp_tui.demo.turn import Turn, chunks

__all__ = ["subagents_scenario"]


@dataclass(frozen=True, slots=True)
class _Step:
    say: str | None = None
    tool: tuple[str, str, str] | None = None
    """A tool call: title, kind, and what it found."""


@dataclass(frozen=True, slots=True)
class _Child:
    title: str
    description: str
    steps: tuple[_Step, ...]
    failure: str | None = None


_CHILDREN: Final = (
    _Child(
        "Survey the parser",
        "Finds where tokens are read",
        (
            _Step("I'll look at the tokenizer first. "),
            _Step(
                tool=("Read src/tokens.py", "read", "42 lines: `Token`, `tokenize()`")
            ),
            _Step(tool=("Search for `tokenize(`", "search", "3 matches in 2 files")),
            _Step("`tokenize()` is called from `parse()` and from the REPL."),
        ),
    ),
    _Child(
        "Check the tests",
        "Runs the test suite",
        (
            _Step("Running the tests. "),
            _Step(tool=("pytest -q", "execute", "12 passed in 0.4s")),
            _Step("All 12 tests pass."),
        ),
    ),
    _Child(
        "Lint the docs",
        "Checks the markdown files",
        (
            _Step("Linting the docs. "),
            _Step(tool=("markdownlint docs/", "execute", "error: no config found")),
        ),
        failure="the linter crashed: no config found",
    ),
)


async def _announce(turn: Turn, child_id: str, fields: JSONObject) -> None:
    update = {"sessionUpdate": "subagent_update", "sessionId": child_id, **fields}
    await turn.port.send_raw(turn.session.session_id, update)


async def _step(turn: Turn, child_id: str, index: int, step: _Step) -> None:
    send = turn.port.send
    if step.say is not None:
        for piece in chunks(step.say):
            block = {"type": "text", "text": piece}
            await send(
                child_id, MessageChunk(f"{child_id}-msg-{index}", "agent", block)
            )
    if step.tool is not None:
        title, kind, found = step.tool
        call_id = f"{child_id}-call-{index}"
        fields: JSONObject = {"title": title, "kind": kind, "status": "in_progress"}
        await send(child_id, ToolCall(call_id, fields))
        failed = found.startswith("error")
        content = [{"type": "text", "text": found}]
        status = "failed" if failed else "completed"
        await send(child_id, ToolCall(call_id, {"status": status, "content": content}))


async def subagents_scenario(turn: Turn, argument: str) -> str:
    """`/subagents`: see the module docstring."""
    port = turn.port
    if not port.subagents:
        await turn.say(
            "This client did not declare the `subagents` capability, so I do the "
            "three jobs myself: the parser survey, the tests (12 pass) and the docs "
            "lint (the linter crashed).\n"
        )
        return "end_turn"
    await turn.say("I'll hand this to three subagents working in parallel.\n\n")
    base = f"{turn.session.session_id}-sub{turn.group}"
    ids = [f"{base}-{k + 1}" for k in range(len(_CHILDREN))]
    running = set(ids)
    for child_id, child in zip(ids, _CHILDREN, strict=True):
        await _announce(
            turn,
            child_id,
            {
                "title": child.title,
                "description": child.description,
                "state": {"state": "running"},
            },
        )
        await port.state(child_id, "running")
    try:
        rounds = max(len(child.steps) for child in _CHILDREN)
        for index in range(rounds):
            for child_id, child in zip(ids, _CHILDREN, strict=True):
                if index < len(child.steps):
                    await _step(turn, child_id, index, child.steps[index])
                elif child_id in running:
                    await _end(turn, child_id, child)
                    running.discard(child_id)
            await turn.pace.tick(3)
        for child_id, child in zip(ids, _CHILDREN, strict=True):
            if child_id in running:
                await _end(turn, child_id, child)
                running.discard(child_id)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            for child_id in ids:
                if child_id in running:
                    state = {"state": "idle", "stopReason": "cancelled"}
                    await _announce(turn, child_id, {"state": state})
                    await port.state(child_id, "idle", "cancelled")
        raise
    await turn.say(
        "Two subagents finished: `tokenize()` is called from `parse()` and the "
        "REPL, and all 12 tests pass. The docs lint **failed** (no linter config).\n"
    )
    return "end_turn"


async def _end(turn: Turn, child_id: str, child: _Child) -> None:
    state: JSONObject = {"state": "idle", "stopReason": "end_turn"}
    if child.failure is not None:
        state = {
            "state": "idle",
            "stopReason": "error",
            "error": {"code": -32603, "message": child.failure},
        }
    await turn.port.state(child_id, "idle", state["stopReason"])
    await _announce(turn, child_id, {"state": state})
