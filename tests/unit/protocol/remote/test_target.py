"""`RemoteTarget`: URL rules, plain-text refusal, tokens, error wording."""

from __future__ import annotations

import pytest

from acp_tui.protocol.remote.target import (
    RemoteConnectError,
    RemoteTarget,
    is_loopback,
    is_remote_url,
    status_failure,
)


@pytest.mark.parametrize(
    "value", ["ws://h/acp", "wss://h", "http://h/acp", " HTTPS://h/acp"]
)
def test_urls_are_remote(value: str) -> None:
    assert is_remote_url(value)


@pytest.mark.parametrize(
    "value", ["opencode acp", "claude-code", "/usr/bin/x", "ftp://h"]
)
def test_commands_are_not(value: str) -> None:
    assert not is_remote_url(value)


@pytest.mark.parametrize(
    "host", ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "a.localhost"]
)
def test_loopback(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["10.0.0.1", "example.com", "192.168.1.2", "::2"])
def test_not_loopback(host: str) -> None:
    assert not is_loopback(host)


def test_plain_text_to_another_host_needs_insecure() -> None:
    problem = RemoteTarget("http://10.1.2.3/acp").problem()
    assert problem is not None
    assert "--insecure" in problem
    assert "https://" in problem
    assert RemoteTarget("http://10.1.2.3/acp", insecure=True).problem() is None
    assert RemoteTarget("ws://127.0.0.1:9/acp").problem() is None
    assert RemoteTarget("wss://example.com/acp").problem() is None


def test_credentials_in_the_url_are_refused() -> None:
    problem = RemoteTarget("https://me:secret@example.com/acp").problem()
    assert problem is not None
    assert "token" in problem


def test_a_ws_url_cannot_pin_http() -> None:
    assert RemoteTarget("wss://h/acp", transport="http").problem() is not None


def test_profile_urls() -> None:
    target = RemoteTarget("https://h:8/acp?x=1")
    assert target.websocket_url() == "wss://h:8/acp?x=1"
    assert RemoteTarget("ws://h/acp").http_url() == "http://h/acp"
    assert target.name() == "h:8"


def test_a_token_from_the_environment() -> None:
    target = RemoteTarget("wss://h/acp", headers={"X-A": "b"}, token_env="TOK")
    assert target.request_headers({"TOK": "t0k"}) == {
        "X-A": "b",
        "Authorization": "Bearer t0k",
    }
    with pytest.raises(RemoteConnectError, match=r"TOK .*is not set"):
        target.request_headers({})


def test_headers_stay_out_of_the_repr() -> None:
    target = RemoteTarget("wss://h/acp", headers={"Authorization": "Bearer s3cret"})
    assert "s3cret" not in repr(target)


def test_status_failures_say_what_to_do() -> None:
    assert "check the token" in str(status_failure("u", 401)).lower()
    assert "/acp" in str(status_failure("u", 404))
    assert status_failure("u", 403).kind == "auth"
    assert status_failure("u", 502).kind == "http"
