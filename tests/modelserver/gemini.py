"""A scripted stand-in for the Gemini API (`generateContent`), on 127.0.0.1.

gemini-cli, given `GOOGLE_GEMINI_BASE_URL={server.url}` and any `GEMINI_API_KEY`,
sends `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` for its turns,
and `:generateContent` (no stream) for side requests such as its model router's
classification. The steps and `Scripted` / `ByPrompt` are those of `_script.py`.

Stream: one `GenerateContentResponse` per event: a `Thinking` is text parts with
`thought: true`, a `Text` text parts, a `ToolUse` one `functionCall` part (the API
sends a call whole); the last event has `finishReason: STOP` and the usage.
`HttpError` answers with the Google error body
(`{"error": {"code", "message", "status"}}`).

The model is in the path, not the body: `Request.model` is taken from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from tests.modelserver._script import (
    HttpError,
    Reply,
    Request,
    ScriptServer,
    Text,
    Thinking,
    ToolUse,
    Turn,
    pieces,
    sse,
)

__all__ = ["GeminiServer"]

STATUS: Final = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}

USAGE: Final = {"promptTokenCount": 100, "candidatesTokenCount": 20}


def _parts_text(parts: Any) -> str:
    if not isinstance(parts, list):
        return ""
    return "\n".join(
        str(p["text"]) for p in parts if isinstance(p, dict) and "text" in p
    )


def _history(body: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for content in body.get("contents") or []:
        if not isinstance(content, dict):
            continue
        parts = content.get("parts") or []
        if content.get("role") == "model":
            yield "assistant", _parts_text(parts)
        elif any(isinstance(p, dict) and "functionResponse" in p for p in parts):
            responses = [
                p["functionResponse"] for p in parts if "functionResponse" in p
            ]
            yield "tool", "\n".join(str(r.get("response")) for r in responses)
        else:
            yield "user", _parts_text(parts)


class GeminiServer(ScriptServer):
    """`GOOGLE_GEMINI_BASE_URL` is `server.url`."""

    id_prefix = "gemini_scripted"

    def parse(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> Request:
        """Tools from `functionDeclarations`; the model from the path."""
        tools = [
            str(declaration.get("name"))
            for tool in body.get("tools") or []
            for declaration in tool.get("functionDeclarations") or []
        ]
        name = path.split("?", 1)[0].rsplit("/models/", 1)[-1].split(":", 1)[0]
        return Request(
            method,
            path,
            headers,
            body,
            tools=tuple(tools),
            model=name,
            history=tuple(_history(body)),
        )

    def streams(self, request: Request) -> bool:
        """`:streamGenerateContent` (the method asks for the stream, not the body)."""
        return ":streamGenerateContent" in request.path

    def scripted(self, path: str) -> bool:
        """`…/models/{model}:generateContent` and `:streamGenerateContent`."""
        return path.endswith((":generateContent", ":streamGenerateContent"))

    def error_body(self, error: HttpError) -> dict[str, Any]:
        """`{"error": {"code", "message", "status"}}`."""
        status = STATUS.get(error.status, "UNKNOWN")
        return {
            "error": {"code": error.status, "message": error.message}
            | {"status": status}
        }

    def _event(self, turn: Turn, parts: list[dict[str, Any]], **extra: Any) -> bytes:
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
        response = {"candidates": [candidate | extra], "responseId": turn.id}
        return sse(response | {"modelVersion": turn.request.model})

    def opening(self, turn: Turn) -> Iterator[bytes]:
        """Nothing: the first part opens the stream."""
        yield from ()

    def block(self, turn: Turn, step: Thinking | Text | ToolUse) -> Iterator[bytes]:
        """Text parts in pieces (thought parts for thinking), or a function call."""
        if isinstance(step, ToolUse):
            turn.tool_calls += 1
            call = {"name": step.name, "args": step.input}
            yield self._event(turn, [{"functionCall": call}])
            return
        thought = {"thought": True} if isinstance(step, Thinking) else {}
        for piece in pieces(step.text):
            yield self._event(turn, [{"text": piece} | thought])

    def closing(self, turn: Turn) -> Iterator[bytes]:
        """An empty text part with `finishReason: STOP` and the usage."""
        usage = USAGE | {"totalTokenCount": 120}
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": []}}
        candidate |= {"finishReason": "STOP", "index": 0}
        yield sse(
            {"candidates": [candidate], "usageMetadata": usage}
            | {"modelVersion": turn.request.model, "responseId": turn.id}
        )

    def whole(self, turn: Turn, reply: Reply) -> dict[str, Any]:
        """The whole response, for `:generateContent`."""
        parts: list[dict[str, Any]] = []
        for step in reply:
            if isinstance(step, Text):
                parts.append({"text": step.text})
            elif isinstance(step, Thinking):
                parts.append({"text": step.text, "thought": True})
            elif isinstance(step, ToolUse):
                parts.append({"functionCall": {"name": step.name, "args": step.input}})
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
        return {
            "candidates": [candidate | {"finishReason": "STOP"}],
            "usageMetadata": USAGE | {"totalTokenCount": 120},
            "modelVersion": turn.request.model,
            "responseId": turn.id,
        }
