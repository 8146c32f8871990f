"""`acp-tui export`: a saved session written as Markdown or as the JSON document.

The transcript is found among the saved ones (`storage.transcripts`) by id or a
unique prefix, rebuilt into a store, and written by `acp_tui.export` (the same
document as `acp-tui print --format json`), to standard output or a file. An
unknown or ambiguous id, or a file that cannot be read or written, is a usage
error (exit 2) with a message, never a traceback. Everything said on stderr
passes through `printable` (session ids and agent names come from agents).
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from acp_tui.export import ExportFormat, export_text
from acp_tui.frontends.print_turn import EXIT_OK, EXIT_USAGE
from acp_tui.safe_text import printable
from acp_tui.storage.transcripts import list_transcripts, read_transcript

__all__ = ["export_session"]


def export_session(
    wanted: str,
    *,
    agent: str | None,
    output_format: ExportFormat,
    output: Path | None,
    out: TextIO,
    err: TextIO,
) -> int:
    """`acp-tui export`: write one saved session; the exit status.

    `wanted` is a session id or a unique prefix of one; `agent`, when given,
    narrows the search to that agent's saved sessions.
    """
    # --agent is the name the agent reports (transcripts are filed by it) or the
    # command's name (what the user typed to run it).
    saved = [t for t in list_transcripts() if agent in (None, t.agent, t.command)]
    found = [t for t in saved if t.session_id == wanted]
    if not found:
        found = [t for t in saved if t.session_id.startswith(wanted)]
    where = f" of agent {agent}" if agent else ""
    if not found:
        print(
            printable(f"acp-tui: no saved session{where} matches {wanted!r}"),
            file=err,
        )
        return EXIT_USAGE
    if len({(t.agent, t.session_id) for t in found}) > 1:
        print(
            printable(f"acp-tui: {wanted!r} matches several saved sessions:"),
            file=err,
        )
        for info in found:
            print(printable(f"  {info.session_id}  ({info.agent})"), file=err)
        return EXIT_USAGE
    info = found[0]
    loaded = read_transcript(info.path, session_id=info.session_id)
    if loaded is None:
        print(printable(f"acp-tui: cannot read {info.path}"), file=err)
        return EXIT_USAGE
    header = loaded.header
    text = export_text(
        loaded.store,
        output_format,
        protocol_version=header.protocol_version if header else None,
        agent={"name": info.agent, "title": None, "version": None},
    )
    if output is None:
        out.write(text)  # made printable by export_text
        return EXIT_OK
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        print(printable(f"acp-tui: cannot write {output}: {error}"), file=err)
        return EXIT_USAGE
    print(printable(f"acp-tui: wrote {output}"), file=err)
    return EXIT_OK
