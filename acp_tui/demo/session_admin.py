"""The demo agent's fork, titles, archive and status (the TS SDK 2.4 unstable methods).

The demo advertises `fork`, `title`, `archive` and `status` (`advertise`) in both
versions, and serves them the same way in both:

* `session/fork` copies a session (from memory, or from its file: any demo process
  can fork any demo session) into a new one with a new id, which starts at once.
  With claude-agent-acp's fork point (`_meta.jetbrains.air.fork.messageId`, an
  agent message's id), the copy ends with that message; without it, it is the
  whole history. The fork is named "<title> (fork)". Like a resume without a
  replay, it sends no history (the client shows what it has); its scratch
  workspace starts empty.
* `session/set_title` stores the title (trimmed; -32602 if empty).
* `session/archive` closes the session if it is open here, then marks it
  archived; `session/unarchive` unmarks it. The marks are kept in
  `<data_dir>/demo/archived.json` (beside the session files), so every demo
  process sees them; `session/list` leaves archived sessions out unless asked
  (`archived`: `include` or `only`) and marks each row `archived`.
* `session/status` says `open` for a session open in this process (with its
  foreground state: `running` while a turn runs, else `idle`), `saved` for one
  only on disk.
"""

from __future__ import annotations

import json
import os
from typing import Any, Final

from acp_tui.demo import persist
from acp_tui.demo.events import Event, Info, Message, MessageChunk
from acp_tui.demo.pacing import timestamp
from acp_tui.demo.session import DemoAgent, DemoSession, SessionNotFound
from acp_tui.demo.workspace import Workspace

__all__ = [
    "MARKERS",
    "advertise",
    "archive",
    "archived_ids",
    "fork",
    "list_filter",
    "set_title",
    "status",
]

MARKERS: Final[dict[str, Any]] = {"fork": {}, "title": {}, "archive": {}, "status": {}}
"""The capability markers the demo advertises (same keys in v1 and v2)."""

FILTERS: Final = ("exclude", "include", "only")


def advertise(result: dict[str, Any]) -> dict[str, Any]:
    """Add the markers to an `initialize` result (either version's shape)."""
    v1_caps = result.get("agentCapabilities")
    if isinstance(v1_caps, dict):
        v1_caps.setdefault("sessionCapabilities", {}).update(MARKERS)
    v2_caps = result.get("capabilities")
    if isinstance(v2_caps, dict) and isinstance(v2_caps.get("session"), dict):
        v2_caps["session"].update(MARKERS)
    return result


def _archived_file() -> Any:
    return persist.sessions_dir().parent / "archived.json"


def archived_ids() -> set[str]:
    """The archived sessions' ids (none if the file is missing or damaged)."""
    try:
        data = json.loads(_archived_file().read_text("utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(item) for item in data} if isinstance(data, list) else set()


def _save_archived(ids: set[str]) -> None:
    target = _archived_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_text(json.dumps(sorted(ids)), "utf-8")
    os.replace(temporary, target)


def _up_to(history: list[Event], message_id: str | None) -> list[Event] | None:
    """The history up to and including the message `message_id` (None: all).

    None when the history has no agent message of that id.
    """
    kept: list[Event] = [e for e in history if not isinstance(e, Info)]
    if message_id is None:
        return kept
    ends = [
        i
        for i, event in enumerate(kept)
        if isinstance(event, Message | MessageChunk)
        and event.message_id == message_id
        and event.role == "agent"
    ]
    return kept[: ends[-1] + 1] if ends else None


def fork_point(meta: Any) -> str | None:
    """claude-agent-acp's fork point in a request's `_meta`, if one is there."""
    point = (((meta or {}).get("jetbrains") or {}).get("air") or {}).get("fork")
    if not isinstance(point, dict) or point.get("version") != 1:
        return None
    message_id = point.get("messageId")
    return message_id.strip() or None if isinstance(message_id, str) else None


def fork(agent: DemoAgent, session_id: str, cwd: str, meta: Any) -> DemoSession:
    """Copy a session into a new one, open in this process.

    Raises:
        SessionNotFound: No such session.
        ValueError: The fork point names no agent message of the session.
    """
    source = agent.find(session_id)
    point = fork_point(meta)
    history = _up_to(source.history, point)
    if history is None:
        raise ValueError(f"no agent message {point!r} in {session_id}")
    new_id = persist.claim_id()
    title = f"{source.title} (fork)" if source.title else "(fork)"
    session = DemoSession(
        new_id,
        cwd,
        Workspace.for_session(new_id, cwd),
        config=source.config,
        title=title,
        updated_at=timestamp(agent.clock),
        history=[*history, Info({"title": title})],
        counters=dict(source.counters),  # new ids never repeat the copied ones
        allow_always=set(source.allow_always),
        mode_switched=source.mode_switched,
    )
    session.workspace.ensure()
    session.save()
    agent.sessions[new_id] = session
    return session


def set_title(agent: DemoAgent, session_id: str, title: str) -> str:
    """Store a session's title; returns it trimmed.

    Raises:
        SessionNotFound: No such session.
        ValueError: The title is empty.
    """
    title = title.strip()
    if not title:
        raise ValueError("the title is empty")
    session = agent.find(session_id)
    session.title = title
    session.history.append(Info({"title": title}))
    session.save()
    return title


async def archive(agent: DemoAgent, session_id: str, archived: bool) -> None:
    """Archive (closing it here first) or unarchive a session.

    Raises:
        SessionNotFound: No such session.
    """
    if session_id not in agent.sessions and persist.load(session_id) is None:
        raise SessionNotFound(session_id)
    ids = archived_ids()
    if archived:
        if session_id in agent.sessions:
            await agent.close(session_id)
        ids.add(session_id)
    else:
        ids.discard(session_id)
    _save_archived(ids)


def list_filter(archived: Any) -> tuple[set[str], str]:
    """The archived ids and the filter asked for (`exclude` when none).

    Raises:
        ValueError: A filter the demo does not know.
    """
    wanted = archived or "exclude"
    if wanted not in FILTERS:
        raise ValueError(f"unknown archived filter {wanted!r}")
    return archived_ids(), str(wanted)


def keeps(ids: set[str], wanted: str, session_id: str) -> bool:
    """Whether `session/list` with filter `wanted` lists `session_id`."""
    return wanted == "include" or (session_id in ids) == (wanted == "only")


def status(agent: DemoAgent, session_id: str) -> dict[str, Any]:
    """The `session/status` result (`state` is the v2 field; v1 drops it).

    Raises:
        SessionNotFound: No such session.
    """
    session = agent.sessions.get(session_id)
    if session is not None:
        running = bool(session.turns)
        return {"status": "open", "state": {"state": "running" if running else "idle"}}
    if persist.load(session_id) is None:
        raise SessionNotFound(session_id)
    return {"status": "saved"}
