"""`acp-tui check`: a conformance probe for agent authors.

`run_check()` starts the agent once per protocol version (v2 with proper v2
`initialize` params, v1 pinned separately), walks it through the session baseline,
and returns a `CheckReport`: one `CheckRow` per check, each `pass`, `fail` or
`skip` (a skip says which capability the agent did not advertise).

Per negotiated version, in order:

* `initialize` (an answer with the other version is correct behaviour: the rows of
  this version are then skipped);
* `session/new` in a temporary directory (the session's cwd, removed afterwards);
* a short prompt turn (`hello`) that must end: v2 with an idle `state_update`
  carrying a `stopReason` after the prompt was accepted, v1 with the
  `session/prompt` response's `stopReason`; in v2 also the lifecycle the spec
  requires (the `user_message` acknowledgement and a `running` state);
* cancellation: a second turn is cancelled as soon as it has visibly started and
  must end with `cancelled` (v2: an idle `state_update`; v1: the prompt response);
* `session/list`, resume with replay (v2 `session/resume` with
  `replayFrom: {type: start}`, v1 `session/load`: the replay must contain the
  messages of the first turn), `session/close` and `session/delete`, each if
  advertised;
* `schema`: every message the agent sent on the connection (responses,
  notifications, its requests) validated **strictly** against the negotiated
  version's wire models. The models' lenient repair (`_base`) is not applied: a
  message the client only accepts after dropping a bad field is a violation here.
  Each distinct problem is one failing row naming the method and the field path,
  e.g. `session/update agent_message_chunk: messageId missing`.

Raw traffic is seen through `_ObservedStream`, a `MessageStream` wrapper around the
stream factory given to `connect`; the protocol layer is not changed. The agent's
requests get safe answers: permission requests are rejected (or cancelled), file
access stays inside the temporary directory, and no terminals are offered.

Every step is bounded by `CheckOptions.timeout`. An agent that cannot be started,
or exits before it answers the first `initialize`, raises `AgentError`.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

import anyio
import anyio.to_thread
from pydantic import ValidationError

from acp_tui.client.connection import (
    DIALECTS,
    AgentIdentity,
    ClientFeatures,
    Connection,
    StreamFactory,
    connect,
)
from acp_tui.client.dialect import Dialect
from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.launch import AgentLauncher
from acp_tui.client.ports import PermissionPolicy
from acp_tui.client.session import AcpClient, UnsupportedOperation
from acp_tui.protocol.framing import DecodeError, Line, OversizedLine, decode_line
from acp_tui.protocol.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION, RpcError, id_key
from acp_tui.protocol.schema import wire_models
from acp_tui.protocol.schema._base import WireModel
from acp_tui.protocol.transport import (
    AgentCommand,
    AgentStartError,
    ConnectionClosed,
    MessageStream,
)
from acp_tui.protocol.version import (
    ProtocolChoice,
    ProtocolVersion,
    UnsupportedProtocolVersion,
    answered_instead,
    known_version,
)
from acp_tui.safe_text import printable
from acp_tui.store.store import SessionStore

__all__ = [
    "CANCEL_PROMPT",
    "DEFAULT_TIMEOUT",
    "EXIT_FAILED",
    "HELLO_PROMPT",
    "CheckOptions",
    "CheckReport",
    "CheckRow",
    "check_schema",
    "format_table",
    "report_json",
    "run_check",
]

Result = Literal["pass", "fail", "skip"]

DEFAULT_TIMEOUT: Final = 30.0
"""Seconds each step may take (initialize, session setup, a turn, a cancellation)."""

EXIT_FAILED: Final = 1
"""`acp-tui check` exit status when a check failed."""

_CHOICES: Final[dict[ProtocolVersion, ProtocolChoice]] = {1: "1", 2: "2"}
"""The `--protocol` choice that pins each version."""

HELLO_PROMPT: Final = "hello"
"""The short prompt of the turn that must end on its own."""

CANCEL_PROMPT: Final = (
    "Please write a long, detailed essay on the history of computing. "
    "(acp-tui check will cancel this turn.)"
)
"""The prompt of the turn that is cancelled: long enough not to end first."""

START_WAIT: Final = 5.0
"""At most this many seconds (and never more than the step timeout) to see the
cancelled turn start (the prompt accepted, or an update or request for the
session) before `session/cancel` is sent anyway."""

EXIT_WAIT: Final = 1.0
"""Seconds to wait for an agent that closed the connection to exit, to say how."""

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


@dataclass(slots=True)
class CheckReport:
    """Everything `run_check` found."""

    agent: AgentIdentity | None = None
    """From the first `initialize` that succeeded."""
    rows: list[CheckRow] = field(default_factory=list)

    def count(self, result: Result) -> int:
        """How many checks had this result."""
        return sum(1 for row in self.rows if row.result == result)

    @property
    def failed(self) -> bool:
        """Whether any check failed."""
        return self.count("fail") > 0

    def summary(self) -> str:
        """One line: how many checks passed, failed and were skipped."""
        return (
            f"{len(self.rows)} checks: {self.count('pass')} passed, "
            f"{self.count('fail')} failed, {self.count('skip')} skipped"
        )

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON object (`acp-tui check --format json`)."""
        agent = None
        if self.agent is not None:
            agent = {
                "name": self.agent.name,
                "title": self.agent.title,
                "version": self.agent.version,
            }
        return {
            "agent": agent,
            "ok": not self.failed,
            "summary": {
                "passed": self.count("pass"),
                "failed": self.count("fail"),
                "skipped": self.count("skip"),
            },
            "checks": [row.to_json() for row in self.rows],
        }


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What to check and how patiently."""

    command: AgentCommand
    name: str
    choice: ProtocolChoice = "auto"
    """`auto` checks v2 and then v1; `1` or `2` checks only that version."""
    timeout: float = DEFAULT_TIMEOUT


def format_table(report: CheckReport) -> list[str]:
    """The report as aligned text lines, safe for a terminal, then a summary."""
    header = ("CHECK", "V", "RESULT", "DETAIL")
    cells = [
        (
            printable(row.name),
            "-" if row.version is None else str(row.version),
            row.result,
            printable(row.detail),
        )
        for row in report.rows
    ]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(3)]
    lines = []
    for line in [header, *cells]:
        head = "  ".join(
            text.ljust(width) for text, width in zip(line, widths, strict=False)
        )
        lines.append(f"{head}  {line[3]}".rstrip())
    if report.agent is not None:
        agent = report.agent
        who = f"{agent.display_name} {agent.version or ''}".rstrip()
        lines.append(printable(f"agent: {who}"))
    lines.append(report.summary())
    return lines


def report_json(report: CheckReport) -> str:
    """The report as one JSON document (ASCII: nothing in it can act on a terminal)."""
    return json.dumps(report.to_json(), indent=2, ensure_ascii=True)


# ------------------------------------------------------------------------------------
# Traffic: what the agent sent, seen through a MessageStream wrapper
# ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Inbound:
    """One line the agent wrote: decoded JSON, or why it could not be."""

    data: Any
    problem: str | None = None


class _Traffic:
    """The lines of one connection, both ways, and a way to wait for new ones."""

    def __init__(self) -> None:
        self.inbound: list[_Inbound] = []
        self.sent_methods: dict[Any, str] = {}
        """Our request ids, to the method of the request."""
        self.requests: list[tuple[int, Any, str]] = []
        """Our requests in order: (the inbound mark when sent, id, method)."""
        self._changed: anyio.Event | None = None

    def received(self, line: Line | OversizedLine) -> None:
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


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


class _ObservedStream:
    """A `MessageStream` that shows every line to a `_Traffic` on its way."""

    def __init__(self, inner: MessageStream, traffic: _Traffic) -> None:
        self._inner = inner
        self._traffic = traffic

    async def receive(self) -> Line | OversizedLine:
        line = await self._inner.receive()
        self._traffic.received(line)
        return line

    async def send(self, line: bytes) -> None:
        self._traffic.sent(line)
        await self._inner.send(line)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _observed(open_stream: StreamFactory, traffic: _Traffic) -> StreamFactory:
    @asynccontextmanager
    async def open_observed() -> AsyncIterator[MessageStream]:
        async with open_stream() as stream:
            yield _ObservedStream(stream, traffic)

    return open_observed


# ------------------------------------------------------------------------------------
# Strict schema validation of the agent's messages
# ------------------------------------------------------------------------------------


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
        schema.AGENT_METHODS,
        {**schema.CLIENT_NOTIFICATIONS, **schema.PROTOCOL_NOTIFICATIONS},
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
        traffic: _Traffic,
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
                    f"{_plural(self.messages, 'message')} from "
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
    traffic = _Traffic()
    for line in sent:
        traffic.sent(line)
    for line in received:
        traffic.received(line)
    return _SchemaCheck(version, version, traffic, side).run()


# ------------------------------------------------------------------------------------
# The run
# ------------------------------------------------------------------------------------

_STEP_ERRORS: Final = (
    RpcError,
    TimeoutError,
    ConnectionClosed,
    UnsupportedOperation,
    ValidationError,
)


def _error_text(error: BaseException) -> str:
    if isinstance(error, RpcError):
        return f"the agent answered with an error: {error}"
    if isinstance(error, ConnectionClosed):
        return f"the connection ended: {error.reason}"
    if isinstance(error, ValidationError):
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "(root)"
        return f"the reply is not valid: {where}: {first['msg']}"
    if isinstance(error, TimeoutError):
        return str(error) or "no answer in time"
    return str(error) or type(error).__name__


def _text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def _texts(store: SessionStore, role: str) -> str:
    return "\n".join(m.text for m in store.messages() if m.role == role)


@dataclass(slots=True)
class _Run:
    """The state of one version's connection."""

    version: ProtocolVersion
    options: CheckOptions
    client: AcpClient
    connection: Connection
    traffic: _Traffic
    cwd: Path
    rows: list[CheckRow]
    launcher: AgentLauncher

    def row(self, name: str, result: Result, detail: str) -> None:
        self.rows.append(CheckRow(name, self.version, result, detail))

    def skip(self, names: Iterable[str], why: str) -> None:
        for name in names:
            self.row(name, "skip", why)

    @property
    def closed(self) -> bool:
        return self.connection.dispatcher.closed

    async def failure(self, error: BaseException) -> str:
        """A step's error for its row; a lost connection says how the agent ended."""
        text = _error_text(error)
        transport = self.launcher.transport
        if not isinstance(error, ConnectionClosed) or transport is None:
            return text
        await transport.wait_exit(EXIT_WAIT)
        text += f"; the agent {transport.exit_description()}"
        tail = transport.stderr_tail()
        if tail:
            text += f" (its last stderr line: {tail[-1].strip()})"
        return text


