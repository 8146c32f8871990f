"""The demo's questions to the user (ACP elicitation): `/ask` and `/login`.

* `/ask`: a form-mode elicitation whose restricted JSON Schema uses every field
  type the spec allows (strings with lengths and the `email`, `uri`, `date` and
  `date-time` formats, a plain and a titled single-select enum, an integer and a
  number with bounds, a boolean, and a plain and a titled multi-select), tied to
  a tool call. The agent then says what it was told, or that it was declined.
* `/login`: a URL-mode elicitation. The URL is a page served by the demo itself
  on 127.0.0.1 for the length of the turn (`login_page`): when the user consents
  and their browser opens it, the agent sends `elicitation/complete`. Nothing
  leaves the machine.

Invariants:

* A mode the client did not advertise is never requested (the spec forbids it):
  the agent says why it cannot ask instead.
* Deterministic, like every scenario: the output depends only on the answers.
* The page answers only its own path (anything else is 404), reads at most
  `MAX_REQUEST` bytes of a request, and stops serving when the turn ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote

import anyio
import anyio.abc

from acp_tui.demo.events import JSONObject
from acp_tui.demo.session import ElicitAsk
from acp_tui.demo.turn import Turn

__all__ = [
    "ASK_SCHEMA",
    "LOGIN_WAIT",
    "LoginPage",
    "ask_scenario",
    "login_page",
    "login_scenario",
]

ASK_SCHEMA: Final[JSONObject] = {
    "type": "object",
    "title": "A new project",
    "description": "Tell me about the project you want to start.",
    "properties": {
        "name": {
            "type": "string",
            "title": "Project name",
            "description": "Letters, digits and dashes.",
            "minLength": 1,
            "maxLength": 40,
            "default": "my-project",
        },
        "email": {"type": "string", "title": "Contact email", "format": "email"},
        "homepage": {"type": "string", "title": "Homepage", "format": "uri"},
        "start": {"type": "string", "title": "Start date", "format": "date"},
        "review": {
            "type": "string",
            "title": "First review",
            "format": "date-time",
        },
        "language": {
            "type": "string",
            "title": "Language",
            "enum": ["python", "rust", "typescript"],
            "default": "python",
        },
        "licence": {
            "type": "string",
            "title": "Licence",
            "oneOf": [
                {"const": "mit", "title": "MIT"},
                {"const": "apache-2.0", "title": "Apache 2.0"},
                {"const": "gpl-3.0", "title": "GPL 3.0"},
            ],
        },
        "contributors": {
            "type": "integer",
            "title": "Contributors",
            "minimum": 1,
            "maximum": 50,
            "default": 1,
        },
        "hours": {
            "type": "number",
            "title": "Hours a week",
            "minimum": 0,
            "maximum": 80,
        },
        "tests": {"type": "boolean", "title": "Write tests", "default": True},
        "extras": {
            "type": "array",
            "title": "Extras",
            "items": {"type": "string", "enum": ["cli", "docs", "ci"]},
            "maxItems": 3,
        },
        "platforms": {
            "type": "array",
            "title": "Platforms",
            "items": {
                "anyOf": [
                    {"const": "linux", "title": "Linux"},
                    {"const": "macos", "title": "macOS"},
                    {"const": "windows", "title": "Windows"},
                ]
            },
            "minItems": 1,
        },
    },
    "required": ["name", "language"],
}
"""The `/ask` form: one field of every kind the spec's restricted schema has."""

LOGIN_WAIT: Final = 300.0
"""Seconds `/login` waits for the page to be opened once the user consented."""

MAX_REQUEST: Final = 8192
"""The most bytes of one HTTP request the login page reads."""

REQUEST_WAIT: Final = 5.0
"""Seconds the login page waits for a request's head."""

_PAGE: Final = (
    "<!doctype html><meta charset=utf-8><title>acp-tui demo: signed in</title>"
    "<h1>Signed in to the acp-tui demo</h1>"
    "<p>Nothing was sent anywhere: this page is served by the demo agent on your "
    "computer. You can close this tab and go back to acp-tui.</p>"
)


async def _unavailable(turn: Turn, what: str, mode: str) -> str:
    await turn.say(
        f"I would {what}, but your client does not offer {mode} elicitation "
        f"(`elicitation.{mode}` in its capabilities), and an agent must not ask "
        "for a mode the client did not advertise. Try it in acp-tui.\n"
    )
    return "end_turn"


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value) or "(none)"
    return str(value)


