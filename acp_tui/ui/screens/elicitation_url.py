"""The URL mode of the elicitation dialog: what it shows, and how a URL opens.

`compose_url` shows the full URL with its host highlighted, the host named
apart (decoded from Punycode), a warning for each suspicious trait
(`url_facts`: not HTTPS, an IP or Punycode host, a user name before `@`...)
and a note that nothing opens until the user chooses. No URL is ever rendered
as a link, and nothing is fetched.

The choices are the dialog's buttons: Open in browser (`o`, `#url-open`),
Copy URL (`c`, `#url-copy`) and Decline (`d`, `#decline`). `url_choice` says
which one a key names, `choice_hint` what pressing it again does, and
`open_url` opens a URL only if it is a web address and a browser can show it.

Once the user consented, `UrlWaitScreen` shows that the client waits for the
agent's `elicitation/complete` ("Waiting for sign-in at <host>…"); Esc stops
waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Final

import anyio
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Static

from acp_tui.safe_text import printable
from acp_tui.ui.deferred_work import later
from acp_tui.ui.url_facts import UrlFacts, open_in_browser, url_facts
from acp_tui.ui.widgets.frames import DialogBox

__all__ = [
    "NO_BROWSER",
    "UrlWaitScreen",
    "choice_hint",
    "compose_url",
    "open_url",
    "url_choice",
]

NO_BROWSER: Final = (
    "No browser could open it here (over SSH, or not a web address): "
    "press c to copy the URL and open it yourself."
)
"""What the dialog says when Open could not open the URL."""

_BY_LETTER: Final = {"o": "url-open", "c": "url-copy", "d": "decline"}
"""The button each letter names."""

_WHAT: Final = {"url-open": "open it", "url-copy": "copy it", "decline": "decline"}
"""What each button does, for the hint."""


def compose_url(facts: UrlFacts) -> ComposeResult:
    """The URL (`url_facts`), its site, its warnings and a note: nothing opens yet."""
    yield Static(
        Content.assemble(
            ("Address: ", "bold"),
            facts.before_host,
            (facts.host, "bold reverse"),
            facts.after_host,
        ),
        id="url-address",
    )
    site = facts.host_name or "(none)"
    yield Static(Content.assemble(("Site: ", "bold"), (site, "bold")), id="url-site")
    if facts.warnings:
        yield Static(
            Content("\n".join(f"⚠ {w}" for w in facts.warnings)),
            id="url-warnings",
        )
    yield Static(
        Content(
            "Nothing is opened until you choose. Accepting tells the agent "
            "you agreed to go there, not that you finished."
        ),
        id="url-note",
    )


def url_choice(event: events.Key, focused: Widget | None) -> str | None:
    """The id of the button a key names (None: none).

    A letter names its button; Enter or Space the focused button.
    """
    if event.key in _BY_LETTER:
        return _BY_LETTER[event.key]
    if event.key in ("enter", "space") and isinstance(focused, Button):
        return focused.id
    return None


def choice_hint(button_id: str, key: str) -> str:
    """The hint once `key` selected `button_id`: press it again to choose."""
    again = "Enter again" if key == "enter" else f"{key} again or Enter"
    return f"Press {again} to {_WHAT.get(button_id, 'choose')}"


def open_url(
    app: App[object],
    url: str,
    facts: UrlFacts,
    opener: Callable[[str], bool] | None,
) -> bool:
    """Open `url` (`facts`: its `url_facts`) if a web address; whether it opened.

    `opener` opens it if given; else under `acp-tui serve` the user's own
    browser does, else a graphical browser on this machine (`open_in_browser`).
    """
    if not facts.web:
        return False
    if opener is not None:
        return opener(url)
    if app.is_web:  # acp-tui serve: the user's own browser opens it
        app.open_url(url)
        return True
    return open_in_browser(url)


class UrlWaitScreen(ModalScreen[bool]):
    """Waiting for the agent to say a consented URL interaction finished.

    Shows "Waiting for sign-in at <host>…" (the site the user agreed to go to)
    until `over` is set (the agent sent `elicitation/complete`, or the session
    went away): then it closes with True. Esc closes it with False: the user
    stopped waiting.

    Args:
        agent: The agent that asked.
        url: The URL the user consented to.
        over: Set when the wait ends without the user.
    """

    DEFAULT_CSS = """
    UrlWaitScreen {
        align: center middle;
        & > #url-wait-dialog { padding: 1 2; }
        & #url-wait-title { text-style: bold; }
        & #url-wait-hint { color: $text-muted; margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "give_up", "Stop waiting")
    ]

    def __init__(self, agent: str, url: str, over: anyio.Event) -> None:
        super().__init__()
        self.agent = printable(agent).strip() or "The agent"
        self.host = url_facts(url).host_name or "(no site)"
        self.over = over

    def compose(self) -> ComposeResult:
        """The wait, and how to stop it."""
        with DialogBox(id="url-wait-dialog"):
            yield Static(
                Content.assemble(
                    "Waiting for sign-in at ", (self.host, "bold reverse"), "…"
                ),
                id="url-wait-title",
            )
            yield Static(
                Content.assemble(
                    (self.agent, "bold $accent"),
                    " will say when it is done in your browser.",
                ),
                id="url-wait-about",
            )
            yield Static(Content("Esc cancels the wait"), id="url-wait-hint")

    def on_mount(self) -> None:
        """Close by itself once the wait is over."""
        self.run_worker(later(self._until_over), exit_on_error=False)

    async def _until_over(self) -> None:
        await self.over.wait()
        if self.is_active:
            self.dismiss(True)

    def on_screen_resume(self) -> None:
        """Shown again: close if the wait ended while another screen covered it.

        (`dismiss` closes the topmost screen, so a covered wait must not; a
        resume can arrive after another screen already covers it again.)
        """
        if self.over.is_set() and self.is_active:
            self.dismiss(True)

    def action_give_up(self) -> None:
        """Esc: stop waiting."""
        self.dismiss(False)
