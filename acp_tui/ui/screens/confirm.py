"""The yes/no questions: delete a session, resume one in another folder, quit.

`SessionPickerScreen` (`acp_tui.ui.screens.session_picker`, which re-exports these
names) asks the first two; the app asks `ConfirmQuitScreen` before quitting with
unsent drafts or a turn running. All dismiss with a bool, and all are one
`_Question`: the same box, buttons and keys, each with its own question.

Invariants:

* The no button has the focus first: Enter alone, `n` and Esc say no; only `y`
  or the yes button says yes (and, for `ConfirmQuitScreen`, ctrl+q again: the
  quit key pressed twice quits without reading the question).
* `ConfirmFolderScreen` names the session's resolved directory (and how it was
  listed, when that reads otherwise), says the agent may read and write there
  instead of the project, and warns when it is `/` or holds the home directory.
* Labels and paths are shown as `Content` of printable text, never as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from acp_tui.safe_text import printable

__all__ = [
    "ConfirmDeleteScreen",
    "ConfirmFolderScreen",
    "ConfirmQuitScreen",
    "ConfirmRevertTurnScreen",
]


class _Question(ModalScreen[bool]):
    """A yes/no dialog; the no button has the focus first.

    `y` or the yes button says yes; `n`, Esc or the no button say no, and so does
    Enter alone. Every question has the same layout and look: a box in the
    middle of the screen (`.question-box`, in the warning colour unless the
    question says otherwise) holding what `question` yields, then the yes and
    no buttons, then what `footnote` yields. A question names its yes and no
    (`YES_NAME`, `NO_NAME`): its keys and button labels follow from them.
    """

    DEFAULT_CSS = """
    _Question {
        align: center middle;
        & > .question-box {
            width: auto;
            max-width: 76;
            height: auto;
            border: thick $warning;
            background: $surface;
            padding: 1 2;
        }
        & .question-text { width: auto; max-width: 70; }
        & .question-buttons { height: auto; width: auto; }
        & Button { margin-right: 1; }
    }
    """

    PREFIX: ClassVar[str]
    """The buttons' ids are `PREFIX-yes` and `PREFIX-no`."""
    YES_NAME: ClassVar[str]
    """What yes does: the yes key's name, and the yes button's label with `(y)`."""
    YES_KEYS: ClassVar[str] = "y"
    """The keys that say yes."""
    YES_VARIANT: ClassVar[ButtonVariant] = "warning"
    NO_NAME: ClassVar[str] = "Cancel"
    """The no keys' name, and the no button's label with `(n)`."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give a question its keys: `YES_KEYS` say yes, `n` and Esc say no."""
        if "YES_NAME" in cls.__dict__:
            cls.BINDINGS = [
                Binding(cls.YES_KEYS, "confirm", cls.YES_NAME),
                Binding("n,escape", "cancel", cls.NO_NAME),
            ]
        super().__init_subclass__(**kwargs)

    def compose(self) -> ComposeResult:
        """Build the child widgets: the question, the buttons, the footnote."""
        with Vertical(classes="question-box"):
            yield from self.question()
            with Horizontal(classes="question-buttons"):
                yield Button(
                    Content(f"{self.YES_NAME} (y)"),
                    id=f"{self.PREFIX}-yes",
                    variant=self.YES_VARIANT,
                )
                yield Button(Content(f"{self.NO_NAME} (n)"), id=f"{self.PREFIX}-no")
            yield from self.footnote()

    def question(self) -> ComposeResult:
        """What is asked, above the buttons."""
        raise NotImplementedError

    def footnote(self) -> ComposeResult:
        """What follows the buttons (nothing unless a question adds it)."""
        return iter(())

    def on_mount(self) -> None:
        """Start on the no button."""
        self.query_one(f"#{self.PREFIX}-no", Button).focus()

    @on(Button.Pressed)
    def _button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == f"{self.PREFIX}-yes")

    def action_confirm(self) -> None:
        """Say yes."""
        self.dismiss(True)

    def action_cancel(self) -> None:
        """Say no."""
        self.dismiss(False)


class ConfirmDeleteScreen(_Question):
    """Ask whether to delete one session: `y` / Enter on Delete, `n` / Esc cancel."""

    DEFAULT_CSS = """
    ConfirmDeleteScreen {
        & > .question-box { max-width: 70; border: thick $error; }
        & #confirm-question { width: auto; max-width: 64; }
        & .question-buttons { margin-top: 1; }
    }
    """

    PREFIX = "confirm"
    YES_NAME = "Delete"
    YES_VARIANT = "error"

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label
        """The session's title (already printable)."""

    def question(self) -> ComposeResult:
        """Which session is deleted."""
        yield Static(
            Content.assemble("Delete session “", self.label, "”?"),
            id="confirm-question",
        )


