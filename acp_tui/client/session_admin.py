"""Forking, titles, archiving and status of sessions (the TS SDK 2.4 unstable methods).

`session/fork`, `session/set_title`, `session/archive` / `session/unarchive` and
`session/status` have the same names and params in v1 and v2; only where the
agent advertises them differs (v1 `agentCapabilities.sessionCapabilities.<x>`, v2
`capabilities.session.<x>`), which the dialects read into `SessionFeatures`
(`fork`, `set_title`, `archive`, `status`). Nothing here compares versions.

Fork at a message. The schemas' `session/fork` forks the whole session. The
adapters' de facto extension (claude-agent-acp) reads a fork point from the
request's `_meta.jetbrains.air.fork` (`{version: 1, messageId}`: an agent
message's `messageId`, as the agent sent it) and forks up to and including that
message. It is not advertised, so `fork_at_message` names the agents known to
read it; any other agent that forks is offered the whole-session fork only.

The fork's history. An agent does not replay a fork's history (the schema's
response carries only the lists of `session/new`). So the client copies the
history it has: `history_ops` turns the source store's timeline, up to the fork
point, into ops for the fork's store (messages, tool calls, plans, standalone
terminals; a capped message keeps what the store kept of it). If the agent did
send history updates for the fork before its response, they are kept and nothing
is copied.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from acp_tui.client.dialect import SessionFeatures, SessionSummary
from acp_tui.client.errors import UnsupportedOperation
from acp_tui.store import ops
from acp_tui.store.store import SessionStore
from acp_tui.store.values import UNSET, JSONObject

if TYPE_CHECKING:
    from acp_tui.client.session import AcpClient

__all__ = [
    "FORK_POINT_AGENTS",
    "ArchiveFilter",
    "ForkSource",
    "SessionStatus",
    "fork_at_message",
    "fork_point",
    "fork_session",
    "history_ops",
    "list_sessions",
    "session_status",
    "set_archived",
    "set_title",
]

FORK_POINT_AGENTS: Final = frozenset(
    {"@agentclientprotocol/claude-agent-acp", "acp-tui-demo"}
)
"""Agents (by their `initialize` name) that fork at the message a fork request's
`_meta.jetbrains.air.fork` names (see the module docstring)."""

ArchiveFilter = Literal["exclude", "include", "only"]
"""Which sessions `session/list` returns by archive state (`exclude`: the default)."""


@dataclass(frozen=True, slots=True)
class ForkSource:
    """What a fork starts from: the session, where, and the history to show."""

    session_id: str
    """The session forked."""
    message_id: str | None = None
    """The agent message the fork ends with (its `messageId`), None: the whole."""
    history: tuple[ops.Op, ...] = ()
    """Ops that rebuild the history up to the fork point (`history_ops`)."""
    title: str | None = None
    """The source's title, to name the fork's tab until the agent names it."""


@dataclass(frozen=True, slots=True)
class SessionStatus:
    """A `session/status` answer: `open` (in the agent's memory) or `saved`."""

    status: str
    """`open` or `saved` (an unknown value reads as `saved`, as the schema says)."""
    state: str | None
    """The foreground state when reported (`running`, `idle`, `requires_action`)."""


def fork_at_message(features: SessionFeatures, agent_name: str | None) -> bool:
    """Whether a fork may end at an earlier message (not only at the latest)."""
    return features.fork and agent_name in FORK_POINT_AGENTS


def fork_point(
    store: SessionStore, key: str | None
) -> tuple[str | None, tuple[ops.Op, ...]] | None:
    """The fork point at the message keyed `key` (None: the latest), and its history.

    The point is the last agent message at or before that message that carries
    the agent's own id (a synthesised v1 id starts with `v1-`). Returns None when
    there is none (nothing the agent said yet to fork after).
    """
    timeline = store.timeline()
    end = len(timeline)
    if key is not None:
        found = [i for i, entry in enumerate(timeline) if entry == ("message", key)]
        if not found:
            return None
        end = found[0] + 1
    for index in range(end - 1, -1, -1):
        kind, entity = timeline[index]
        if kind != "message":
            continue
        message = store.message(entity)
        if message is None or message.role != "agent":
            continue
        if message.message_id.startswith("v1-"):
            return None  # the agent names no messages: no point to name
        return message.message_id, history_ops(store, timeline[: index + 1])
    return None


def history_ops(
    store: SessionStore, entries: Sequence[tuple[str, str]]
) -> tuple[ops.Op, ...]:
    """Ops that rebuild `entries` of `store`'s timeline in another store."""
    result: list[ops.Op] = []
    for kind, entity in entries:
        if kind == "message":
            message = store.message(entity)
            if message is None:
                continue
            blocks = [dict(block) for block in message.content]
            tail = message.tail
            if tail:
                blocks.append({"type": "text", "text": tail})
            result.append(
                ops.UpsertMessage(
                    message.message_id,
                    message.role,
                    content=blocks,
                    meta=message.meta if message.meta is not None else UNSET,
                )
            )
            if message.from_agent:
                result.append(ops.SetMessageOrigin(message.message_id, "agent"))
        elif kind == "tool_call":
            call = store.tool_call(entity)
            if call is None:
                continue
            result.append(
                ops.PatchToolCall(
                    call.tool_call_id,
                    title=call.title if call.title is not None else UNSET,
                    kind=call.kind,
                    status=call.status,
                    content=list(call.content),
                    locations=list(call.locations),
                    raw_input=call.raw_input,
                    raw_output=call.raw_output,
                    meta=call.meta if call.meta is not None else UNSET,
                )
            )
        elif kind == "plan":
            plan = store.plan(entity)
            if plan is not None:
                entries_, raw = plan.unpacked()
                result.append(
                    ops.ReplacePlan(plan.plan_id, plan.plan_type, list(entries_), raw)
                )
        else:
            result.extend(_report_ops(store, kind, entity))
    return tuple(result)


def _report_ops(store: SessionStore, kind: str, entity: str) -> list[ops.Op]:
    """The ops that rebuild one of the agent's reports (`store.reports`)."""
    reports = store.reports
    if kind == "agent_notice":
        notice = reports.notice(entity)
        if notice is not None:
            return [
                ops.AddNotice(
                    notice.severity, notice.title, notice.description, notice.meta
                )
            ]
    elif kind == "compaction":
        compaction = reports.compaction(entity)
        if compaction is not None:
            return [
                ops.PatchCompaction(
                    compaction.compaction_id,
                    compaction.status,
                    summary=list(compaction.summary),
                    error=compaction.error,
                    meta=compaction.meta,
                )
            ]
    elif kind == "session_message":
        message = reports.session_message(entity)
        if message is not None:
            return [
                ops.PatchSessionMessage(
                    message.message_id,
                    sender_session_id=message.sender_session_id,
                    recipient_session_id=message.recipient_session_id,
                    sender_message_id=message.sender_message_id,
                    recipient_message_id=message.recipient_message_id,
                    content=list(message.content),
                    meta=message.meta,
                )
            ]
    return []


def fork_params(source: ForkSource) -> JSONObject:
    """`session/fork`'s own params (the fork point where the agent reads it).

    The rest (`cwd`, `mcpServers`, `additionalDirectories`) are `session/new`'s.
    """
    params: dict[str, Any] = {"sessionId": source.session_id}
    if source.message_id is not None:
        point = {"version": 1, "messageId": source.message_id}
        params["_meta"] = {"jetbrains": {"air": {"fork": point}}}
    return params


async def fork_session(
    client: AcpClient,
    source: ForkSource,
    cwd: Path,
    additional_directories: Sequence[Path] = (),
    *,
    roots: Sequence[Path] | None = None,
) -> SessionStore:
    """`session/fork` of `source`; the fork's store, with the history up to the point.

    Raises:
        UnsupportedOperation: The agent does not fork sessions, or not at a
            message when `source` names one.
    """
    features = client.session_features()
    if not features.fork:
        raise UnsupportedOperation("the agent cannot fork sessions")
    if source.message_id is not None and not fork_at_message(
        features, client.agent_name
    ):
        raise UnsupportedOperation("the agent forks only whole sessions")
    store = await client.new_session(
        cwd, additional_directories, roots=roots, fork=fork_params(source)
    )
    if not store.timeline() and source.history:
        store.apply_many(source.history)
    if store.session_info.title is None:
        # Named after its source until the agent names it (a session_info_update).
        title = f"{source.title} (fork)" if source.title else "(fork)"
        store.apply(ops.PatchSessionInfo(title=title))
    return store


async def _call(client: AcpClient, method: str, params: JSONObject) -> Any:
    return await client.connection.dispatcher.request(method, params)


async def list_sessions(
    client: AcpClient, cwd: Path | None, archived: ArchiveFilter | None
) -> list[SessionSummary]:
    """`session/list` with the `archived` filter where the agent archives sessions."""
    if not client.session_features().archive:
        archived = None
    return await client.list_sessions(cwd, archived=archived)


async def set_title(client: AcpClient, session_id: str, title: str) -> str:
    """`session/set_title`; returns the title the agent stored (it may normalise)."""
    if not client.session_features().set_title:
        raise UnsupportedOperation("the agent cannot rename sessions")
    params = {"sessionId": session_id, "title": title}
    raw = await _call(client, "session/set_title", params)
    stored = raw.get("title") if isinstance(raw, dict) else None
    stored = stored if isinstance(stored, str) and stored else title
    with contextlib.suppress(KeyError):  # not open here: the list shows it
        client.store(session_id).apply(ops.PatchSessionInfo(title=stored))
    return stored


async def set_archived(client: AcpClient, session_id: str, archived: bool) -> None:
    """`session/archive` or `session/unarchive`."""
    if not client.session_features().archive:
        raise UnsupportedOperation("the agent cannot archive sessions")
    method = "session/archive" if archived else "session/unarchive"
    await _call(client, method, {"sessionId": session_id})


async def session_status(client: AcpClient, session_id: str) -> SessionStatus:
    """`session/status` (no side effects on the agent's side)."""
    if not client.session_features().status:
        raise UnsupportedOperation("the agent does not report session status")
    raw = await _call(client, "session/status", {"sessionId": session_id})
    status = raw.get("status") if isinstance(raw, dict) else None
    state = raw.get("state") if isinstance(raw, dict) else None
    foreground = state.get("state") if isinstance(state, dict) else None
    return SessionStatus(
        status if status in ("open", "saved") else "saved",
        foreground if isinstance(foreground, str) else None,
    )
