"""`acp-tui check`: a conformance probe for agent authors.

`run_check()` starts the agent once per protocol version (v2 with proper v2
`initialize` params, v1 pinned separately), walks it through the session baseline,
and returns a `CheckReport`: one `CheckRow` per check, each `pass`, `fail` or
`skip` (a skip says which capability the agent did not advertise).

Per negotiated version, in order:

* `initialize` (an answer with the other version is correct behaviour: the rows of
  this version are then skipped);
* `auth/status`, if advertised (`check_auth`);
* `session/new` in a temporary directory (the session's cwd, removed afterwards);
* a short prompt turn (`hello`) that must end: v2 with an idle `state_update`
  carrying a `stopReason` after the prompt was accepted, v1 with the
  `session/prompt` response's `stopReason`; in v2 also the lifecycle the spec
  requires (the `user_message` acknowledgement and a `running` state);
* cancellation: a second turn is cancelled as soon as it has visibly started and
  must end with `cancelled` (v2: an idle `state_update`; v1: the prompt response);
* `steering`, only where the agent advertises it: with the session idle, the
  agent must hand a steered prompt back (`frontends.check_steering`);
* `tool_call/cancel` and `terminal/cancel`, for an agent with a known prompt
  that offers them (`check_cancel_one`: the demo's `/cancel-tool`), in versions
  that have them (v2);
* `session/list`, resume with replay (v2 `session/resume` with
  `replayFrom: {type: start}`, v1 `session/load`: the replay must contain the
  messages of the first turn), `session/close` and `session/delete`, each if
  advertised; and, only where advertised, the unstable `session/status`,
  `session/set_title`, `session/fork` and `session/archive` / `unarchive`
  (`check_session_admin`);
* `elicitation`: an agent must never send an `elicitation/create` in a mode the
  client did not advertise. For an agent with a known way to make it ask
  (`ELICITATION_TRIGGERS`, by the name it reports, or
  `CheckOptions.elicitation_prompts`: the demo's `/ask` asks a form, `/login` a
  URL), the probe connects three more times, advertising form only, URL only and
  neither, and plays those prompts in a new session (questions are declined):
  one row per run, failing with the method and mode of a question in a mode not
  advertised. Any other agent gets one row saying it was not probed;
* `schema`: every message the agent sent on the connection (responses,
  notifications, its requests) validated **strictly** against the negotiated
  version's wire models. The models' lenient repair (`_base`) is not applied: a
  message the client only accepts after dropping a bad field is a violation here.
  Each distinct problem is one failing row naming the method and the field path,
  e.g. `session/update agent_message_chunk: messageId missing`.

Raw traffic is seen through `protocol.observed.observe`, a `MessageStream` wrapper
around the stream factory given to `connect`, into a `schema_check.Exchange`; the
protocol layer is not changed. The schema rows come from
`schema_check.check_schema`, which lives apart so the inspector can use it without
this module. The agent's
requests get safe answers: permission requests are rejected (or cancelled), file
access stays inside the temporary directory, and no terminals are offered.

Every step is bounded by `CheckOptions.timeout`. An agent that cannot be started,
or exits before it answers the first `initialize`, raises `AgentError`.
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TextIO, TypeAlias

import anyio
import anyio.to_thread
from pydantic import ValidationError

from acp_tui import __version__
from acp_tui.client.connection import (
    DIALECTS,
    AgentIdentity,
    ClientFeatures,
    Connection,
)
from acp_tui.client.dialect import Dialect
from acp_tui.client.errors import AgentError, AgentExited
from acp_tui.client.launch import AgentLauncher
from acp_tui.client.ports import ElicitationPolicy, PermissionPolicy
from acp_tui.client.runner import AgentSettings, ClientRunner, SilentPort
from acp_tui.client.schema_check import (
    CheckRow,
    Exchange,
    Result,
    check_exchange,
    check_schema,
    plural,
)
from acp_tui.client.session import AcpClient, UnsupportedOperation
from acp_tui.frontends import check_auth as auth_status
from acp_tui.frontends.check_cancel_one import probe_cancel_one
from acp_tui.frontends.check_session_admin import (
    archive_probe_session,
    session_admin_checks,
)
from acp_tui.frontends.check_steering import steering_probe
from acp_tui.frontends.print_turn import EXIT_AGENT, EXIT_OK, write_stderr_tail
from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION, RpcError
from acp_tui.protocol.observed import observe
from acp_tui.protocol.transport import (
    AgentCommand,
    AgentStartError,
    ConnectionClosed,
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
    "ELICITATION_TRIGGERS",
    "EXIT_FAILED",
    "HELLO_PROMPT",
    "CheckOptions",
    "CheckReport",
    "CheckRow",
    "check_command",
    "check_schema",
    "format_table",
    "report_json",
    "run_check",
]


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

ELICITATION_TRIGGERS: Final[Mapping[str, tuple[str, ...]]] = {
    "acp-tui-demo": ("/ask", "/login"),
}
"""Prompts that make a known agent ask (by the name it reports in `initialize`):
the demo agent's `/ask` asks a form, and `/login` a URL."""