class ConfirmFolderScreen(_Question):
    """Ask whether to resume a session in its own directory, outside the project.

    `y` / the first button resumes there; `n` / Esc / Enter on the focused Cancel
    do not. The question names the directory and what confirming does.

    Args:
        label: The session's title (already printable).
        folder: The session's directory, resolved: what the agent would reach.
        listed: The session's directory as the agent listed it (shown too when
            it reads otherwise, say through `..` or a symlink).
        project: The directory the agent works in now.
        home: The user's home directory.
    """

    DEFAULT_CSS = """
    ConfirmFolderScreen {
        & .question-text { margin-bottom: 1; }
        & #folder-warning { color: $text-error; text-style: bold; }
    }
    """

    PREFIX = "folder"
    YES_NAME = "Resume there"

    def __init__(
        self, label: str, folder: Path, listed: str, project: Path, home: Path
    ) -> None:
        super().__init__()
        self.label = label
        self.folder = printable(str(folder))
        """The session's resolved directory (printable)."""
        self.listed = printable(listed) if listed != str(folder) else None
        """The directory as listed, when that reads otherwise (printable)."""
        self.project = printable(str(project))
        """The project's directory (printable)."""
        self.warning = _folder_warning(folder, home)
        """The extra warning for `/` or a directory holding the home directory."""

    def question(self) -> ComposeResult:
        """Which session, where it was started, what resuming it there does."""
        yield Static(
            Content.assemble(
                ("Resume “", "bold"),
                (self.label, "bold"),
                ("” in another folder?", "bold"),
            ),
            classes="question-text",
        )
        where: list[str | tuple[str, str]] = ["The session was started in "]
        if self.listed is not None:
            where += [self.listed, " (that is ", (self.folder, "bold"), ")"]
        else:
            where.append((self.folder, "bold"))
        yield Static(
            Content.assemble(*where, ", outside this project (", self.project, ")."),
            classes="question-text",
            id="folder-where",
        )
        yield Static(
            Content.assemble(
                "Resuming it moves this session there: acp-tui will let the "
                "agent read and write files under ",
                (self.folder, "bold"),
                " and run commands there, instead of in ",
                self.project,
                ".",
            ),
            classes="question-text",
            id="folder-effect",
        )
        if self.warning:
            yield Static(
                Content(self.warning), classes="question-text", id="folder-warning"
            )


class ConfirmQuitScreen(_Question):
    """Ask before quitting with unsent drafts or a turn running.

    `y`, the Quit button or ctrl+q (pressed a second time) quit; `n`, Esc and
    Enter on the focused Stay do not.

    Args:
        reasons: What would be lost or stopped, one line each (plain text the
            app writes; tab labels in it are printable already).
    """

    DEFAULT_CSS = """
    ConfirmQuitScreen {
        & #quit-question { text-style: bold; width: auto; }
        & #quit-reasons { margin: 1 0; }
    }
    """

    PREFIX = "quit"
    YES_NAME = "Quit"
    YES_KEYS = "y,ctrl+q"
    NO_NAME = "Stay"

    def __init__(self, reasons: Sequence[str]) -> None:
        super().__init__()
        self.reasons = tuple(reasons)
        """What would be lost or stopped, one line each."""

    def question(self) -> ComposeResult:
        """Quit?, and what would be lost or stopped."""
        yield Static(Content("Quit acp-tui?"), id="quit-question")
        yield Static(
            Content("\n".join(f"• {printable(r)}" for r in self.reasons)),
            classes="question-text",
            id="quit-reasons",
        )

    def footnote(self) -> ComposeResult:
        """The quit key pressed twice quits."""
        yield Static(Content("ctrl+q again quits without asking"), id="quit-hint")


class ConfirmRevertTurnScreen(_Question):
    """Ask before reverting every file a turn changed (`y` reverts, `n`/Esc not).

    Args:
        count: How many files the turn changed.
    """

    PREFIX = "revert"
    YES_NAME = "Revert"
    YES_VARIANT = "error"

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def question(self) -> ComposeResult:
        """How many files go back to how they were."""
        noun = "file" if self.count == 1 else "files"
        yield Static(
            Content(
                f"Revert the whole turn? {self.count} {noun} go back to how they "
                "were when it started (u undoes it until the next turn; a file "
                "changed since refuses, and then nothing is reverted)."
            ),
            classes="question-text",
            id="revert-question",
        )


def _folder_warning(folder: Path, home: Path) -> str:
    """The extra warning for a directory that opens far more than a project."""
    if folder == Path(folder.anchor):
        return f"⚠ {folder} is the whole file system."
    if folder == home:
        return f"⚠ {folder} is your whole home folder."
    if home.is_relative_to(folder):
        return f"⚠ {folder} holds your whole home folder."
    return ""