def _session_check_names(version: ProtocolVersion) -> list[str]:
    dialect = DIALECTS[version]
    return [
        "session/new",
        *_turn_check_names(dialect),
        "cancel",
        "session/list",
        f"{dialect.replay_method} replay",
        "session/close",
        "session/delete",
    ]


def _turn_check_names(dialect: type[Dialect] | Dialect) -> list[str]:
    """The prompt turn's rows: a turn that ends with an idle state has a lifecycle."""
    if dialect.turn_ends_with_response:
        return ["prompt turn"]
    return ["prompt turn", "prompt lifecycle"]


async def run_check(options: CheckOptions) -> CheckReport:
    """Run every check; the report says what passed, failed and was skipped.

    Raises:
        AgentError: The agent could not be started, or it stopped before it
            answered the first `initialize` (the message says how; the agent's
            stderr tail comes along).
    """
    report = CheckReport()
    versions: tuple[ProtocolVersion, ...] = (
        (2, 1)
        if options.choice == "auto"
        else ((1,) if options.choice == "1" else (2,))
    )
    for position, version in enumerate(versions):
        await _check_version(version, options, report, first=position == 0)
    return report


async def _check_version(
    version: ProtocolVersion,
    options: CheckOptions,
    report: CheckReport,
    *,
    first: bool,
) -> None:
    launcher = AgentLauncher(options.command, options.name)
    traffic = _Traffic()
    client = AcpClient(
        prompter=PermissionPolicy("reject"),
        features=ClientFeatures(read_text_file=True, write_text_file=True),
    )
    rows: list[CheckRow] = []
    names = _session_check_names(version)
    negotiated: ProtocolVersion | None = None
    async with _scratch_directory() as cwd:
        try:
            async with connect(
                _observed(launcher.open_stream, traffic),
                choice=_CHOICES[version],
                init_timeout=options.timeout,
                features=client.features,
                on_request=client.handle_request,
                on_notification=client.handle_notification,
                long_text_paths=client.long_text_paths,
            ) as connection:
                negotiated = connection.protocol_version
                client.attach(connection)
                if report.agent is None:
                    report.agent = connection.agent
                agent = connection.agent
                who = f"{agent.display_name} {agent.version or ''}".rstrip()
                rows.append(
                    CheckRow(
                        "initialize",
                        version,
                        "pass",
                        f"{who} answered protocolVersion {version}",
                    )
                )
                run = _Run(
                    version, options, client, connection, traffic, cwd, rows, launcher
                )
                await _session_checks(run, names)
        except AgentStartError as error:
            raise _aborted(launcher, error) from None
        except AgentExited as error:
            if first:
                raise _aborted(launcher, error) from None
            detail = launcher.explain(error).message
            rows.append(CheckRow("initialize", version, "fail", detail))
            _skip_all(rows, version, names, "initialize failed")
        except UnsupportedProtocolVersion as error:
            rows.append(_other_version(version, error))
            why = f"the agent does not speak v{version}"
            _skip_all(rows, version, names, why)
            negotiated = known_version(error.answered) or negotiated
        except AgentError as error:  # rejected, timed out, or a broken reply
            if _unsupported_version_error(traffic):
                detail = (
                    f"answered error {UNSUPPORTED_PROTOCOL_VERSION} (no v{version} "
                    "support)"
                )
                rows.append(CheckRow("initialize", version, "pass", detail))
                why = f"the agent does not speak v{version}"
                _skip_all(rows, version, names, why)
            else:
                rows.append(CheckRow("initialize", version, "fail", error.message))
                _skip_all(rows, version, names, "initialize failed")
    if traffic.inbound:
        rows.extend(_SchemaCheck(version, negotiated or version, traffic).run())
    report.rows.extend(rows)


