"""`acp-tui sessions`: the agent's sessions for a directory, as text or JSON.

One connection through the client runner (`client.runner`), every page of
`session/list` (bounded by `SESSION_SETUP_TIMEOUT`), then nothing more: no
session is opened, nothing is recorded. Each line of the text list passes through
`printable` (titles and directories come from the agent). Exit codes as
`acp-tui print` (`frontends.print_turn`): 0, or 3 when the agent fails.
"""

from __future__ import annotations

from typing import TextIO

import anyio

from acp_tui.client.errors import UnsupportedOperation
from acp_tui.client.launch import AGENT_FAILURES
from acp_tui.client.session_admin import ArchiveFilter, set_title
from acp_tui.client.session_admin import list_sessions as list_sessions_by
from acp_tui.frontends.print_turn import (
    EXIT_OK,
    SESSION_SETUP_TIMEOUT,
    PrintOptions,
    PrintRun,
    write_json,
)
from acp_tui.safe_text import printable

__all__ = ["list_sessions"]


async def list_sessions(
    options: PrintOptions,
    out: TextIO,
    err: TextIO,
    *,
    archived: ArchiveFilter | None = None,
    rename: tuple[str, str] | None = None,
) -> int:
    """`acp-tui sessions`: every page of `session/list`, as text or JSON.

    `archived` (`--archived`) filters by archive state where the agent archives
    sessions; `rename` (`--rename ID TITLE`) first sets a session's title
    (`session/set_title`), for an agent that takes one.
    """
    run = PrintRun(options, out, err, sessions_only=True)
    try:
        async with run.runner.connect() as client:
            with anyio.fail_after(SESSION_SETUP_TIMEOUT):
                if rename is not None:
                    stored = await set_title(client, *rename)
                    print(printable(f"renamed {rename[0]}: {stored}"), file=err)
                sessions = await list_sessions_by(client, options.cwd, archived)
    except (*AGENT_FAILURES, UnsupportedOperation) as error:
        return run.fail(error)
    if options.output_format == "json":
        write_json([s.raw for s in sessions], out)
        return EXIT_OK
    if not sessions:
        print("no sessions", file=out)
    for summary in sessions:
        title = summary.title or "(untitled)"
        when = summary.updated_at or ""
        mark = "  (archived)" if summary.archived else ""
        print(
            printable(f"{summary.session_id}  {when}  {title}  [{summary.cwd}]{mark}"),
            file=out,
        )
    return EXIT_OK
