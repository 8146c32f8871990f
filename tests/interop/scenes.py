"""The real agents' scenes: each runs an agent once through acp-tui against a
scripted model and keeps what it saw, for the tests of `test_real_turns.py` to
check one flow each.

* `full_turn`: one `acp-tui print --format json --permissions allow --record`
  turn: thinking and text, a shell command (`exit 3`), a new file written and then
  edited through the agent's own tools, the file read, a todo list, an answer. The
  file's content is read each time the agent asks the model for its next step
  (`Watching`), so "on disk right afterwards" is checked at that moment.
* `cancelled`: `acp-tui print --timeout` while the model's stream is held at a
  gate: the turn ends cancelled; the agent's processes are looked for afterwards.
* `app_run`: the full-screen app (Pilot) resumes the full turn's session and
  goes through several prompts: the picker lists the session; a shell command's
  card; a write rejected in the permission dialog; model errors then a prompt
  that works; the model and then the mode switched (the next model request is
  looked at); a stream cancelled with Escape, then a prompt that works.

A scene runs once per agent (`Scenes` keeps it): the agents are slow to start
(claude-agent-acp: seconds of CPU) and the machine is shared. A step of the app
run that fails is recorded with its error and the run stops there; the tests of
later steps then fail with "not reached".
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from acp_tui.export import terminal_text
from acp_tui.protocol.transport import AgentCommand
from acp_tui.store import ConfigOption
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.config import ConfigScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.screens.session_picker import SessionPickerScreen
from acp_tui.ui.widgets.conversation import Banner
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.tool_call_view import ToolCallView
from tests.interop.real_agents import (
    PrintRun,
    RealAgent,
    Workspace,
    environment,
    print_json,
    runs,
)
from tests.modelserver._script import (
    Gate,
    HttpError,
    Reply,
    Request,
    Responder,
    ScriptServer,
    Text,
    Thinking,
    is_side,
)

PROMPT: Final = "make hello.py"
THOUGHT: Final = "Let me look around first."
INTRO: Final = "I will run a command first."
ANSWER: Final = "All done: hello.py now prints world."
SHELL: Final = "printf 'one\\ntwo\\n'; exit 3"
PLAN: Final = [("write hello.py", "completed"), ("run hello.py", "pending")]
PARTIAL: Final = "Counting slowly: one, two,"
HELLO: Final = "print('hello')\n"
RECORDED_ANSWER: Final = "Done: hello.py prints hello."
"""The answer of the recorded turn (`scripts/record_real_agents.py`)."""
WORLD: Final = "print('world')\n"

SIZE: Final = (120, 40)
START_BOUND: Final = 120.0
"""Seconds for an agent to start and open or resume a session (a loaded host)."""
TURN_BOUND: Final = 90.0
CANCEL_AFTER: Final[tuple[float, ...]] = (5, 25)
"""`print --timeout` of the cancel scene, tried in turn until the stream got to the
gate before the timeout fired (`Cancelled.reached`; the tests check it). The gate
is reached 0.1 to 1.5 s after the prompt with the host loaded 3 times over its 2
cores; 25 s (the only try before) stays for a host slower still. The timeout is
counted from the prompt; the stream then waits at the gate, so each second of it
is a second of the test."""


class Watching:
    """A responder that reads `path` as each main-loop request arrives."""

    def __init__(self, script: Responder, path: Path) -> None:
        self.script = script
        self.path = path
        self.seen: list[str | None] = []
        """The file's content (None: absent) at each main-loop request, in order."""

    def __call__(self, request: Request) -> Reply:
        if not is_side(request):
            self.seen.append(self.path.read_text() if self.path.exists() else None)
        return self.script(request)


@dataclass
class FullTurn:
    """What the full turn left: the print document, the model's requests, the file."""

    workspace: Workspace
    run: PrintRun
    requests: list[Request]
    seen: list[str | None]
    recording: Path

    @property
    def hello(self) -> Path:
        return self.workspace.project / "hello.py"


