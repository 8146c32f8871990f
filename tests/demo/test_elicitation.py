"""The demo's questions (`/ask`, `/login`) against acp-tui's own client, both versions.

`acp-tui print` (recorded with `--record`): declined by default, answered from
`--answers`, cancelled with `--elicitation cancel`; every line acp-tui sends
validates against the reference JSON schema of the version spoken (the
`initialize` capability, the `elicitation/create` responses), and every line
the demo sends too. With the client core (`AcpClient`): a URL consented to and
opened completes (`elicitation/complete`); a cancelled turn answers an open
form `cancel`; a client that advertises no elicitation is never asked.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final, Literal

import anyio
import pytest
from jsonschema import Draft202012Validator

from acp_tui.cli import main
from acp_tui.client.ports import ElicitationReply, ElicitationRequest
from acp_tui.protocol.recording import RecordedLine, read_recording
from tests.demo.client import demo_client, prompt, prompt_and_cancel
from tests.demo.schema_check import validate_messages
from tests.spec_examples import SCHEMAS, load_schema

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.skipif(not SCHEMAS.is_dir(), reason=f"schemas missing: {SCHEMAS}"),
]

DEMO: Final = f"{sys.executable} -m acp_tui.demo"
VERSIONS: Final = [pytest.param(1, id="v1"), pytest.param(2, id="v2")]


@cache
def _validator(version: int, definition: str) -> Any:
    root = load_schema(f"v{version}/schema.json")
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]}
    )


def _errors(version: int, definition: str, instance: Any) -> list[str]:
    return [e.message for e in _validator(version, definition).iter_errors(instance)]


def _messages(connection: list[RecordedLine], direction: str) -> list[dict[str, Any]]:
    return [
        json.loads(line.data)
        for line in connection
        if line.direction == direction and line.data is not None
    ]


def run_print(
    tmp_path: Path, version: int, prompt_text: str, *options: str
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """`acp-tui print --format json`: the document, our messages, the demo's."""
    recording = tmp_path / "turn.jsonl"
    out = tmp_path / "out.json"
    with out.open("w") as stream:
        stdout, sys.stdout = sys.stdout, stream
        try:
            code = main(
                [
                    "print",
                    "--agent",
                    DEMO,
                    "--protocol",
                    str(version),
                    "--cwd",
                    str(tmp_path),
                    "--format",
                    "json",
                    "--record",
                    str(recording),
                    *options,
                    prompt_text,
                ]
            )
        finally:
            sys.stdout = stdout
    assert code == 0
    (connection,) = read_recording(recording).connections
    return (
        json.loads(out.read_text()),
        _messages(connection, "out"),
        _messages(connection, "in"),
    )


def check_lines(
    version: int, ours: list[dict[str, Any]], theirs: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Validate both sides; return our responses to `elicitation/create`."""
    initialize = ours[0]
    assert initialize["method"] == "initialize"
    assert _errors(version, "InitializeRequest", initialize["params"]) == []
    place = initialize["params"][
        "capabilities" if version == 2 else "clientCapabilities"
    ]
    assert place["elicitation"] == {"form": {}, "url": {}}
    asked = {m["id"] for m in theirs if m.get("method") == "elicitation/create"}
    assert asked, "the demo asked nothing"
    replies = [m for m in ours if "method" not in m and m.get("id") in asked]
    assert len(replies) == len(asked)
    for reply in replies:
        assert _errors(version, "CreateElicitationResponse", reply["result"]) == []
    requested = {m["id"]: m["method"] for m in ours if "method" in m and "id" in m}
    report = validate_messages(version, theirs, requested)
    assert report.failures == []
    assert report.checked["request elicitation/create"] == len(asked)
    return replies


@pytest.mark.parametrize("version", VERSIONS)
def test_print_declines_a_form_by_default(tmp_path: Path, version: int) -> None:
    document, ours, theirs = run_print(tmp_path, version, "/ask")
    (reply,) = check_lines(version, ours, theirs)
    assert reply["result"] == {"action": "decline"}
    (elicitation,) = document["elicitations"]
    assert elicitation["mode"] == "form"
    assert elicitation["outcome"] == {"action": "decline"}
    assert elicitation["toolCallId"] == "call-1"
    assert {"kind": "elicitation", "id": elicitation["id"]} in document["timeline"]
    last = document["messages"][-1]["content"][0]["text"]
    assert "You declined the form" in last


@pytest.mark.parametrize("version", VERSIONS)
def test_print_fills_a_form_from_the_answers_file(tmp_path: Path, version: int) -> None:
    answers = tmp_path / "answers.json"
    incomplete = {"name": "no language"}  # skipped: a required field is missing
    answer = {"name": "demo", "language": "rust", "tests": False, "extras": ["ci"]}
    answers.write_text(json.dumps([incomplete, {**answer, "unknown": 1}]))
    document, ours, theirs = run_print(
        tmp_path, version, "/ask", "--answers", str(answers)
    )
    (reply,) = check_lines(version, ours, theirs)
    assert reply["result"] == {"action": "accept", "content": answer}
    assert document["elicitations"][0]["outcome"] == reply["result"]
    last = document["messages"][-1]["content"][0]["text"]
    assert "**Language**: rust" in last


@pytest.mark.parametrize("version", VERSIONS)
def test_print_cancels_a_url_when_told_to(tmp_path: Path, version: int) -> None:
    document, ours, theirs = run_print(
        tmp_path, version, "/login", "--elicitation", "cancel"
    )
    (reply,) = check_lines(version, ours, theirs)
    assert reply["result"] == {"action": "cancel"}
    (elicitation,) = document["elicitations"]
    assert elicitation["mode"] == "url"
    assert elicitation["url"].startswith("http://127.0.0.1:")
    assert "completed" not in elicitation


def test_print_text_shows_the_question_and_its_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["print", "--agent", DEMO, "--cwd", str(tmp_path), "/ask"]) == 0
    out = capsys.readouterr().out
    assert "[question] What should the new project look like?\n" in out
    assert "[question] What should the new project look like?: declined\n" in out


def test_print_text_shows_an_answer_by_its_titles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps({"name": "demo", "language": "rust", "licence": "apache-2.0"})
    )
    command = ["print", "--agent", DEMO, "--cwd", str(tmp_path)]
    assert main([*command, "--answers", str(answers), "/ask"]) == 0
    out = capsys.readouterr().out
    assert (
        "[question] What should the new project look like?: answered — "
        "Project name: demo; Language: rust; Licence: Apache 2.0"
    ) in out


def test_a_bad_answers_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text("[1, 2]")
    code = main(["print", "--agent", DEMO, "--answers", str(answers), "/ask"])
    assert code == 2
    assert "must be a JSON object, or a list of objects" in capsys.readouterr().err


class OpensTheUrl:
    """Consents to a URL elicitation, and opens the URL as a browser would."""

    def __init__(self) -> None:
        self.asked: list[ElicitationRequest] = []

    async def elicit(self, request: ElicitationRequest) -> ElicitationReply | None:
        self.asked.append(request)
        assert request.url is not None
        url = request.url

        def fetch() -> bytes:
            direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with direct.open(url, timeout=10) as page:
                body: bytes = page.read()
                return body

        body = await anyio.to_thread.run_sync(fetch)
        assert b"Signed in to the acp-tui demo" in body
        return ElicitationReply("accept")


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_url_opened_with_consent_completes(
    project: Path, version: Literal[1, 2]
) -> None:
    elicitor = OpensTheUrl()
    async with demo_client(version, elicitor=elicitor) as client:
        store = await client.new_session(project)
        assert await prompt(client, store.session_id, "/login") == "end_turn"
    (request,) = elicitor.asked
    assert request.mode == "url"
    assert request.agent == "acp-tui demo agent"
    (elicitation,) = store.elicitations()
    assert elicitation.action == "accept"
    assert elicitation.completed
    assert "Signed in (pretend)" in store.messages()[-1].text


class Waits:
    """Never answers (until the client withdraws the question)."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationReply | None:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")


