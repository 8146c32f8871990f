"""Command palette entries (ctrl+p): every app action, plus one entry per config value.

The app returns these from `get_system_commands`, so they sit beside Textual's own
(theme, keys, quit). Config values are listed directly ("Model: GPT-5"), which makes
switching a model two keystrokes plus a few letters of its name.

Config entries are named by the agent, so the palette shows every title and help
text as plain text: `PlainSystemCommands` (the app's only palette provider)
builds each entry from `Content`, never markup. Textual's own provider parses both
as markup (`Content.from_markup`, and `Matcher.highlight` for a typed query): a
`[/]` in a name raised `MarkupError` on ctrl+p, `[link=...]` and `[@click=...]`
became a hyperlink (OSC 8 on the real terminal) and an action, and `Default
[opus]` lost its brackets. Escaping is no fix: Textual's `markup.escape` leaves
tags such as `[$accent]` or `[B]` alone. Titles and help also pass through
`printable`, so no control character reaches the screen.

Local slash commands (`/export`) are handled by the app and never sent to the
agent; `with_local_commands` adds them to the agent's list for completion.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, cast

from textual.command import DiscoveryHit, Hit, Hits, Matcher
from textual.content import Content
from textual.system_commands import SystemCommandsProvider

from acp_tui.client.options import ConfigOption
from acp_tui.export import EXPORT_FORMATS, ExportFormat
from acp_tui.safe_text import printable
from acp_tui.store.values import JSONObject

__all__ = [
    "ACTIONS",
    "EXPORT_COMMAND",
    "ActionEntry",
    "ExportRequest",
    "PlainSystemCommands",
    "config_entries",
    "export_request",
    "exports_dir",
    "with_local_commands",
]


@dataclass(frozen=True, slots=True)
class ActionEntry:
    """One palette entry that runs an app action."""

    title: str
    help: str
    action: str
    """The action name, without the `action_` prefix."""
    key: str | None = None
    """The key bound to it (or the slash command), for the key-help screen."""


ACTIONS: Final[tuple[ActionEntry, ...]] = (
    ActionEntry(
        "Sessions", "Pick a session to resume, or start one", "pick_session", "f2"
    ),
    ActionEntry(
        "New session", "Start a new session with this agent", "new_session", "ctrl+n"
    ),
    ActionEntry(
        "Agent settings", "Switch mode, model and other options", "switch_config", "f3"
    ),
    ActionEntry(
        "Cycle mode", "Switch to the agent's next mode", "cycle_mode", "shift+tab"
    ),
    ActionEntry(
        "Toggle plan panel", "Show or hide the plan side panel", "toggle_plan", "f4"
    ),
    ActionEntry(
        "Protocol inspector",
        "Show or hide the live JSON-RPC traffic with the agent",
        "toggle_inspector",
        "f5",
    ),
    ActionEntry(
        "Cancel turn", "Ask the agent to stop the running turn", "cancel_turn", "escape"
    ),
    ActionEntry(
        "Restart agent",
        "Restart the agent and resume this session",
        "restart_agent",
        "ctrl+r",
    ),
    ActionEntry(
        "Search conversation",
        "Find text in messages, tool output, terminals and diffs; Enter jumps",
        "search_conversation",
        "ctrl+f",
    ),
    ActionEntry(
        "Review changes",
        "What the last turn changed in the session's directories: revert, keep, "
        "comment",
        "review_changes",
        "f6",
    ),
    ActionEntry(
        "Export session",
        "Save this session as Markdown in acp-tui's data directory (or /export json)",
        "export_session",
        "/export",
    ),
    ActionEntry(
        "New tab",
        "Open a tab with a new session of its own agent (others keep running)",
        "new_tab",
        "ctrl+t",
    ),
    ActionEntry(
        "Close tab",
        "Shut this tab's agent down and close the tab",
        "close_tab",
        "alt+w",
    ),
    ActionEntry("Next tab", "Show the next tab", "next_tab", "alt+right"),
    ActionEntry("Previous tab", "Show the previous tab", "previous_tab", "alt+left"),
    ActionEntry("Keys", "Show every key binding", "key_help", "f1"),
    ActionEntry("Quit", "Shut every tab's agent down and quit", "quit", "ctrl+q"),
)
"""The app's actions, in palette and key-help order."""


def config_entries(
    options: Sequence[ConfigOption],
    apply: Callable[[str, str | bool], None],
) -> Iterator[tuple[str, str, Callable[[], None]]]:
    """`(title, help, callback)` for every config value that is not current."""
    for option in options:
        config_id = option.config_id
        if not config_id:
            continue
        name = printable(option.name or config_id)
        kind = option.kind
        current = option.current
        if kind == "boolean":
            new = not bool(current)
            title = f"{name}: {'on' if new else 'off'}"
            yield (
                title,
                f"Turn {name} {'on' if new else 'off'}",
                _bind(apply, config_id, new),
            )
        elif kind == "select":
            for choice in option.choices:
                if choice.value == current:
                    continue
                label = printable(choice.name)
                help_text = printable(choice.description or f"Set {name} to {label}")
                yield (
                    f"{name}: {label}",
                    help_text,
                    _bind(apply, config_id, choice.value),
                )


