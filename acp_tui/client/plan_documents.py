"""Plans that are documents: markdown text, or a file, read as neutral values.

The plan-operations RFD (the TS SDK 2.4 unstable v2 schema) adds two plan types
besides `items`: `markdown` (the plan is its markdown `content`) and `file` (the
plan is in a file named by a `uri`). The store keeps every plan's wire object
packed (`store.model.Plan`); this module reads the two document types out of it,
so the UI and `print` never index wire JSON (`PlanDocument`), and reads a file
plan's text (`read_plan_file`), bounded.

Invariants:

* Only `file:` URIs naming an absolute path are read, at most `MAX_FILE_BYTES`
  (the rest is counted, not read); other URIs are shown, never fetched.
* Reading never raises: a problem is said in words (`PlanFileText.problem`).
* Text is returned as decoded (invalid UTF-8 replaced); callers make it printable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal
from urllib.parse import unquote, urlsplit

from acp_tui.store.model import Plan

__all__ = [
    "MARKDOWN_SUFFIXES",
    "MAX_FILE_BYTES",
    "PlanDocument",
    "PlanFileText",
    "plan_document",
    "read_plan_file",
]

MAX_FILE_BYTES: Final = 256 * 1024
"""A file plan is read up to this many bytes."""

MARKDOWN_SUFFIXES: Final = frozenset({".md", ".markdown", ".mdx", ""})
"""A file plan with one of these suffixes (or none) is shown as markdown."""


@dataclass(frozen=True, slots=True)
class PlanDocument:
    """A markdown or file plan, as neutral values."""

    kind: Literal["markdown", "file"]
    text: str | None = None
    """The markdown (a `markdown` plan)."""
    uri: str | None = None
    """The file's URI as sent (a `file` plan)."""
    path: str | None = None
    """The local path the URI names (`file:` URIs only)."""


@dataclass(frozen=True, slots=True)
class PlanFileText:
    """What reading a file plan gave."""

    text: str | None
    """The text read (None: nothing could be read)."""
    problem: str | None = None
    """Why nothing (or not everything) was read, in words."""
    markdown: bool = True
    """Whether to show it as markdown (by its suffix)."""


def _local_path(uri: str) -> str | None:
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = unquote(parts.path)
    return path if path.startswith("/") else None


def plan_document(plan: Plan) -> PlanDocument | None:
    """The plan as a document, or None if it is not a markdown or file plan."""
    if plan.plan_type not in ("markdown", "file"):
        return None
    raw = plan.raw
    if plan.plan_type == "markdown":
        text = raw.get("content")
        return PlanDocument("markdown", text=text if isinstance(text, str) else "")
    uri = raw.get("uri")
    if not isinstance(uri, str):
        return PlanDocument("file")
    return PlanDocument("file", uri=uri, path=_local_path(uri))


def read_plan_file(document: PlanDocument) -> PlanFileText:
    """Read a file plan's text (bounded); never raises."""
    if document.path is None:
        what = document.uri or "no file"
        return PlanFileText(None, f"{what} is not a local file: not read")
    path = Path(document.path)
    markdown = path.suffix.lower() in MARKDOWN_SUFFIXES
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        return PlanFileText(None, f"could not read it: {error.strerror or error}")
    problem = None
    if len(data) > MAX_FILE_BYTES:
        data = data[:MAX_FILE_BYTES]
        problem = f"only its first {MAX_FILE_BYTES // 1024} KiB are shown"
    return PlanFileText(data.decode("utf-8", "replace"), problem, markdown)
