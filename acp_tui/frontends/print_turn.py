"""`acp-tui print`: one prompt turn without a screen, on the same client runner.

It starts the agent, negotiates, opens a session in `--cwd` (or resumes the agent's
session `--session ID` there), sends the prompt and waits for the turn to end.
`--format text` streams a readable transcript to stdout as updates arrive;
`--format json` prints one document of the final state (`acp_tui.export`).
Permission requests are answered by `--permissions`. Elicitations (form and URL
are advertised) are answered `--elicitation` (`decline` by default, so a script
never waits on a question), or, for a form, with the first of `--answers FILE`
(a JSON object, or a list of them) that gives every required field.

The agent's `fs/*` and terminal requests reach `--cwd` and the `--add-dir`
directories (also sent as `additionalDirectories` where the agent takes them), and
nothing else: `--session` is resumed in `--cwd` too, never in a directory the agent
lists for it (there is no one to ask whether that directory may be opened).

`--timeout` sends `session/cancel` when it expires, then waits (bounded) for the
agent to end the turn; so does ctrl+c (SIGINT) during the turn, and a second
ctrl+c stops at once (the agent is stopped with the run, never left behind).
When the turn fails, the JSON document still shows the state
reached, including the negotiated `protocolVersion`; the error goes to stderr.

Exit codes: 0 `end_turn`; 2 usage error; 3 agent or protocol failure (message and
stderr tail on stderr, never a traceback); 4 `cancelled`, `refusal`, `max_*`, an
unknown stop reason, or a turn cancelled by `--timeout`; 130 interrupted (ctrl+c).
"""

from __future__ import annotations

import json
import logging
import signal
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal, TextIO

import anyio

from acp_tui.client.connection import ClientFeatures, Connection
from acp_tui.client.elicitation_form import answer_text
from acp_tui.client.errors import AgentError, describe_rpc_error
from acp_tui.client.launch import AGENT_FAILURES, AgentLauncher
from acp_tui.client.plan_documents import PlanDocument, plan_document
from acp_tui.client.ports import ElicitationPolicy, PermissionPolicy
from acp_tui.client.runner import (
    SETUP_TIMEOUT,
    AgentSettings,
    ClientRunner,
    SessionRequest,
    SilentPort,
)
from acp_tui.client.session import AcpClient
from acp_tui.config import McpServerSettings
from acp_tui.display_paths import PathDisplay
from acp_tui.export import session_document, terminal_text
from acp_tui.frontends.print_answers import read_answers
from acp_tui.frontends.print_json import write_document
from acp_tui.frontends.print_reports import ReportLines
from acp_tui.frontends.usage_line import usage_line
from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.transport import (
    AgentCommand,
)
from acp_tui.protocol.version import ProtocolChoice
from acp_tui.render.subagents import subagent_report
from acp_tui.safe_text import printable
from acp_tui.storage.transcripts import close_transcript, transcript_store_factory
from acp_tui.store.changes import Change
from acp_tui.store.model import block_text
from acp_tui.store.store import SessionStore

__all__ = [
    "EXIT_AGENT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STOPPED",
    "EXIT_USAGE",
    "PrintOptions",
    "PrintRun",
    "run_print",
]

log = logging.getLogger(__name__)

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2
EXIT_AGENT: Final = 3
EXIT_STOPPED: Final = 4
EXIT_INTERRUPTED: Final = 130
"""ctrl+c (SIGINT) during the turn, as a shell reports a process it interrupted."""

CANCEL_GRACE: Final = 15.0
"""Seconds the agent gets to end the turn after `session/cancel` (then we give up)."""

SESSION_SETUP_TIMEOUT: Final = SETUP_TIMEOUT
"""Seconds allowed for `session/list` (the runner bounds `session/new` alike)."""


