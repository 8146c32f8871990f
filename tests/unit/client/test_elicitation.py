"""Elicitation on the wire (ACP v1 and v2): the capability, `elicitation/create`
answered through the `ElicitationPrompter`, and `elicitation/complete`.

The agent is the test (`peer.py`). Every response the client sends is checked
against the reference JSON schema of the version spoken
(`CreateElicitationResponse`), and so is the capability in `initialize`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator

from acp_tui.client.connection import ClientFeatures
from acp_tui.client.ports import ElicitationReply
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONValue
from tests.spec_examples import SCHEMAS, load_schema
from tests.unit.client.peer import (
    JSON,
    Harness,
    ScriptedElicitor,
    open_harness,
    v1_init,
    v2_init,
)

VERSIONS = [pytest.param(1, id="v1"), pytest.param(2, id="v2")]

BOTH = ClientFeatures(elicitation_form=True, elicitation_url=True)

SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "strategy": {
            "type": "string",
            "title": "Strategy",
            "enum": ["conservative", "balanced", "aggressive"],
        },
        "files": {"type": "integer", "minimum": 1},
        "dry": {"type": "boolean", "default": True},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
    },
    "required": ["strategy"],
}

needs_schemas = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"the reference schemas are not in {SCHEMAS}"
)


@cache
def _validator(version: int, definition: str) -> Any:
    root = load_schema(f"v{version}/schema.json")
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]}
    )


def assert_valid(version: int, definition: str, instance: Any) -> None:
    errors = [e.message for e in _validator(version, definition).iter_errors(instance)]
    assert errors == [], f"not a valid {definition}: {errors}"


def init_for(version: int) -> JSON:
    return v1_init() if version == 1 else v2_init({})


def form(session_id: str | None = "s1", **extra: Any) -> JSON:
    params: JSON = {"mode": "form", "message": "How should I refactor?"}
    if session_id is not None:
        params["sessionId"] = session_id
    params["requestedSchema"] = SCHEMA
    params.update(extra)
    return params


def url(url_id: str = "github-oauth-001", **extra: Any) -> JSON:
    return {
        "sessionId": "s1",
        "mode": "url",
        "elicitationId": url_id,
        "url": f"https://agent.example.com/connect?elicitationId={url_id}",
        "message": "Please authorize access to your repositories.",
        **extra,
    }


async def answered(h: Harness, request_id: int, version: int) -> JSON:
    """The client's result for our `elicitation/create`, checked against the schema."""
    response = await h.peer.expect_response(request_id)
    assert "result" in response, response
    result: JSON = response["result"]
    if SCHEMAS.is_dir():
        assert_valid(version, "CreateElicitationResponse", result)
    return result


async def complete(h: Harness, url_id: str = "github-oauth-001") -> None:
    """The agent says a URL elicitation is done (`elicitation/complete`)."""
    await h.peer.notify("elicitation/complete", {"elicitationId": url_id})


def only(store: SessionStore) -> Any:
    (elicitation,) = store.elicitations()
    return elicitation


# -- the capability -----------------------------------------------------------------


@needs_schemas
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("features", "expected"),
    [
        (BOTH, {"form": {}, "url": {}}),
        (ClientFeatures(elicitation_form=True), {"form": {}}),
        (ClientFeatures(elicitation_url=True), {"url": {}}),
        (ClientFeatures(), None),
    ],
    ids=["both", "form", "url", "none"],
)
async def test_the_modes_are_advertised_where_each_version_reads_them(
    version: int, features: ClientFeatures, expected: JSON | None
) -> None:
    """v1: `clientCapabilities.elicitation`; v2: `capabilities.elicitation` (and
    the v1 copy a v2 offer carries for v1-only agents). None: left out."""
    from acp_tui.client.connection import ClientIdentity, initialize_params

    params = initialize_params(version, ClientIdentity(), features)  # type: ignore[arg-type]
    assert_valid(version, "InitializeRequest", params)
    assert params["clientCapabilities"].get("elicitation") == expected
    if version == 2:
        assert params["capabilities"].get("elicitation") == expected