async def ask_scenario(turn: Turn, argument: str) -> str:
    """`/ask`: a form with every field type, tied to a tool call."""
    if "form" not in turn.port.elicitation_modes:
        return await _unavailable(turn, "show you a form", "form")
    await turn.say("Before I set anything up, I have a few questions.\n\n")
    call = await turn.tool_call(
        "Ask about the new project", "other", status="in_progress"
    )
    action, content = await turn.elicit(
        ElicitAsk(
            message="What should the new project look like?",
            mode="form",
            schema=ASK_SCHEMA,
            tool_call_id=call,
        )
    )
    if action != "accept":
        declined = action == "decline"
        what = "declined" if declined else "dismissed"
        await turn.update_tool(
            call,
            status="failed" if declined else "cancelled",
            content=[{"type": "text", "text": f"The form was {what}."}],
        )
        await turn.say(
            f"You {what} the form, so I will not set anything up. Run `/ask` "
            "again whenever you like.\n"
        )
        return "end_turn"
    answers = content or {}
    properties = ASK_SCHEMA["properties"]
    assert isinstance(properties, dict)
    lines = [
        f"- **{properties[name]['title']}**: {_shown(answers[name])}"
        for name in properties
        if name in answers
    ]
    await turn.update_tool(
        call,
        status="completed",
        raw_output={"answers": dict(answers)},
    )
    await turn.say(
        "Thanks! This is what you told me:\n\n"
        + ("\n".join(lines) or "- (nothing filled in)")
        + "\n\n(The demo only pretends: nothing was created.)\n"
    )
    return "end_turn"


@dataclass
class LoginPage:
    """The page `/login` sends the user to, served on 127.0.0.1."""

    url: str
    path: str
    visited: anyio.Event = field(default_factory=anyio.Event)
    """Set once a browser asked for the page."""

    async def handle(self, stream: anyio.abc.ByteStream) -> None:
        """Answer one HTTP request: the page (200), or 404 for any other path."""
        async with stream:
            head = b""
            with anyio.move_on_after(REQUEST_WAIT):
                while b"\r\n\r\n" not in head and len(head) < MAX_REQUEST:
                    try:
                        head += await stream.receive(MAX_REQUEST - len(head))
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        break
            parts = head.split(b"\r\n", 1)[0].split(b" ")
            found = len(parts) == 3 and parts[0] == b"GET"
            found = found and parts[1].decode("latin-1") == self.path
            body = (_PAGE if found else "Not found").encode()
            status = b"200 OK" if found else b"404 Not Found"
            response = (
                b"HTTP/1.1 " + status + b"\r\n"
                b"Content-Type: text/html; charset=utf-8\r\n"
                b"Content-Length: " + str(len(body)).encode() + b"\r\n"
                b"Connection: close\r\n\r\n" + body
            )
            with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stream.send(response)
            if found:
                self.visited.set()


@asynccontextmanager
async def login_page(url_id: str) -> AsyncIterator[LoginPage]:
    """Serve the sign-in page of `url_id` on 127.0.0.1 while the block runs."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    path = f"/login?elicitationId={quote(url_id, safe='')}"
    page = LoginPage(f"http://127.0.0.1:{port}{path}", path)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, page.handle)
        try:
            yield page
        finally:
            group.cancel_scope.cancel()


async def login_scenario(turn: Turn, argument: str) -> str:
    """`/login`: a URL elicitation, completed when the local page is opened."""
    if "url" not in turn.port.elicitation_modes:
        return await _unavailable(turn, "send you to a sign-in page", "url")
    session = turn.session
    url_id = f"login-{session.session_id}-{turn.group}"
    call = await turn.tool_call(
        "Sign in to the demo service", "other", status="in_progress"
    )
    async with login_page(url_id) as page:
        action, _ = await turn.elicit(
            ElicitAsk(
                message="Sign in to the demo service. The page is served by the "
                "demo agent on this computer: nothing leaves your machine.",
                mode="url",
                url=page.url,
                url_id=url_id,
                tool_call_id=call,
            )
        )
        if action != "accept":
            await turn.update_tool(
                call,
                status="failed" if action == "decline" else "cancelled",
                content=[{"type": "text", "text": "The sign-in page was not opened."}],
            )
            await turn.say("You did not open the sign-in page: still signed out.\n")
            return "end_turn"
        await turn.say("Waiting for the sign-in page to be opened in your browser…\n")
        with anyio.move_on_after(LOGIN_WAIT):
            await page.visited.wait()
    if not page.visited.is_set():
        await turn.update_tool(call, status="failed")
        await turn.say(
            f"The page was not opened within {LOGIN_WAIT / 60:g} minutes: still "
            "signed out. Run `/login` to try again.\n"
        )
        return "end_turn"
    await turn.port.elicitation_complete(url_id)
    await turn.update_tool(call, status="completed")
    await turn.say(
        "Signed in (pretend): the page was opened, and I told your client that "
        "the sign-in is complete (`elicitation/complete`).\n"
    )
    return "end_turn"