@dataclass(frozen=True, slots=True)
class PrintOptions:
    """Everything `acp-tui print` was asked to do."""

    command: AgentCommand
    name: str
    prompt: str
    cwd: Path
    choice: ProtocolChoice = "auto"
    init_timeout: float = 60.0
    output_format: Literal["text", "json"] = "text"
    permissions: Literal["allow", "reject"] = "reject"
    timeout: float | None = None
    mcp_servers: dict[str, McpServerSettings] = field(default_factory=dict)
    record: Path | None = None
    """Record the connection's traffic to this JSONL file (`--record`)."""
    additional_directories: tuple[Path, ...] = ()
    """Directories the agent may use besides `cwd` (`--add-dir`), absolute."""
    allow_git_writes: bool = False
    """v1 `fs/write_text_file` may write under `.git` (config `allow_git_writes`)."""
    session: str | None = None
    """Resume this agent session (in `cwd`) instead of starting one."""
    raw_chunks: bool = False
    """JSON: keep each message's text chunks as streamed, not joined."""
    elicitation: Literal["decline", "cancel"] = "decline"
    """How to answer the agent's elicitations (`--elicitation`)."""
    answers: Path | None = None
    """Form answers (`--answers`): a JSON object, or a list of them."""


class PrintRun(SilentPort):
    """One run's runner and state, so failures can still be reported.

    Also the runner's port: notices and protocol problems go to stderr.
    """

    def __init__(
        self,
        options: PrintOptions,
        out: TextIO,
        err: TextIO,
        *,
        sessions_only: bool = False,
        answers: Sequence[dict[str, Any]] = (),
        launcher: AgentLauncher | None = None,
    ) -> None:
        self.options = options
        self.out = out
        self.err = err
        settings = AgentSettings(
            options.command,
            options.name,
            options.cwd,
            choice=options.choice,
            init_timeout=options.init_timeout,
            mcp_servers=options.mcp_servers,
            record=options.record,
            additional_directories=options.additional_directories,
            allow_git_writes=options.allow_git_writes,
        )
        if sessions_only:
            self.runner = ClientRunner(
                replace(settings, record=None, mcp_servers={}),
                self,
                prompter=PermissionPolicy("reject"),
                roots=(),
            )
        else:
            self.runner = ClientRunner(
                settings,
                self,
                prompter=PermissionPolicy(options.permissions),
                elicitor=ElicitationPolicy(
                    options.elicitation, answers, lambda m: self.warn(f"--answers: {m}")
                ),
                features=ClientFeatures(
                    read_text_file=True,
                    write_text_file=True,
                    terminal=True,
                    git_writes=options.allow_git_writes,
                    elicitation_form=True,
                    elicitation_url=True,
                ),
                store_factory=transcript_store_factory(options.name),
                launcher=launcher,
            )
        self.connection: Connection | None = None
        self.store: SessionStore | None = None
        self.timed_out = False
        self.interrupts = 0
        """ctrl+c (SIGINT) presses during the turn."""
        self._warn_fallbacks = not sessions_only

    def warn(self, message: str) -> None:
        """Say `message` on stderr, made printable."""
        print(printable(f"acp-tui: {message}"), file=self.err, flush=True)

    def agent_connected(self, connection: Connection) -> None:
        """Keep the connection for the document; say why it fell back to v1."""
        self.connection = connection
        if self._warn_fallbacks:
            for reason in connection.fallbacks:
                self.warn(f"fell back to ACP v{connection.protocol_version}: {reason}")

    def notice(self, text: str) -> None:
        """Said on stderr."""
        self.warn(text)

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        """Said on stderr (the run goes on)."""
        self.warn(f"warning: {diagnostic}")

    def fail(self, error: BaseException) -> int:
        """Explain an agent failure on stderr (with its stderr tail): exit 3."""
        failure = self.runner.launcher.explain(error)
        self.warn(failure.message)
        write_stderr_tail(failure.stderr_tail, self.err)
        return EXIT_AGENT

    def agent_json(self) -> dict[str, Any] | None:
        """The agent's identity for the document (None: never connected)."""
        if self.connection is None:
            return None
        agent = self.connection.agent
        return {"name": agent.name, "title": agent.title, "version": agent.version}

    def document(self) -> dict[str, Any]:
        """The JSON document of the state reached (`export.session_document`)."""
        version = self.connection.protocol_version if self.connection else None
        return session_document(
            protocol_version=version,
            agent=self.agent_json(),
            store=self.store,
            raw_chunks=self.options.raw_chunks,
        )


