"""Strict schema validation of a connection's messages, and the exchange it reads.

`check_schema` validates recorded lines **strictly** against one protocol
version's wire models: the models' lenient repair (`_base`) is not applied, so a
message the client only accepts after dropping a bad field is a violation here.
Each distinct problem is one failing `CheckRow` naming the method and the field
path, e.g. `session/update agent_message_chunk: messageId missing`.

`acp-tui check` (`frontends.check`) runs it on every line an agent sent; the
inspector (`client.traffic`) on one entry at a time. It lives apart from the
check itself so that the inspector's log needs nothing of the check's run (no
`traffic -> check -> runner` cycle). `Exchange` holds a connection's lines both
ways (a `protocol.observed.LineObserver`), and lets the check wait for messages.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import anyio
from pydantic import ValidationError

from acp_tui.client.connection import DIALECTS
from acp_tui.protocol.framing import DecodeError, Line, OversizedLine, decode_line
from acp_tui.protocol.jsonrpc import id_key
from acp_tui.protocol.schema import unstable, wire_models
from acp_tui.protocol.schema._base import WireModel
from acp_tui.protocol.version import ProtocolVersion, known_version

__all__ = [
    "CheckRow",
    "Exchange",
    "Result",
    "Side",
    "check_exchange",
    "check_schema",
    "plural",
]

Result = Literal["pass", "fail", "skip"]

MAX_SCHEMA_ROWS: Final = 20
"""Distinct schema problems reported per connection; the rest are counted."""

MAX_PROBLEMS_PER_MESSAGE: Final = 3


@dataclass(frozen=True, slots=True)
class CheckRow:
    """One check: its name, the protocol version it ran on, the result, and why."""

    name: str
    version: int | None
    result: Result
    detail: str

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON object."""
        return {
            "check": self.name,
            "protocolVersion": self.version,
            "result": self.result,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class _Inbound:
    """One line the agent wrote: decoded JSON, or why it could not be."""

    data: Any
    problem: str | None = None


class Exchange:
    """The lines of one connection, both ways, and a way to wait for new ones."""

    def __init__(self) -> None:
        self.inbound: list[_Inbound] = []
        self.sent_methods: dict[Any, str] = {}
        """Our request ids, to the method of the request."""
        self.requests: list[tuple[int, Any, str]] = []
        """Our requests in order: (the inbound mark when sent, id, method)."""
        self._changed: anyio.Event | None = None

    def received(self, line: Line | OversizedLine) -> None:
        """Keep a line the agent wrote, decoded (a `LineObserver`)."""
        if isinstance(line, OversizedLine):
            entry = _Inbound(None, f"a line of {line.size} bytes (over the limit)")
        elif not line.strip():
            return
        else:
            data = decode_line(line)
            if isinstance(data, DecodeError):
                entry = _Inbound(None, f"an unreadable line ({data.message})")
            else:
                entry = _Inbound(data)
        self.inbound.append(entry)
        if self._changed is not None:
            self._changed.set()

    def sent(self, line: Line) -> None:
        """Note the method of a request we send (a `LineObserver`)."""
        data = decode_line(line)
        if isinstance(data, dict) and "id" in data and "method" in data:
            key = id_key(data["id"])
            self.sent_methods[key] = str(data["method"])
            self.requests.append((self.mark(), key, str(data["method"])))

    def mark(self) -> int:
        """A position in the inbound messages, for `messages_since` / `wait_for`."""
        return len(self.inbound)

    def at(self, index: int) -> list[dict[str, Any]]:
        """The JSON-RPC objects of one inbound line (a batch has several)."""
        data = self.inbound[index].data
        items = data if isinstance(data, list) else [data]
        return [item for item in items if isinstance(item, dict)]

    def messages_since(self, mark: int) -> list[dict[str, Any]]:
        """The JSON-RPC objects received since `mark` (batches flattened)."""
        out: list[dict[str, Any]] = []
        for index in range(mark, len(self.inbound)):
            out.extend(self.at(index))
        return out

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], mark: int
    ) -> None:
        """Wait until a message received since `mark` satisfies `predicate`."""
        checked = mark
        while True:
            self._changed = anyio.Event()
            for message in self.messages_since(checked):
                if predicate(message):
                    return
            checked = self.mark()
            await self._changed.wait()

    def answers(self, message: dict[str, Any], method: str, mark: int) -> bool:
        """Whether `message` answers the first `method` request sent since `mark`."""
        if "method" in message or "id" not in message:
            return False
        for sent_at, key, sent_method in self.requests:
            if sent_at >= mark and sent_method == method:
                return bool(key == id_key(message["id"]))
        return False

    def response_method(self, message: dict[str, Any]) -> str | None:
        """The method of the request a response answers, if it is ours."""
        if "method" in message or "id" not in message:
            return None
        return self.sent_methods.get(id_key(message["id"]))


