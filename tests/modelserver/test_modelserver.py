"""The scripted model servers, spoken to over HTTP as the agents do (no agent here)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.modelserver._script import (
    ByPrompt,
    Gate,
    HttpError,
    Reply,
    Request,
    Scripted,
    ScriptServer,
    Text,
    Thinking,
    ToolUse,
    is_side,
)
from tests.modelserver.anthropic import ModelServer
from tests.modelserver.gemini import GeminiServer
from tests.modelserver.openai import ChatServer, ResponsesServer

BOUND = 10.0


@contextmanager
def connect(server: ScriptServer) -> Iterator[http.client.HTTPConnection]:
    address = urlsplit(server.url)
    connection = http.client.HTTPConnection(
        address.hostname or "", address.port, timeout=BOUND
    )
    try:
        yield connection
    finally:
        connection.close()


def post(server: ScriptServer, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
    with connect(server) as connection:
        connection.request(
            "POST", path, json.dumps(body), {"content-type": "application/json"}
        )
        response = connection.getresponse()
        return response.status, response.read()


def events(raw: bytes) -> list[tuple[str | None, str]]:
    """(event name, data) of each server-sent event; comments left out."""
    found: list[tuple[str | None, str]] = []
    for frame in raw.decode().split("\n\n"):
        name = None
        data = None
        for line in frame.splitlines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                data = line.removeprefix("data: ")
        if data is not None:
            found.append((name, data))
    return found


def payloads(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(data) for _, data in events(raw) if data != "[DONE]"]


REPLY: Reply = (
    Thinking("Thinking it over, slowly."),
    Text("Here is the answer you wanted."),
    ToolUse("bash", {"command": "printf 'one\\ntwo\\n'"}),
)


# --- Anthropic Messages. -------------------------------------------------------------


def test_messages_stream_thinking_text_and_a_tool_use_in_pieces() -> None:
    script = Scripted([REPLY])
    with ModelServer(script) as server:
        body = {
            "model": "claude-x",
            "stream": True,
            "tools": [{"name": "bash"}],
            "messages": [{"role": "user", "content": "hi"}],
        }
        status, raw = post(server, "/v1/messages?beta=true", body)
    assert status == 200
    names = [name for name, _ in events(raw)]
    assert names[0] == "message_start"
    assert names[-2:] == ["message_delta", "message_stop"]
    data = payloads(raw)
    deltas = [d["delta"] for d in data if d["type"] == "content_block_delta"]
    thinking = "".join(d.get("thinking", "") for d in deltas)
    text = "".join(d.get("text", "") for d in deltas)
    arguments = "".join(d.get("partial_json", "") for d in deltas)
    assert thinking == "Thinking it over, slowly."
    assert text == "Here is the answer you wanted."
    assert json.loads(arguments) == {"command": "printf 'one\\ntwo\\n'"}
    assert sum(1 for d in deltas if d["type"] == "text_delta") > 1
    starts = [d for d in data if d["type"] == "content_block_start"]
    assert [s["index"] for s in starts] == [0, 1, 2]
    assert starts[2]["content_block"]["name"] == "bash"
    assert data[-2]["delta"]["stop_reason"] == "tool_use"
    assert script.used == 1


def test_messages_side_requests_do_not_take_the_scripts_reply() -> None:
    script = Scripted([(Text("main"),)], side=(Text("a title"),))
    with ModelServer(script) as server:
        title = {"model": "m", "messages": [{"role": "user", "content": "t"}]}
        status, raw = post(server, "/v1/messages", title)
        assert status == 200
        assert json.loads(raw)["content"] == [{"type": "text", "text": "a title"}]
        suggestion = title | {
            "tools": [{"name": "Bash"}],
            "messages": [{"role": "user", "content": "[SUGGESTION MODE: guess"}],
        }
        post(server, "/v1/messages", suggestion)
        assert script.used == 0
        assert [is_side(r) for r in server.requests] == [True, True]
        assert server.main_requests == []


def test_messages_errors_count_tokens_and_unknown_paths() -> None:
    script = Scripted([(HttpError(429, "rate_limit_error", "slow down"),)])
    with ModelServer(script) as server:
        body = {"stream": True, "tools": [{"name": "Bash"}], "messages": []}
        status, raw = post(server, "/v1/messages", body)
        assert (status, json.loads(raw)) == (
            429,
            {
                "type": "error",
                "error": {"type": "rate_limit_error", "message": "slow down"},
            },
        )
        assert post(server, "/v1/messages/count_tokens", {})[0] == 200
        assert post(server, "/v2/other", {})[0] == 404


def test_messages_request_names_its_tool_results() -> None:
    with ModelServer(Scripted([])) as server:
        body = {
            "model": "claude-y",
            "tools": [{"name": "Bash"}, {"name": "Write"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [{"type": "tool_use"}]},
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "content": "one\ntwo"}],
                },
            ],
        }
        post(server, "/v1/messages", body)
    request = server.requests[0]
    assert (request.model, request.tools) == ("claude-y", ("Bash", "Write"))
    assert request.user_texts == ["go", "one\ntwo"]
    assert request.tool_outputs == ["one\ntwo"]


# --- Chat Completions. ---------------------------------------------------------------


def chat_body(**extra: Any) -> dict[str, Any]:
    return {
        "model": "scripted-model",
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": [{"type": "function", "function": {"name": "bash"}}],
        "messages": [{"role": "user", "content": "hi"}],
    } | extra


def test_chat_streams_reasoning_content_and_tool_call_arguments() -> None:
    with ChatServer(Scripted([REPLY])) as server:
        status, raw = post(server, "/v1/chat/completions", chat_body())
    assert status == 200
    assert events(raw)[-1] == (None, "[DONE]")
    data = payloads(raw)
    choices = [c for d in data for c in d["choices"]]
    deltas = [c["delta"] for c in choices]
    assert deltas[0]["role"] == "assistant"
    reasoning = "".join(d.get("reasoning_content", "") for d in deltas)
    text = "".join(d.get("content", "") for d in deltas)
    calls = [call for d in deltas for call in d.get("tool_calls", [])]
    assert reasoning == "Thinking it over, slowly."
    assert text == "Here is the answer you wanted."
    assert calls[0]["id"].startswith("call_")
    assert calls[0]["type"] == "function"
    assert calls[0]["function"]["name"] == "bash"
    assert {c["index"] for c in calls} == {0}
    arguments = "".join(c["function"]["arguments"] for c in calls)
    assert json.loads(arguments) == {"command": "printf 'one\\ntwo\\n'"}
    assert [c["finish_reason"] for c in choices if c["finish_reason"]] == ["tool_calls"]
    assert data[-1]["choices"] == []
    assert data[-1]["usage"]["total_tokens"] == 120
    assert {d["id"] for d in data} == {data[0]["id"]}


def test_chat_text_only_stops_and_errors_have_openais_body() -> None:
    script = Scripted([(Text("done"),), (HttpError(400, "invalid_request", "no"),)])
    with ChatServer(script) as server:
        _, raw = post(server, "/v1/chat/completions", chat_body())
        status, error = post(server, "/v1/chat/completions", chat_body())
    finishes = [c["finish_reason"] for d in payloads(raw) for c in d["choices"]]
    assert finishes[-1] == "stop"
    assert status == 400
    assert json.loads(error) == {
        "error": {"message": "no", "type": "invalid_request", "code": None}
    }


def test_chat_request_tool_outputs_are_those_after_the_last_assistant() -> None:
    with ChatServer(Scripted([])) as server:
        messages = [
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {"role": "assistant", "tool_calls": [{"id": "a"}]},
            {"role": "tool", "content": "old"},
            {"role": "assistant", "tool_calls": [{"id": "b"}]},
            {"role": "tool", "content": "one\ntwo\n"},
        ]
        post(server, "/v1/chat/completions", chat_body(messages=messages))
    request = server.requests[0]
    assert request.tools == ("bash",)
    assert request.user_texts == ["go", "old", "one\ntwo\n"]
    assert request.tool_outputs == ["one\ntwo\n"]


# --- Responses. ----------------------------------------------------------------------


def test_responses_stream_items_added_deltas_done_and_completed() -> None:
    body = {
        "model": "gpt-scripted",
        "stream": True,
        "tools": [{"type": "function", "name": "exec_command"}, {"type": "web"}],
        "input": [
            {"type": "message", "role": "developer", "content": []},
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "hi"}],
            },
        ],
    }
    with ResponsesServer(Scripted([REPLY])) as server:
        status, raw = post(server, "/v1/responses", body)
    assert status == 200
    assert server.requests[0].tools == ("exec_command",)
    assert server.requests[0].user_texts == ["hi"]
    data = payloads(raw)
    assert all(
        name == d["type"] for (name, _), d in zip(events(raw), data, strict=True)
    )
    kinds = [d["type"] for d in data]
    assert kinds[0] == "response.created"
    assert kinds[-1] == "response.completed"
    assert data[-1]["response"]["usage"]["output_tokens"] == 20
    done = [d["item"] for d in data if d["type"] == "response.output_item.done"]
    assert [item["type"] for item in done] == ["reasoning", "message", "function_call"]
    assert done[0]["summary"][0]["text"] == "Thinking it over, slowly."
    assert done[1]["content"][0]["text"] == "Here is the answer you wanted."
    assert done[2]["name"] == "bash"
    assert json.loads(done[2]["arguments"]) == {"command": "printf 'one\\ntwo\\n'"}
    summary = "".join(
        d["delta"] for d in data if d["type"] == "response.reasoning_summary_text.delta"
    )
    text = "".join(
        d["delta"] for d in data if d["type"] == "response.output_text.delta"
    )
    arguments = "".join(
        d["delta"]
        for d in data
        if d["type"] == "response.function_call_arguments.delta"
    )
    assert (summary, text) == (
        "Thinking it over, slowly.",
        "Here is the answer you wanted.",
    )
    assert arguments == done[2]["arguments"]


def test_responses_request_tool_outputs() -> None:
    body = {
        "tools": [{"type": "function", "name": "exec_command"}],
        "input": [
            {"type": "function_call", "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": "one\n"},
        ],
    }
    with ResponsesServer(Scripted([])) as server:
        post(server, "/v1/responses", body)
    assert server.requests[0].tool_outputs == ["one\n"]


# --- Gates and waiting. --------------------------------------------------------------


@pytest.mark.parametrize(
    ("server_type", "path"),
    [
        (ModelServer, "/v1/messages"),
        (ChatServer, "/v1/chat/completions"),
        (ResponsesServer, "/v1/responses"),
        (GeminiServer, "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"),
    ],
)
def test_a_gate_holds_the_stream_until_it_is_opened(
    server_type: type[ScriptServer], path: str
) -> None:
    gate = Gate(bound=BOUND)
    script = Scripted([(Text("before"), gate, Text("after"))])
    body = chat_body(
        tools=[
            {"name": "bash", "function": {"name": "bash"}},
            {"functionDeclarations": [{"name": "bash"}]},
        ]
    )
    with server_type(script) as server, connect(server) as connection:
        connection.request("POST", path, json.dumps(body))
        response = connection.getresponse()
        assert response.status == 200
        assert gate.reached.wait(BOUND)
        assert server.wait_for_requests(lambda requests: len(requests) == 1, BOUND)
        held = b""
        while not held.endswith(server.keepalive()):  # all that precedes the gate
            chunk = response.read1()
            assert chunk, "the stream ended at the gate"
            held += chunk
        gate.event.set()
        rest = response.read()
    assert b"before" in held
    assert b"after" not in held
    assert b"after" in rest


def test_wait_for_requests_is_bounded() -> None:
    with ChatServer(Scripted([])) as server:
        assert not server.wait_for_requests(lambda requests: bool(requests), 0.05)


def test_a_script_that_runs_out_says_so() -> None:
    script = Scripted([])
    request = Request("POST", "/", {}, {}, tools=("bash",))
    assert script(request) == (Text("(the script has no reply #1)"),)


# --- Replies by prompt. --------------------------------------------------------------


def history_request(*history: tuple[str, str]) -> Request:
    return Request("POST", "/", {}, {}, tools=("bash",), history=history)


def test_by_prompt_answers_each_turn_by_its_position_and_retries_alike() -> None:
    script = ByPrompt({"run it": [(Text("first"),), (Text("second"),)]})
    first = history_request(("user", "old"), ("assistant", "x"), ("user", "run it"))
    retried = history_request(*first.history)
    second = history_request(
        *first.history, ("assistant", ""), ("assistant", ""), ("tool", "one")
    )
    assert script(first) == (Text("first"),)
    assert script(retried) == (Text("first"),)  # a retry is not the next step
    assert script(second) == (Text("second"),)  # a reply sent as two items
    third = history_request(*second.history, ("assistant", ""), ("tool", "two"))
    assert script(third) == (Text("(the script of 'run it' has no reply #3)"),)
    assert script(history_request(("user", "other"))) == (
        Text("(the script has no such prompt)"),
    )
    assert script.requests([first, retried, second, third], "run it") == [
        first,
        retried,
        second,
        third,
    ]


def test_by_prompt_finds_the_prompt_as_a_line_of_the_latest_user_message() -> None:
    script = ByPrompt({"a": [(Text("A"),)], "b": [(Text("B"),)]})
    request = history_request(
        ("user", "<reminder>\na\n</reminder>"), ("assistant", ""), ("user", "x\nb")
    )
    assert script(request) == (Text("B"),)
    assert script(history_request(("user", "b\na"))) == (Text("A"),)
    assert script(history_request(("user", "ab"))) == (
        Text("(the script has no such prompt)"),
    )
    side = Request("POST", "/", {}, {}, history=(("user", "a"),))
    assert script(side) == (Text("ok"),)


def test_reply_ids_differ_between_servers() -> None:
    """Agents reuse the API's ids as ACP ids: a resumed session meets two servers."""
    ids = []
    for _ in range(2):
        with ChatServer(Scripted([(Text("hi"),)])) as server:
            _, raw = post(server, "/v1/chat/completions", chat_body())
        ids.append(payloads(raw)[0]["id"])
    assert ids[0] != ids[1]