async def run_print(
    options: PrintOptions,
    out: TextIO,
    err: TextIO,
    *,
    launcher: AgentLauncher | None = None,
) -> int:
    """Run one turn; returns the exit code. Never raises for agent failures.

    `launcher`: one that may already have started `options.command`
    (`print_early`); by default the agent is started when connecting.
    """
    try:
        answers = read_answers(options.answers)
    except ValueError as error:
        print(printable(f"acp-tui: {error}"), file=err, flush=True)
        return EXIT_USAGE
    run = PrintRun(options, out, err, answers=answers, launcher=launcher)
    try:
        code = await _run(run)
    except AGENT_FAILURES as error:
        code = run.fail(error)
    finally:
        if run.store is not None:
            close_transcript(run.store)  # its summary, now, not in 2 s
    if options.output_format == "json":
        write_json(run.document(), out)
        out.flush()
    return code


async def _run(run: PrintRun) -> int:
    """A new session in `--cwd`, or `--session` resumed there, then the turn.

    Resumed without a replay when the agent can (only this turn is printed; the
    JSON document has what a replay brought).
    """
    options = run.options
    request = (
        SessionRequest("new")
        if options.session is None
        else SessionRequest("resume", options.session, history=False)
    )
    async with run.runner.connect() as client:
        store = await run.runner.open_session(request)
        run.store = store
        if options.output_format == "text":
            transcript = Transcript(store, run.out)
            store.subscribe(transcript.on_changes)
        stop_reason = await _turn(run, client, store)
        if options.output_format == "text":
            transcript.finish()
    return _exit_code(run, stop_reason)


async def _turn(run: PrintRun, client: AcpClient, store: SessionStore) -> str | None:
    """Send the prompt; on `--timeout` or ctrl+c, cancel and wait (bounded) for the end.

    A second ctrl+c stops waiting at once.
    """
    options = run.options
    result: list[str | None] = []
    failure: list[Exception] = []
    done = anyio.Event()
    wake = anyio.Event()
    """Set when the turn ends, and by the first ctrl+c."""
    blocks = [{"type": "text", "text": options.prompt}]

    async with anyio.create_task_group() as group:

        async def prompt() -> None:
            try:
                result.append(await client.prompt(store.session_id, blocks))
            except Exception as error:  # re-raised below, outside the task group
                failure.append(error)
            done.set()
            wake.set()

        async def interrupts() -> None:
            with _interrupts() as presses:
                async for _ in presses:
                    run.interrupts += 1
                    wake.set()
                    if run.interrupts > 1:
                        run.warn("interrupted again: stopping now")
                        group.cancel_scope.cancel()

        group.start_soon(prompt)
        group.start_soon(interrupts)
        # Errors raised here are kept and re-raised after the task group, which
        # would otherwise wrap them in an ExceptionGroup.
        try:
            with anyio.move_on_after(options.timeout):
                await wake.wait()
            if not done.is_set():
                if run.interrupts:
                    run.warn(
                        "interrupted: cancelling the turn (ctrl+c again stops now)"
                    )
                else:
                    run.timed_out = True
                    run.warn(f"no end of turn after {options.timeout:g} s: cancelling")
                await client.cancel(store.session_id)
                with anyio.move_on_after(CANCEL_GRACE):
                    await done.wait()
                if not done.is_set():
                    raise AgentError(
                        f"the agent did not end the turn within {CANCEL_GRACE:g} s "
                        "of session/cancel"
                    )
        except Exception as error:
            failure.insert(0, error)
        group.cancel_scope.cancel()  # the interrupt listener, once the turn is over
    if failure and run.interrupts < 2:
        raise failure[0]
    return result[0] if result else None


