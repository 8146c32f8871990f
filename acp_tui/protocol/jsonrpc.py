"""JSON-RPC 2.0 envelopes: classification, error codes and the error exception.

Envelopes are plain frozen dataclasses over the decoded JSON, not pydantic models:
classifying a message is a handful of dict look-ups on the hot path, and params are
validated later, by method, against the negotiated version's wire models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, TypeGuard

__all__ = [
    "AUTH_REQUIRED",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_DETAIL_CHARS",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "REQUEST_CANCELLED",
    "RESOURCE_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "ErrorResponse",
    "InvalidMessage",
    "Message",
    "Notification",
    "Request",
    "RequestId",
    "RequestTimeout",
    "Response",
    "RpcError",
    "describe_error",
    "error_response",
    "id_key",
    "parse_message",
]

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
REQUEST_CANCELLED: Final = -32800
AUTH_REQUIRED: Final = -32000
RESOURCE_NOT_FOUND: Final = -32002
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
"""Newer v2 draft only (TS SDK 2.4): `initialize` with a version the agent lacks."""

RequestId: TypeAlias = int | str
"""A request id. JSON-RPC also allows `null`, which only appears on error replies."""


class RpcError(Exception):
    """A JSON-RPC error.

    Handlers raise it to answer with an error; `Dispatcher.request` raises it when
    the peer answered with one.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_object(self) -> dict[str, Any]:
        """The wire error object `{code, message, data?}`."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def __str__(self) -> str:
        return describe_error(self.to_object())

    def __repr__(self) -> str:
        return f"RpcError({self.code!r}, {self.message!r}, {self.data!r})"


@dataclass(frozen=True, slots=True)
class Request:
    """A call that expects a response."""

    id: RequestId
    method: str
    params: Any
    """The decoded `params` (object or array), or None when absent."""


@dataclass(frozen=True, slots=True)
class Notification:
    """A call that never gets a response."""

    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Response:
    """A successful reply."""

    id: RequestId
    result: Any


@dataclass(frozen=True, slots=True)
class ErrorResponse:
    """An error reply. `id` is None when the peer could not tell which request."""

    id: RequestId | None
    error: RpcError


@dataclass(frozen=True, slots=True)
class InvalidMessage:
    """Valid JSON that is not a JSON-RPC 2.0 message."""

    reason: str
    id: RequestId | None
    """The id, when one could be read: it is echoed in the `-32600` reply only if the
    message was otherwise recognisable as a request."""


Message: TypeAlias = Request | Notification | Response | ErrorResponse


def id_key(value: Any) -> tuple[str, int | str] | None:
    """A hashable key that tells request ids apart as JSON-RPC does.

    1 and "1" are different ids, and so are `true` and 1; a value that is neither
    a number nor a string gives None.
    """
    return (type(value).__name__, value) if isinstance(value, int | str) else None


def _is_id(value: Any) -> TypeGuard[RequestId]:
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(
        value, str
    )


def parse_message(data: Any) -> Message | InvalidMessage:
    """Classify one decoded JSON value (never raises)."""
    if not isinstance(data, dict):
        return InvalidMessage("a message must be a JSON object", None)
    if data.get("jsonrpc") != "2.0":
        return InvalidMessage('"jsonrpc" must be "2.0"', None)
    method = data.get("method")
    has_id = "id" in data
    raw_id = data.get("id")
    if method is not None:
        if not isinstance(method, str):
            return InvalidMessage('"method" must be a string', None)
        params = data.get("params")
        if params is not None and not isinstance(params, dict | list):
            ident = raw_id if _is_id(raw_id) else None
            return InvalidMessage('"params" must be an object or an array', ident)
        if not has_id:
            return Notification(method, params)
        if not _is_id(raw_id):
            # `"id": null` on a request is allowed by ACP's RequestId but makes the
            # request unanswerable; treat it as invalid.
            return InvalidMessage('"id" must be a number or a string', None)
        return Request(raw_id, method, params)
    if not has_id or (raw_id is not None and not _is_id(raw_id)):
        return InvalidMessage("a response needs a valid id", None)
    if "error" in data:
        if "result" in data:
            return InvalidMessage("a response has a result or an error, not both", None)
        error = data["error"]
        if not isinstance(error, dict):
            return InvalidMessage('"error" must be an object', None)
        code = error.get("code")
        message = error.get("message")
        if not isinstance(code, int) or isinstance(code, bool):
            code = -32603
        if not isinstance(message, str):
            message = "(no message)"
        return ErrorResponse(raw_id, RpcError(code, message, error.get("data")))
    if "result" not in data:
        return InvalidMessage("a response needs a result or an error", None)
    if raw_id is None:
        return InvalidMessage("a result needs an id", None)
    return Response(raw_id, data["result"])


def error_response(request_id: RequestId | None, error: RpcError) -> dict[str, Any]:
    """Build the wire form of an error reply."""
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_object()}


class RequestTimeout(TimeoutError):
    """An outbound request got no response in time. `$/cancel_request` was sent."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method} got no response within {timeout:g} s")
        self.method = method
        self.timeout = timeout


MAX_DETAIL_CHARS = 600
"""Longest `data` detail shown after an error's message (a stack trace is cut)."""


def describe_error(error: Mapping[str, object] | None) -> str:
    """A JSON-RPC error object as a user reads it: the agent's words, then the code.

    `{"code": -32603, "message": "Internal error: overloaded"}` reads
    `Internal error: overloaded (-32603)`; the message is the agent's own text,
    never a JSON dump of the object (which escapes every non-ASCII character).
    Agents often put the cause in `data` behind a generic message (codex-acp:
    `"Internal error"` with `data.message` "exceeded retry limit, last status:
    429 Too Many Requests"), so a `data` that is a string, or holds a string
    `message`, follows the message: `Internal error: exceeded retry limit, …
    (-32603)`, cut at `MAX_DETAIL_CHARS`.
    """
    if not error:
        return "no reason given"
    message = error.get("message")
    reason = message.strip() if isinstance(message, str) else ""
    detail = _detail(error.get("data"))
    if detail and detail not in reason:
        reason = f"{reason}: {detail}" if reason else detail
    code = error.get("code")
    numeric = isinstance(code, int) and not isinstance(code, bool)
    suffix = f" ({code})" if numeric else ""
    return f"{reason or 'no reason given'}{suffix}"


def _detail(data: object) -> str:
    """What an error's `data` says in words: itself, or its `message`; else ""."""
    if isinstance(data, Mapping):
        data = data.get("message")
    if not isinstance(data, str):
        return ""
    detail = data.strip()
    if len(detail) > MAX_DETAIL_CHARS:
        detail = detail[: MAX_DETAIL_CHARS - 1].rstrip() + "…"
    return detail
