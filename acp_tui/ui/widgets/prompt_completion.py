"""Completion for the prompt editor: `/` commands and `@` files.

`PromptCompletion` is textual-autocomplete's `AutoComplete` (a dropdown in a screen
overlay) pointed at a `TextArea` instead of an `Input`. The base class talks to its
target in a few places only, and this subclass replaces each of them:

* `target`: returns the `TextArea`;
* `_get_target_state`: the text (lines joined with newlines) and the cursor as an
  offset into it;
* `_listen_to_messages`: also reacts to `TextArea.Changed` (the base only knows
  `Input.Changed`); key handling (up/down/enter/tab/escape while the dropdown
  is open) is the base's;
* `apply_completion`: replaces the token under the cursor in the `TextArea`;
* `_rebuild_options`: leaves an empty list that stays empty alone (no refresh of
  the hidden dropdown, and so no arrangement of the whole screen, per keystroke),
  and shows commands one a row (`-commands`: descriptions cut with an ellipsis).

Everything else (alignment under the cursor, focus and selection watching, the
option list) is the base class unchanged. The key events reach the dropdown after
the `TextArea` has handled them (textual publishes a widget's messages to
subscribers once its own handlers ran), so the `TextArea` must leave Enter alone
while `is_open` (see `PromptInput`); the other keys are bindings, which run later.

What is completed depends on the text before the cursor (`completion_context`):

* a prompt whose first word is being typed and starts with `/`: the agent's
  commands (`set_commands`), with their descriptions;
* a word starting with `@` (or `@"` for a path with spaces): files under the
  working directory, indexed in a thread by `scan_project_files`, refreshed when
  older than `FILE_INDEX_TTL`; images only when the agent takes them. A path
  holding a control or format character is not offered (`_drawable`): neither
  the dropdown nor the prompt could show it without writing it to the terminal.

Agent text (command names, descriptions, hints) is `printable` and shown as
`Content`, never markup.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Final, Literal

import anyio.to_thread
from textual import events, work
from textual.content import Content
from textual.css.query import NoMatches
from textual.geometry import Offset, Region, Spacing
from textual.widgets import TextArea
from textual.widgets.text_area import Location
from textual_autocomplete import AutoComplete, DropdownItem, TargetState

from acp_tui.client.prompt_content import (
    SCAN_LIMIT,
    ProjectFile,
    PromptCapabilities,
    mention_text,
    mentioned_paths,
    scan_project_files,
)
from acp_tui.safe_text import JOINERS, printable
from acp_tui.store.values import JSONObject

__all__ = [
    "FILE_INDEX_TTL",
    "MAX_ROWS",
    "MAX_SHOWN",
    "CompletionContext",
    "CompletionItem",
    "PromptCompletion",
    "SlashCommand",
    "completion_context",
    "parse_commands",
]

FILE_INDEX_TTL: Final = 10.0
"""Seconds a file index is used before a new `@` completion rescans."""

MAX_SHOWN: Final = 50
"""Most entries in the dropdown."""

_FUZZY_POOL: Final = 300
"""Most candidates scored by the (slower) fuzzy matcher per keystroke."""

MAX_ROWS: Final = 12
"""Height of the dropdown (more entries scroll)."""

_COMMAND: Final = re.compile(r"/(\S*)")
_QUOTED_FILE: Final = re.compile(r'(?<!\S)@"([^"\n]*)\Z')
_BARE_FILE: Final = re.compile(r'(?<!\S)@([^\s"]*)\Z')
_QUOTED_REST: Final = re.compile(r'[^"\n]*"?')
_BARE_REST: Final = re.compile(r"\S*")


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """An agent command, from `available_commands_update`."""

    name: str
    """Without the leading `/`."""
    description: str
    hint: str | None
    """The `input.hint`: what to type after the command, if it takes input."""


def parse_commands(commands: Sequence[JSONObject]) -> tuple[SlashCommand, ...]:
    """Read wire command objects (`name`, `description`, `input.hint`).

    Entries without a usable name are skipped; control characters are escaped.

    Args:
        commands: The `availableCommands` list as received.

    Returns:
        The commands, in the agent's order.
    """
    parsed: list[SlashCommand] = []
    for command in commands:
        name = command.get("name")
        if not isinstance(name, str):
            continue
        name = name.removeprefix("/")
        if not name or any(character.isspace() for character in name):
            continue
        description = command.get("description")
        entry = command.get("input")
        hint = entry.get("hint") if isinstance(entry, dict) else None
        parsed.append(
            SlashCommand(
                name=printable(name),
                description=printable(description)
                if isinstance(description, str)
                else "",
                hint=printable(hint) if isinstance(hint, str) and hint else None,
            )
        )
    return tuple(parsed)


@dataclass(frozen=True, slots=True)
class CompletionContext:
    """The token the cursor is completing."""

    kind: Literal["command", "file"]
    start: int
    """Offset of the `/` or `@`."""
    end: int
    """Offset just past the token (past a closing quote)."""
    query: str
    """What was typed between the `/`, `@` or `@"` and the cursor."""


def completion_context(text: str, cursor: int) -> CompletionContext | None:
    """What the cursor is completing, if anything.

    Args:
        text: The prompt text.
        cursor: The cursor as an offset into `text`.

    Returns:
        A command when the text starts with `/` and the cursor is in that first
        word; a file when the cursor is in a word starting with `@`; else None.
    """
    before, after = text[:cursor], text[cursor:]
    command = _COMMAND.fullmatch(before)
    if command is not None:
        rest = _BARE_REST.match(after)
        end = cursor + (rest.end() if rest else 0)
        return CompletionContext("command", 0, end, command.group(1))
    quoted = _QUOTED_FILE.search(before)
    if quoted is not None:
        rest = _QUOTED_REST.match(after)
        end = cursor + (rest.end() if rest else 0)
        return CompletionContext("file", quoted.start(), end, quoted.group(1))
    bare = _BARE_FILE.search(before)
    if bare is not None:
        rest = _BARE_REST.match(after)
        end = cursor + (rest.end() if rest else 0)
        return CompletionContext("file", bare.start(), end, bare.group(1))
    return None


def _scan_drawable(cwd: Path) -> tuple[tuple[ProjectFile, ...], list[ProjectFile]]:
    """The project's files under `cwd`, and those whose names can be drawn."""
    files = tuple(scan_project_files(cwd, limit=SCAN_LIMIT))
    return files, [file for file in files if _drawable(file.path)]