def _interrupts() -> Any:
    """ctrl+c presses as a stream (SIGINT handled, not raised), where it can be.

    Off the main thread (no signal handlers there), a stream that never yields.
    """
    if threading.current_thread() is threading.main_thread():
        return anyio.open_signal_receiver(signal.SIGINT)
    return _Never()


class _Never:
    """A signal stream that never yields (see `_interrupts`)."""

    def __enter__(self) -> _Never:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __aiter__(self) -> _Never:
        return self

    async def __anext__(self) -> int:
        await anyio.sleep_forever()
        raise StopAsyncIteration


def write_stderr_tail(tail: Sequence[str], err: TextIO) -> None:
    """The agent's last stderr lines, under a heading, made printable."""
    if tail:
        print("the agent's last stderr lines:", file=err)
        for line in tail:
            print(printable(f"  | {line}"), file=err)


def write_json(value: Any, out: TextIO) -> None:
    """Write `value` as terminal-safe indented JSON (`export.json_text`'s text).

    In parts, never as one string (`print_json`).
    """
    write_document(value, out)


def _exit_code(run: PrintRun, stop_reason: str | None) -> int:
    if run.interrupts:
        run.warn(
            "the turn was interrupted "
            f"(the agent reported stopReason {stop_reason or 'none'!r})"
        )
        return EXIT_INTERRUPTED
    if run.timed_out:
        run.warn(
            f"the turn was cancelled after {run.options.timeout:g} s "
            f"(the agent reported stopReason {stop_reason!r})"
        )
        return EXIT_STOPPED
    if stop_reason == "end_turn":
        return EXIT_OK
    if stop_reason == "error":
        error = run.store.state.error if run.store is not None else None
        run.warn(f"the turn ended with an error: {describe_rpc_error(error)}")
        return EXIT_AGENT
    run.warn(f"the turn stopped: {stop_reason or 'no stop reason reported'}")
    return EXIT_STOPPED


