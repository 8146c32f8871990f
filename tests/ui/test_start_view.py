"""The start view: while a resumed session replays, its title counts messages."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from acp_tui.ui.widgets.start_view import PROGRESS_FROM, StartView, Welcome
from tests.ui.helpers import wait_for


class StartApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.exchanged = 7  # messages of an earlier connection

    def compose(self) -> ComposeResult:
        yield StartView(lambda: (), messages=lambda: self.exchanged)


def title(app: StartApp) -> str:
    return str(app.query_one("#start-title", Static).content)


async def test_a_long_open_counts_the_messages_since_it_started() -> None:
    app = StartApp()
    async with app.run_test() as pilot:
        view = app.query_one(StartView)
        view.starting("agent", "agent --acp", "Opening a session with")
        await pilot.pause()
        assert title(app) == "Opening a session with agent…"
        app.exchanged += PROGRESS_FROM - 1  # a plain start: no count
        view._poll()  # what its timer does 4 times a second
        assert "messages" not in title(app)
        app.exchanged += 12_000
        await wait_for(pilot, lambda: "messages" in title(app))
        assert f"{PROGRESS_FROM - 1 + 12_000:,} messages" in title(app)


async def test_the_first_screen_shows_agent_text_as_text() -> None:
    app = StartApp()
    async with app.run_test() as pilot:
        view = app.query_one(StartView)
        view.welcome(
            Welcome(
                agent="[bold]Evil[/] \x1b]0;pwned\x07agent",
                version="1.0 [red]x[/]",
                protocol_version=2,
                directory="~/p",
                session_id="s\x1b[2Jid",
                resumed=True,
                title="[link=https://x]t[/link]",
                commands=("[b]cmd[/b]", "ok"),
            )
        )
        await pilot.pause()
        title = str(app.query_one("#start-title", Static).content)
        body = str(app.query_one("#start-welcome", Static).content)
        assert "[bold]Evil[/]" in title
        assert "[red]x[/]" in title
        assert "\x1b" not in title + body
        assert "[link=https://x]t[/link]" in body
        assert "/[b]cmd[/b] /ok" in body
        assert "resumed:" in body
        assert not app.query_one("#start-demo").display
