"""A scripted stand-in for the Anthropic Messages API, on 127.0.0.1.

claude-agent-acp (Claude Code underneath) sends `POST /v1/messages?beta=true` with
`stream: true` to `ANTHROPIC_BASE_URL`. This server answers from a script instead of
a model, so a real agent runs a real turn offline: its own tools (Bash, Write,
Edit, Read, ...) run for real on the machine, it asks for real permissions, and it
streams to the client what it would stream with a real model.

A script is a `Responder` (see `_script.py` for the steps and `Scripted`):

* `Thinking(text)`: a thinking block (streamed as `thinking_delta`s, then a
  signature).
* `Text(text)`: a text block (`text_delta`s).
* `ToolUse(name, input)`: a `tool_use` block (`input_json_delta`s); the reply then
  stops with `stop_reason: tool_use`, and the agent comes back with the result.
* `Gate(event, bound)`: a `ping`, then the stream holds until the test sets `event`.
* `HttpError(status, kind, message)`: the whole request fails with that status and
  an Anthropic error body (`{"type": "error", "error": {"type", "message"}}`).

`POST /v1/messages/count_tokens` answers 100 tokens; anything else is a 404.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from tests.modelserver._script import (
    Gate,
    HttpError,
    Reply,
    Request,
    Responder,
    Scripted,
    ScriptServer,
    Step,
    Text,
    Thinking,
    ToolUse,
    Turn,
    is_side,
    pieces,
    sse,
    text_of,
)

__all__ = [
    "Gate",
    "HttpError",
    "ModelServer",
    "Reply",
    "Request",
    "Responder",
    "Scripted",
    "Step",
    "Text",
    "Thinking",
    "ToolUse",
    "is_side",
    "tool_results",
]


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The `tool_result` blocks of the last user message of a Messages request."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            return []
        return [block for block in content if block.get("type") == "tool_result"]
    return []


def _history(body: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") == "assistant":
            yield "assistant", text_of(content)
        elif message.get("role") == "user":
            blocks = content if isinstance(content, list) else []
            results = [
                block
                for block in blocks
                if isinstance(block, dict) and block.get("type") == "tool_result"
            ]
            if results:
                yield "tool", "".join(text_of(r.get("content")) for r in results)
            else:
                yield "user", text_of(content)


def _event(data: dict[str, Any]) -> bytes:
    return sse(data, event=str(data["type"]))


class ModelServer(ScriptServer):
    """The Messages API: `with ModelServer(responder) as server: server.url` is
    `ANTHROPIC_BASE_URL`."""

    id_prefix = "msg_scripted"

    def parse(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> Request:
        """Tools by name; a user message with `tool_result`s is a `tool` entry."""
        return Request(
            method,
            path,
            headers,
            body,
            tools=tuple(str(tool.get("name")) for tool in body.get("tools") or []),
            model=str(body.get("model", "")),
            history=tuple(_history(body)),
        )

    def scripted(self, path: str) -> bool:
        """`/v1/messages`."""
        return path.endswith("/v1/messages")

    def fixed(self, path: str) -> dict[str, Any] | None:
        """`/v1/messages/count_tokens`: 100 tokens."""
        return {"input_tokens": 100} if path.endswith("/count_tokens") else None

    def error_body(self, error: HttpError) -> dict[str, Any]:
        """`{"type": "error", "error": {"type", "message"}}`."""
        return {
            "type": "error",
            "error": {"type": error.kind, "message": error.message},
        }

    def keepalive(self) -> bytes:
        """A `ping` event."""
        return _event({"type": "ping"})

    def opening(self, turn: Turn) -> Iterator[bytes]:
        """`message_start`."""
        message = self._message(turn, [])
        message["stop_reason"] = None
        message["usage"] = {"input_tokens": 100, "output_tokens": 1}
        yield _event({"type": "message_start", "message": message})

    def block(self, turn: Turn, step: Thinking | Text | ToolUse) -> Iterator[bytes]:
        """`content_block_start`, its deltas, `content_block_stop`."""
        index = turn.blocks
        deltas: list[dict[str, Any]]
        if isinstance(step, Thinking):
            start: dict[str, Any] = {
                "type": "thinking",
                "thinking": "",
                "signature": "",
            }
            deltas = [
                {"type": "thinking_delta", "thinking": p} for p in pieces(step.text)
            ]
            deltas.append({"type": "signature_delta", "signature": "c2lnbmF0dXJl"})
        elif isinstance(step, Text):
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces(step.text)]
        else:
            turn.tool_calls += 1
            start = {"type": "tool_use", "id": _tool_id(turn, index), "name": step.name}
            start["input"] = {}
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in pieces(json.dumps(step.input))
            ]
        yield _event(
            {"type": "content_block_start", "index": index, "content_block": start}
        )
        for delta in deltas:
            yield _event(
                {"type": "content_block_delta", "index": index, "delta": delta}
            )
        yield _event({"type": "content_block_stop", "index": index})

    def closing(self, turn: Turn) -> Iterator[bytes]:
        """`message_delta` with the stop reason and usage, `message_stop`."""
        stop = "tool_use" if turn.tool_calls else "end_turn"
        yield _event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            }
        )
        yield _event({"type": "message_stop"})

    def whole(self, turn: Turn, reply: Reply) -> dict[str, Any]:
        """The whole message, for a request without `stream`."""
        return self._message(turn, reply)

    def _message(self, turn: Turn, reply: Reply) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for index, step in enumerate(reply):
            if isinstance(step, Text):
                content.append({"type": "text", "text": step.text})
            elif isinstance(step, Thinking):
                content.append(
                    {"type": "thinking", "thinking": step.text, "signature": "sig"}
                )
            elif isinstance(step, ToolUse):
                tool_id = _tool_id(turn, index)
                content.append(
                    {"type": "tool_use", "id": tool_id, "name": step.name}
                    | {"input": step.input}
                )
        tools = any(isinstance(s, ToolUse) for s in reply)
        return {
            "id": turn.id,
            "type": "message",
            "role": "assistant",
            "model": turn.request.model,
            "content": content,
            "stop_reason": "tool_use" if tools else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }


def _tool_id(turn: Turn, index: int) -> str:
    return f"toolu_{turn.id}_{index}"