@asynccontextmanager
async def _scratch_directory() -> AsyncIterator[Path]:
    """A temporary directory (resolved) for the session's cwd; removed afterwards."""

    def make() -> Path:
        return Path(tempfile.mkdtemp(prefix="acp-tui-check-")).resolve()

    directory = await anyio.to_thread.run_sync(make)
    try:
        yield directory
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(
                functools.partial(shutil.rmtree, directory, ignore_errors=True)
            )


def _unsupported_version_error(traffic: _Traffic) -> bool:
    """Whether the agent answered `initialize` with -32022 (unsupported version).

    The newer v2 draft's way to refuse a version it lacks ([Δ2.4]).
    """
    for message in traffic.messages_since(0):
        error = message.get("error")
        if (
            traffic.response_method(message) == "initialize"
            and isinstance(error, dict)
            and error.get("code") == UNSUPPORTED_PROTOCOL_VERSION
        ):
            return True
    return False


def _aborted(launcher: AgentLauncher, error: BaseException) -> AgentError:
    failure = launcher.explain(error)
    return AgentError(failure.message, stderr_tail=failure.stderr_tail)


def _skip_all(
    rows: list[CheckRow], version: int, names: Sequence[str], why: str
) -> None:
    rows.extend(CheckRow(name, version, "skip", why) for name in names)