@pytest.mark.parametrize("version", VERSIONS)
async def test_cancelling_the_turn_answers_the_open_form_cancel(
    project: Path, version: Literal[1, 2]
) -> None:
    async with demo_client(version, elicitor=Waits()) as client:
        store = await client.new_session(project)

        def asked(changes: Any) -> bool:
            return any(change.kind == "elicitation" for change in changes)

        stop = await prompt_and_cancel(client, store, "/ask", asked)
    assert stop == "cancelled"
    (elicitation,) = store.elicitations()
    assert elicitation.action == "cancel"
    statuses: Mapping[str, str] = {t.tool_call_id: t.status for t in store.tool_calls()}
    # v1 has no `cancelled` tool-call status: the demo sends `failed` there
    assert statuses == {"call-1": "failed" if version == 1 else "cancelled"}


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_client_without_elicitation_is_never_asked(
    project: Path, version: Literal[1, 2]
) -> None:
    async with demo_client(version) as client:
        store = await client.new_session(project)
        await prompt(client, store.session_id, "/ask")
        await prompt(client, store.session_id, "/login")
    assert store.elicitations() == ()
    texts = [m.text for m in store.messages() if m.role == "agent"]
    assert "does not offer form elicitation" in texts[0]
    assert "does not offer url elicitation" in texts[1]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "cannot read the answers in"),
        ("[]", "must be a JSON object, or a list of objects"),
        ('{"name": {"first": "x"}}', 'answer 1: \'name\' is {"first": "x"}'),
        ('[{"a": 1}, {"extras": ["ci", 2]}]', "answer 2: 'extras' is"),
    ],
)
def test_an_answers_file_that_cannot_answer_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(text)
    code = main(["print", "--agent", DEMO, "--answers", str(answers), "/ask"])
    assert code == 2
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("version", VERSIONS)
def test_answers_with_wrong_values_are_reported_and_never_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    """Each value is checked against its field (`json_answer`): an answer with a
    wrong one is skipped, with which field and why on stderr; a later answer
    that fits is sent, valid for the schema."""
    answers = tmp_path / "answers.json"
    wrong = {"name": "demo", "language": "cobol", "contributors": 2.5, "tests": "yes"}
    right = {"name": "demo", "language": "rust", "contributors": 3}
    answers.write_text(json.dumps([wrong, right]))
    _, ours, theirs = run_print(tmp_path, version, "/ask", "--answers", str(answers))
    (reply,) = check_lines(version, ours, theirs)
    assert reply["result"] == {"action": "accept", "content": right}
    err = capsys.readouterr().err
    assert "--answers: answer 1 does not fit the form" in err
    assert "language: Pick one of the choices." in err
    assert "tests: “yes” is not true or false" in err
    assert "contributors:" in err


@pytest.mark.parametrize("version", VERSIONS)
def test_answers_that_never_fit_leave_the_form_declined(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"name": "", "language": "rust"}))
    _, ours, theirs = run_print(tmp_path, version, "/ask", "--answers", str(answers))
    (reply,) = check_lines(version, ours, theirs)
    assert reply["result"] == {"action": "decline"}
    assert "name: Required: enter a value." in capsys.readouterr().err
