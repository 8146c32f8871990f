"""What the agent reports about itself, through both dialects into the store.

`notice` and compaction are in v1 (TS SDK 2.4, with a client opt-in in
`clientCapabilities.session`) and v2; `session_message(_chunk)` is v2 only
(unstable). Updates are validated against the TS SDK 2.4 schemas first, so the
fixtures are what a real agent may send.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from acp_tui.client.connection import ClientFeatures, ClientIdentity, initialize_params
from tests.spec_examples import SCHEMAS, load_schema
from tests.unit.client.scripts import SESSION_ID, Player, Update, chunk, dump, text

needs_schemas = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"the reference schemas are not in {SCHEMAS}"
)

SCHEMA_OF = {
    1: "ts-sdk-2.4.0/v1/schema.json",
    2: "ts-sdk-2.4.0/v2/schema.unstable.json",
}

NOTIFICATION_OF = {1: "SessionNotification", 2: "UpdateSessionNotification"}


@cache
def _validator(version: int, definition: str) -> Any:
    root = load_schema(SCHEMA_OF[version])
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]}
    )


def valid(version: int, definition: str, instance: Any) -> list[str]:
    return [e.message for e in _validator(version, definition).iter_errors(instance)]


def checked(version: int, *updates: Update) -> list[Update]:
    """The updates, each checked against the schema of `version` (if present)."""
    if SCHEMAS.is_dir():
        for update in updates:
            params = {"sessionId": SESSION_ID, "update": update}
            definition = NOTIFICATION_OF[version]
            assert valid(version, definition, params) == [], update
    return list(updates)


def notice(severity: str, title: str, **extra: Any) -> Update:
    return {"sessionUpdate": "notice", "severity": severity, "title": title, **extra}


def compaction(cid: str, status: str, **extra: Any) -> Update:
    return {
        "sessionUpdate": "compaction_update",
        "compactionId": cid,
        "status": status,
        **extra,
    }


def summary_chunk(cid: str, value: str) -> Update:
    return {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": cid,
        "content": text(value),
    }


def message_chunk(version: int, value: str) -> Update:
    return chunk("m1" if version == 2 else None, value)


# -- the opt-in ---------------------------------------------------------------------


@needs_schemas
@pytest.mark.parametrize("offer", [1, 2])
def test_the_v1_opt_ins_are_sent_and_valid(offer: int) -> None:
    """v1 agents may send notices and compactions only to a client that sets
    `session.notices` and `session.compaction` to `{}`; a v2 offer carries the
    same v1 fields (v2 needs no capability for them)."""
    params = initialize_params(offer, ClientIdentity(), ClientFeatures())  # type: ignore[arg-type]
    session = params["clientCapabilities"]["session"]
    assert session["notices"] == {}
    assert session["compaction"] == {}
    v1_params = {**params, "protocolVersion": 1}
    if offer == 2:
        v1_params = {
            k: v
            for k, v in v1_params.items()
            if k in ("clientCapabilities", "clientInfo")
        } | {"protocolVersion": 1}
    assert valid(1, "InitializeRequest", v1_params) == []
    if offer == 2:
        assert "session" not in params["capabilities"]
        assert valid(2, "InitializeRequest", params) == []


# -- notices ------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_a_notice_is_a_line_where_it_arrived(version: int) -> None:
    player = Player(version)  # type: ignore[arg-type]
    player.send(
        *checked(
            version,
            message_chunk(version, "before"),
            notice("warning", "MCP server unavailable", description="Continuing."),
            notice("_vendor", "Odd severity", description=None, _meta={"k": 1}),
        )
    )
    store = player.store
    timeline = list(store.timeline())
    assert timeline[1:] == [("agent_notice", "0"), ("agent_notice", "1")]
    first, odd = store.reports.notices()
    assert (first.severity, first.title, first.description) == (
        "warning",
        "MCP server unavailable",
        "Continuing.",
    )
    assert (odd.severity, odd.description, odd.meta) == ("_vendor", None, {"k": 1})
    assert dump(store)["unknownUpdates"] == []
    assert dump(store)["notices"][0] == {
        "id": "0",
        "severity": "warning",
        "title": "MCP server unavailable",
        "description": "Continuing.",
    }


def test_v1_text_after_a_notice_is_shown_after_it() -> None:
    """An id-less v1 chunk after a notice starts a new message below it."""
    store = Player(1).store
    player = Player(1, store)
    player.send(chunk(None, "A"), notice("info", "FYI"), chunk(None, "B"))
    kinds = [kind for kind, _ in store.timeline()]
    assert kinds == ["message", "agent_notice", "message"]


@pytest.mark.parametrize("version", [1, 2])
def test_an_empty_title_is_malformed_and_not_shown(version: int) -> None:
    from pydantic import ValidationError

    player = Player(version)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        player.send(notice("info", ""))
    player.send(notice("info", "x"))
    assert [n.title for n in player.store.reports.notices()] == ["x"]


# -- compaction ---------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_a_compaction_streams_its_summary_and_keeps_its_place(version: int) -> None:
    player = Player(version)  # type: ignore[arg-type]
    player.send(
        *checked(
            version,
            message_chunk(version, "before"),
            compaction("c1", "in_progress"),
            summary_chunk("c1", "## Retained\n"),
            summary_chunk("c1", "the plan"),
        )
    )
    store = player.store
    (c,) = store.reports.compactions()
    assert (c.status, c.summary_text, c.finished) == (
        "in_progress",
        "## Retained\nthe plan",
        False,
    )
    player.send(*checked(version, compaction("c1", "completed")))
    done = store.reports.compaction("c1")
    assert done is not None
    assert (done.status, done.summary_text, done.finished) == (
        "completed",
        "## Retained\nthe plan",
        True,
    )  # an omitted summary keeps the streamed one
    player.send(
        *checked(version, compaction("c1", "completed", summary=[text("final")]))
    )
    final = store.reports.compaction("c1")
    assert final is not None
    assert final.summary_text == "final"
    assert [kind for kind, _ in store.timeline()] == ["message", "compaction"]


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("cleared", [None, []])
def test_null_or_empty_summary_clears_and_error_is_kept(
    version: int, cleared: list[Any] | None
) -> None:
    player = Player(version)  # type: ignore[arg-type]
    player.send(
        *checked(
            version,
            compaction("c1", "in_progress"),
            summary_chunk("c1", "x"),
            compaction("c1", "failed", summary=cleared, error="context too large"),
        )
    )
    c = player.store.reports.compaction("c1")
    assert c is not None
    assert (c.status, c.summary, c.error) == ("failed", (), "context too large")
    player.send(*checked(version, compaction("c1", "failed", error=None)))
    again = player.store.reports.compaction("c1")
    assert again is not None
    assert again.error is None


@pytest.mark.parametrize("version", [1, 2])
def test_an_unknown_status_is_kept_and_not_finished(version: int) -> None:
    player = Player(version)  # type: ignore[arg-type]
    player.send(*checked(version, compaction("c1", "_paused")))
    c = player.store.reports.compaction("c1")
    assert c is not None
    assert (c.status, c.finished) == ("_paused", False)


# -- session messages (v2) ----------------------------------------------------------


def test_a_session_message_streams_with_its_source() -> None:
    player = Player(2)
    player.send(
        *checked(
            2,
            {
                "sessionUpdate": "session_message_chunk",
                "messageId": "sm1",
                "content": text("Found 3 "),
            },
            {
                "sessionUpdate": "session_message",
                "messageId": "sm1",
                "senderSessionId": "sess_research",
                "recipientSessionId": SESSION_ID,
            },
            {
                "sessionUpdate": "session_message_chunk",
                "messageId": "sm1",
                "content": text("failing tests."),
            },
        )
    )
    (m,) = player.store.reports.session_messages()
    assert (m.sender_session_id, m.recipient_session_id, m.text) == (
        "sess_research",
        SESSION_ID,
        "Found 3 failing tests.",
    )
    player.send(
        *checked(
            2,
            {
                "sessionUpdate": "session_message",
                "messageId": "sm1",
                "senderSessionId": None,
                "content": [text("replaced")],
            },
        )
    )
    again = player.store.reports.session_message("sm1")
    assert again is not None
    assert (again.sender_session_id, again.text) == (None, "replaced")
    assert dump(player.store)["timeline"] == [{"kind": "session_message", "id": "sm1"}]
    # v1 has no session messages: kept as an unknown update, as before
    raw = {"sessionUpdate": "session_message", "messageId": "sm1"}
    v1_store = Player(1).store
    Player(1, v1_store).send(raw)
    assert dump(v1_store)["unknownUpdates"] == [raw]


@pytest.mark.parametrize(("version", "merged"), [(1, False), (2, True)])
def test_compaction_meta_merges_by_key_in_v2_and_is_replaced_in_v1(
    version: int, merged: bool
) -> None:
    player = Player(version)  # type: ignore[arg-type]
    player.send(
        *checked(
            version,
            compaction("c1", "in_progress", _meta={"a": 1, "b": 2}),
            compaction("c1", "completed", _meta={"b": None, "c": 3}),
        )
    )
    c = player.store.reports.compaction("c1")
    assert c is not None
    assert dict(c.meta or {}) == ({"a": 1, "c": 3} if merged else {"b": None, "c": 3})
