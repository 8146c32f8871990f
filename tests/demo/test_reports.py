"""The demo's `/notice` and `/compact` on the wire, in both versions.

v1 sends them only to a client that opted in (`clientCapabilities.session.notices`
/ `.compaction`), else says so in its answer; v2 always. What is sent validates
against the TS SDK 2.4 schemas (the alpha.3 and older v1 schemas, which
`test_wire` checks everything else against, predate these updates). A
compaction is history: a replay sends it as one upsert with its final state;
notices are live only and never replayed.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Final

import pytest
from jsonschema import Draft202012Validator

from tests.demo.recorder import JSON, Recorder, recording
from tests.spec_examples import SCHEMAS, load_schema

pytestmark = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"schemas missing: {SCHEMAS}"
)

SCHEMA: Final = {1: "ts-sdk-2.4.0/v1/schema.json", 2: "ts-sdk-2.4.0/v2/schema.json"}
NOTIFICATION: Final = {1: "SessionNotification", 2: "UpdateSessionNotification"}
OPTED_IN: Final[JSON] = {"notices": {}, "compaction": {}}
REPORTS: Final = ("notice", "compaction_update", "compaction_summary_chunk")


@cache
def _validator(version: int) -> Any:
    root = load_schema(SCHEMA[version])
    ref = {"$ref": f"#/$defs/{NOTIFICATION[version]}", "$defs": root["$defs"]}
    return Draft202012Validator(ref)


def reports(rec: Recorder, start: int = 0) -> list[JSON]:
    """The report updates sent since `start`, each checked against the schema."""
    found = []
    for message in rec.messages[start:]:
        if message.get("method") != "session/update":
            continue
        update: JSON = message["params"]["update"]
        if update["sessionUpdate"] in REPORTS:
            validator = _validator(rec.version)
            errors = [e.message for e in validator.iter_errors(message["params"])]
            assert errors == [], message
            found.append(update)
    return found


def said(rec: Recorder) -> str:
    return "".join(
        u["content"].get("text", "")
        for u in rec.updates()
        if u["sessionUpdate"] == "agent_message_chunk"
    )


async def prompted(
    version: int, project: Path, prompt: str, capabilities: JSON | None = OPTED_IN
) -> Recorder:
    """The recorder after one prompt (which must end `end_turn`) in a new session."""
    async with recording(
        version, in_process=True, session_capabilities=capabilities
    ) as rec:
        session = await rec.new_session(project)
        assert await rec.prompt(session, prompt) == "end_turn"
    return rec


@pytest.mark.parametrize("version", [1, 2])
async def test_notice_sends_one_of_each_severity(version: int, project: Path) -> None:
    sent = reports(await prompted(version, project, "/notice"))
    assert [(u["severity"], u["title"]) for u in sent] == [
        ("info", "Using the demo's fast model"),
        ("warning", "MCP server `search` is unavailable"),
        ("error", "Could not refresh the usage quota"),
    ]
    assert sent[1]["description"].startswith("Continuing without it")


@pytest.mark.parametrize("version", [1, 2])
async def test_compact_streams_the_summary_then_completes(
    version: int, project: Path
) -> None:
    sent = reports(await prompted(version, project, "/compact"))
    kinds = [u["sessionUpdate"] for u in sent]
    assert kinds == [
        "compaction_update",
        *["compaction_summary_chunk"] * 4,
        "compaction_update",
    ]
    assert [sent[0]["status"], sent[-1]["status"]] == ["in_progress", "completed"]
    assert len({u["compactionId"] for u in sent}) == 1


@pytest.mark.parametrize("prompt", ["/notice", "/compact"])
async def test_v1_without_the_opt_in_sends_none_and_says_so(
    prompt: str, project: Path
) -> None:
    rec = await prompted(1, project, prompt, capabilities=None)
    assert reports(rec) == []
    assert "your client did not opt in" in said(rec)


@pytest.mark.parametrize("version", [1, 2])
async def test_a_replay_sends_the_compaction_and_no_notice(
    version: int, project: Path
) -> None:
    async with recording(
        version, in_process=True, session_capabilities=OPTED_IN
    ) as rec:
        session = await rec.new_session(project)
        await rec.prompt(session, "/notice")
        await rec.prompt(session, "/compact")
        start = len(rec.messages)
        await rec.request(*rec.replay_request(session, project))
    (replayed,) = reports(rec, start)
    assert replayed["sessionUpdate"] == "compaction_update"
    assert replayed["status"] == "completed"
    text = "".join(block["text"] for block in replayed["summary"])
    assert text.startswith("## Retained context")
