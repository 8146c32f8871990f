"""Ports: what the client layer needs from whoever drives it (the UI or `print`).

The client never shows anything itself. A permission request from the agent goes
through `PermissionPrompter.ask`, which the Textual app implements with a modal
dialog and `acp-tui print` with a fixed policy. An elicitation (the agent asks
for a form's values, or for consent to open a URL) goes through
`ElicitationPrompter.elicit` alike (`ElicitationPolicy` for headless runs).

`RememberingPrompter` answers again what the user allowed always, and only that:
a grant is keyed on the exact subject the dialog showed (`grants`), and it
answers a later request with that request's `allow_once` option, so the agent is
never told "always" about a request the user did not see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, Protocol, runtime_checkable

import anyio

from acp_tui.client.elicitation_form import (
    ElicitationReply,
    FormSchemaError,
    json_answer,
    parse_form,
)
from acp_tui.client.grants import GrantScope, grant_scope_of, subject_facts
from acp_tui.store.model import ToolCall
from acp_tui.store.ops import ElicitationFields
from acp_tui.store.values import JSONObject

__all__ = [
    "ElicitationPolicy",
    "ElicitationPrompter",
    "ElicitationReply",
    "ElicitationRequest",
    "GrantScope",
    "PermissionChoice",
    "PermissionPolicy",
    "PermissionPrompter",
    "PermissionRequest",
    "RememberingPrompter",
    "UrlFollower",
    "UrlWait",
    "grant_key",
    "grant_scope",
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
    grant: GrantScope | None = None
    """What an `allow_always` answer lets acp-tui answer by itself later (set by
    `RememberingPrompter` for the dialog to show); None: acp-tui remembers
    nothing of this answer."""


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


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """A version-neutral `elicitation/create`: what the user is asked.

    `mode` is `form` (`requested_schema`: the restricted JSON Schema, wire form)
    or `url` (`url` to open with consent; `url_id`, the agent's `elicitationId`).
    """

    agent: str
    """The agent that asks, as it names itself (shown: the spec wants it clear)."""
    session_id: str | None
    """None: a request-scoped elicitation, outside any session."""
    elicitation_id: str
    """The store's key for it (its JSON-RPC request id as a string)."""
    mode: str
    message: str
    requested_schema: JSONObject | None
    url: str | None
    url_id: str | None
    tool_call_id: str | None

    @classmethod
    def asked(
        cls, agent: str, session_id: str | None, request: ElicitationFields
    ) -> ElicitationRequest:
        """The question of `request` (an `AddElicitation`), for the user.

        Every other field is the request's field of that name.
        """
        given: dict[str, Any] = {"agent": agent, "session_id": session_id}
        return cls(
            **given,
            **{
                f.name: getattr(request, f.name)
                for f in fields(cls)
                if f.name not in given
            },
        )


class ElicitationPrompter(Protocol):
    """Asks the user (or a policy) to answer an elicitation."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationReply | None:
        """Return the answer, or None to answer `cancel`.

        The call is cancelled if the agent withdraws the request, the user
        cancels the turn or leaves the session; the client then answers `cancel`
        itself.
        """
        ...


@runtime_checkable
class UrlWait(Protocol):
    """A consented URL elicitation the client waits on (`elicitation/complete`)."""

    @property
    def over(self) -> anyio.Event:
        """Set once the wait is over: completed, given up, or its session gone."""
        ...

    @property
    def completed(self) -> bool:
        """Whether the agent said the interaction finished."""
        ...

    def give_up(self) -> None:
        """The user stopped waiting: a later `elicitation/complete` is ignored."""
        ...


@runtime_checkable
class UrlFollower(Protocol):
    """An `ElicitationPrompter` that shows the wait after a URL was consented to."""

    def follow_url(self, request: ElicitationRequest, wait: UrlWait) -> None:
        """Show that the client waits for `request`'s completion (returns at once).

        Called after `accept` was sent for a URL elicitation with an
        `elicitationId`; `wait.over` is set when the wait ends, and the user may
        end it first (`wait.give_up`).
        """
        ...


class ElicitationPolicy:
    """An elicitation prompter that answers by policy, for headless runs.

    Every elicitation is answered `action` (`decline` by default, so a script
    never hangs on a question), except a form that `answers` fill: the first
    of them that supplies every required field, each value valid for its field
    (`elicitation_form.json_answer`), is sent, keeping only the schema's fields
    (`acp-tui print --answers FILE`). An answer that names every required field
    but has a wrong value is reported (`report`: which answer, which field,
    what is wrong) and skipped: what is sent always fits the form.
    """

    def __init__(
        self,
        action: Literal["decline", "cancel"] = "decline",
        answers: Sequence[Mapping[str, Any]] = (),
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.action: Literal["decline", "cancel"] = action
        self.answers = list(answers)
        self.report = report
        self.asked: list[ElicitationRequest] = []

    async def elicit(self, request: ElicitationRequest) -> ElicitationReply | None:
        """Answer `request` from the answers, else by the policy."""
        self.asked.append(request)
        schema = request.requested_schema
        if request.mode == "form" and schema is not None and self.answers:
            content = self._filled(request, schema)
            if content is not None:
                return ElicitationReply("accept", content)
        return ElicitationReply(self.action)

    def _filled(
        self, request: ElicitationRequest, schema: JSONObject
    ) -> dict[str, Any] | None:
        """The content of the first answer that fills the form validly."""
        try:
            form = parse_form(schema)
        except FormSchemaError as error:
            self._report(f"the form “{request.message}” cannot be answered: {error}")
            return None
        required = [spec.name for spec in form.fields if spec.required]
        for number, answer in enumerate(self.answers, 1):
            if any(name not in answer for name in required):
                continue
            checked = json_answer(form, answer)
            if checked.ok:
                return dict(checked.content)
            problems = "; ".join(f"{n}: {e}" for n, e in checked.errors.items())
            self._report(
                f"answer {number} does not fit the form “{request.message}” "
                f"({problems}): not sent"
            )
        return None

    def _report(self, message: str) -> None:
        if self.report is not None:
            self.report(message)


def grant_scope(
    request: PermissionRequest, tool_call: ToolCall | None = None
) -> GrantScope:
    """What an "allow always" answer to `request` covers (see `grants`).

    Args:
        request: The request.
        tool_call: The store's copy of the request's tool call, which completes a
            subject that names only its id.
    """
    return grant_scope_of(subject_facts(request.subject, tool_call))


def grant_key(
    request: PermissionRequest, tool_call: ToolCall | None = None
) -> tuple[str, ...] | None:
    """The key of `grant_scope`: None when the request is never remembered."""
    return grant_scope(request, tool_call).key


class RememberingPrompter:
    """Remembers "allow always" answers for the rest of the session.

    When the user picks an `allow_always` option, later requests in the same
    session with the same `grant_key` are answered with their own `allow_once`
    option without asking again (agents may remember too; this covers those that
    ask anyway). A request without an `allow_once` option is asked: its
    `allow_always` might let the agent remember more than the user saw.
    Everything else goes to `inner`, with the request's `grant` set so the
    dialog can say what "always" covers.

    Args:
        inner: Asks the user.
        tool_call: Looks up the store's copy of a tool call by id (the subject
            of a request often names only the id).
    """

    def __init__(
        self,
        inner: PermissionPrompter,
        tool_call: Callable[[str], ToolCall | None] | None = None,
    ) -> None:
        self.inner = inner
        self.tool_call = tool_call
        self.grants: set[tuple[str, tuple[str, ...]]] = set()
        """`(session_id, grant_key)` pairs the user allowed always."""

    async def ask(self, request: PermissionRequest) -> str | None:
        """Answer from a remembered grant, else ask `inner` (and remember)."""
        stored = None
        if self.tool_call is not None and request.tool_call_id is not None:
            stored = self.tool_call(request.tool_call_id)
        scope = grant_scope(request, stored)
        key = scope.key
        once = next((o for o in request.options if o.kind == "allow_once"), None)
        granted = key is not None and (request.session_id, key) in self.grants
        if granted and once is not None:
            return once.option_id
        answer = await self.inner.ask(replace(request, grant=scope))
        chosen = next((o for o in request.options if o.option_id == answer), None)
        if key is not None and chosen is not None and chosen.kind == "allow_always":
            self.grants.add((request.session_id, key))
        return answer