ELICITATION_RUNS: Final[tuple[tuple[str, bool, bool], ...]] = (
    ("elicitation (form only)", True, False),
    ("elicitation (url only)", False, True),
    ("elicitation (none advertised)", False, False),
)
"""The elicitation probe's runs: the row's name, and whether form and URL are
advertised."""


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
    elicitation_prompts: tuple[str, ...] | None = None
    """Prompts that make the agent ask (None: `ELICITATION_TRIGGERS` by its name;
    empty: it is not probed)."""


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
    traffic: Exchange
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
    traffic = Exchange()
    rows: list[CheckRow] = []
    names = _session_check_names(version)
    skipped = [*names, "elicitation"]
    negotiated: ProtocolVersion | None = None
    agent: AgentIdentity | None = None
    async with _scratch_directory() as cwd:
        features = ClientFeatures(read_text_file=True, write_text_file=True)
        runner = _runner(version, options, cwd, traffic, features)
        launcher = runner.launcher
        try:
            async with runner.connect() as client:
                connection = client.connection
                negotiated = connection.protocol_version
                if report.agent is None:
                    report.agent = connection.agent
                answered = connection.agent
                who = f"{answered.display_name} {answered.version or ''}".rstrip()
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
                timeout = options.timeout
                rows += await auth_status.auth_status_row(client, version, timeout)
                await _session_checks(run, names)
                agent = answered  # only now: a failed run's rows say it all
        except AgentStartError as error:
            raise _aborted(launcher, error) from None
        except AgentExited as error:
            if first:
                raise _aborted(launcher, error) from None
            detail = launcher.explain(error).message
            rows.append(CheckRow("initialize", version, "fail", detail))
            _skip_all(rows, version, skipped, "initialize failed")
        except UnsupportedProtocolVersion as error:
            rows.append(_other_version(version, error))
            why = f"the agent does not speak v{version}"
            _skip_all(rows, version, skipped, why)
            negotiated = known_version(error.answered) or negotiated
        except AgentError as error:  # rejected, timed out, or a broken reply
            if _unsupported_version_error(traffic):
                detail = (
                    f"answered error {UNSUPPORTED_PROTOCOL_VERSION} (no v{version} "
                    "support)"
                )
                rows.append(CheckRow("initialize", version, "pass", detail))
                why = f"the agent does not speak v{version}"
                _skip_all(rows, version, skipped, why)
            else:
                detail = launcher.explain(error).message  # names a non-agent
                rows.append(CheckRow("initialize", version, "fail", detail))
                _skip_all(rows, version, skipped, "initialize failed")
    if agent is not None:
        rows.extend(await _elicitation_rows(version, options, agent))
    if traffic.inbound:
        rows.extend(check_exchange(version, negotiated or version, traffic))
    report.rows.extend(rows)


def _runner(
    version: ProtocolVersion,
    options: CheckOptions,
    cwd: Path,
    traffic: Exchange,
    features: ClientFeatures,
) -> ClientRunner:
    """A connection pinned to `version`, its traffic seen by `traffic`.

    Permission requests are rejected and questions declined (only the modes
    `features` advertise are asked).
    """
    return ClientRunner(
        AgentSettings(
            options.command,
            options.name,
            cwd,
            choice=_CHOICES[version],
            init_timeout=options.timeout,
        ),
        _QuietPort(),
        prompter=PermissionPolicy("reject"),
        elicitor=ElicitationPolicy("decline"),
        features=features,
        roots=(),
        wrappers=(functools.partial(observe, observer=traffic),),
    )


class _QuietPort(SilentPort):
    """The check reports through its rows: the runner's reports are not shown."""

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """Ignored: the `schema` rows report what was malformed."""


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