# -- form mode ------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_form_is_asked_recorded_and_accepted_with_its_values(
    version: int,
) -> None:
    elicitor = ScriptedElicitor()
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        asked = await h.peer.request(
            "elicitation/create", form(toolCallId="call-1", _meta={"k": 1})
        )
        ask = await elicitor.next()
        request = ask.request
        assert request.agent == ("Fake Agent" if version == 2 else "fake-agent")
        assert request.session_id == "s1"
        assert request.mode == "form"
        assert request.message == "How should I refactor?"
        assert request.requested_schema == SCHEMA
        assert request.tool_call_id == "call-1"
        pending = only(store)
        assert pending.pending
        assert pending.tool_call_id == "call-1"
        assert pending.meta == {"k": 1}
        values: dict[str, JSONValue] = {
            "strategy": "balanced",
            "files": 3,
            "dry": False,
            "tags": ["a"],
        }
        ask.reply(ElicitationReply("accept", values))
        result = await answered(h, asked, version)
        assert result == {"action": "accept", "content": values}
        assert only(store).outcome == result
        assert only(store).content == values


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_decline_and_cancel_are_sent_without_content(
    version: int, action: str
) -> None:
    elicitor = ScriptedElicitor(lambda _: ElicitationReply(action, {"strategy": "x"}))  # type: ignore[arg-type]
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        asked = await h.peer.request("elicitation/create", form())
        assert await answered(h, asked, version) == {"action": action}
        assert only(store).action == action


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "answer",
    [
        None,
        ElicitationReply("later"),  # type: ignore[arg-type]
        ElicitationReply("accept", {"strategy": {"nested": "object"}}),
        ElicitationReply("accept", {"files": [1, 2]}),
    ],
    ids=["dismissed", "unknown-action", "object-value", "number-array"],
)
async def test_an_answer_that_cannot_be_sent_is_sent_as_cancel(
    version: int, answer: ElicitationReply | None
) -> None:
    elicitor = ScriptedElicitor(lambda _: answer)
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        asked = await h.peer.request("elicitation/create", form())
        assert await answered(h, asked, version) == {"action": "cancel"}
        assert only(store).action == "cancel"


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_broken_prompter_answers_cancel_and_is_reported(version: int) -> None:
    def broken(_: object) -> ElicitationReply:
        raise RuntimeError("no screen")

    elicitor = ScriptedElicitor(broken)
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        await h.new_session()
        asked = await h.peer.request("elicitation/create", form())
        assert await answered(h, asked, version) == {"action": "cancel"}
        assert any("no screen" in d.message for d in h.diagnostics)


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_request_scoped_elicitation_is_asked_before_any_session(
    version: int,
) -> None:
    elicitor = ScriptedElicitor(
        lambda _: ElicitationReply("accept", {"strategy": "balanced"})
    )
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        asked = await h.peer.request("elicitation/create", form(None, requestId=12))
        result = await answered(h, asked, version)
        assert result == {"action": "accept", "content": {"strategy": "balanced"}}
        (ask,) = elicitor.asks
        assert ask.request.session_id is None


# -- what is refused ---------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("features", "params"),
    [
        (ClientFeatures(elicitation_form=True), url()),
        (ClientFeatures(elicitation_url=True), form()),
        (ClientFeatures(), form()),
        (BOTH, {**form(), "mode": "_vendor"}),
    ],
    ids=["url-not-offered", "form-not-offered", "none-offered", "unknown-mode"],
)
async def test_a_mode_not_advertised_is_invalid_params_and_never_asked(
    version: int, features: ClientFeatures, params: JSON
) -> None:
    elicitor = ScriptedElicitor()
    async with open_harness(
        init_for(version), elicitor=elicitor, features=features
    ) as h:
        store = await h.new_session()
        response = await h.peer.call("elicitation/create", params)
        assert response["error"]["code"] == -32602
        assert elicitor.asks == []
        assert store.elicitations() == ()


@pytest.mark.parametrize("version", VERSIONS)
async def test_an_unknown_session_or_a_form_without_schema_is_invalid_params(
    version: int,
) -> None:
    elicitor = ScriptedElicitor()
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        await h.new_session()
        unknown = await h.peer.call("elicitation/create", form("nope"))
        assert unknown["error"]["code"] == -32602
        no_schema = {k: v for k, v in form().items() if k != "requestedSchema"}
        malformed = await h.peer.call("elicitation/create", no_schema)
        assert malformed["error"]["code"] == -32602
        assert elicitor.asks == []