def _other_version(version: int, error: UnsupportedProtocolVersion) -> CheckRow:
    """The initialize row when the agent answered another version."""
    answered = error.answered
    other = answered_instead(version, answered)
    if other is not None:
        note = DIALECTS[other].answer_note
        return CheckRow(
            "initialize",
            version,
            "pass",
            f"answered protocolVersion {other} ({note})",
        )
    return CheckRow(
        "initialize",
        version,
        "fail",
        f"answered protocolVersion {answered!r} to an offer of {version}",
    )


async def _session_checks(run: _Run, names: Sequence[str]) -> None:
    missing = run.connection.dialect.missing_capability("sessions")
    if missing is not None:
        run.skip(names, f"the agent does not advertise {missing}")
        return
    timeout = run.options.timeout
    try:
        with anyio.fail_after(timeout):
            store = await run.client.new_session(run.cwd)
    except _STEP_ERRORS as error:
        detail = await run.failure(error)
        if isinstance(error, TimeoutError):
            detail = f"no answer within {timeout:g} s"
        run.row("session/new", "fail", detail)
        run.skip(names[1:], "no session")
        return
    session_id = store.session_id
    run.row("session/new", "pass", f"session {session_id}")
    first_turn = await _prompt_turn(run, store)
    await _cancel_turn(run, session_id)
    await _list(run, session_id)
    await _replay(run, session_id, first_turn)
    closed = await _close(run, session_id)
    await _delete(run, session_id, closed)


