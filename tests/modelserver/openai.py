"""Scripted stand-ins for OpenAI's Chat Completions and Responses APIs, on 127.0.0.1.

opencode, given a custom provider (`@ai-sdk/openai-compatible` with `baseURL`
`{server.url}/v1`), sends `POST /v1/chat/completions` with `stream: true`:
`ChatServer` answers it. codex-acp, given a `model_providers` entry with
`base_url = "{server.url}/v1"`, sends `POST /v1/responses`: `ResponsesServer`
answers it. The steps and `Scripted` are those of `_script.py`.

Chat Completions stream (`ChatServer`): `chat.completion.chunk`s whose delta
carries the role first, then `reasoning_content` (a `Thinking`), `content` (a
`Text`) or `tool_calls` (a `ToolUse`: its id, type and name, then its `arguments`
in pieces); the last choice chunk has `finish_reason` (`tool_calls` or `stop`); a
usage chunk with no choices follows (the agents ask for it with
`stream_options.include_usage`), then `data: [DONE]`.

Responses stream (`ResponsesServer`): `response.created`; per step an output item
(`reasoning` with its summary in `response.reasoning_summary_text.delta`s,
`message` with `response.output_text.delta`s, `function_call` with
`response.function_call_arguments.delta`s), each `added` then `done` with its
whole content; then `response.completed` with the usage.

A `Gate` writes an SSE comment and holds the stream. `HttpError` answers its status
with OpenAI's error body (`{"error": {"message", "type", "code"}}`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

from tests.modelserver._script import (
    HttpError,
    Request,
    ScriptServer,
    Text,
    Thinking,
    ToolUse,
    Turn,
    pieces,
    sse,
    text_of,
)

__all__ = ["ChatServer", "ResponsesServer"]

CREATED: Final = 1_767_225_600
"""A fixed `created` time (2026-01-01), so replies do not depend on the clock."""

USAGE: Final = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


def _error_body(error: HttpError) -> dict[str, Any]:
    return {"error": {"message": error.message, "type": error.kind, "code": None}}


MODEL_ITEMS: Final = frozenset({"function_call", "reasoning", "custom_tool_call"})


def _items(items: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """Responses input items as history entries."""
    for item in items:
        kind = item.get("type")
        role = item.get("role")
        if kind in MODEL_ITEMS or (kind == "message" and role == "assistant"):
            yield "assistant", text_of(item.get("content"))
        elif kind == "message" and role == "user":
            yield "user", text_of(item.get("content"))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            yield "tool", text_of(item.get("output"))


class ChatServer(ScriptServer):
    """Chat Completions: `{server.url}/v1` is the provider's base URL."""

    id_prefix = "chatcmpl_scripted"

    def parse(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> Request:
        """Tools by function name; user, assistant and tool messages."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        tools = [t.get("function") or {} for t in body.get("tools") or []]
        return Request(
            method,
            path,
            headers,
            body,
            tools=tuple(str(tool.get("name")) for tool in tools),
            model=str(body.get("model", "")),
            history=tuple(
                (str(m["role"]), text_of(m.get("content")))
                for m in messages
                if m.get("role") in ("user", "assistant", "tool")
            ),
        )

    def scripted(self, path: str) -> bool:
        """`/v1/chat/completions`."""
        return path.endswith("/chat/completions")

    def error_body(self, error: HttpError) -> dict[str, Any]:
        """`{"error": {"message", "type", "code"}}`."""
        return _error_body(error)

    def _chunk(
        self, turn: Turn, delta: dict[str, Any], finish: str | None = None
    ) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return sse(self._envelope(turn) | {"choices": [choice]})

    def _envelope(self, turn: Turn) -> dict[str, Any]:
        return {
            "id": turn.id,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": turn.request.model,
        }

    def opening(self, turn: Turn) -> Iterator[bytes]:
        """The role."""
        yield self._chunk(turn, {"role": "assistant", "content": ""})

    def block(self, turn: Turn, step: Thinking | Text | ToolUse) -> Iterator[bytes]:
        """Deltas of `reasoning_content`, `content`, or one tool call."""
        if isinstance(step, Thinking):
            for piece in pieces(step.text):
                yield self._chunk(turn, {"reasoning_content": piece})
        elif isinstance(step, Text):
            for piece in pieces(step.text):
                yield self._chunk(turn, {"content": piece})
        else:
            index = turn.tool_calls
            turn.tool_calls += 1
            call_id = f"call_{turn.id}_{index}"
            start = {"name": step.name, "arguments": ""}
            yield self._chunk(
                turn,
                {
                    "tool_calls": [
                        {"index": index, "id": call_id, "type": "function"}
                        | {"function": start}
                    ]
                },
            )
            for piece in pieces(json.dumps(step.input)):
                call = {"index": index, "function": {"arguments": piece}}
                yield self._chunk(turn, {"tool_calls": [call]})

    def closing(self, turn: Turn) -> Iterator[bytes]:
        """The finish reason, the usage, `[DONE]`."""
        finish = "tool_calls" if turn.tool_calls else "stop"
        yield self._chunk(turn, {}, finish)
        yield sse(self._envelope(turn) | {"choices": [], "usage": USAGE})
        yield sse("[DONE]")


class ResponsesServer(ScriptServer):
    """The Responses API: `{server.url}/v1` is the provider's base URL."""

    id_prefix = "resp_scripted"

    def parse(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> Request:
        """Tools by name; input items as history (model items are `assistant`)."""
        raw = body.get("input")
        items = [i for i in raw if isinstance(i, dict)] if isinstance(raw, list) else []
        return Request(
            method,
            path,
            headers,
            body,
            tools=tuple(
                str(t["name"]) for t in body.get("tools") or [] if t.get("name")
            ),
            model=str(body.get("model", "")),
            history=tuple(_items(items)),
        )

    def scripted(self, path: str) -> bool:
        """`/v1/responses`."""
        return path.endswith("/responses")

    def error_body(self, error: HttpError) -> dict[str, Any]:
        """`{"error": {"message", "type", "code"}}`."""
        return _error_body(error)

    def opening(self, turn: Turn) -> Iterator[bytes]:
        """`response.created`."""
        yield _event("response.created", {"response": self._response(turn, None)})

    def block(self, turn: Turn, step: Thinking | Text | ToolUse) -> Iterator[bytes]:
        """One output item: added, its deltas, done."""
        index = turn.blocks
        item_id = f"{turn.id}_item_{index}"
        where = {"output_index": index, "item_id": item_id}
        done: dict[str, Any]
        if isinstance(step, Thinking):
            added: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": []}
            deltas = [
                _event(
                    "response.reasoning_summary_text.delta",
                    where | {"summary_index": 0, "delta": piece},
                )
                for piece in pieces(step.text)
            ]
            summary = [{"type": "summary_text", "text": step.text}]
            done = added | {"summary": summary}
        elif isinstance(step, Text):
            added = {"type": "message", "id": item_id, "role": "assistant"}
            added |= {"status": "in_progress", "content": []}
            deltas = [
                _event(
                    "response.output_text.delta",
                    where | {"content_index": 0, "delta": piece},
                )
                for piece in pieces(step.text)
            ]
            part = {"type": "output_text", "text": step.text, "annotations": []}
            done = added | {"status": "completed", "content": [part]}
        else:
            turn.tool_calls += 1
            added = {"type": "function_call", "id": item_id, "name": step.name}
            added |= {"call_id": f"call_{item_id}", "arguments": ""}
            arguments = json.dumps(step.input)
            deltas = [
                _event("response.function_call_arguments.delta", where | {"delta": p})
                for p in pieces(arguments)
            ]
            done = added | {"arguments": arguments}
        yield _event(
            "response.output_item.added", {"output_index": index} | {"item": added}
        )
        yield from deltas
        yield _event("response.output_item.done", {"output_index": index, "item": done})

    def closing(self, turn: Turn) -> Iterator[bytes]:
        """`response.completed` with the usage."""
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 120,
        }
        response = self._response(turn, usage)
        yield _event("response.completed", {"response": response})

    def _response(self, turn: Turn, usage: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "id": turn.id,
            "object": "response",
            "created_at": CREATED,
            "model": turn.request.model,
            "status": "in_progress" if usage is None else "completed",
            "output": [],
            "usage": usage,
        }


def _event(kind: str, data: dict[str, Any]) -> bytes:
    return sse({"type": kind} | data, event=kind)