def _drawable(path: str) -> bool:
    """Whether a file's path can be listed, and typed into the prompt, as it is.

    A name with a control or format character (ESC, a bidi override...) would be
    written raw to the terminal, by the dropdown and by the prompt's `TextArea`
    once chosen; such files (an agent can create them) are not offered. Other
    kinds of space and zero-width joiners act on nothing.
    """
    return path.isprintable() or all(
        character.isprintable()
        or character in JOINERS
        or unicodedata.category(character) == "Zs"
        for character in path
    )


def _is_subsequence(query: str, candidate: str) -> bool:
    remaining = iter(candidate)
    return all(character in remaining for character in query)


def _offset(lines: Sequence[str], location: Location) -> int:
    row, column = location
    return sum(len(line) + 1 for line in lines[:row]) + column


def _location(lines: Sequence[str], offset: int) -> Location:
    for row, line in enumerate(lines):
        if offset <= len(line):
            return (row, offset)
        offset -= len(line) + 1
    return (len(lines) - 1, len(lines[-1])) if lines else (0, 0)


class CompletionItem(DropdownItem):
    """A dropdown entry: what it inserts (`value`) and how it shows.

    Args:
        value: The command (`/name`) or relative file path.
        description: Shown muted after the value (a command's description).
        width: Pad the value to this many characters before the description.
        main: The display, when already built (with match highlights).
    """

    def __init__(
        self,
        value: str,
        *,
        description: str = "",
        width: int = 0,
        main: Content | None = None,
    ) -> None:
        if main is None:
            main = Content(value)
            first_line = description.strip().splitlines()[0] if description else ""
            if first_line:
                padding = " " * (max(width, len(value)) - len(value) + 2)
                main = Content.assemble(
                    main, padding, Content(first_line).stylize("$foreground-muted")
                )
        super().__init__(main)
        self._value = value

    @property
    def value(self) -> str:
        """The text completed into the prompt."""
        return self._value


