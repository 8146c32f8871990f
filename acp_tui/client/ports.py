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
