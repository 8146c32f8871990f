"""The reconnect policy (`client/reconnect.py`) and the ad-hoc token of a URL
agent (`ACP_TUI_REMOTE_TOKEN`, `client/remote_agents.adhoc_target`)."""

from __future__ import annotations

import anyio
import pytest

from acp_tui.client import reconnect
from acp_tui.client.agents import resolve_agent
from acp_tui.client.remote_agents import TOKEN_VARIABLE, adhoc_target
from acp_tui.protocol.remote.target import RemoteConnectError
from acp_tui.protocol.transport import ConnectionClosed
from acp_tui.store import ops
from acp_tui.store.store import SessionStore


def test_the_backoff_doubles_from_half_a_second_up_to_thirty() -> None:
    delays = [reconnect.backoff_delay(n) for n in range(1, 10)]
    assert delays == [0.5, 1, 2, 4, 8, 16, 30, 30, 30]


def test_what_is_worth_another_attempt() -> None:
    assert reconnect.is_drop(ConnectionClosed("cut"))
    assert reconnect.is_drop(anyio.EndOfStream())
    assert not reconnect.is_drop(RemoteConnectError("u", "refused", "no"))
    assert reconnect.may_retry(RemoteConnectError("u", "refused", "no"))
    assert not reconnect.may_retry(RemoteConnectError("u", "auth", "401"))
    assert not reconnect.may_retry(RemoteConnectError("u", "tls", "bad cert"))


def test_the_status_says_the_attempt_and_when() -> None:
    attempt = reconnect.Reconnecting(3, 12, 2.0, "cut")
    assert attempt.status() == "reconnecting… attempt 3/12 in 2 s (ctrl+r: now)"


def test_a_drop_notes_the_interrupted_turn_and_each_unanswerable_question() -> None:
    store = SessionStore("s")
    store.apply(ops.AddPermission("p1", "Edit a.py"))
    notes = reconnect.drop_notes(store, "the server went away", in_turn=True)
    assert notes[0].startswith("The turn was interrupted")
    assert "the server went away" in notes[0]
    assert "Edit a.py" in notes[1]
    assert "can no longer be answered" in notes[1]
    assert reconnect.drop_notes(SessionStore("t"), "x", in_turn=False) == []


def test_a_url_on_the_command_line_takes_the_token_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = "http://127.0.0.1:8765/acp"
    assert adhoc_target(url, {}).request_headers({}) == {}
    target = adhoc_target(url, {TOKEN_VARIABLE: "t0k"})
    headers = target.request_headers({TOKEN_VARIABLE: "t0k"})
    assert headers == {"Authorization": "Bearer t0k"}
    monkeypatch.setenv(TOKEN_VARIABLE, "s3cret")
    command = resolve_agent(url).command
    assert command.remote is not None
    assert command.remote.request_headers()["Authorization"] == "Bearer s3cret"
    assert "s3cret" not in command.display()
