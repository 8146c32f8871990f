"""Turn what the user typed into `session/prompt` content blocks.

See https://agentclientprotocol.com/protocol/content and the prompt capabilities in
https://agentclientprotocol.com/protocol/initialization#prompt-capabilities (v1:
`agentCapabilities.promptCapabilities`, booleans; v2 alpha.3:
`capabilities.session.prompt`, where an object, even `{}`, means supported).

A prompt is always one `text` block with the text exactly as typed, followed by
one block per file the text mentions with `@path` (relative to the working
directory or absolute; `@"path with spaces"` when the path has spaces). An `@`
starts a mention only at the start of the text or after whitespace, so e-mail
addresses are left alone. For each mentioned file, in order of first mention:

* an `image` block (base64) when it is a PNG, JPEG, GIF or WebP image, the agent
  accepts images, and it is at most `IMAGE_LIMIT` bytes;
* an embedded `resource` block (a text resource) when the agent accepts embedded
  context and the file is UTF-8 text of at most `EMBED_LIMIT` bytes;
* a `resource_link` block (uri, name, mimeType, size) otherwise: every agent
  must accept those.

Mentions that do not name an existing regular file inside the working directory
(missing files, directories, `..` or a symlink leading out) stay plain text.
Repeated mentions of one file give one block. Building a prompt reads files:
call `build_prompt` off the event loop (`anyio.to_thread.run_sync`).

`scan_project_files` lists the files that `@` completion offers.
"""

from __future__ import annotations

import base64
import logging
import mimetypes
import os
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Final

from acp_tui.store.values import JSONObject, JSONValue

if TYPE_CHECKING:
    from acp_tui.client.connection import Connection

__all__ = [
    "EMBED_LIMIT",
    "IMAGE_LIMIT",
    "IMAGE_MIME_TYPES",
    "SCAN_LIMIT",
    "SKIPPED_DIRECTORIES",
    "Mention",
    "ProjectFile",
    "PromptCapabilities",
    "build_prompt",
    "find_mentions",
    "guess_mime_type",
    "mention_text",
    "mentioned_paths",
    "prompt_capabilities",
    "scan_project_files",
]

log = logging.getLogger(__name__)

EMBED_LIMIT: Final = 256 * 1024
"""Largest text file (bytes) embedded as a `resource` block."""

IMAGE_LIMIT: Final = 10 * 1024 * 1024
"""Largest image (bytes) sent as an `image` block."""

SCAN_LIMIT: Final = 5000
"""Most files `scan_project_files` lists."""

_SCAN_ENTRY_LIMIT: Final = 50_000
"""Most directory entries one scan looks at (a bound on time in huge trees)."""

IMAGE_MIME_TYPES: Final = frozenset(
    {"image/png", "image/jpeg", "image/gif", "image/webp"}
)
"""Image formats sent as `image` blocks (the ones models commonly accept)."""

SKIPPED_DIRECTORIES: Final = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__"}
)
"""Directories never listed for completion (hidden directories are skipped too)."""


@cache
def _mime_table() -> mimetypes.MimeTypes:
    """Python's built-in table only, so results do not depend on the machine.

    Built on first use, not on import: building it reads the system's type
    files (about 6 ms), and `acp-tui print`, which imports this module through
    the dialects, never guesses a type.
    """
    table = mimetypes.MimeTypes(filenames=())
    for extension, media_type in {
        ".md": "text/markdown",
        ".webp": "image/webp",
        ".toml": "application/toml",
        ".yaml": "application/yaml",
        ".yml": "application/yaml",
        ".ts": "text/x-typescript",
        ".tsx": "text/x-typescript",
        ".rs": "text/x-rust",
        ".go": "text/x-go",
    }.items():
        table.add_type(media_type, extension)
    return table


_MENTION: Final = re.compile(r'(?<!\S)@(?:"(?P<quoted>[^"\n]+)"|(?P<bare>[^\s"]\S*))')
"""`@path` or `@"path with spaces"`, at the start or after whitespace."""

