"""Ports: what the client layer needs from whoever drives it (the UI or `print`).

The client never shows anything itself. A permission request from the agent goes
through `PermissionPrompter.ask`, which the Textual app implements with a modal
dialog and `acp-tui print` with a fixed policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from acp_tui.store.values import JSONObject

__all__ = [
    "PermissionChoice",
    "PermissionPolicy",
    "PermissionPrompter",
    "PermissionRequest",
    "RememberingPrompter",
    "grant_key",
]


@dataclass(frozen=True, slots=True)
class PermissionChoice:
    """One option offered by the agent."""

    option_id: str
    name: str
    kind: str
    """`allow_once`, `allow_always`, `reject_once`, `reject_always`, or unknown."""


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """A version-neutral permission request."""

    session_id: str
    permission_id: str
    title: str | None
    """v2: the request's title. v1: the tool call's title (agents put the prompt
    text there)."""
    description: str | None
    subject: JSONObject | None
    """The wire subject (`tool_call`, `command` or unknown); a v1 request's tool
    call appears as a `tool_call` subject."""
    options: Sequence[PermissionChoice]
    tool_call_id: str | None


class PermissionPrompter(Protocol):
    """Asks the user (or a policy) to answer a permission request."""

    async def ask(self, request: PermissionRequest) -> str | None:
        """Return the chosen `option_id`, or None to answer `cancelled`.

        The call is cancelled if the agent withdraws the request or the user
        cancels the turn; the client then answers `cancelled` itself.
        """
        ...


class PermissionPolicy:
    """A prompter that answers by policy, for headless runs.

    `allow` picks the first `allow_once` option (else `allow_always`); `reject`
    picks the first `reject_once` (else `reject_always`). With no such option the
    answer is `cancelled`, which agents treat as not approved.
    """

    def __init__(self, policy: Literal["allow", "reject"]) -> None:
        self.policy = policy
        self.asked: list[PermissionRequest] = []

    async def ask(self, request: PermissionRequest) -> str | None:
        """Answer `request` by the policy."""
        self.asked.append(request)
        preferred = (
            ("allow_once", "allow_always")
            if self.policy == "allow"
            else ("reject_once", "reject_always")
        )
        for kind in preferred:
            for option in request.options:
                if option.kind == kind:
                    return option.option_id
        return None


def grant_key(request: PermissionRequest) -> tuple[str, ...] | None:
    """What an "allow always" answer covers: a program, or a kind of tool call.

    A `command` subject is keyed by its program (`git` in `git push`); a tool
    call by its kind and tool name (titles vary per call, so they are not part of
    the key). None when the subject says too little to be remembered safely.
    """
    subject = request.subject or {}
    if subject.get("type") == "command" or "command" in subject:
        words = str(subject.get("command") or "").split()
        return ("command", words[0]) if words else None
    nested = subject.get("toolCall")
    fields = nested if isinstance(nested, dict) else subject
    kind, name = fields.get("kind"), fields.get("name")
    if not kind and not name:
        return None
    return ("tool", str(kind or ""), str(name or ""))


class RememberingPrompter:
    """Remembers "allow always" answers for the rest of the session.

    When the user picks an `allow_always` option, later requests in the same
    session with the same `grant_key` are answered with that request's own
    `allow_always` option without asking again (agents may remember too; this
    covers those that ask anyway). Everything else goes to `inner`.

    Args:
        inner: Asks the user.
    """

    def __init__(self, inner: PermissionPrompter) -> None:
        self.inner = inner
        self.grants: set[tuple[str, tuple[str, ...]]] = set()
        """`(session_id, grant_key)` pairs the user allowed always."""

    async def ask(self, request: PermissionRequest) -> str | None:
        """Answer from a remembered grant, else ask `inner` (and remember)."""
        key = grant_key(request)
        always = next((o for o in request.options if o.kind == "allow_always"), None)
        granted = key is not None and (request.session_id, key) in self.grants
        if granted and always is not None:
            return always.option_id
        answer = await self.inner.ask(request)
        chosen = next((o for o in request.options if o.option_id == answer), None)
        if key is not None and chosen is not None and chosen.kind == "allow_always":
            self.grants.add((request.session_id, key))
        return answer