def _unsupported_version_error(traffic: Exchange) -> bool:
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
    await steering_probe(run, session_id)
    if not run.closed:
        await probe_cancel_one(
            run.client, store, run.connection.agent.name, run.options.timeout, run.row
        )
    await _list(run, session_id)
    await session_admin_checks(run, session_id)
    await _replay(run, session_id, first_turn)
    closed = await _close(run, session_id)
    await archive_probe_session(run, session_id)
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
    count = plural(len(sessions), "session")
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
    count = plural(len(store.messages()), "message")
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


async def _elicitation_rows(
    version: ProtocolVersion, options: CheckOptions, agent: AgentIdentity
) -> list[CheckRow]:
    """The elicitation probe's rows: one per run, or one saying it was not probed."""
    prompts = options.elicitation_prompts
    if prompts is None:
        prompts = ELICITATION_TRIGGERS.get(agent.name or "", ())
    if not prompts:
        why = f"not probed: no known prompt makes {agent.display_name} ask"
        return [CheckRow("elicitation", version, "skip", why)]
    return [
        await _elicitation_run(version, options, prompts, name, form, url)
        for name, form, url in ELICITATION_RUNS
    ]


async def _elicitation_run(
    version: ProtocolVersion,
    options: CheckOptions,
    prompts: Sequence[str],
    name: str,
    form: bool,
    url: bool,
) -> CheckRow:
    """One connection advertising `form` / `url`: the prompts, in a new session.

    Fails if the agent sends `elicitation/create` in a mode not advertised
    (acp-tui answers it `-32602` and never asks); the questions in advertised
    modes are declined.
    """
    traffic = Exchange()
    failure: BaseException | None = None
    async with _scratch_directory() as cwd:
        features = ClientFeatures(elicitation_form=form, elicitation_url=url)
        runner = _runner(version, options, cwd, traffic, features)
        try:
            async with runner.connect() as client:
                missing = client.connection.dialect.missing_capability("sessions")
                if missing is not None:
                    why = f"the agent does not advertise {missing}"
                    return CheckRow(name, version, "skip", why)
                with anyio.fail_after(options.timeout):
                    store = await client.new_session(cwd)
                for prompt in prompts:
                    with anyio.fail_after(options.timeout):
                        await client.prompt(store.session_id, _text(prompt))
        except (AgentError, AgentStartError, *_STEP_ERRORS) as error:
            failure = error
    offered = {"form": form, "url": url}
    asked = [
        str(message["params"].get("mode"))
        for message in traffic.messages_since(0)
        if message.get("method") == "elicitation/create"
        and "id" in message
        and isinstance(message.get("params"), dict)
    ]
    advertised = " and ".join(m for m in ("form", "url") if offered[m]) or "none"
    wrong = [mode for mode in asked if not offered.get(mode, False)]
    if wrong:
        detail = (
            f"elicitation/create in mode {wrong[0]}, which was not advertised "
            f"(advertised: {advertised})"
        )
        return CheckRow(name, version, "fail", detail)
    if failure is not None:
        return CheckRow(name, version, "fail", _error_text(failure))
    if asked:
        modes = ", ".join(sorted(set(asked)))
        return CheckRow(
            name, version, "pass", f"asked only in advertised modes: {modes}"
        )
    return CheckRow(name, version, "pass", f"did not ask (advertised: {advertised})")


def check_command(
    name: str,
    command: AgentCommand,
    *,
    choice: ProtocolChoice,
    timeout: float,
    output_format: Literal["text", "json"],
    log_file: Path,
    out: TextIO,
    err: TextIO,
) -> int:
    """`acp-tui check`: run the checks and print the report; the exit status."""
    print(
        printable(f"acp-tui {__version__}: checking {name} ({command.display()}) …"),
        file=err,
    )
    options = CheckOptions(command=command, name=name, choice=choice, timeout=timeout)
    try:
        report = anyio.run(run_check, options)
    except AgentError as error:
        message = f"acp-tui: the agent could not be started: {error}"
        print(printable(message), file=err)
        write_stderr_tail(error.stderr_tail, err)
        print(f"(log: {log_file})", file=err)
        return EXIT_AGENT
    if output_format == "json":
        print(report_json(report), file=out)
    else:
        for line in format_table(report):
            print(line, file=out)
    return EXIT_FAILED if report.failed else EXIT_OK