_TRAILING_PUNCTUATION: Final = ".,;:!?)]}>'"
"""Stripped from the end of a bare mention ("see @notes.md." names notes.md)."""


# -- capabilities -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PromptCapabilities:
    """Which content beyond text and resource links the agent accepts in prompts."""

    image: bool = False
    audio: bool = False
    embedded_context: bool = False


def prompt_capabilities(connection: Connection) -> PromptCapabilities:
    """The prompt capabilities the agent advertised in `initialize`.

    Args:
        connection: The negotiated connection.

    Returns:
        v1: `agentCapabilities.promptCapabilities`; v2: `capabilities.session.prompt`
        (an absent or null entry means unsupported).
    """
    return connection.dialect.prompt_capabilities()


# -- mentions -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mention:
    """One `@path` in a text."""

    path: str
    """The path as written (without `@`, quotes or trailing punctuation)."""
    start: int
    """Offset of the `@`."""
    end: int
    """Offset just past the mention (past the closing quote when quoted)."""
    quoted: bool


def find_mentions(text: str) -> list[Mention]:
    """Every `@path` mention in a text, in order.

    Args:
        text: The prompt text.

    Returns:
        The mentions; a bare mention loses trailing punctuation such as a full stop.
    """
    mentions: list[Mention] = []
    for match in _MENTION.finditer(text):
        quoted = match.group("quoted")
        if quoted is not None:
            mentions.append(Mention(quoted, match.start(), match.end(), quoted=True))
            continue
        bare = match.group("bare").rstrip(_TRAILING_PUNCTUATION)
        if bare:
            end = match.start() + 1 + len(bare)
            mentions.append(Mention(bare, match.start(), end, quoted=False))
    return mentions


def mentioned_paths(text: str) -> list[str]:
    """The paths mentioned with `@` in a text, once each, in order of first mention.

    Args:
        text: The prompt text.

    Returns:
        The paths as written (no resolution: that is `build_prompt`'s job).
    """
    return list(dict.fromkeys(mention.path for mention in find_mentions(text)))


def mention_text(path: str) -> str:
    """How to write a mention of `path`: `@path`, or `@"path"` if it has whitespace.

    Args:
        path: A path as the user would type it (relative, POSIX separators).

    Returns:
        The mention, without a trailing space.
    """
    if any(character.isspace() for character in path):
        return f'@"{path}"'
    return f"@{path}"


def guess_mime_type(path: str | Path) -> str | None:
    """The media type for a file name, from Python's built-in table.

    Args:
        path: A file name or path.

    Returns:
        The type, or None when unknown.
    """
    mime_type, _ = _mime_table().guess_type(str(path), strict=False)
    return mime_type


# -- prompt blocks ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Resolved:
    real: Path
    """The file, symlinks resolved."""
    inside: Path
    """The file's path under the (unresolved, absolute) working directory."""


def _resolve(mention: str, cwd: Path, real_cwd: Path) -> _Resolved | None:
    candidate = Path(mention).expanduser()
    if not candidate.is_absolute():
        candidate = cwd / candidate
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not real.is_relative_to(real_cwd) or not real.is_file():
        return None
    return _Resolved(real, cwd / real.relative_to(real_cwd))


def _read(path: Path, limit: int) -> bytes | None:
    """The file's bytes, or None when it is larger than `limit` or unreadable."""
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as error:
        log.warning("cannot read mentioned file %s: %s", path, error)
        return None
    return data if len(data) <= limit else None