def full_turn(agent: RealAgent, workspace: Workspace) -> FullTurn:
    kit = agent.toolkit
    hello = workspace.project / "hello.py"
    replies: list[Reply] = [
        (Thinking(THOUGHT), Text(INTRO), *kit.shell(SHELL)),
        kit.write(hello, HELLO),
        kit.edit(hello, HELLO.strip(), WORLD.strip()),
        kit.read(hello),
        *([kit.todo(PLAN)] if kit.todo is not None else []),
        (Text(ANSWER),),
    ]
    watching = Watching(agent.script({PROMPT: replies}), hello)
    recording = workspace.root / "full-turn.jsonl"
    with agent.server(watching) as server:
        run = print_json(
            agent,
            workspace,
            agent.environment(workspace, server),
            PROMPT,
            "--raw-chunks",  # the tests count how many pieces the text came in
            "--permissions",
            "allow",
            "--timeout",
            str(int(TURN_BOUND)),
            "--record",
            str(recording),
        )
    return FullTurn(workspace, run, server.requests, watching.seen, recording)


@dataclass
class Cancelled:
    run: PrintRun
    reached: bool
    """Whether the stream got to the gate before the cancel."""
    left: list[int]
    """Processes with the workspace's HOME still alive 10 s after print returned."""
    requests: list[Request]


def wait_gone(pids: list[int], bound: float) -> list[int]:
    """Wait (at most `bound` s in all) for each process to end; those still alive."""
    deadline = time.monotonic() + bound
    alive = []
    for pid in pids:
        try:
            handle = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            ready, _, _ = select.select(
                [handle], [], [], max(0.0, deadline - time.monotonic())
            )
            if not ready:
                alive.append(pid)
        finally:
            os.close(handle)
    return alive


def cancelled(agent: RealAgent, workspaces: Callable[[int], Workspace]) -> Cancelled:
    """The cancel scene with each `CANCEL_AFTER` in turn (a fresh workspace each,
    `workspaces(try)`), until the stream got to the gate before the timeout."""
    for attempt, after in enumerate(CANCEL_AFTER):
        scene = cancelled_after(agent, workspaces(attempt), after)
        if scene.reached:
            break
    return scene


def cancelled_after(agent: RealAgent, workspace: Workspace, after: float) -> Cancelled:
    gate = Gate(bound=TURN_BOUND)
    script = agent.script({"count slowly": [(Text(PARTIAL), gate, Text(" three."))]})
    with agent.server(script) as server:
        try:
            run = print_json(
                agent,
                workspace,
                agent.environment(workspace, server),
                "count slowly",
                "--timeout",
                str(after),
            )
        finally:
            reached = gate.reached.is_set()
            gate.event.set()
    return Cancelled(
        run, reached, wait_gone(workspace.processes(), 10.0), server.requests
    )


# --- The app. ----------------------------------------------------------------------


@dataclass
class Step:
    """One step of the app run: whether it ran to its end, and what it saw."""

    ok: bool = False
    error: str = ""
    seen: dict[str, Any] = field(default_factory=dict)


@dataclass
class AppRun:
    steps: dict[str, Step] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    left: list[int] = field(default_factory=list)
    """The agent's processes still alive 10 s after the app closed."""

    def step(self, name: str) -> Step:
        """The step's record; a test of a step that never ran fails here."""
        step = self.steps.get(name)
        if step is None:
            failed = [f"{k}: {s.error}" for k, s in self.steps.items() if not s.ok]
            raise AssertionError(f"step {name!r} not reached ({'; '.join(failed)})")
        if not step.ok:
            raise AssertionError(f"step {name!r} failed: {step.error}")
        return step


def _composed(dialog: PermissionScreen) -> Callable[[], bool]:
    """Whether `dialog` has composed its widgets (its key hint comes last)."""
    return lambda: bool(dialog.query("#permission-hint"))


def _armed(dialog: PermissionScreen) -> Callable[[], bool]:
    """Whether `dialog` takes keys yet (its key guard has passed: issue 20)."""
    return lambda: dialog.armed