@dataclass(frozen=True, slots=True)
class _FirstTurn:
    user_text: str
    agent_text: str


def _for_session(message: dict[str, Any], session_id: str) -> bool:
    params = message.get("params")
    return isinstance(params, dict) and params.get("sessionId") == session_id


def _updates(run: _Run, mark: int, session_id: str) -> list[dict[str, Any]]:
    """The `update` objects of the session's `session/update`s since `mark`."""
    out = []
    for message in run.traffic.messages_since(mark):
        if message.get("method") == "session/update" and _for_session(
            message, session_id
        ):
            update = message["params"].get("update")
            if isinstance(update, dict):
                out.append(update)
    return out


async def _prompt_turn(run: _Run, store: SessionStore) -> _FirstTurn | None:
    """`hello`: the turn must end (v2: idle with a stopReason; v1: the response)."""
    dialect = run.connection.dialect
    names = _turn_check_names(dialect)
    if run.closed:
        run.skip(names, "the connection ended")
        return None
    timeout = run.options.timeout
    mark = run.traffic.mark()
    try:
        with anyio.fail_after(timeout):
            stop = await run.client.prompt(store.session_id, _text(HELLO_PROMPT))
    except _STEP_ERRORS as error:
        detail = await run.failure(error)
        if isinstance(error, TimeoutError):
            detail = _no_end(run, mark, timeout, after="the prompt")
        run.row("prompt turn", "fail", detail)
        run.skip(names[1:], "the turn did not end")
        return None
    if stop is None:
        run.row(
            "prompt turn",
            "fail",
            "ended idle without a stopReason (the idle that ends a turn must "
            "carry one)",
        )
    else:
        detail = f"ended with stopReason {stop} ({dialect.turn_end})"
        reported = store.state.error
        if stop == "error" and reported is not None:
            detail += f": {reported.get('message')}"
        run.row("prompt turn", "pass", detail)
    if not dialect.turn_ends_with_response:
        _lifecycle(run, mark, store.session_id)
    return _FirstTurn(_texts(store, "user"), _texts(store, "agent"))