def _as_text(data: bytes) -> str | None:
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _file_block(
    file: _Resolved, name: str, caps: PromptCapabilities
) -> dict[str, JSONValue]:
    uri = file.inside.as_uri()
    mime_type = guess_mime_type(file.real.name)
    try:
        size = file.real.stat().st_size
    except OSError:
        size = None
    if caps.image and mime_type in IMAGE_MIME_TYPES and size is not None:
        data = _read(file.real, IMAGE_LIMIT)
        if data is not None:
            return {
                "type": "image",
                "mimeType": mime_type,
                "data": base64.b64encode(data).decode("ascii"),
                "uri": uri,
            }
    if caps.embedded_context and size is not None and size <= EMBED_LIMIT:
        data = _read(file.real, EMBED_LIMIT)
        text = _as_text(data) if data is not None else None
        if text is not None:
            resource: dict[str, JSONValue] = {"uri": uri, "text": text}
            if mime_type is not None:
                resource["mimeType"] = mime_type
            return {"type": "resource", "resource": resource}
    link: dict[str, JSONValue] = {"type": "resource_link", "uri": uri, "name": name}
    if mime_type is not None:
        link["mimeType"] = mime_type
    if size is not None:
        link["size"] = size
    return link


def build_prompt(text: str, cwd: Path, caps: PromptCapabilities) -> list[JSONObject]:
    """The `session/prompt` content for what the user typed.

    Args:
        text: The prompt exactly as typed.
        cwd: The session's working directory; only files inside it are attached.
        caps: What the agent accepts (see `prompt_capabilities`).

    Returns:
        A `text` block with `text`, then one block per mentioned file (see the
        module docstring for which kind).
    """
    blocks: list[JSONObject] = [{"type": "text", "text": text}]
    cwd = cwd.expanduser().absolute()
    try:
        real_cwd = cwd.resolve(strict=True)
    except (OSError, RuntimeError):
        return blocks
    seen: set[Path] = set()
    for mention in mentioned_paths(text):
        file = _resolve(mention, cwd, real_cwd)
        if file is None or file.real in seen:
            continue
        seen.add(file.real)
        name = file.inside.relative_to(cwd).as_posix()
        blocks.append(_file_block(file, name, caps))
    return blocks


# -- completion index ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProjectFile:
    """A file `@` completion can offer."""

    path: str
    """Relative to the working directory, with `/` separators."""
    is_image: bool
    """Whether it would be sent as an `image` block (when the agent takes images)."""


def _walk(root: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Entries under `root`, breadth first (shallow files first), sorted by name."""
    queue: deque[tuple[Path, str]] = deque([(root, "")])
    while queue:
        directory, prefix = queue.popleft()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            relative = f"{prefix}{entry.name}"
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if not entry.name.startswith(".") and (
                    entry.name not in SKIPPED_DIRECTORIES
                ):
                    queue.append((Path(entry.path), f"{relative}/"))
                continue
            yield relative, entry


def scan_project_files(cwd: Path, *, limit: int = SCAN_LIMIT) -> list[ProjectFile]:
    """List the files under a working directory for `@` completion.

    Skips hidden directories and `SKIPPED_DIRECTORIES`, does not follow symlinked
    directories, and lists a symlinked file only if it stays inside `cwd`. This
    blocks: run it in a thread.

    Args:
        cwd: The working directory.
        limit: Most files to list (shallow ones first).

    Returns:
        The files, breadth first, sorted by name within a directory.
    """
    try:
        real_cwd = cwd.resolve(strict=True)
    except (OSError, RuntimeError):
        return []
    files: list[ProjectFile] = []
    for seen, (relative, entry) in enumerate(_walk(cwd), 1):
        if len(files) >= limit or seen > _SCAN_ENTRY_LIMIT:
            break
        try:
            if entry.is_symlink():
                target = Path(entry.path).resolve(strict=True)
                if not target.is_relative_to(real_cwd) or not target.is_file():
                    continue
            elif not entry.is_file(follow_symlinks=False):
                continue
        except (OSError, RuntimeError):
            continue
        files.append(
            ProjectFile(relative, guess_mime_type(entry.name) in IMAGE_MIME_TYPES)
        )
    return files