def plural(count: int, noun: str) -> str:
    """`1 session`, `2 sessions`."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


@dataclass(frozen=True, slots=True)
class _Tables:
    client_methods: dict[str, Any]
    agent_methods: dict[str, Any]
    notifications: dict[str, type[WireModel]]
    """The notifications an agent may send."""
    agent_notifications: dict[str, type[WireModel]]
    """The notifications a client may send."""


@functools.cache
def _tables(version: int) -> _Tables:
    """The method tables of `version`, built on first use.

    The v1 models load lazily, and the inspector imports this module for v2
    sessions too.
    """
    schema = wire_models(version)
    return _Tables(
        schema.CLIENT_METHODS,
        {**schema.AGENT_METHODS, **unstable.AGENT_METHODS},
        {
            **schema.CLIENT_NOTIFICATIONS,
            **unstable.CLIENT_NOTIFICATIONS,
            **schema.PROTOCOL_NOTIFICATIONS,
        },
        {**schema.AGENT_NOTIFICATIONS, **schema.PROTOCOL_NOTIFICATIONS},
    )


def _json_path(data: Any, loc: Sequence[int | str], missing: bool) -> list[str]:
    """The wire path of a pydantic error location.

    `loc` interleaves real keys with union tags (`agent_message_chunk`, `items`)
    that are not on the wire: a step is a key only if the data has it there (and,
    before the last step, it leads into an object or array).
    """
    parts: list[str] = []
    current = data
    for position, key in enumerate(loc):
        last = position == len(loc) - 1
        container = isinstance(current, dict | list)
        if isinstance(current, dict) and isinstance(key, str) and key in current:
            value = current[key]
            if last or isinstance(value, dict | list):
                parts.append(key)
                current = value
        elif (
            isinstance(current, list)
            and isinstance(key, int)
            and 0 <= key < len(current)
        ):
            parts.append(f"[{key}]")
            current = current[key]
        elif last and missing and container:
            parts.append(str(key))
    return parts


_PYDANTIC_NOISE: Final = re.compile(r" or instance of \w+")
"""Python-side wording in pydantic's messages (`... a valid dictionary or instance
of PromptResponse`): the wire has no instances."""


def _join(parts: Sequence[str]) -> str:
    text = ""
    for part in parts:
        text += part if part.startswith("[") or not text else f".{part}"
    return text


def _problems(data: Any, error: ValidationError, strip: str | None = None) -> list[str]:
    """Each distinct error as `path missing` or `path: message`."""
    out: list[str] = []
    for item in error.errors(include_url=False):
        missing = item["type"] == "missing"
        parts = _json_path(data, item["loc"], missing)
        if strip is not None and parts[:1] == [strip]:
            parts = parts[1:]
        path = _join(parts)
        if item["type"] in ("union_tag_not_found", "union_tag_invalid"):
            message = "its type tag is missing or not a string"
        else:
            message = _PYDANTIC_NOISE.sub("", str(item["msg"]))
            message = message[:1].lower() + message[1:]
        if missing:
            text = f"{path} missing" if path else "a required field is missing"
        else:
            text = f"{path}: {message}" if path else message
        if text not in out:
            out.append(text)
    return out


def _validate(model: type[WireModel], data: Any) -> ValidationError | None:
    """Validate strictly (the schema), without the lenient repair."""
    try:
        model.__pydantic_validator__.validate_python(data)
    except ValidationError as error:
        return error
    return None


def _tolerated(model: type[WireModel], data: Any) -> bool:
    """Whether the client's lenient parse accepts it (after dropping bad fields)."""
    try:
        model.model_validate(data)
    except ValidationError:
        return False
    return True


@dataclass(slots=True)
class _SchemaFinding:
    where: str
    problem: str
    tolerated: bool
    count: int = 1


Side = Literal["agent", "client"]
"""Whose messages a schema check validates: the agent's, or acp-tui's own."""


class _SchemaCheck:
    """Validates the messages of one connection against one version's models.

    `traffic.inbound` holds the lines checked, written by `side`; the lines of
    the other side (`traffic.sent`) only say which request a response answers.
    """

    def __init__(
        self,
        label: int,
        version: ProtocolVersion,
        traffic: Exchange,
        side: Side = "agent",
    ) -> None:
        self.side = side
        self.label = label
        """The version checked on this connection (the row's version)."""
        self.version = version
        """The version spoken: whose models apply (the `initialize` result is
        always checked against the version it claims)."""
        self.traffic = traffic
        self.tables = _tables(version)
        tables = self.tables
        agent = side == "agent"
        self.requests = tables.client_methods if agent else tables.agent_methods
        """The methods `side` may call."""
        self.answers = tables.agent_methods if agent else tables.client_methods
        """The methods whose results `side` returns."""
        self.notifications = (
            tables.notifications if agent else tables.agent_notifications
        )
        self.findings: dict[tuple[str, str], _SchemaFinding] = {}
        self.messages = 0

    def run(self) -> list[CheckRow]:
        for entry in self.traffic.inbound:
            if entry.problem is not None:
                self._add("stdout", f"{entry.problem}: not a JSON-RPC message")
                continue
            if isinstance(entry.data, list):
                if not DIALECTS[self.version].batches:
                    self._add("stdout", "a JSON array (batches are not part of v1)")
                elif not entry.data:
                    self._add("stdout", "an empty batch")
                for item in entry.data:
                    self._message(item)
            else:
                self._message(entry.data)
        return self._rows()

    def _add(self, where: str, problem: str, tolerated: bool = False) -> None:
        key = (where, problem)
        finding = self.findings.get(key)
        if finding is None:
            self.findings[key] = _SchemaFinding(where, problem, tolerated)
        else:
            finding.count += 1

    def _message(self, message: Any) -> None:
        self.messages += 1
        if not isinstance(message, dict):
            self._add("stdout", "a JSON value that is not a JSON-RPC object")
            return
        if message.get("jsonrpc") != "2.0":
            where = str(message.get("method") or "message")
            self._add(where, 'jsonrpc is not "2.0"')
        method = message.get("method")
        if method is not None:
            if not isinstance(method, str):
                self._add("message", "method is not a string")
            elif "id" in message:
                self._request(method, message)
            else:
                self._notification(method, message)
            return
        if "id" not in message:
            self._add("message", "neither a request, a notification nor a response")
            return
        self._response(message)

    def _check(
        self,
        where: str,
        model: type[WireModel],
        data: Any,
        strip: str | None = None,
    ) -> None:
        error = _validate(model, data)
        if error is None:
            return
        problems = _problems(data, error, strip)[:MAX_PROBLEMS_PER_MESSAGE]
        self._add(where, "; ".join(problems), _tolerated(model, data))

    def _request(self, method: str, message: dict[str, Any]) -> None:
        spec = self.requests.get(method)
        if spec is None:
            if not method.startswith(("_", "$/")):
                callee = "client" if self.side == "agent" else "agent"
                self._add(
                    method,
                    f"not a v{self.version} {callee} method "
                    "(custom methods start with `_`)",
                )
            return
        self._check(f"{method} params", spec.params, message.get("params"))

    def _notification(self, method: str, message: dict[str, Any]) -> None:
        model = self.notifications.get(method)
        if model is None:
            if not method.startswith(("_", "$/")):
                self._add(
                    method,
                    f"not a v{self.version} notification "
                    "(custom methods start with `_`)",
                )
            return
        params = message.get("params")
        where = method
        strip = None
        if method == "session/update":
            update = params.get("update") if isinstance(params, dict) else None
            kind = update.get("sessionUpdate") if isinstance(update, dict) else None
            if isinstance(kind, str):
                where = f"session/update {kind}"
                strip = "update"
        self._check(where, model, params, strip)

    def _response(self, message: dict[str, Any]) -> None:
        method = self.traffic.response_method(message)
        if method is None:
            asker = "acp-tui" if self.side == "agent" else "the agent"
            self._add("response", f"answers no request {asker} sent (unknown id)")
            return
        has_result, has_error = "result" in message, "error" in message
        if has_result == has_error:
            self._add(f"{method} response", "needs exactly one of result and error")
            return
        if has_error:
            error = message["error"]
            valid = (
                isinstance(error, dict)
                and isinstance(error.get("code"), int)
                and not isinstance(error.get("code"), bool)
                and isinstance(error.get("message"), str)
            )
            if not valid:
                self._add(
                    f"{method} error", "not an error object {code: int, message: str}"
                )
            return
        result = message["result"]
        spec = self.answers.get(method)
        if method == "initialize" and self.side == "agent":
            answered = known_version(
                result.get("protocolVersion") if isinstance(result, dict) else None
            )
            if answered is None:
                return  # reported by the initialize check
            spec = _tables(answered).agent_methods["initialize"]
        if spec is not None:
            self._check(f"{method} result", spec.result, result)

    def _rows(self) -> list[CheckRow]:
        if not self.findings:
            return [
                CheckRow(
                    "schema",
                    self.label,
                    "pass",
                    f"{plural(self.messages, 'message')} from "
                    f"{'the agent' if self.side == 'agent' else 'acp-tui'}, "
                    f"all valid v{self.version}",
                )
            ]
        rows = []
        findings = list(self.findings.values())
        for finding in findings[:MAX_SCHEMA_ROWS]:
            detail = f"{finding.where}: {finding.problem}"
            if finding.count > 1:
                detail += f" (x{finding.count})"
            if finding.tolerated:
                detail += " (acp-tui tolerates it)"
            rows.append(CheckRow("schema", self.label, "fail", detail))
        if len(findings) > MAX_SCHEMA_ROWS:
            more = len(findings) - MAX_SCHEMA_ROWS
            rows.append(
                CheckRow("schema", self.label, "fail", f"… and {more} more problems")
            )
        return rows


def check_schema(
    version: ProtocolVersion,
    sent: Iterable[Line],
    received: Iterable[Line],
    *,
    side: Side = "agent",
) -> list[CheckRow]:
    """The `schema` rows for a recorded exchange (lines without their newline).

    `received` are the lines checked strictly against `version`'s models: the
    agent's (`side="agent"`), or acp-tui's own (`side="client"`). `sent` are the
    other side's lines; their request ids say what a response answers.
    """
    traffic = Exchange()
    for line in sent:
        traffic.sent(line)
    for line in received:
        traffic.received(line)
    return check_exchange(version, version, traffic, side=side)


def check_exchange(
    label: ProtocolVersion,
    version: ProtocolVersion,
    exchange: Exchange,
    *,
    side: Side = "agent",
) -> list[CheckRow]:
    """The `schema` rows of a connection's exchange (labelled `label`).

    `exchange.inbound`, written by `side`, is checked against `version`'s models
    (the negotiated one, which may differ from the version offered, `label`).
    """
    return _SchemaCheck(label, version, exchange, side).run()
