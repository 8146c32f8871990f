"""The unstable end-turn usage and `auth/status` at the v1/v2 seam.

Wire payloads are checked against the TypeScript SDK 2.4.0 unstable schemas of
both versions; the dialects read them into the store's neutral `TurnUsage` and
`AuthStatus`. Agents that advertise nothing keep today's behaviour.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final, cast

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from acp_tui.client import v1 as dialect_v1
from acp_tui.client import v2 as dialect_v2
from acp_tui.client.auth_status import AuthStatusUpdates
from acp_tui.client.dialect import Dialect
from acp_tui.client.session import AcpClient
from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.schema import v1, v2
from acp_tui.store import ops
from acp_tui.store.auth_status import AuthAccount, AuthStatus, AuthStatusBox
from acp_tui.store.store import SessionStore
from tests.spec_examples import SCHEMAS, load_schema

needs_schemas = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"reference schemas missing: {SCHEMAS}"
)

UNSTABLE: Final = {
    1: "ts-sdk-2.4.0/v1/schema.unstable.json",
    2: "ts-sdk-2.4.0/v2/schema.unstable.json",
}
USAGE: Final = {
    "totalTokens": 53000,
    "inputTokens": 35000,
    "outputTokens": 12000,
    "cachedReadTokens": 5000,
}
STATUS: Final = {
    "state": "authenticated",
    "accounts": [
        {"label": "Claude Max", "email": "ada@example.com", "active": True},
        {"label": "Vertex AI"},
    ],
}


@cache
def _validator(version: int, definition: str) -> Draft202012Validator:
    root = load_schema(UNSTABLE[version])
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]}
    )


def _assert_valid(version: int, definition: str, instance: Any) -> None:
    errors = [e.message for e in _validator(version, definition).iter_errors(instance)]
    assert not errors, errors


def dialect(version: int, capabilities: dict[str, Any]) -> Dialect:
    if version == 1:
        return dialect_v1.V1Dialect(
            v1.InitializeResponse.model_validate(
                {"protocolVersion": 1, "agentCapabilities": capabilities}
            )
        )
    return dialect_v2.V2Dialect(
        v2.InitializeResponse.model_validate(
            {
                "protocolVersion": 2,
                "info": {"name": "a", "version": "1"},
                "capabilities": capabilities,
            }
        )
    )


BOTH = pytest.mark.parametrize("version", [1, 2])


@needs_schemas
@BOTH
def test_the_payloads_are_the_unstable_schemas(version: int) -> None:
    _assert_valid(version, "AuthStatusResponse", STATUS)
    _assert_valid(version, "AuthStatusUpdateNotification", STATUS)
    _assert_valid(version, "Usage", USAGE)
    _assert_valid(version, "AgentAuthCapabilities", {"status": {}})


@BOTH
def test_auth_status_is_asked_only_where_advertised(version: int) -> None:
    assert dialect(version, {"auth": {"status": {}}}).has_auth_status()
    assert not dialect(version, {"auth": {}}).has_auth_status()
    assert not dialect(version, {}).has_auth_status()
    # A malformed marker is as good as none (lenient: default on error).
    assert not dialect(version, {"auth": {"status": True}}).has_auth_status()


@BOTH
def test_auth_status_reads_neutral(version: int) -> None:
    status = dialect(version, {}).auth_status(STATUS)
    assert status == AuthStatus(
        "authenticated",
        (
            AuthAccount("Claude Max", email="ada@example.com", active=True),
            AuthAccount("Vertex AI"),
        ),
    )
    assert status.account is not None
    assert status.account.display == "ada@example.com"
    assert status.summary == "signed in: ada@example.com"


@BOTH
def test_auth_status_tolerates_odd_values_and_rejects_a_missing_state(
    version: int,
) -> None:
    odd = {"state": "_vendor_sso", "accounts": [{"label": 3}, {"label": "ok"}]}
    status = dialect(version, {}).auth_status(odd)
    assert status.known_state == "unknown"
    assert status.accounts == (AuthAccount("ok"),)  # the invalid item is skipped
    assert status.summary is None
    with pytest.raises(ValidationError):
        dialect(version, {}).auth_status({"accounts": []})


def test_v1_prompt_response_usage_becomes_the_turns_usage() -> None:
    raw = {"stopReason": "end_turn", "usage": USAGE}
    store = SessionStore("s")
    store.apply_many(dialect(1, {}).prompt_response_ops(raw))
    assert store.state.last_stop_reason == "end_turn"
    usage = store.turn_usage
    assert usage is not None
    assert (usage.total, usage.input, usage.output) == (53000, 35000, 12000)
    assert (usage.thought, usage.cached_read, usage.cached_write) == (None, 5000, None)
    assert store.to_json()["turnUsage"] == USAGE


@pytest.mark.parametrize(
    "usage", [None, {"totalTokens": "many"}, {"inputTokens": 1}], ids=str
)
def test_v1_without_valid_usage_ends_the_turn_as_before(usage: Any) -> None:
    raw: dict[str, Any] = {"stopReason": "end_turn"}
    if usage is not None:
        raw["usage"] = usage
    result = dialect(1, {}).prompt_response_ops(raw)
    assert result == [ops.SetState("idle", "end_turn", raw=raw)]


def test_v2_idle_state_update_usage_becomes_the_turns_usage() -> None:
    update = v2.IdleStateUpdate.model_validate(
        {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "end_turn",
            "usage": USAGE,
        }
    )
    result = dialect_v2.translate_update(update)
    assert result[0] == ops.SetTurnUsage(53000, 35000, 12000, None, 5000, None)
    assert isinstance(result[1], ops.SetState)
    assert result[1].stop_reason == "end_turn"


class _Client:
    """What `AuthStatusUpdates` reads of the client: its dialect, once attached."""

    def __init__(self) -> None:
        self.attached: Dialect | None = None

    @property
    def dialect(self) -> Dialect:
        if self.attached is None:
            raise RuntimeError("AcpClient.attach() was not called")
        return self.attached


def test_an_update_before_the_client_is_attached_is_held_then_applied() -> None:
    client = _Client()
    box = AuthStatusBox()
    seen: list[AuthStatus | None] = []
    box.subscribe(seen.append)
    reports: list[Diagnostic] = []
    updates = AuthStatusUpdates(cast(AcpClient, client), box, reports.append)
    updates.receive({"state": "unauthenticated"})
    updates.receive(STATUS)  # only the latest counts
    assert box.value is None
    client.attached = dialect(2, {})
    updates.attached()
    assert box.value is not None
    assert box.value.summary == "signed in: ada@example.com"
    updates.receive({"accounts": []})  # malformed: reported, ignored
    assert box.value.summary == "signed in: ada@example.com"
    assert len(reports) == 1
    assert "auth/status_update" in reports[0].message
    updates.receive({"state": "unauthenticated"})
    assert box.value.summary == "signed out"
    assert [s.summary if s else None for s in seen] == [
        "signed in: ada@example.com",
        "signed out",
    ]