# -- URL mode ------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_url_consent_is_accept_and_complete_marks_it_done(version: int) -> None:
    elicitor = ScriptedElicitor(lambda _: ElicitationReply("accept"))
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        asked = await h.peer.request("elicitation/create", url())
        assert await answered(h, asked, version) == {"action": "accept"}
        (ask,) = elicitor.asks
        assert ask.request.url == url()["url"]
        assert ask.request.url_id == "github-oauth-001"
        assert not only(store).completed
        revision = only(store).revision
        # unknown ids are ignored; the known one completes once
        await complete(h, "other")
        await complete(h)
        await complete(h)
        await h.peer.sync()
        assert only(store).completed
        assert only(store).revision > revision
        assert h.diagnostics == []


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_declined_url_elicitation_is_not_completed_later(version: int) -> None:
    elicitor = ScriptedElicitor(lambda _: ElicitationReply("decline"))
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        asked = await h.peer.request("elicitation/create", url())
        assert await answered(h, asked, version) == {"action": "decline"}
        await complete(h)
        await h.peer.sync()
        assert not only(store).completed


@pytest.mark.parametrize("version", VERSIONS)
async def test_completed_while_still_asked_withdraws_the_question(version: int) -> None:
    elicitor = ScriptedElicitor()
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        asked = await h.peer.request("elicitation/create", url())
        ask = await elicitor.next()
        await complete(h)
        assert await answered(h, asked, version) == {"action": "cancel"}
        assert ask.cancelled
        assert only(store).completed


# -- nothing is left pending -----------------------------------------------------------


async def _turn(h: Harness, version: int) -> JSON:
    h.start(h.client.prompt, "s1", [{"type": "text", "text": "hi"}])
    request = await h.peer.expect_request("session/prompt")
    if version == 2:
        await h.peer.reply(request, {})
        await h.peer.update("s1", {"sessionUpdate": "state_update", "state": "running"})
    return request


@pytest.mark.parametrize("version", VERSIONS)
async def test_cancelling_the_turn_answers_an_open_form_cancel(version: int) -> None:
    elicitor = ScriptedElicitor()
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        await _turn(h, version)
        asked = await h.peer.request("elicitation/create", form())
        ask = await elicitor.next()
        await h.client.cancel("s1")
        assert await answered(h, asked, version) == {"action": "cancel"}
        assert ask.cancelled
        assert only(store).action == "cancel"


@pytest.mark.parametrize("version", VERSIONS)
async def test_leaving_the_session_answers_its_open_elicitation_cancel(
    version: int,
) -> None:
    elicitor = ScriptedElicitor()
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        asked = await h.peer.request("elicitation/create", url())
        ask = await elicitor.next()
        leave = h.start(h.client.leave_session, store)
        assert await answered(h, asked, version) == {"action": "cancel"}
        assert ask.cancelled
        if version == 2:  # v2 closes the session too (part of its baseline)
            await h.peer.reply(await h.peer.expect_request("session/close"), {})
        await leave.wait()
        # the session is gone: its elicitation can no longer complete
        await complete(h)
        await h.peer.sync()
        assert not only(store).completed


@pytest.mark.parametrize("version", VERSIONS)
async def test_the_agent_withdrawing_the_request_answers_cancel(version: int) -> None:
    elicitor = ScriptedElicitor()
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        await h.new_session()
        asked = await h.peer.request("elicitation/create", form())
        ask = await elicitor.next()
        await h.peer.notify("$/cancel_request", {"requestId": asked})
        assert await answered(h, asked, version) == {"action": "cancel"}
        assert ask.cancelled


@pytest.mark.parametrize("version", VERSIONS)
async def test_without_an_elicitor_the_client_declines(version: int) -> None:
    """The default prompter (`ElicitationPolicy`) never leaves a question open."""
    async with open_harness(init_for(version), features=BOTH) as h:
        store = await h.new_session()
        asked = await h.peer.request("elicitation/create", form())
        assert await answered(h, asked, version) == {"action": "decline"}
        assert only(store).action == "decline"


@pytest.mark.parametrize("version", VERSIONS)
async def test_the_connection_ending_leaves_no_elicitation_waiting(
    version: int,
) -> None:
    elicitor = ScriptedElicitor()
    async with open_harness(init_for(version), elicitor=elicitor, features=BOTH) as h:
        store = await h.new_session()
        await h.peer.request("elicitation/create", form())
        ask = await elicitor.next()
        answered = anyio.Event()
        store.subscribe(lambda _: answered.set() if not only(store).pending else None)
        await h.peer.endpoint.aclose()
        await answered.wait()  # bounded by the harness
        assert ask.cancelled
        assert only(store).action == "cancel"