def _no_end(run: _Run, mark: int, timeout: float, *, after: str) -> str:
    """Why a turn is considered not ended, for a timed-out wait."""
    if run.connection.dialect.turn_ends_with_response:
        return f"no session/prompt response within {timeout:g} s after {after}"
    accepted = any(
        run.traffic.answers(message, "session/prompt", mark)
        for message in run.traffic.messages_since(mark)
    )
    if not accepted:
        return f"no session/prompt response (acceptance) within {timeout:g} s"
    return f"no idle state_update within {timeout:g} s after {after}"


def _lifecycle(run: _Run, mark: int, session_id: str) -> None:
    """v2: the user message acknowledgement and a running state before the idle."""
    acknowledged = running = False
    for update in _updates(run, mark, session_id):
        kind = update.get("sessionUpdate")
        if kind in ("user_message", "user_message_chunk"):
            acknowledged = True
        elif kind == "state_update":
            if update.get("state") == "running":
                running = True
            elif update.get("state") == "idle" and update.get("stopReason"):
                break
    missing = []
    if not acknowledged:
        missing.append("no user_message acknowledgement of the prompt")
    if not running:
        missing.append("no running state_update before the idle")
    if missing:
        run.row("prompt lifecycle", "fail", "; ".join(missing))
    else:
        run.row(
            "prompt lifecycle",
            "pass",
            "user message acknowledged, running, then idle with a stopReason",
        )


async def _cancel_turn(run: _Run, session_id: str) -> None:
    """Start a long turn, cancel it once it has started; it must end `cancelled`."""
    if run.closed:
        run.skip(["cancel"], "the connection ended")
        return
    timeout = run.options.timeout
    mark = run.traffic.mark()
    outcome: dict[str, Any] = {}
    done = anyio.Event()

    async def prompt() -> None:
        try:
            outcome["stop"] = await run.client.prompt(session_id, _text(CANCEL_PROMPT))
        except Exception as error:  # reported below
            outcome["error"] = error
        done.set()

    def started(message: dict[str, Any]) -> bool:
        accepted = run.traffic.answers(message, "session/prompt", mark)
        return accepted or _for_session(message, session_id)

    cancel_mark: int | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(prompt)
        with anyio.move_on_after(min(START_WAIT, timeout)):
            await run.traffic.wait_for(started, mark)
        if not done.is_set():
            cancel_mark = run.traffic.mark()
            try:
                await run.client.cancel(session_id)
            except ConnectionClosed as error:
                outcome.setdefault("error", error)
            else:
                with anyio.move_on_after(timeout):
                    await done.wait()
        group.cancel_scope.cancel()
    if cancel_mark is not None and not done.is_set():
        run.row("cancel", "fail", _no_end(run, mark, timeout, after="session/cancel"))
        return
    end = _turn_end_index(run, mark, session_id)
    before = cancel_mark is None or (end is not None and end < cancel_mark)
    failure = outcome.get("error")
    if failure is not None:
        suffix = "" if before else " (after session/cancel)"
        run.row("cancel", "fail", await run.failure(failure) + suffix)
        return
    stop = outcome.get("stop")
    if before:
        run.row(
            "cancel",
            "skip",
            f"the turn ended ({stop or 'idle'}) before session/cancel was sent: "
            "nothing to cancel",
        )
        return
    how = run.connection.dialect.turn_end
    if stop == "cancelled":
        run.row("cancel", "pass", f"ended with stopReason cancelled ({how})")
    elif stop is None:
        run.row(
            "cancel",
            "fail",
            "ended idle without a stopReason after session/cancel (expected cancelled)",
        )
    else:
        run.row(
            "cancel",
            "fail",
            f"ended with stopReason {stop} after session/cancel (expected cancelled)",
        )


