"""claude-agent-acp turns Claude's AskUserQuestion tool into a form elicitation.

Offline, against the scripted Anthropic server: the model calls
AskUserQuestion; acp-tui (which advertises form elicitation) receives
`elicitation/create` for that tool call (`question_<n>`: a titled `oneOf` of the
option labels, `question_<n>_custom`: an "Other" box); `acp-tui print` answers
it, and the model's next request carries the answer in the tool result, then the
turn goes on. Declined (print's default), the model is told nothing was picked.

The tool's input shape (`questions[].question/header/options[].label,
description/multiSelect`) is the one Claude Code offers the model in the
request's `tools`, checked here too, so a change of it is seen.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final

import pytest
from jsonschema import Draft202012Validator

from acp_tui.protocol.recording import read_recording
from tests.interop.real_agents import AGENTS, Workspace, print_json
from tests.modelserver._script import Request, Text, ToolUse
from tests.spec_examples import SCHEMAS, load_schema

pytestmark = [pytest.mark.interop, pytest.mark.subprocess]

PROMPT: Final = "pick a cache"
QUESTION: Final = "Which cache should we use?"
ASK: Final = {
    "questions": [
        {
            "question": QUESTION,
            "header": "Cache",
            "options": [
                {"label": "Redis", "description": "In memory, with persistence"},
                {"label": "Memcached", "description": "Simple and fast"},
            ],
            "multiSelect": False,
        }
    ]
}
AFTER: Final = "Going with your choice."


@cache
def _validator(version: int, definition: str) -> Any:
    root = load_schema(f"v{version}/schema.json")
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]}
    )


def run_ask(
    key: str, tmp_path: Path, *options: str
) -> tuple[Any, list[Request], list[dict[str, Any]], list[dict[str, Any]]]:
    """One print turn in which the model asks: the run, the model's requests, and
    the recorded messages (ours, the agent's)."""
    agent = AGENTS[key]
    workspace = Workspace(tmp_path / key).create()
    script = agent.script(
        {PROMPT: [(ToolUse("AskUserQuestion", ASK),), (Text(AFTER),)]}
    )
    requests: list[Request] = []

    def responder(request: Request) -> Any:
        requests.append(request)
        return script(request)

    recording = workspace.root / "turn.jsonl"
    with agent.server(responder) as server:
        run = print_json(
            agent,
            workspace,
            agent.environment(workspace, server),
            PROMPT,
            "--record",
            str(recording),
            *options,
        )
    assert run.code == 0, run.err
    (connection,) = read_recording(recording).connections
    ours = [json.loads(x.data) for x in connection if x.direction == "out" and x.data]
    theirs = [json.loads(x.data) for x in connection if x.direction == "in" and x.data]
    return run, requests, ours, theirs


def the_question(
    key: str, ours: list[dict[str, Any]], theirs: list[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The agent's `elicitation/create` params and our result (schema-checked)."""
    (asked,) = [m for m in theirs if m.get("method") == "elicitation/create"]
    (reply,) = [m for m in ours if "method" not in m and m.get("id") == asked["id"]]
    result: dict[str, Any] = reply["result"]
    if SCHEMAS.is_dir():
        version = AGENTS[key].protocol
        errors = list(
            _validator(version, "CreateElicitationResponse").iter_errors(result)
        )
        assert errors == []
    params: dict[str, Any] = asked["params"]
    return params, result


def tool_result_after_the_question(requests: list[Request]) -> str:
    outputs = [
        output
        for request in requests
        if request.tools
        for output in request.tool_outputs
        if QUESTION in output or "question" in output.lower()
    ]
    assert outputs, [r.tool_outputs for r in requests]
    return outputs[-1]


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
def test_ask_user_question_is_a_form_and_the_answer_reaches_the_model(
    key: str, tmp_path: Path
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"question_0": "Redis"}))
    run, requests, ours, theirs = run_ask(key, tmp_path, "--answers", str(answers))

    # The tool as Claude Code offers it to the model (the shape scripted above).
    offered = [
        tool
        for request in requests
        for tool in request.body.get("tools") or []
        if tool.get("name") == "AskUserQuestion"
    ]
    assert offered, "AskUserQuestion was never offered to the model"
    tool = offered[0]
    item = tool["input_schema"]["properties"]["questions"]["items"]
    assert {"question", "header", "options", "multiSelect"} <= set(item["required"])

    params, result = the_question(key, ours, theirs)
    assert params["mode"] == "form"
    assert params["message"] == QUESTION
    field = params["requestedSchema"]["properties"]["question_0"]
    assert [choice["const"] for choice in field["oneOf"]] == ["Redis", "Memcached"]
    assert result == {"action": "accept", "content": {"question_0": "Redis"}}

    # The answer reaches the model in the tool result, and the turn goes on.
    assert f'"{QUESTION}"="Redis"' in tool_result_after_the_question(requests)
    document = run.document
    (elicitation,) = document["elicitations"]
    assert elicitation["toolCallId"] == params["toolCallId"]
    assert elicitation["outcome"] == result
    assert params["toolCallId"] in {c["toolCallId"] for c in document["toolCalls"]}
    assert document["messages"][-1]["content"][-1]["text"].endswith(AFTER)


def test_declined_the_model_is_told_nothing_was_picked(tmp_path: Path) -> None:
    run, requests, ours, theirs = run_ask("claude-v2", tmp_path)
    _, result = the_question("claude-v2", ours, theirs)
    assert result == {"action": "decline"}
    assert "Redis" not in tool_result_after_the_question(requests)
    assert run.document["elicitations"][0]["outcome"] == {"action": "decline"}
