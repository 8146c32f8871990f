"""The session picker's keys for titles, archiving and status, where offered.

`SessionPickerScreen` mixes in `PickerAdminKeys` and is given a `PickerAdmin`:
the calls the tab's agent offers (`session/set_title`, `session/archive` /
`unarchive` with the list's `archived` filter, `session/status`), each None where
it does not. The screen does no protocol work itself.

Keys (in the picker, whose focus stays in the filter): ctrl+r renames the
highlighted session (`RenameScreen`; the row shows the title the agent stored),
ctrl+o archives it (or unarchives an archived one), ctrl+l shows or hides the
archived sessions (hidden by default: the list is loaded again, including them,
and they are marked "archived"). With `status`, the listed sessions' status is
asked once they are loaded (at most `STATUS_ROWS`): a session the agent has in
memory is marked "open", with its foreground state when reported ("running",
"needs you").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Final

from textual.actions import SkipAction

from acp_tui.safe_text import printable
from acp_tui.ui.deferred_work import later
from acp_tui.ui.screens.rename import RenameScreen
from acp_tui.ui.screens.session_rows import session_label

if TYPE_CHECKING:
    from textual.screen import ModalScreen

    from acp_tui.client.session import SessionSummary
    from acp_tui.client.session_admin import SessionStatus
    from acp_tui.ui.screens.session_picker import SessionPick

    _Screen = ModalScreen[SessionPick | None]
else:
    _Screen = object

__all__ = ["STATUS_ROWS", "PickerAdmin", "PickerAdminKeys", "describe"]

STATUS_ROWS: Final = 20
"""How many listed sessions' status the picker asks for (one request each)."""

_STATES: Final = {"running": "running", "requires_action": "needs you"}


def describe(exc: BaseException) -> str:
    """An exception as one printable line: its message, or its type's name."""
    return printable(str(exc).strip()) or type(exc).__name__


@dataclass(frozen=True, slots=True)
class PickerAdmin:
    """What the picker may do with the agent's sessions beyond open and delete."""

    rename: Callable[[str, str], Awaitable[str]] | None = None
    """Sets a session's title; returns the title stored."""
    archive: Callable[[str, bool], Awaitable[None]] | None = None
    """Archives (True) or unarchives (False) a session."""
    load_all: Callable[[], Awaitable[Sequence[SessionSummary]]] | None = None
    """Lists the sessions, archived ones included."""
    status: Callable[[str], Awaitable[SessionStatus]] | None = None
    """Asks whether the agent has a session in memory."""