# --- Gemini. -------------------------------------------------------------------------

GEMINI = "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"


def gemini_body() -> dict[str, Any]:
    return {
        "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}],
        "contents": [
            {"role": "user", "parts": [{"text": "<context>"}, {"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "x"}}]},
            {"role": "user", "parts": [{"functionResponse": {"response": "one"}}]},
        ],
    }


def test_gemini_streams_thought_parts_text_and_a_whole_function_call() -> None:
    with GeminiServer(Scripted([REPLY])) as server:
        status, raw = post(server, GEMINI, gemini_body())
    assert status == 200
    request = server.requests[0]
    assert (request.model, request.tools) == ("gemini-x", ("run_shell_command",))
    assert request.history == (
        ("user", "<context>\ngo"),
        ("assistant", ""),
        ("tool", "one"),
    )
    parts = [
        part
        for event in payloads(raw)
        for part in event["candidates"][0]["content"]["parts"]
    ]
    thought = "".join(p["text"] for p in parts if p.get("thought"))
    text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    assert thought == "Thinking it over, slowly."
    assert text == "Here is the answer you wanted."
    assert calls == [{"name": "bash", "args": {"command": "printf 'one\\ntwo\\n'"}}]
    last = payloads(raw)[-1]
    assert last["candidates"][0]["finishReason"] == "STOP"
    assert last["usageMetadata"]["totalTokenCount"] == 120


def test_gemini_answers_generate_content_whole_and_errors_with_googles_body() -> None:
    script = Scripted([(HttpError(429, message="quota"),)], side=(Text('{"a": 1}'),))
    path = "/v1beta/models/gemini-x:generateContent"
    with GeminiServer(script) as server:
        status, raw = post(server, path, {"contents": []})
        assert status == 200
        assert json.loads(raw)["candidates"][0]["content"]["parts"] == [
            {"text": '{"a": 1}'}
        ]
        status, raw = post(server, GEMINI, gemini_body())
    assert status == 429
    assert json.loads(raw) == {
        "error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}
    }
