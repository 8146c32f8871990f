"""Answering the agent's `elicitation/create`, and its `elicitation/complete`.

The dialect reads the request (`ElicitationCreate`); `answer_elicitation` records
it in the session's store (`AddElicitation`), asks the `ElicitationPrompter`, and
records the response sent (`ResolveElicitation`). `UrlElicitations` keeps the URL
elicitations of one connection by their `elicitationId`, for
`elicitation/complete`. `Elicitations` is what `AcpClient` serves them with.
Invariants:

* A mode the client did not advertise (`ClientFeatures`) is `-32602`, and
  never asked.
* The response is always valid for the negotiated version: `accept` (with the
  form's values), `decline` or `cancel`. Anything else (no answer, a broken
  prompter, an action that is not one of the three, values the wire does not
  allow) is answered `cancel`.
* Nothing is left pending: a `$/cancel_request` of the request, a cancel of the
  session's work (the session's `cancelled` event when the request arrived,
  which is also set when the session is closed or left), or an
  `elicitation/complete` of a URL elicitation still being asked answers
  `cancel`; if the connection ends first, the record says `cancel` all the same.
* A request-scoped elicitation (outside any session) is asked the same way, but
  recorded nowhere: there is no session store yet.
* The request is recorded before the first await (the dispatcher runs this
  before it reads the next message), so it is ordered with the updates around it.
* `elicitation/complete` for an unknown or already completed id is ignored, as
  the spec asks; a known one marks the elicitation `completed` in its store.
* Once a URL elicitation with an `elicitationId` is accepted (the user agreed
  to go there), a prompter that is a `UrlFollower` is told to show the wait
  (`follow_url`). The wait (`UrlWait.over`) ends when the agent completes it,
  when its session is closed or left, or when the user gives up
  (`give_up`): the `accept` was already sent and the wire has no way to take
  it back, so giving up only stops following the id, and a later
  `elicitation/complete` for it is ignored like an unknown one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import anyio
from pydantic import ValidationError

from acp_tui.client.dialect import Dialect, ElicitationCreate
from acp_tui.client.ports import (
    ElicitationPrompter,
    ElicitationReply,
    ElicitationRequest,
    UrlFollower,
)
from acp_tui.client.withdrawable import ask_unless
from acp_tui.protocol.dispatcher import RequestContext
from acp_tui.protocol.jsonrpc import INVALID_PARAMS, RpcError
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

if TYPE_CHECKING:
    from acp_tui.client.connection import ClientFeatures

__all__ = ["ACTIONS", "Elicitations", "UrlElicitations", "answer_elicitation"]

log = logging.getLogger(__name__)

ACTIONS: Final = frozenset({"accept", "decline", "cancel"})
"""The actions a response may carry."""

Reply = Callable[[str, Mapping[str, Any] | None], JSONObject]
"""The dialect's `elicitation_reply`: the wire result for an action and values."""


@dataclass(slots=True)
class _UrlElicitation:
    """One URL elicitation followed for its `elicitation/complete` (a `UrlWait`)."""

    store: SessionStore | None
    elicitation_id: str
    url_id: str
    urls: UrlElicitations
    asking: anyio.Event = field(default_factory=anyio.Event)
    """Set by a completion that arrives while the user is still asked."""
    over: anyio.Event = field(default_factory=anyio.Event)
    """Set when nothing more is awaited: completed, given up, or forgotten."""
    completed: bool = False

    def give_up(self) -> None:
        """The user stopped waiting: a later completion is ignored (unknown id)."""
        self.urls.drop(self.url_id, self)


class UrlElicitations:
    """The URL elicitations of one connection, by the agent's `elicitationId`."""

    def __init__(self) -> None:
        self._open: dict[str, _UrlElicitation] = {}

    def add(
        self, url_id: str, store: SessionStore | None, elicitation_id: str
    ) -> _UrlElicitation:
        """Follow a URL elicitation (a reused id replaces the one before)."""
        entry = _UrlElicitation(store, elicitation_id, url_id, self)
        previous = self._open.get(url_id)
        if previous is not None:
            previous.over.set()
        self._open[url_id] = entry
        return entry

    def drop(self, url_id: str, entry: _UrlElicitation) -> None:
        """Stop following it (declined, cancelled, or given up: none will complete)."""
        if self._open.get(url_id) is entry:
            del self._open[url_id]
        entry.over.set()

    def forget(self, store: SessionStore) -> None:
        """Stop following a session's elicitations (it was closed or left)."""
        for url_id, entry in list(self._open.items()):
            if entry.store is store:
                self.drop(url_id, entry)

    def complete(self, url_id: str) -> bool:
        """`elicitation/complete`: True if `url_id` was known and still open."""
        entry = self._open.pop(url_id, None)
        if entry is None:
            log.info("ignoring elicitation/complete for an unknown id %r", url_id)
            return False
        entry.asking.set()  # done elsewhere: a question still asked is withdrawn
        entry.completed = True
        entry.over.set()
        if entry.store is not None:
            entry.store.apply(ops.CompleteElicitation(entry.elicitation_id))
        return True