async def wait_until(
    pilot: Pilot[None], condition: Callable[[], bool], seconds: float, what: str
) -> None:
    """Let the app run until `condition` holds, for at most `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds:g} s: {what}")
        await pilot.pause(0.05)


async def settled(pilot: Pilot[None], app: AcpTuiApp, texts: list[str]) -> str:
    """What is shown once every one of `texts` is (the store is ahead of the
    screen by a refresh or two), or after 10 s: the test then says what is not."""
    with contextlib.suppress(AssertionError):
        await wait_until(
            pilot, lambda: all(t in shown(app) for t in texts), 10, "the texts shown"
        )
    return shown(app)


def shown(app: AcpTuiApp) -> str:
    """The conversation's messages and banners as plain text."""
    texts = [f"[{v.role}] {v.text}" for v in app.query(MessageView)]
    return "\n".join(texts + [f"[banner] {b.text}" for b in app.query(Banner)])


def document(app: AcpTuiApp) -> dict[str, Any]:
    assert app.store is not None
    return dict(app.store.to_json(terminal_text))


Action = Callable[[AcpTuiApp, Pilot[None], Step], Awaitable[None]]


class AppDriver:
    """The steps, in order, against one app and one model server."""

    def __init__(self, agent: RealAgent, workspace: Workspace, session_id: str) -> None:
        self.agent = agent
        self.workspace = workspace
        self.session_id = session_id
        self.script = agent.script()
        self.result = AppRun()
        self._gates: list[Gate] = []
        self._server: ScriptServer | None = None

    async def run(self) -> AppRun:
        with self.agent.server(self.script) as server:
            self._server = server
            env = self.agent.environment(self.workspace, server)
            # As the CLI does: the agent runs in the session's directory.
            command = AgentCommand(
                argv=self.agent.argv(), env=env, cwd=self.workspace.project
            )
            app = make_app(
                command,
                self.agent.key,
                cwd=self.workspace.project,
                choice="1" if self.agent.protocol == 1 else "2",
                init_timeout=START_BOUND,
                request=(
                    SessionRequest(action="resume", session_id=self.session_id)
                    if runs(self.agent.key, "resume")
                    else SessionRequest(action="new")
                ),
                record=self.workspace.root / "app.jsonl",
            )
            try:
                with environment({"ACP_TUI_HOME": env["ACP_TUI_HOME"]}):
                    async with app.run_test(size=SIZE) as pilot:
                        await self._steps(app, pilot)
            finally:
                for gate in self._gates:
                    gate.event.set()
            self.result.requests = list(server.requests)
        self.result.left = wait_gone(self.workspace.processes(), 10.0)
        return self.result

    async def _steps(self, app: AcpTuiApp, pilot: Pilot[None]) -> None:
        # (step, the flow it belongs to, what it does)
        steps: list[tuple[str, str, Action]] = [
            ("resume", "resume", self.resume),
            ("listed", "list", self.listed),
            ("shell", "app-shell", self.shell),
            ("reject", "reject", self.reject),
            *[
                (f"error-{code}", "error", self.error(code))
                for code in self.agent.errors
            ],
            ("after-error", "error", self.after_error),
            ("model", "model", self.model),
            ("mode", "mode", self.mode),
            ("cancel", "cancel-next", self.cancel),
            ("after-cancel", "cancel-next", self.after_cancel),
        ]
        if not runs(self.agent.key, "resume"):
            await wait_until(
                pilot, lambda: app.store is not None, START_BOUND, "session"
            )
        for name, flow, action in steps:
            if not runs(self.agent.key, flow):
                continue
            step = self.result.steps[name] = Step()
            try:
                await action(app, pilot, step)
            except Exception as error:  # the step's failure is its test's failure
                step.error = f"{type(error).__name__}: {error}"
                step.seen["shown"] = shown(app)
                return
            step.ok = True

    async def until_idle(
        self, app: AcpTuiApp, pilot: Pilot[None], ended: int, answer: str, step: Step
    ) -> None:
        """Wait for the end of the turn, answering each permission dialog with
        `answer` (`y` allows once, `n` rejects)."""
        deadline = time.monotonic() + TURN_BOUND
        asked: list[dict[str, Any]] = step.seen.setdefault("asked", [])
        while True:
            store = app.store
            assert store is not None
            if store.state.turns_ended > ended and store.state.is_idle:
                return
            screen = app.screen
            if isinstance(screen, PermissionScreen):
                # The screen is current before its widgets are composed: wait for its
                # last widget, the key hint, before reading it.
                await wait_until(
                    pilot,
                    _composed(screen),
                    10,
                    "the permission dialog composed",
                )
                diff = bool(screen.query("#permission-diff"))
                subjects = screen.query("#permission-subject").results(Static)
                asked.append(
                    {
                        "title": screen.request.title,
                        "diff": diff,
                        "subject": "\n".join(str(s.content) for s in subjects),
                    }
                )
                # The dialog takes no key until its guard has passed (issue 20).
                armed = _armed(screen)
                await wait_until(pilot, armed, 10, "the permission dialog armed")
                await pilot.press(answer, answer)  # select, then choose
                await wait_until(
                    pilot,
                    lambda: not isinstance(app.screen, PermissionScreen),
                    10,
                    "the permission dialog closed",
                )
                continue
            if time.monotonic() > deadline:
                raise AssertionError(f"no end of turn within {TURN_BOUND:g} s")
            await pilot.pause(0.05)

    async def prompt(
        self,
        app: AcpTuiApp,
        pilot: Pilot[None],
        step: Step,
        text: str,
        replies: list[Reply],
        answer: str = "y",
    ) -> None:
        """Queue `replies`, send `text`, answer dialogs, wait for the turn's end."""
        assert app.store is not None
        assert text not in self.script.prompts, "each step has its own prompt"
        self.script.prompts[text] = replies
        ended = app.store.state.turns_ended
        await pilot.press(*text, "enter")
        await self.until_idle(app, pilot, ended, answer, step)
        step.seen["stop_reason"] = app.store.state.last_stop_reason
        step.seen["requests"] = self.script.requests(self._requests(), text)

    # --- The steps. ------------------------------------------------------------------

    async def resume(self, app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
        await wait_until(pilot, lambda: app.store is not None, START_BOUND, "session")
        await wait_until(pilot, lambda: ANSWER in shown(app), 30, "history replayed")
        assert app.store is not None
        step.seen["session_id"] = app.store.session_id
        step.seen["document"] = document(app)

    async def listed(self, app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
        await pilot.press("f2")
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionPickerScreen), 30, "picker"
        )
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_until(
            pilot,
            lambda: self.session_id in {s.session_id for s in picker.visible_sessions},
            60,
            "the session listed in the picker",
        )
        step.seen["sessions"] = [s.session_id for s in picker.visible_sessions]
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: not isinstance(app.screen, SessionPickerScreen),
            10,
            "the picker closed",
        )

    async def shell(self, app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
        kit = self.agent.toolkit
        await self.prompt(
            app, pilot, step, "run it", [kit.shell(SHELL), (Text("Ran it."),)]
        )
        cards = [c for c in app.query(ToolCallView) if "one" in c.content_text]
        step.seen["cards"] = [
            {"header": c.header_text, "content": c.content_text} for c in cards
        ]

    async def reject(self, app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
        path = self.workspace.project / "rejected.py"
        replies = [self.agent.toolkit.write(path, HELLO), (Text("As you wish."),)]
        await self.prompt(app, pilot, step, "write it", replies, answer="n")
        step.seen["exists"] = path.exists()
        step.seen["project"] = str(self.workspace.project)
        step.seen["locations"] = [
            line
            for card in app.query(ToolCallView)
            for line in card.locations_text.splitlines()
            if "rejected.py" in line
        ]

    def error(self, status: int) -> Action:
        async def action(app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
            failure = HttpError(status, ERROR_KINDS[status], f"scripted {status}")
            recording = self.workspace.root / "app.jsonl"
            start = len(recording.read_text().splitlines())
            await self.prompt(app, pilot, step, f"fail {status}", [(failure,)])
            lines = recording.read_text().splitlines()[start:]
            step.seen["reported"] = reported = reported_errors(lines)
            step.seen["shown"] = await settled(pilot, app, reported)

        return action

    async def after_error(self, app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
        await self.prompt(app, pilot, step, "again", [(Text("Recovered fine."),)])
        step.seen["shown"] = await settled(pilot, app, ["Recovered fine."])

    async def model(self, app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
        value, _ = self.agent.models
        before = option(app, "model").current
        step.seen["before"] = before
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigScreen), 10, "F3")
        screen = app.screen
        assert isinstance(screen, ConfigScreen)
        wanted = option(app, "model").config_id
        rows = {
            choice.value: row
            for row, choice in screen.choices.items()
            if choice.config_id == wanted
        }
        step.seen["values"] = sorted(rows)
        options = screen.query_one(OptionList)
        options.highlighted = options.get_option_index(rows[value])
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: option(app, "model").current == value,
            30,
            f"the model option at {value!r}",
        )
        await self.prompt(app, pilot, step, "which model", [(Text("A new model."),)])
        step.seen["model"] = step.seen["requests"][0].model

    async def mode(self, app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
        before = option(app, "mode").current
        await pilot.press("shift+tab")
        await wait_until(
            pilot,
            lambda: option(app, "mode").current != before,
            30,
            "the mode switched",
        )
        after = option(app, "mode").current
        step.seen["modes"] = (before, after)
        path = self.workspace.project / "mode.py"
        replies = [self.agent.toolkit.write(path, HELLO), (Text("In the new mode."),)]
        await self.prompt(app, pilot, step, "write in this mode", replies)
        step.seen["exists"] = path.exists()
        step.seen["body"] = json.dumps(step.seen["requests"][0].body)

    async def cancel(self, app: AcpTuiApp, pilot: Pilot[None], step: Step) -> None:
        assert app.store is not None
        gate = Gate(bound=TURN_BOUND)
        self._gates.append(gate)
        self.script.prompts["count"] = [(Text(PARTIAL), gate, Text(" three."))]
        ended = app.store.state.turns_ended
        await pilot.press(*"count", "enter")
        await wait_until(
            pilot, gate.reached.is_set, TURN_BOUND, "the stream at the gate"
        )
        await wait_until(pilot, lambda: PARTIAL in shown(app), 30, "the partial text")
        await pilot.press("escape")
        await self.until_idle(app, pilot, ended, "n", step)
        step.seen["stop_reason"] = app.store.state.last_stop_reason
        step.seen["shown"] = shown(app)

    async def after_cancel(
        self, app: AcpTuiApp, pilot: Pilot[None], step: Step
    ) -> None:
        await self.prompt(app, pilot, step, "go on", [(Text("Still here."),)])
        step.seen["shown"] = await settled(pilot, app, ["Still here."])

    def _requests(self) -> list[Request]:
        assert self._server is not None
        return list(self._server.requests)


def reported_errors(lines: list[str]) -> list[str]:
    """The agent's own words for the errors in recorded lines: each error object's
    `data.message` if it has one, else its `message` (JSON-RPC error responses
    and v2 `state_update` errors)."""
    found = []
    for line in lines:
        record = json.loads(line)
        if record.get("dir") != "in" or "line" not in record:
            continue
        message = json.loads(record["line"])
        update = (message.get("params") or {}).get("update") or {}
        for error in (message.get("error"), update.get("error")):
            if not isinstance(error, dict):
                continue
            data = error.get("data")
            detail = data.get("message") if isinstance(data, dict) else None
            found.append(str(detail or error.get("message")))
    return found


ERROR_KINDS: Final = {
    400: "invalid_request_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def option(app: AcpTuiApp, category: str) -> ConfigOption:
    assert app.store is not None
    return next(o for o in app.store.settings if o.category == category)


def app_run(agent: RealAgent, workspace: Workspace, session_id: str) -> AppRun:
    """The app's steps against the session `session_id` of `workspace`."""
    driver = AppDriver(agent, workspace, session_id)
    return anyio.run(driver.run)
