"""The session picker: resume a listed session, start a new one, or delete one.

The screen does no protocol work. It is given an async `load` callable (the app
wraps `AcpClient.list_sessions`) and, optionally, an async `delete`; it returns a
`SessionPick` (or `None` on Esc) through `dismiss`.

Given `saved` (the app passes `acp_tui.storage.transcripts.list_transcripts` for its
agent), the transcripts saved on this computer are listed too: after the agent's
sessions, those the agent did not list (marked "saved locally"; never the current
session), or alone when the agent cannot list its sessions (`load` raised). A pick
of such a row carries the transcript's path.

Each row shows the session's directory (the home directory as `~`). Given `roots`
(the project directory first, then the directories the user added), a session
whose directory lies outside all of them is marked "other folder", and picking it
asks first (`ConfirmFolderScreen`): resuming it moves the session's roots to that
directory, so the dialog names the directory, says the agent may read and write
there instead of the project, and warns when it is `/` or holds the home
directory. Only a confirmed pick carries `SessionPick.root`; declining keeps the
picker open. Without `roots` (nothing to compare with) no row is marked and no
pick carries a root, so the project's roots stay. A saved session that the agent
cannot reopen (`reopens_saved=False`) is only shown, never resumed: no question.

Keys: type to filter (case-insensitive: the title as shown, so `untitled` finds
the sessions without one, the directory, the session id, and the date as shown or
as `2026-12-02 14:05`), Up/Down (stopping at either end, no wrapping) and
PageUp/PageDown move, Enter picks, Ctrl+D (or Delete at the end of the filter)
deletes the highlighted session after a confirmation (which replaces whatever the
status line said before), Esc closes. Focus stays in the filter; the list is
driven from the screen.

Every string from the agent (titles, paths, ids, error messages) is shown as
`Content` built from `printable(...)` text, never parsed as markup.

The two questions the picker asks (`ConfirmDeleteScreen`, `ConfirmFolderScreen`)
live in `acp_tui.ui.screens.confirm`; they are re-exported here.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Final, Literal

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.safe_text import printable
from acp_tui.storage.transcripts import TranscriptInfo
from acp_tui.ui.deferred_work import later
from acp_tui.ui.screens.confirm import ConfirmDeleteScreen, ConfirmFolderScreen
from acp_tui.ui.screens.picker_admin import PickerAdmin, PickerAdminKeys, describe
from acp_tui.ui.screens.session_rows import (
    display_path,
    local_date,
    relative_time,
    row_matches,
    session_label,
)

if TYPE_CHECKING:
    from acp_tui.client.session import SessionSummary

__all__ = [
    "ConfirmDeleteScreen",
    "ConfirmFolderScreen",
    "SessionPick",
    "SessionPickerScreen",
    "display_path",
    "local_date",
    "relative_time",
    "session_label",
]

NEW_ROW_ID: Final = "new"
"""The option id of the "+ New session" row."""

_MUTED: Final = "dim"

OTHER_FOLDER: Final = "other folder"
"""The mark of a session whose directory lies outside the project's roots."""


@dataclass(frozen=True, slots=True)
class SessionPick:
    """What the user picked: resume a session, or start a new one."""

    action: Literal["resume", "new"]
    """`"resume"` a listed session, or start a `"new"` one."""
    session_id: str | None = None
    """The session to resume (`None` for a new session)."""
    cwd: str | None = None
    """The session's working directory as listed by the agent."""
    transcript: Path | None = None
    """Set for a session saved on this computer that the agent did not list: its
    transcript file (`acp_tui.storage.transcripts`)."""
    root: Path | None = None
    """The session's directory, when it lies outside the project's roots and the
    user confirmed that the agent may read and write there instead."""