class PlainSystemCommands(SystemCommandsProvider):
    """The app's system commands (`App.get_system_commands`), shown as plain text.

    Textual's `SystemCommandsProvider` with the same entries, order, matching and
    scores, but each title and help text is `printable` text in a `Content`, and
    a query's matched letters are highlighted on that text, never on markup.
    """

    async def discover(self) -> Hits:
        """Every discoverable command, by title (the palette before any query)."""
        commands = sorted(
            self.app.get_system_commands(self.screen), key=lambda c: c.title
        )
        for title, help_text, callback, discover in commands:
            if discover:
                text = printable(title)
                yield DiscoveryHit(
                    Content(text), callback, text=text, help=_plain(help_text)
                )

    async def search(self, query: str) -> Hits:
        """The commands whose title matches `query`, its letters highlighted."""
        matcher = self.matcher(query)
        for title, help_text, callback, *_ in self.app.get_system_commands(self.screen):
            text = printable(title)
            score = matcher.match(text)
            if score > 0:
                yield Hit(
                    score,
                    _highlight(matcher, text),
                    callback,
                    text=text,
                    help=_plain(help_text),
                )


def _plain(help_text: str) -> str:
    """Help text the palette shows as it reads.

    `Hit.help` is typed `str`, but the palette passes it to `Content.from_markup`,
    which returns a `Content` unchanged (documented), so no markup is parsed.
    """
    return cast(str, Content(printable(help_text)))


def _highlight(matcher: Matcher, text: str) -> Content:
    """`Matcher.highlight` on plain text: the matched letters in the match style."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if not score:
        return content
    for offset in offsets:
        if not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def _bind(
    apply: Callable[[str, str | bool], None], config_id: str, value: str | bool
) -> Callable[[], None]:
    def run() -> None:
        apply(config_id, value)

    return run


EXPORT_COMMAND: Final[JSONObject] = {
    "name": "export",
    "description": "Save this session as Markdown or JSON (not sent to the agent)",
    "input": {"hint": "[markdown|json] [PATH]"},
}
"""The local `/export` command, as a wire `AvailableCommand` for completion."""


def with_local_commands(commands: Sequence[JSONObject]) -> list[JSONObject]:
    """The agent's commands plus the app's own (`/export`), which take precedence."""
    return [
        *(c for c in commands if c.get("name") not in ("export", "/export")),
        EXPORT_COMMAND,
    ]


@dataclass(frozen=True, slots=True)
class ExportRequest:
    """What `/export` was asked to write."""

    output_format: ExportFormat
    path: Path


def exports_dir() -> Path:
    """Where `/export` without a PATH writes: `exports/` in the data directory.

    Not the project: an export is acp-tui's file, not the user's, and must not
    land in their working tree (or their next commit).
    """
    from acp_tui.storage.paths import data_dir

    return data_dir() / "exports"


def export_request(
    text: str, *, cwd: Path, session_id: str, default_dir: Path | None = None
) -> ExportRequest | str | None:
    """Parse a prompt as `/export [markdown|json] [PATH]`.

    Args:
        text: The prompt as typed.
        cwd: Where a relative PATH lives.
        session_id: Names the default file, `acp-tui-<session id>.md` / `.json`.
        default_dir: Where the default file lives (default: `exports_dir()`,
            created private, 0700, like the rest of the data directory).

    Returns:
        None if the prompt is not `/export` (it goes to the agent), else the
        request, or an error message for the user.
    """
    stripped = text.strip()
    name, *_ = stripped.split(maxsplit=1) or [""]
    if name != "/export":
        return None
    rest = stripped.removeprefix("/export").strip()
    first, _, tail = rest.partition(" ")
    output_format: ExportFormat | None = None
    for known in EXPORT_FORMATS:
        if first.lower() in (known, "md" if known == "markdown" else known):
            output_format = known
            rest = tail.strip()
            break
    if "\n" in rest:
        return "/export takes one line: /export [markdown|json] [PATH]"
    if output_format is None:
        output_format = "json" if rest.lower().endswith(".json") else "markdown"
    if rest:
        path = Path(rest).expanduser()
        path = path if path.is_absolute() else cwd / path
    else:
        suffix = ".json" if output_format == "json" else ".md"
        safe_id = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id)
        directory = default_dir
        if directory is None:
            from acp_tui.storage.private_files import make_private_dir

            directory = exports_dir()
            with contextlib.suppress(OSError):  # then writing says why
                make_private_dir(directory)
        path = directory / f"acp-tui-{safe_id}{suffix}"
    return ExportRequest(output_format, path)