class PickerAdminKeys(_Screen):
    """The picker's rename, archive and status part (see the module docstring)."""

    if TYPE_CHECKING:  # what the picker provides
        admin: PickerAdmin
        sessions: list[SessionSummary]
        saved_only: Mapping[str, object]
        current_session_id: str | None
        _load: Callable[[], Awaitable[Sequence[SessionSummary]]]

        def highlighted_session(self) -> SessionSummary | None:
            """The session under the cursor."""

        def _set_status(self, text: str, *, error: bool = False) -> None: ...
        def _rebuild(self, *, highlight_first: bool = False) -> None: ...
        def _reload(self) -> None: ...

    show_archived: bool = False
    """The archived sessions are listed (ctrl+l)."""
    statuses: dict[str, SessionStatus]
    """What `session/status` said of listed sessions, by id."""

    def admin_hints(self) -> str:
        """The hint line's part for the keys the agent offers."""
        hints = []
        if self.admin.rename is not None:
            hints.append("ctrl+r rename")
        if self.admin.archive is not None:
            hints.append("ctrl+o archive")
        if self.admin.load_all is not None:
            hints.append("ctrl+l archived")
        return "".join(f"{hint} · " for hint in hints)

    def row_marks(self, summary: SessionSummary) -> list[tuple[str, str]]:
        """Marks after a row's title: archived, open (and its state)."""
        marks = []
        if summary.archived:
            marks.append(("  archived", "dim"))
        status = getattr(self, "statuses", {}).get(summary.session_id)
        if status is not None and status.status == "open":
            said = _STATES.get(status.state or "", "")
            marks.append((f"  ● open{' · ' + said if said else ''}", "$text-accent"))
        return marks

    def hides(self, summary: SessionSummary) -> bool:
        """Whether a listed row stays hidden (archived, while they are hidden)."""
        return summary.archived and not self.show_archived

    def _listed(self, summary: SessionSummary) -> bool:
        if summary.session_id in self.saved_only:
            label = session_label(summary)
            self._set_status(f"“{label}” is only saved on this computer.", error=True)
            return False
        return True

    def _failed(self, what: str, exc: BaseException) -> None:
        """Show that an admin call failed: `what`, then the exception's message."""
        self._set_status(f"{what}: {describe(exc)}", error=True)

    def _replace(self, summary: SessionSummary, changed: SessionSummary) -> None:
        """Show `changed` in the listed `summary`'s place."""
        self.sessions = [changed if s is summary else s for s in self.sessions]
        self._rebuild()

    # ------------------------------------------------------------------ rename

    def action_rename_session(self) -> None:
        """Ask for a new title of the highlighted session, then set it."""
        summary = self.highlighted_session()
        rename = self.admin.rename
        if summary is None or rename is None:
            raise SkipAction()
        if not self._listed(summary):
            return

        def chosen(title: str | None) -> None:
            if title:
                self.run_worker(
                    later(partial(self._rename, summary, title)),
                    group="session-picker-admin",
                    exit_on_error=False,
                )

        self.app.push_screen(RenameScreen(summary.title or ""), callback=chosen)

    async def _rename(self, summary: SessionSummary, title: str) -> None:
        assert self.admin.rename is not None
        try:
            stored = await self.admin.rename(summary.session_id, title)
        except Exception as exc:  # shown to the user; never a traceback
            self._failed("Could not rename the session", exc)
            return
        self._replace(summary, replace(summary, title=stored))
        self._set_status(f"Renamed to “{printable(stored)}”.")

    # ----------------------------------------------------------------- archive

    def action_archive_session(self) -> None:
        """Archive the highlighted session (unarchive an archived one)."""
        summary = self.highlighted_session()
        if summary is None or self.admin.archive is None:
            raise SkipAction()
        if summary.session_id == self.current_session_id:
            label = session_label(summary)
            self._set_status(f"“{label}” is the current session.", error=True)
            return
        if not self._listed(summary):
            return
        self.run_worker(
            later(partial(self._archive, summary, not summary.archived)),
            group="session-picker-admin",
            exit_on_error=False,
        )

    async def _archive(self, summary: SessionSummary, archived: bool) -> None:
        assert self.admin.archive is not None
        label = session_label(summary)
        try:
            await self.admin.archive(summary.session_id, archived)
        except Exception as exc:  # shown to the user; never a traceback
            self._failed(f"Could not archive “{label}”", exc)
            return
        self._replace(summary, replace(summary, archived=archived))
        done = "Archived" if archived else "Unarchived"
        hint = " (ctrl+l shows archived sessions)" if archived else ""
        self._set_status(f"{done} “{label}”.{hint}")

    def action_toggle_archived(self) -> None:
        """Show or hide the archived sessions (listed again with them)."""
        load_all = self.admin.load_all
        if load_all is None:
            raise SkipAction()
        self.show_archived = not self.show_archived
        if self.show_archived:
            self._load = load_all
            self._reload()
        else:
            self._rebuild()
            self._set_status("Archived sessions are hidden.")

    # ------------------------------------------------------------------ status

    async def load_statuses(self) -> None:
        """Ask the status of the first listed sessions, then mark the open ones."""
        status = self.admin.status
        if status is None:
            return
        found: dict[str, SessionStatus] = {}
        for summary in self.sessions[:STATUS_ROWS]:
            if summary.session_id in self.saved_only:
                continue
            try:
                found[summary.session_id] = await status(summary.session_id)
            except Exception:  # a status is a hint: the row stays as listed
                continue
        self.statuses = found
        if any(s.status == "open" for s in found.values()):
            self._rebuild()
