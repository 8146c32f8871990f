"""`acp-tui check`'s probes of the unstable session methods, where advertised.

Each method gets a row only if the agent advertises it (`SessionFeatures`), so
agents without them keep the same report. On the probe's session, once it has
had its turns:

* `session/status` must say `open` (the session is open on this connection);
* `session/set_title` sets "acp-tui check", and the answer must carry a title;
* `session/fork` forks it (the whole session): a new session id, different from
  the source's. The fork is then archived where the agent archives sessions
  (`session/archive`: listed by `session/list` with `archived: "only"`, marked
  `archived`, and not by the default list), unarchived, and deleted where it can
  be.

Archiving without fork is probed on the probe's own session just before it is
deleted (`archive_probe_session`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from acp_tui.client.session_admin import (
    ForkSource,
    fork_session,
    list_sessions,
    session_status,
    set_archived,
    set_title,
)

if TYPE_CHECKING:
    from acp_tui.frontends.check import _Run

__all__ = ["archive_probe_session", "session_admin_checks"]

CHECK_TITLE = "acp-tui check"


async def _step(
    run: _Run, name: str, call: Callable[[], Awaitable[Any]]
) -> tuple[bool, Any]:
    """Run `call` bounded by the timeout; a failure becomes the step's row."""
    from acp_tui.frontends.check import _STEP_ERRORS

    if run.closed:
        run.row(name, "skip", "the connection ended")
        return False, None
    try:
        with anyio.fail_after(run.options.timeout):
            return True, await call()
    except _STEP_ERRORS as error:
        run.row(name, "fail", await run.failure(error))
        return False, None


async def session_admin_checks(run: _Run, session_id: str) -> None:
    """Status, title and fork (with archive) rows, each where advertised."""
    client = run.client
    features = client.session_features()
    if features.status:
        ok, status = await _step(
            run, "session/status", lambda: session_status(client, session_id)
        )
        if ok:
            state = f" ({status.state})" if status.state else ""
            said = f"{status.status}{state}"
            if status.status == "open":
                run.row("session/status", "pass", said)
            else:
                run.row("session/status", "fail", f"{said} for an open session")
    if features.set_title:
        ok, stored = await _step(
            run, "session/set_title", lambda: set_title(client, session_id, CHECK_TITLE)
        )
        if ok:
            run.row("session/set_title", "pass", f"titled “{stored}”")
    if features.fork:
        await _fork(run, session_id)


async def _fork(run: _Run, session_id: str) -> None:
    client = run.client
    source = ForkSource(session_id)
    ok, store = await _step(
        run, "session/fork", lambda: fork_session(client, source, run.cwd)
    )
    if not ok:
        return
    fork_id = store.session_id
    if fork_id == session_id:
        run.row("session/fork", "fail", "the fork has the source's session id")
        return
    run.row("session/fork", "pass", f"forked into {fork_id}")
    if client.session_features().archive:
        await _archive(run, fork_id, run.cwd)
    if client.session_features().delete:
        await _step(run, "session/delete", lambda: client.delete_session(fork_id))


async def _archive(run: _Run, session_id: str, cwd: Path) -> None:
    client = run.client
    name = "session/archive"
    ok, _ = await _step(run, name, lambda: set_archived(client, session_id, True))
    if not ok:
        return
    listed = client.session_features().list
    problems = []
    if listed:
        ok, only = await _step(run, name, lambda: list_sessions(client, cwd, "only"))
        if not ok:
            return
        ok, default = await _step(run, name, lambda: client.list_sessions(cwd))
        if not ok:
            return
        found = [s for s in only if s.session_id == session_id]
        if not found:
            problems.append("not listed with archived: only")
        elif not found[0].archived:
            problems.append("listed without archived: true")
        if any(s.session_id == session_id for s in default):
            problems.append("still in the default list")
    ok, _ = await _step(
        run, "session/unarchive", lambda: set_archived(client, session_id, False)
    )
    if problems:
        run.row(name, "fail", "archived, but " + "; ".join(problems))
    else:
        how = " and listed as such" if listed else ""
        run.row(name, "pass", f"archived{how}")
    if ok:
        run.row("session/unarchive", "pass", "unarchived")


async def archive_probe_session(run: _Run, session_id: str) -> None:
    """Archive and unarchive the probe's session (an agent without fork)."""
    features = run.client.session_features()
    if features.archive and not features.fork:
        await _archive(run, session_id, run.cwd)