def _turn_end_index(run: _Run, mark: int, session_id: str) -> int | None:
    """Where, in the inbound lines, the turn started after `mark` ended.

    v1: the `session/prompt` response; v2: an error response to it, or the first
    idle `state_update` of the session.
    """
    by_response = run.connection.dialect.turn_ends_with_response
    for index in range(mark, len(run.traffic.inbound)):
        for message in run.traffic.at(index):
            if run.traffic.answers(message, "session/prompt", mark) and (
                by_response or "error" in message
            ):
                return index
            if (
                not by_response
                and message.get("method") == "session/update"
                and _for_session(message, session_id)
            ):
                update = message["params"].get("update")
                if (
                    isinstance(update, dict)
                    and update.get("sessionUpdate") == "state_update"
                    and update.get("state") == "idle"
                ):
                    return index
    return None


_SessionMethod: TypeAlias = Literal["list", "replay", "close", "delete"]


def _advertised(run: _Run, what: _SessionMethod) -> str | None:
    """None if advertised, else the capability that is missing."""
    return run.connection.dialect.missing_capability(what)


def _can_run(run: _Run, name: str, what: _SessionMethod) -> bool:
    """Whether step `name` can run: `what` is advertised and the connection lives.

    If not, the step's row says why it was skipped.
    """
    missing = _advertised(run, what)
    if missing is not None:
        run.row(name, "skip", f"the agent does not advertise {missing}")
        return False
    if run.closed:
        run.row(name, "skip", "the connection ended")
        return False
    return True


async def _list(run: _Run, session_id: str) -> None:
    name = "session/list"
    if not _can_run(run, name, "list"):
        return
    try:
        with anyio.fail_after(run.options.timeout):
            sessions = await run.client.list_sessions(run.cwd)
    except _STEP_ERRORS as error:
        run.row(name, "fail", await run.failure(error))
        return
    listed = any(summary.session_id == session_id for summary in sessions)
    note = "including the new one" if listed else "the new session is not among them"
    count = _plural(len(sessions), "session")
    run.row(name, "pass", f"{count} listed for the directory, {note}")


async def _replay(run: _Run, session_id: str, first_turn: _FirstTurn | None) -> None:
    name = f"{run.connection.dialect.replay_method} replay"
    if not _can_run(run, name, "replay"):
        return
    if first_turn is None:
        run.row(name, "skip", "no earlier turn to replay")
        return
    try:
        with anyio.fail_after(run.options.timeout):
            store = await run.client.resume_session(session_id, run.cwd, replay=True)
    except _STEP_ERRORS as error:
        run.row(name, "fail", await run.failure(error))
        return
    lacking = []
    replayed_user, replayed_agent = _texts(store, "user"), _texts(store, "agent")
    if HELLO_PROMPT not in replayed_user:
        lacking.append("the user message")
    if first_turn.agent_text and first_turn.agent_text not in replayed_agent:
        lacking.append("the agent's answer")
    count = _plural(len(store.messages()), "message")
    if lacking:
        run.row(
            name,
            "fail",
            f"replayed {count} before the response, without "
            f"{' or '.join(lacking)} of the earlier turn",
        )
    else:
        run.row(
            name,
            "pass",
            f"replayed {count}, including the earlier turn's",
        )


async def _close(run: _Run, session_id: str) -> bool:
    name = "session/close"
    if not _can_run(run, name, "close"):
        return False
    try:
        with anyio.fail_after(run.options.timeout):
            await run.client.close_session(session_id)
    except _STEP_ERRORS as error:
        run.row(name, "fail", await run.failure(error))
        return False
    run.row(name, "pass", "closed")
    return True


async def _delete(run: _Run, session_id: str, closed: bool) -> None:
    """`session/delete`, if advertised: also tidies up the probe's session."""
    name = "session/delete"
    if not _can_run(run, name, "delete"):
        return
    try:
        with anyio.fail_after(run.options.timeout):
            await run.client.delete_session(session_id)
    except _STEP_ERRORS as error:
        run.row(name, "fail", await run.failure(error))
        return
    run.row(name, "pass", "deleted" + (" after close" if closed else ""))
