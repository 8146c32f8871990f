"""`RememberingPrompter`: "allow always" answers hold for the rest of the session."""

from __future__ import annotations

from acp_tui.client.ports import (
    PermissionChoice,
    PermissionRequest,
    RememberingPrompter,
    grant_key,
)
from acp_tui.store.values import JSONObject

OPTIONS = (
    PermissionChoice("once", "Allow", "allow_once"),
    PermissionChoice("always", "Always allow", "allow_always"),
    PermissionChoice("no", "Reject", "reject_once"),
)


class Scripted:
    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.asked = 0

    async def ask(self, request: PermissionRequest) -> str | None:
        self.asked += 1
        return self.answers.pop(0)


def request(subject: JSONObject | None, session: str = "s1") -> PermissionRequest:
    return PermissionRequest(session, "p", "Title", None, subject, OPTIONS, None)


EDIT: JSONObject = {
    "type": "tool_call",
    "toolCall": {"toolCallId": "a", "kind": "edit"},
}


async def test_allow_always_is_remembered_for_the_same_kind_and_session() -> None:
    inner = Scripted("always")
    prompter = RememberingPrompter(inner)
    assert await prompter.ask(request(EDIT)) == "always"
    other_call: JSONObject = {
        "type": "tool_call",
        "toolCall": {"toolCallId": "b", "kind": "edit"},
    }
    assert await prompter.ask(request(other_call)) == "always"
    assert inner.asked == 1


async def test_grants_do_not_cross_sessions_kinds_or_programs() -> None:
    inner = Scripted("always", "no", "once", "always", "no")
    prompter = RememberingPrompter(inner)
    await prompter.ask(request(EDIT))
    assert await prompter.ask(request(EDIT, session="s2")) == "no"
    execute: JSONObject = {"type": "tool_call", "toolCall": {"kind": "execute"}}
    assert await prompter.ask(request(execute)) == "once"
    await prompter.ask(request({"type": "command", "command": "git status"}))
    assert (
        await prompter.ask(request({"type": "command", "command": "rm -rf x"})) == "no"
    )
    assert inner.asked == 5


async def test_allow_once_and_unkeyed_subjects_are_not_remembered() -> None:
    inner = Scripted("once", "once", "always", "once")
    prompter = RememberingPrompter(inner)
    await prompter.ask(request(EDIT))
    await prompter.ask(request(EDIT))
    await prompter.ask(request({"type": "tool_call", "toolCall": {"toolCallId": "x"}}))
    await prompter.ask(request({"type": "tool_call", "toolCall": {"toolCallId": "y"}}))
    assert inner.asked == 4


def test_grant_keys() -> None:
    assert grant_key(request({"type": "command", "command": "git push -f"})) == (
        "command",
        "git",
    )
    assert grant_key(request({"type": "command", "command": "  "})) is None
    assert grant_key(request(EDIT)) == ("tool", "edit", "")
    assert grant_key(request(None)) is None