class Elicitations:
    """The elicitations of one connection, as `AcpClient` serves them.

    Args:
        prompter: Asks the user.
        features: The modes advertised (`elicitation_form`, `elicitation_url`).
        report: Told what went wrong with the prompter, its answer or a
            malformed `elicitation/complete`.
    """

    def __init__(
        self,
        prompter: ElicitationPrompter,
        features: ClientFeatures,
        report: Callable[[str], None],
    ) -> None:
        self.prompter = prompter
        self.features = features
        self.report = report
        self.urls = UrlElicitations()

    async def create(
        self,
        dialect: Dialect,
        params: Any,
        context: RequestContext,
        session: Callable[[str], tuple[SessionStore, anyio.Event]],
    ) -> JSONObject:
        """Serve `elicitation/create`.

        `session` gives a session's store and its `cancelled` event (it raises
        `RpcError` for an unknown session).
        """
        create = dialect.elicitation(params)
        offered = {
            "form": self.features.elicitation_form,
            "url": self.features.elicitation_url,
        }
        if not offered.get(create.mode, False):
            raise RpcError(
                INVALID_PARAMS,
                "Invalid params",
                f"elicitation mode {create.mode!r} was not advertised",
            )
        store = cancelled = None
        if create.session_id is not None:
            store, cancelled = session(create.session_id)
        return await answer_elicitation(
            create,
            dialect.agent.display_name,
            store,
            cancelled,
            context,
            self.prompter,
            dialect.elicitation_reply,
            self.urls,
            self.report,
        )

    def complete(self, dialect: Dialect, params: Any) -> None:
        """Serve `elicitation/complete` (unknown ids are ignored)."""
        try:
            url_id = dialect.elicitation_completed(params)
        except ValidationError as error:
            self.report(f"a malformed elicitation/complete was ignored: {error}")
            return
        self.urls.complete(url_id)

    def forget(self, store: SessionStore) -> None:
        """A session was closed or left: its elicitations no longer complete."""
        self.urls.forget(store)


async def answer_elicitation(
    create: ElicitationCreate,
    agent: str,
    store: SessionStore | None,
    cancelled: anyio.Event | None,
    context: RequestContext,
    prompter: ElicitationPrompter,
    reply: Reply,
    urls: UrlElicitations,
    report: Callable[[str], None],
) -> JSONObject:
    """Record `create`, ask `prompter`, record and return the wire response.

    Args:
        create: The request, read by the dialect.
        agent: The agent's name, shown with the question.
        store: The session's store (None: request-scoped, not recorded).
        cancelled: The session's `cancelled` event (None: no session).
        context: The request's context (`$/cancel_request`).
        prompter: Asks the user.
        reply: The dialect's `elicitation_reply`.
        urls: The connection's URL elicitations (for `elicitation/complete`).
        report: Told what went wrong with the prompter or its answer.
    """
    elicitation_id = str(context.id)
    asked = ops.AddElicitation(
        elicitation_id,
        create.mode,
        create.message,
        create.requested_schema,
        create.url,
        create.url_id,
        create.tool_call_id,
        create.meta,
    )
    if store is not None:
        store.apply(asked)
    context.handles_cancellation = True
    url_entry = None
    if create.mode == "url" and create.url_id is not None:
        url_entry = urls.add(create.url_id, store, elicitation_id)
    request = ElicitationRequest.asked(agent, create.session_id, asked)
    events = [context.cancel_requested]
    if cancelled is not None:
        events.append(cancelled)
    if url_entry is not None:
        events.append(url_entry.asking)
    try:
        answer = await ask_unless(
            lambda: prompter.elicit(request),
            tuple(events),
            report,
            "ask the elicitation",
        )
    except BaseException:  # the connection ended: the record is not left waiting
        if store is not None:
            store.apply(ops.ResolveElicitation(elicitation_id, {"action": "cancel"}))
        raise
    response = _response(answer, reply, report)
    if url_entry is not None:
        if response.get("action") != "accept":
            url_entry.give_up()
        elif not url_entry.over.is_set() and isinstance(prompter, UrlFollower):
            prompter.follow_url(request, url_entry)
    if store is not None:
        store.apply(ops.ResolveElicitation(elicitation_id, response))
    return response


def _response(
    answer: ElicitationReply | None,
    reply: Reply,
    report: Callable[[str], None],
) -> JSONObject:
    """The wire response for `answer` (`cancel` if it cannot be sent as it is)."""
    if answer is None:
        return reply("cancel", None)
    action = answer.action
    if action not in ACTIONS:
        report(f"an elicitation was answered {action!r}: sent as cancel")
        return reply("cancel", None)
    try:
        return reply(action, answer.content)
    except ValidationError as error:
        report(f"the answer to an elicitation is not valid ({error}): sent as cancel")
        return reply("cancel", None)