class SessionPickerScreen(PickerAdminKeys, ModalScreen[SessionPick | None]):
    """Pick a session to resume (or start a new one) from the agent's list.

    Args:
        load: Returns the sessions to list (run in a worker on mount; an
            exception's message is shown in the dialog).
        delete: Deletes one session by id; without it, sessions cannot be deleted.
        current_session_id: The session the app is showing (marked, not deletable).
        title: The dialog's heading.
        now: The clock for relative times (tests pass a fixed one).
        saved: Returns the transcripts saved on this computer (run in a thread).
        roots: The directories the agent may use now, the project first: a
            session elsewhere is marked, and resuming it asks first.
        reopens_saved: Whether a session saved only on this computer is resumed
            with the agent (else it is only shown: no question is asked).
        home: The home directory, shown as `~` (default: the user's).
        admin: Rename, archive and status calls, where the agent offers them
            (`acp_tui.ui.screens.picker_admin`).
    """

    DEFAULT_CSS = """
    SessionPickerScreen {
        align: center middle;
        & > #session-dialog {
            width: 90%;
            max-width: 110;
            height: 80%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        & #session-title { text-style: bold; padding: 0 1; }
        & #session-filter { margin: 0; }
        & #session-list {
            height: 1fr;
            & > .option-list--option-highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        & #session-status {
            color: $text-muted;
            padding: 0 1;
            &.-error { color: $error; }
        }
        & #session-hint { color: $text-muted; padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close"),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        # Priority: the filter Input binds both keys to "delete right".
        Binding("ctrl+d", "delete_session", "Delete", priority=True),
        Binding("delete", "delete_key", "Delete", show=False, priority=True),
        Binding("ctrl+r", "rename_session", "Rename", priority=True),
        Binding("ctrl+o", "archive_session", "Archive", priority=True),
        Binding("ctrl+l", "toggle_archived", "Archived", priority=True),
    ]

    def __init__(
        self,
        load: Callable[[], Awaitable[Sequence[SessionSummary]]],
        *,
        delete: Callable[[str], Awaitable[None]] | None = None,
        current_session_id: str | None = None,
        title: str = "Sessions",
        now: Callable[[], datetime] | None = None,
        saved: Callable[[], Sequence[TranscriptInfo]] | None = None,
        roots: Sequence[Path] = (),
        reopens_saved: bool = True,
        home: Path | None = None,
        admin: PickerAdmin | None = None,
    ) -> None:
        super().__init__()
        self._load = load
        self.admin = admin or PickerAdmin()
        self.statuses = {}
        self.roots = tuple(roots)
        """The directories the agent may use now (the project first)."""
        self._reopens_saved = reopens_saved
        self._home = home if home is not None else Path.home()
        self.elsewhere: dict[str, Path] = {}
        """The sessions whose directory lies outside `roots`: id to directory,
        resolved (symlinks followed, as the client checks roots)."""
        self._load_saved = saved
        self.saved_only: dict[str, TranscriptInfo] = {}
        """The listed sessions known only from a saved transcript, by id."""
        self._note = ""
        """Shown under the list while sessions are visible."""
        self._delete = delete
        self.current_session_id = current_session_id
        """The session the app is showing (marked in the list)."""
        self.title_text = title
        """The dialog's heading."""
        self._now = now or (lambda: datetime.now(UTC).astimezone())
        self.sessions: list[SessionSummary] = []
        """The sessions loaded (minus deleted ones), in the agent's order."""
        self.loaded = False
        """Whether `load` has finished (successfully or not)."""
        self._rows: dict[str, SessionSummary] = {}

    def compose(self) -> ComposeResult:
        """Build the child widgets."""
        with Vertical(id="session-dialog"):
            yield Static(Content(self.title_text), id="session-title")
            yield Input(
                placeholder="Filter by title, folder or id", id="session-filter"
            )
            yield OptionList(id="session-list")
            yield Static(Content("Loading sessions…"), id="session-status")
            hint = "↑↓ move · enter open · "
            if self._delete is not None:
                hint += "ctrl+d delete · "
            hint += self.admin_hints()
            yield Static(Content(hint + "esc close"), id="session-hint")

    def on_mount(self) -> None:
        """Show the "new session" row and start loading."""
        self._option_list.can_focus = False
        self._rebuild()
        self.query_one("#session-filter", Input).focus()
        self._start_loading()

    def _start_loading(self) -> None:
        self.run_worker(
            later(self._load_sessions),
            name="load-sessions",
            group="session-picker",
            exclusive=True,
            exit_on_error=False,
        )

    @property
    def _option_list(self) -> OptionList:
        return self.query_one("#session-list", OptionList)

    @property
    def filter_text(self) -> str:
        """The current filter ("" until the screen is composed)."""
        found = self.query("#session-filter").results(Input)
        return next((field.value for field in found), "")

    @property
    def visible_sessions(self) -> list[SessionSummary]:
        """The sessions that match the filter, in list order."""
        needle = self.filter_text.strip().casefold()
        listed = [s for s in self.sessions if not self.hides(s)]
        if not needle:
            return listed
        now = self._now()
        return [
            s
            for s in listed
            if row_matches(
                s,
                needle,
                (
                    relative_time(s.updated_at, now),
                    local_date(s.updated_at, now),
                    display_path(s.cwd, self._home),
                ),
            )
        ]

    async def _load_sessions(self) -> None:
        failure: str | None = None
        try:
            sessions = list(await self._load())
        except Exception as exc:  # shown to the user; never a traceback
            sessions, failure = [], describe(exc)
        extra = await self._saved_sessions({s.session_id for s in sessions})
        if self.roots:
            self.elsewhere = await asyncio.to_thread(
                _outside, sessions + extra, self.roots
            )
        self.loaded = True
        if failure is not None and not extra:
            self._set_status(f"Could not load sessions: {failure}", error=True)
            return
        if failure is not None:
            self._note = (
                f"The agent did not list its sessions ({failure}): these are "
                "the ones saved on this computer."
            )
        self.sessions = sessions + extra
        self._rebuild(highlight_first=True)
        await self.load_statuses()

    def _reload(self) -> None:
        """Load the sessions again (`_load` may have changed)."""
        self.loaded = False
        self._set_status("Loading sessions…")
        self._start_loading()

    async def _saved_sessions(self, listed: set[str]) -> list[SessionSummary]:
        """The saved transcripts the agent did not list, as rows."""
        if self._load_saved is None:
            return []
        from acp_tui.client.session import SessionSummary

        try:
            saved = await asyncio.to_thread(self._load_saved)
        except Exception:  # a broken data directory: the agent's list still shows
            return []
        rows: list[SessionSummary] = []
        for info in saved:
            if info.session_id in listed or info.session_id == self.current_session_id:
                continue
            if info.session_id in self.saved_only:
                continue
            self.saved_only[info.session_id] = info
            title = (info.title or "").strip().splitlines()
            rows.append(
                SessionSummary(
                    info.session_id,
                    info.cwd,
                    title[0] if title else None,
                    info.updated_at,
                    {},
                )
            )
        return rows

    def _set_status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#session-status", Static)
        status.update(Content(text))
        status.set_class(error, "-error")
        status.display = bool(text)

    def _row(self, summary: SessionSummary) -> Content:
        title = session_label(summary)
        untitled = not printable(summary.title or "").strip()
        parts: list[str | tuple[str, str]] = [
            (title, f"italic {_MUTED}") if untitled else (title, "bold")
        ]
        if summary.session_id == self.current_session_id:
            parts.append(("  ● current", "$success"))
        if summary.session_id in self.saved_only:
            parts.append(("  saved locally", _MUTED))
        parts.extend(self.row_marks(summary))
        details = [display_path(summary.cwd, self._home)]
        when = relative_time(summary.updated_at, self._now())
        if when:
            details.append(when)
        parts.append(("\n  " + " · ".join(details), _MUTED))
        if summary.session_id in self.elsewhere:
            parts.append((f" · {OTHER_FOLDER}", "$text-warning"))
        return Content.assemble(*parts)

    def _rebuild(self, *, highlight_first: bool = False) -> None:
        """Refill the list from `sessions` and the filter, keeping the highlight."""
        option_list = self._option_list
        previous = self.highlighted_session()
        previous_index = option_list.highlighted
        visible = self.visible_sessions
        self._rows = {f"session-{n}": s for n, s in enumerate(visible)}
        option_list.clear_options()
        option_list.add_option(
            Option(Content.styled("+ New session", "bold $accent"), id=NEW_ROW_ID)
        )
        option_list.add_options(
            Option(self._row(summary), id=row_id)
            for row_id, summary in self._rows.items()
        )
        target = 1 if visible else 0
        if not highlight_first and previous_index is not None:
            if previous is None:  # it was on the "new session" row
                target = 0
            else:
                row_id = next(
                    (
                        k
                        for k, s in self._rows.items()
                        if s.session_id == previous.session_id
                    ),
                    None,
                )
                target = (
                    option_list.get_option_index(row_id)
                    if row_id is not None
                    else min(previous_index, option_list.option_count - 1)
                )
        option_list.highlighted = target
        option_list.scroll_to_highlight()
        if not self.loaded:
            return
        if not self.sessions:
            self._set_status("No saved sessions yet.")
        elif not visible:
            self._set_status(f"No sessions match “{printable(self.filter_text)}”.")
        else:
            self._set_status(self._note)

    def highlighted_session(self) -> SessionSummary | None:
        """The session under the cursor (`None` on the "new session" row)."""
        option = self._option_list.highlighted_option
        return self._rows.get(option.id or "") if option is not None else None

    @on(Input.Changed, "#session-filter")
    def _filter_changed(self) -> None:
        self._rebuild(highlight_first=True)

    @on(Input.Submitted, "#session-filter")
    @on(OptionList.OptionSelected, "#session-list")
    def _row_chosen(self, event: Input.Submitted | OptionList.OptionSelected) -> None:
        """Enter in the filter, or a row chosen: pick the highlighted row."""
        event.stop()
        self._pick_highlighted()

    def _pick_highlighted(self) -> None:
        option = self._option_list.highlighted_option
        if option is None:
            return
        if option.id == NEW_ROW_ID:
            self.dismiss(SessionPick("new"))
            return
        summary = self._rows.get(option.id or "")
        if summary is None:
            return
        saved = self.saved_only.get(summary.session_id)
        path = saved.path if saved is not None else None
        pick = SessionPick("resume", summary.session_id, summary.cwd, path)
        only_shown = path is not None and not self._reopens_saved
        if summary.session_id not in self.elsewhere or only_shown:
            self.dismiss(pick)
            return
        label = session_label(summary)

        def confirmed(answer: bool | None) -> None:
            if answer:
                self.dismiss(replace(pick, root=folder))
            else:
                self._set_status(f"“{label}” was not resumed.")

        folder = self.elsewhere[summary.session_id]
        question = ConfirmFolderScreen(
            label, folder, summary.cwd, self.roots[0], self._home
        )
        self.app.push_screen(question, callback=confirmed)

    def action_move(self, delta: int) -> None:
        """Move the highlight by `delta` rows; it stops at either end.

        No wrapping: Down on the last match stays there rather than jump to
        "+ New session" at the top (which, after filtering, read as a match).
        """
        option_list = self._option_list
        last = option_list.option_count - 1
        if last < 0:
            return
        current = option_list.highlighted
        target = 0 if current is None else current + delta
        option_list.highlighted = max(0, min(last, target))
        option_list.scroll_to_highlight()

    async def action_page(self, delta: int) -> None:
        """Move the highlight by a page."""
        await self._option_list.run_action("page_up" if delta < 0 else "page_down")

    def action_cancel(self) -> None:
        """Close without picking."""
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Delete keys do nothing (and reach the filter) without a `delete`."""
        if action in ("delete_session", "delete_key"):
            return self._delete is not None
        offered = {
            "rename_session": self.admin.rename,
            "archive_session": self.admin.archive,
            "toggle_archived": self.admin.load_all,
        }
        if action in offered:
            return offered[action] is not None
        return True

    def action_delete_key(self) -> None:
        """Delete the character right of the filter's cursor, else the session."""
        filter_input = self.query_one("#session-filter", Input)
        if filter_input.cursor_position < len(filter_input.value):
            raise SkipAction()
        self.action_delete_session()

    def action_delete_session(self) -> None:
        """Ask to delete the highlighted session, then delete it."""
        summary = self.highlighted_session()
        if summary is None or self._delete is None:
            raise SkipAction()
        label = session_label(summary)
        if summary.session_id == self.current_session_id:
            self._set_status(f"“{label}” is the current session.", error=True)
            return
        if summary.session_id in self.saved_only:
            self._set_status(f"“{label}” is only saved on this computer.", error=True)
            return

        def confirmed(answer: bool | None) -> None:
            if answer:
                self.run_worker(
                    later(partial(self._delete_session, summary, label)),
                    name="delete-session",
                    group="session-picker-delete",
                    exit_on_error=False,
                )
            else:
                self._set_status(f"“{label}” was not deleted.")

        # What an earlier key said (another session's error, an earlier
        # deletion) no longer applies: the question replaces it.
        self._set_status(f"Delete “{label}”?")
        self.app.push_screen(ConfirmDeleteScreen(label), callback=confirmed)

    async def _delete_session(self, summary: SessionSummary, label: str) -> None:
        assert self._delete is not None
        self._set_status(f"Deleting “{label}”…")
        try:
            await self._delete(summary.session_id)
        except Exception as exc:  # shown to the user; never a traceback
            self._set_status(f"Could not delete “{label}”: {describe(exc)}", error=True)
            return
        self.sessions = [s for s in self.sessions if s is not summary]
        self._rebuild()
        if self.sessions:
            self._set_status(f"Deleted “{label}”.")


def _outside(
    sessions: Sequence[SessionSummary], roots: Sequence[Path]
) -> dict[str, Path]:
    """The sessions whose (absolute) directory lies outside `roots`, resolved.

    Resolved as the client resolves roots (symlinks followed), in a thread. A
    directory that is not absolute is resumed in the project, so it is not
    outside.
    """
    real_roots = [os.path.realpath(root) for root in roots]
    outside: dict[str, Path] = {}
    for summary in sessions:
        if not os.path.isabs(summary.cwd):
            continue
        real = Path(os.path.realpath(summary.cwd))
        if not any(real.is_relative_to(root) for root in real_roots):
            outside[summary.session_id] = real
    return outside