class Transcript(ReportLines):
    """Streams a readable, plain-text transcript of a session to a text stream.

    Agent text is written as it arrives (markdown stays markdown); tool calls,
    permissions, elicitations and notices get one line each when they appear or
    change; a
    plan is shown once, then only its changes.
    A path (a command's directory) reads relative to the session's directory,
    `~` for the home directory (`acp_tui.display_paths`).
    Everything from the agent passes through `printable`, so no control sequence
    reaches the terminal. A user message the agent wrote (`Message.from_agent`)
    is headed `[from the agent, not typed by you]`, never `[you]`; one marked
    after it was printed gets a line saying so. (The JSON document marks it
    `"origin": "agent"`.)
    """

    _LABELS: Final = {"user": "you", "agent": "agent", "thought": "thought"}
    FROM_AGENT: Final = "from the agent, not typed by you"
    """The label of a user message the agent wrote (`Message.from_agent`)."""

    def __init__(self, store: SessionStore, out: TextIO) -> None:
        super().__init__()
        self.store = store
        self.out = out
        self.paths = PathDisplay.for_session(store.cwd)
        """Paths read relative to the session's directory (the JSON keeps them)."""
        self._current: str | None = None
        self._started = False
        self._line_open = False
        self._printed: dict[str, int] = {}
        self._tool_status: dict[str, tuple[str | None, str]] = {}
        self._permission_outcomes: set[str] = set()
        self._elicitation_answers: dict[str, str] = {}
        """Each elicitation's answer as last printed."""
        self._plans: dict[str, list[str]] = {}
        """Each plan's entries as last printed (`_on_plan`)."""
        self._shown_as_users: set[str] = set()
        """User messages printed under "you" so far."""
        self._subagents: dict[str, str] = {}
        """Each subagent's status as last printed."""

    def _write(self, text: str) -> None:
        if not text:
            return
        self.out.write(printable(text, keep="\n\t"))
        self.out.flush()
        self._line_open = not text.endswith("\n")

    def _block(self) -> None:
        """Start a new block: end the open line, then one blank line."""
        if self._line_open:
            self._write("\n")
        if self._started:
            self._write("\n")
        self._started = True

    def _section(self, key: str, header: str) -> None:
        if self._current != key:
            self._block()
            self._write(f"[{header}]\n")
            self._current = key

    def _line(self, text: str) -> None:
        self._current = None
        self._block()
        self._write(f"{text}\n")

    def on_changes(self, changes: Sequence[Change]) -> None:
        """Store listener."""
        for change in changes:
            handler = getattr(self, f"_on_{change.kind}", None)
            if handler is not None:
                handler(change)

    def _on_message(self, change: Change) -> None:
        assert change.id is not None
        message = self.store.message(change.id)
        if message is None:
            return
        if message.from_agent and change.id in self._shown_as_users:
            # Marked after it was printed as the user's (the agent changed it).
            self._shown_as_users.discard(change.id)
            self._line(f"[the message above is {self.FROM_AGENT}]")
        if message.from_agent:
            label = self.FROM_AGENT
        else:
            label = self._LABELS.get(message.role, message.role)
            if message.role == "user":
                self._shown_as_users.add(change.id)
        self._section(f"message:{change.id}", label)
        if change.action in ("appended", "added") and change.payload is None:
            # Text past a huge chunk's head (`CutMessageText`): what is left out
            # is said, not printed.
            printed = self._printed.get(change.id, 0)
            after = message.text_after(printed)
            if after is None:
                after = message.tail or ""
                left_out = message.text_size - len(after) - printed
                self._write(f"\n[⋯ {left_out:,} characters not kept ⋯]\n")
            self._write(after)
            self._printed[change.id] = message.text_size
            return
        if change.action in ("appended", "added") and isinstance(change.payload, dict):
            text = block_text(change.payload)
            if text is not None:
                self._write(text)
                self._printed[change.id] = self._printed.get(change.id, 0) + len(text)
            else:
                self._write(f"\n<{change.payload.get('type', 'content')}>\n")
            return
        full = message.text
        printed = self._printed.get(change.id, 0)
        if change.action == "replaced" or len(full) < printed:
            self._write("\n(message replaced)\n" if printed else "")
            printed = 0
        self._write(full[printed:])
        self._printed[change.id] = len(full)
        if self._line_open:  # a whole message is complete: end its line
            self._write("\n")

    def _on_tool_call(self, change: Change) -> None:
        assert change.id is not None
        call = self.store.tool_call(change.id)
        if call is None:
            return
        key = (call.title, call.status)
        if self._tool_status.get(change.id) == key:
            return
        self._tool_status[change.id] = key
        title = call.title or call.tool_call_id
        self._line(f"[tool {call.kind}] {title} ({call.status})")

    def _on_plan(self, change: Change) -> None:
        """A plan in full the first time; after that, only the entries that changed.

        Entries are matched by position (each update replaces the plan's
        entries): an entry whose mark or text changed, or a new one, is printed
        under `[plan ID changed]`; entries no longer there are listed as
        removed; an update that changes nothing prints nothing.
        """
        assert change.id is not None
        if change.action == "removed":
            if self._plans.pop(change.id, None) is not None:
                self._line(f"[plan {change.id} removed]")
            return
        plan = self.store.plan(change.id)
        if plan is None:
            return
        document = plan_document(plan)
        if document is not None:
            self._on_plan_document(plan.plan_id, document)
            return
        marks = {"completed": "x", "in_progress": ">", "cancelled": "-"}
        entries = [
            f"[{marks.get(str(entry.get('status')), ' ')}] {entry.get('content', '')}"
            for entry in plan.entries
        ]
        before = self._plans.get(plan.plan_id)
        self._plans[plan.plan_id] = entries
        if before is None:
            lines = [f"[plan {plan.plan_id}]", *(f"  {e}" for e in entries)]
            self._line("\n".join(lines))
            return
        changed = [
            f"  {entry}"
            for i, entry in enumerate(entries)
            if i >= len(before) or before[i] != entry
        ]
        changed += [f"  (removed) {entry[4:]}" for entry in before[len(entries) :]]
        if changed:
            self._line("\n".join([f"[plan {plan.plan_id} changed]", *changed]))

    def _on_plan_document(self, plan_id: str, document: PlanDocument) -> None:
        """A markdown plan's text, a file plan's path: whole, each time it changes."""
        if document.kind == "markdown":
            lines = (document.text or "").splitlines()
        else:
            path = document.path
            lines = [f"file: {self.paths.show(path) if path else document.uri}"]
        before = self._plans.get(plan_id)
        if before == lines:
            return
        self._plans[plan_id] = lines
        label = "" if before is None else " changed"
        heading = f"[plan {plan_id}{label} ({document.kind})]"
        self._line("\n".join([heading, *(f"  {line}" for line in lines)]))

    def _on_permission(self, change: Change) -> None:
        assert change.id is not None
        permission = self.store.permission(change.id)
        if permission is None:
            return
        title = permission.title or "permission requested"
        subject = permission.subject or {}
        if subject.get("type") == "command":
            cwd = subject.get("cwd")
            where = self.paths.show(cwd) if isinstance(cwd, str) else cwd
            title += f" — $ {subject.get('command')} (in {where})"
        if permission.outcome is None:
            self._line(f"[permission] {title}")
        elif change.id not in self._permission_outcomes:
            self._permission_outcomes.add(change.id)
            outcome = permission.outcome
            chosen = outcome.get("optionId")
            names = {o.get("optionId"): o.get("name") for o in permission.options}
            answer = names.get(chosen, chosen) if chosen else "cancelled"
            self._line(f"[permission] {title}: {answer}")

    def _on_elicitation(self, change: Change) -> None:
        """The question when it comes, then how it was answered (and completed)."""
        assert change.id is not None
        elicitation = self.store.elicitation(change.id)
        if elicitation is None:
            return
        answer = answer_text(elicitation)
        if self._elicitation_answers.get(change.id) == answer:
            return
        self._elicitation_answers[change.id] = answer
        question = elicitation.message
        if elicitation.url is not None:
            question += f" ({elicitation.url})"
        if elicitation.pending:
            self._line(f"[question] {question}")
        else:
            self._line(f"[question] {question}: {answer}")

    def _on_subagent(self, change: Change) -> None:
        """A subagent's status when it changes; its own work once it ends."""
        subagent = self.store.subagent(change.id or "")
        if (
            subagent is not None
            and self._subagents.get(subagent.subagent_id) != subagent.status
        ):
            self._subagents[subagent.subagent_id] = subagent.status
            own = self.store.subagent_store(subagent.subagent_id)
            self._line(subagent_report(subagent, own))

    def _on_notice(self, change: Change) -> None:
        notices = self.store.notices
        if notices:
            notice = notices[-1]
            self._line(f"[{notice.severity}] {notice.title}")

    def finish(self) -> None:
        """Print what streams poorly (terminal screens), then end the transcript."""
        for subagent in self.store.subagents():
            if subagent.running:  # the turn ended first: its work so far
                own = self.store.subagent_store(subagent.subagent_id)
                self._line(subagent_report(subagent, own, final=True))
        for terminal in self.store.terminals():
            text = terminal_text(terminal)
            if text:
                status = ""
                if terminal.exit_status is not None:
                    status = f" exit {json.dumps(dict(terminal.exit_status))}"
                name = terminal.command or terminal.terminal_id
                self._line(f"[terminal {name}{status}]\n{text}")
        usage = usage_line(self.store.usage, self.store.turn_usage)
        if usage is not None:
            self._line(usage)
        if self._line_open:
            self._write("\n")