class PromptCompletion(AutoComplete):
    """The `/` and `@` dropdown of a prompt `TextArea`.

    Args:
        target: The prompt editor it completes.
        cwd: The working directory whose files `@` offers (None: no files).
        suppressed: Returns True while completion should stay closed (for
            instance while the editor shows a recalled history entry).
        id: The widget id.
    """

    DEFAULT_CSS = """
    PromptCompletion {
        background: $panel;
        max-height: 12;
        & AutoCompleteList {
            max-width: 100;
        }
        &.-commands AutoCompleteList {
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
    }
    """

    def __init__(
        self,
        target: TextArea,
        *,
        cwd: Path | None = None,
        suppressed: Callable[[], bool] | None = None,
        id: str | None = None,
    ) -> None:
        # The base class annotates `Input`; `target` and `_get_target_state` below
        # are the only places that read it, and both treat it as a TextArea.
        super().__init__(target, None, id=id)  # type: ignore[arg-type]
        self._text_area = target
        self._suppressed = suppressed
        self.cwd = cwd
        self.commands: tuple[SlashCommand, ...] = ()
        self.capabilities = PromptCapabilities()
        self._files: tuple[ProjectFile, ...] = ()
        self._file_items: tuple[tuple[CompletionItem, bool], ...] = ()
        """One item per indexed file, with whether it is an image (built once)."""
        self._files_version = 0
        self._memo: tuple[Hashable, tuple[DropdownItem, ...]] | None = None
        """The last ranking (a keystroke asks twice: cursor moved, text changed)."""
        self._scanned_at: float | None = None
        self._scanning = False

    # -- public -----------------------------------------------------------------------

    @property
    def target(self) -> TextArea:  # type: ignore[override]
        """The prompt editor."""
        return self._text_area

    @property
    def is_open(self) -> bool:
        """Whether the dropdown is showing entries (Enter/Tab complete, Esc closes)."""
        if not self.display or not self.is_mounted:
            return False
        try:
            return self.option_list.option_count > 0
        except NoMatches:  # not composed yet
            return False

    def catch_up(self) -> None:
        """Bring the entries (and whether they show) up to date with the text now.

        The dropdown follows the editor's `Changed` messages, which queue behind
        keys typed fast; Enter asks first, so it acts on what was typed.
        """
        if self.target.has_focus:
            self._handle_target_update()

    @property
    def files(self) -> Sequence[ProjectFile]:
        """The current file index (empty until the first scan finishes)."""
        return self._files

    def on_mount(self) -> None:
        """Start indexing the working directory's files."""
        self.refresh_files()

    def set_commands(self, commands: Sequence[JSONObject]) -> None:
        """Replace the agent's command list.

        Args:
            commands: Wire `AvailableCommand` objects.
        """
        self.commands = parse_commands(commands)

    def refresh_files(self) -> None:
        """Rescan the working directory in the background."""
        if self.cwd is None or self._scanning:
            return
        self._scanning = True
        self._scan_files(self.cwd)

    # -- textual-autocomplete hooks ---------------------------------------------------

    def _get_target_state(self) -> TargetState:
        lines = self._text_area.document.lines
        return TargetState(
            text="\n".join(lines),
            cursor_position=_offset(lines, self._text_area.cursor_location),
        )

    def _listen_to_messages(self, event: events.Event) -> None:
        super()._listen_to_messages(event)
        if isinstance(event, TextArea.Changed):
            self._handle_target_update()

    def _align_to_target(self) -> None:
        """Open above the editor in the lower half of the screen, else below.

        The prompt usually sits near the bottom of the screen, where the base class
        (which only opens downwards) would push the dropdown off screen. The side
        depends on where the cursor is, not on how many entries there are, so the
        dropdown does not jump while the user types.
        """
        x, y = self.target.cursor_screen_offset
        width, _ = self.option_list.outer_size
        height = min(self.option_list.option_count, MAX_ROWS)
        area = self.screen.scrollable_content_region
        top = y + 1
        above = self.target.region.y - height  # clear of the editor's text
        lower_half = y - area.y >= area.height // 2
        if (lower_half or top + height > area.bottom) and above >= area.y:
            top = above
        x, top, _, _ = Region(x - 1, top, width, height).constrain(
            "inside", "inside", Spacing.all(0), area
        )
        self.absolute_offset = Offset(x, top)

    def _rebuild_options(self, target_state: TargetState, search_string: str) -> None:
        """The base class's rebuild, which leaves an empty list alone.

        Every keystroke rebuilds the list twice (the cursor moved, the text
        changed), and the base class clears it each time even when it is empty
        and stays empty, the usual case (no `/` or `@` token). Clearing refreshes
        the hidden list, and a refresh of a widget that is not on screen makes
        Textual's compositor drop its map of the screen, so the next question
        about where a widget is arranged the whole screen again: two
        arrangements a keystroke, each walking every card mounted in the
        conversation (about 1.5 ms each with a short conversation, more with
        a long one), while a session streams as well.
        """
        option_list = self.option_list
        # A command shows on one row, its description cut to fit with an
        # ellipsis: claude-agent-acp describes its skills in a paragraph on one
        # line, which wrapped into ten of the dropdown's twelve rows. A file's
        # path still wraps (its end, the file's name, matters most).
        context = self._completion_context(target_state)
        self.set_class(context is not None and context.kind == "command", "-commands")
        matches = (
            self._compute_matches(target_state, search_string)
            if self.target.has_focus
            else []
        )
        if not matches and not option_list.option_count:
            return  # empty, and it stays so: nothing to refresh
        option_list.clear_options()
        if matches:
            option_list.add_options(matches)
            option_list.highlighted = 0

    def _completion_context(self, state: TargetState) -> CompletionContext | None:
        if self._suppressed is not None and self._suppressed():
            return None
        return completion_context(state.text, state.cursor_position)

    def get_search_string(self, target_state: TargetState) -> str:
        """The query of the token under the cursor ("" when there is none)."""
        context = self._completion_context(target_state)
        return context.query if context is not None else ""

    def get_candidates(self, target_state: TargetState) -> list[DropdownItem]:
        """Commands or files, depending on the token under the cursor."""
        context = self._completion_context(target_state)
        if context is None:
            return []
        if context.kind == "command":
            width = max((len(command.name) + 1 for command in self.commands), default=0)
            return [
                CompletionItem(
                    "/" + command.name, description=command.description, width=width
                )
                for command in self.commands
            ]
        self._ensure_files()
        text = target_state.text
        elsewhere = set(mentioned_paths(text[: context.start] + text[context.end :]))
        images = self.capabilities.image
        return [
            item
            for item, is_image in self._file_items
            if item.value not in elsewhere and (images or not is_image)
        ]

    def get_matches(
        self,
        target_state: TargetState,
        candidates: list[DropdownItem],
        search_string: str,
    ) -> list[DropdownItem]:
        """Rank candidates: name-prefix, then substring, then fuzzy matches.

        A cheap filter (the query's letters in order) and a cheap tier come first;
        only the best `_FUZZY_POOL` candidates get the fuzzy score, and only the
        shown ones get highlights, so a keystroke stays fast with thousands of files.
        """
        if not search_string:
            return candidates[:MAX_SHOWN]
        context = self._completion_context(target_state)
        skip = 1 if context is not None and context.kind == "command" else 0
        memo_key = (
            search_string,
            skip,
            len(candidates),
            self._files_version,
            self.commands,
            self.capabilities,
            target_state.text,
            target_state.cursor_position,
        )
        if self._memo is not None and self._memo[0] == memo_key:
            return list(self._memo[1])
        query = search_string.lower()
        pool: list[tuple[int, int, DropdownItem, str]] = []
        for order, candidate in enumerate(candidates):
            name = candidate.value[skip:]
            lowered = name.lower()
            if not _is_subsequence(query, lowered):
                continue
            basename = lowered.rsplit("/", 1)[-1]
            tier = (
                4
                if basename.startswith(query)
                else 3
                if lowered.startswith(query)
                else 2
                if query in basename
                else 1
                if query in lowered
                else 0
            )
            pool.append((tier, -order, candidate, name))
        if len(pool) > _FUZZY_POOL:
            pool = sorted(pool, key=itemgetter(0, 1), reverse=True)[:_FUZZY_POOL]
        scored: list[tuple[int, float, int, DropdownItem, tuple[int, ...]]] = []
        for tier, negative_order, candidate, name in pool:
            score, offsets = self.match(search_string, name)
            if score > 0:
                scored.append((tier, score, negative_order, candidate, tuple(offsets)))
        scored.sort(key=itemgetter(0, 1, 2), reverse=True)
        matches: list[DropdownItem] = []
        for _, _, _, candidate, offsets in scored[:MAX_SHOWN]:
            main = self.apply_highlights(
                candidate.main, tuple(offset + skip for offset in offsets)
            )
            matches.append(CompletionItem(candidate.value, main=main))
        self._memo = (memo_key, tuple(matches))
        return matches

    def should_show_dropdown(self, search_string: str) -> bool:
        """Open when there is a token and entries, unless it is already complete."""
        context = self._completion_context(self._get_target_state())
        count = self.option_list.option_count
        if context is None or count == 0:
            return False
        if count == 1:
            only = self.option_list.get_option_at_index(0)
            typed = "/" + context.query if context.kind == "command" else context.query
            return not (isinstance(only, DropdownItem) and only.value == typed)
        return True

    def apply_completion(self, value: str, state: TargetState) -> None:
        """Replace the token under the cursor with the chosen entry and a space."""
        context = self._completion_context(state)
        if context is None:
            return
        insert = value if context.kind == "command" else mention_text(value)
        following = state.text[context.end : context.end + 1]
        add_space = following not in (" ", "\t")
        if add_space:
            insert += " "
        lines = self._text_area.document.lines
        start = _location(lines, context.start)
        end = _location(lines, context.end)
        result = self._text_area.replace(
            insert, start, end, maintain_selection_offset=False
        )
        if not add_space:
            row, column = result.end_location
            self._text_area.move_cursor((row, column + 1))
        new_state = self._get_target_state()
        self._rebuild_options(new_state, self.get_search_string(new_state))

    # -- file index -------------------------------------------------------------------

    def _ensure_files(self) -> None:
        stale = (
            self._scanned_at is None
            or time.monotonic() - self._scanned_at > FILE_INDEX_TTL
        )
        if stale and not self.display:
            self.refresh_files()

    @work(exclusive=True, group="prompt-file-index", exit_on_error=False)
    async def _scan_files(self, cwd: Path) -> None:
        try:
            # A scan only reads: on cancel (the app quits) leave it to finish alone.
            # The scan and the check of every name in the worker's thread: a
            # folder of thousands of files took 55 ms of the event loop.
            files, drawable = await anyio.to_thread.run_sync(
                lambda: _scan_drawable(cwd), abandon_on_cancel=True
            )
        finally:
            self._scanning = False
        self._files = files
        self._file_items = tuple(
            (CompletionItem(file.path), file.is_image) for file in drawable
        )
        self._files_version += 1
        self._scanned_at = time.monotonic()
        if self.is_attached and self.target.has_focus:
            context = self._completion_context(self._get_target_state())
            if context is not None and context.kind == "file":
                self._handle_target_update()
