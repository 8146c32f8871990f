"""What the demo does for each prompt: the slash-command scenarios and the default.

`run(turn, text)` picks the scenario from the prompt text (`/name args`, or the
default answer for anything else) and returns the turn's stop reason. `COMMANDS`
is what the agent advertises in `available_commands_update`.

Invariants:

* Deterministic: the output depends only on the prompt, the session's options and
  what the user answered to permission requests; never on time or chance.
* Scenarios touch files only through the session's scratch `Workspace`.
* Mode rules hold everywhere: `plan` never edits or runs anything (it writes a
  plan, then switches the session to `code`, once); `ask` asks permission before
  each edit or command (remembering "Always allow"); `code` just acts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from acp_tui.demo.changes_scenario import changes_scenario
from acp_tui.demo.events import Info, JSONObject, Unknown
from acp_tui.demo.questions import ask_scenario, login_scenario
from acp_tui.demo.report_scenarios import compact_scenario, notice_scenario
from acp_tui.demo.scenarios_cards import cancel_tool_scenario, plan_docs_scenario
from acp_tui.demo.session import PermissionAsk
from acp_tui.demo.steering import slow_scenario
from acp_tui.demo.subagents import subagents_scenario
from acp_tui.demo.turn import Turn, chunks
from acp_tui.demo.usage_scenario import usage_scenario
from acp_tui.demo.workspace import LOGO_AFTER, LOGO_BEFORE, TextChange, git_patch

__all__ = ["COMMANDS", "Command", "run"]


@dataclass(frozen=True, slots=True)
class Command:
    """A slash command the demo advertises."""

    name: str
    description: str
    hint: str | None = None
    """Set for commands that take free text (`{"type": "text", "hint"}` in v2)."""


COMMANDS: Final = (
    Command("help", "List the demo's scenarios"),
    Command("markdown", "A long streamed markdown answer"),
    Command("plan", "Two independent plans that progress"),
    Command("read", "Read and search files (tool calls with locations)"),
    Command("edit", "Edit a file: a diff with a git patch"),
    Command("files", "Delete, move and binary changes: diffs without a patch"),
    Command("changes", "Files changed by an edit and a shell command: review them (f6)"),
    Command("run", "Run a command in a terminal (add `long` for a slow one)"),
    Command("stream", "Tool-call content streamed in pieces, then replaced"),
    Command("permission", "Ask permission for an edit and for a command"),
    Command("misbehave", "Unknown updates, an extension, a failure, a refusal"),
    Command("long", "A long, slow answer (try cancelling it)"),
    Command("slow", "A slow turn you can send a queued prompt into (steering)"),
    Command("title", "Rename this session", hint="the new session title"),
    Command("ask", "The agent asks you questions in a form (elicitation)"),
    Command("login", "The agent sends you to a sign-in page (URL elicitation)"),
    Command("usage", "The context window fills past 75, 90 and 95% (the meter)"),
    Command("notice", "Notices of each severity (info, warning, error)"),
    Command("compact", "The agent compacts its context: a divider with a summary"),
    Command("subagents", "Three subagents work in parallel; one fails"),
    Command("cancel-tool", "A long tool call you can cancel alone (x on its card)"),
    Command("plan-docs", "A markdown plan, and a plan that is removed when done"),
)

Scenario = Callable[[Turn, str], Awaitable[str]]


async def run(turn: Turn, text: str) -> str:
    """Run the scenario for a prompt; returns the stop reason."""
    stripped = text.strip()
    if stripped.startswith("/"):
        name, _, argument = stripped[1:].partition(" ")
        scenario = _SCENARIOS.get(name.lower())
        if scenario is not None:
            return await scenario(turn, argument.strip())
        await turn.say(
            f"I don't know the command `/{name}`. Type `/help` to see what I can do.\n"
        )
        return "end_turn"
    return await default_answer(turn, stripped)


# ------------------------------------------------------------------------------------
# Shared bits
# ------------------------------------------------------------------------------------

_THOUGHTS: Final = (
    "The user wants to see what an ACP agent can do.",
    "I'll keep everything inside my scratch workspace, never their files.",
    "A short plan first, then a file read with its location, then the answer.",
    "Markdown lets me show headings, lists, code and a table in one go.",
    "Streaming a few words at a time makes the pace visible.",
    "I should mention /help so they can find the other scenarios.",
)


def _signature(turn: Turn) -> str:
    config = turn.session.config
    return (
        f"\n\n---\n_{config.model_name()} · {config.mode_name()} mode · "
        f"thinking: {config.thought_level}_\n"
    )


def _location(turn: Turn, name: str, line: int | None = None) -> JSONObject:
    location: JSONObject = {"path": str(turn.session.workspace.path(name))}
    if line is not None:
        location["line"] = line
    return location


def _text(text: str) -> JSONObject:
    return {"type": "text", "text": text}


async def _plan_mode_refusal(turn: Turn, what: str, steps: list[str]) -> str:
    """Plan mode: describe the work as a plan, do nothing, switch to code once."""
    await turn.think(
        (
            f"Plan mode is on, so I must not {what}.",
            "I can still write down exactly what I would do.",
            "Once the plan is written, switching to Code mode lets the user run it.",
        )
    )
    await turn.plan(
        None,
        [
            {
                "content": step,
                "priority": "high" if i == 0 else "medium",
                "status": "pending",
            }
            for i, step in enumerate(steps)
        ],
    )
    await turn.say(
        f"**Plan mode:** I never {what} in this mode. Here is the plan instead — "
        "nothing in the workspace was touched.\n"
    )
    await _switch_to_code(turn)
    return "end_turn"


async def _switch_to_code(turn: Turn) -> None:
    """After a plan in plan mode, switch the session to code mode (once)."""
    session = turn.session
    if session.mode_switched or session.config.mode != "plan":
        return
    session.mode_switched = True
    call = await turn.tool_call(
        "Switch to Code mode", "switch_mode", status="in_progress"
    )
    session.config.mode = "code"
    await turn.port.config_changed(session, mode_changed=True)
    await turn.update_tool(
        call,
        status="completed",
        content=[_text("The plan is ready, so I switched this session to Code mode.")],
    )
    await turn.say(
        "I switched the session to **Code** mode so the plan can be carried out "
        "(I only do that once per session; switch back any time).\n"
    )


async def _allowed(
    turn: Turn,
    call: str,
    remember: str,
    title: str,
    description: str,
    *,
    command: str | None = None,
    always_ask: bool = False,
) -> bool:
    """Ask mode (or `always_ask`): ask; code mode: allowed."""
    if turn.session.config.mode == "code" and not always_ask:
        return True
    ask = PermissionAsk(
        title=title,
        description=description,
        tool_call_id=call,
        tool_call=turn.tool_fields(call),
        command=command,
        cwd=str(turn.session.workspace.root) if command else None,
    )
    return await turn.ask(ask, remember)


async def _rejected(turn: Turn, call: str, what: str) -> None:
    await turn.update_tool(
        call,
        status="failed",
        content=[_text(f"Permission denied: I did not {what}.")],
    )
    await turn.say(f"You said no, so I did **not** {what}. Nothing was changed.\n")


# ------------------------------------------------------------------------------------
# The default answer and /help
# ------------------------------------------------------------------------------------

DEFAULT_ANSWER: Final = """\
## Hello from the demo agent

You said: “{prompt}”. I'm a pretend coding agent that runs on your machine, \
never touches the network, and only works in a scratch folder of its own.

### What you just saw

- a **thought** (its length follows the *Thinking* option),
- a **plan** whose entries progressed while I worked,
- a **tool call** that read a file, with its location,
- and this answer, streamed a few words at a time.

### A bit of code

```python
def greet(name: str) -> str:
    return f"Hello, {{name}}!"
```

### Options that change what I do

| Option   | Values             | Effect                              |
|----------|--------------------|-------------------------------------|
| Mode     | ask · code · plan  | asks first · just acts · never edits |
| Model    | swift · mini · deep | the label below, the context size  |
| Thinking | low · medium · high | how long my thoughts are            |

Type `/help` for the list of scenarios.
"""


async def default_answer(turn: Turn, prompt: str) -> str:
    """A plain prompt: a thought, a plan, a read with locations, a markdown answer."""
    await turn.think(_THOUGHTS)
    plan = await turn.plan(
        None,
        [
            {
                "content": "Look around the workspace",
                "priority": "high",
                "status": "in_progress",
            },
            {"content": "Read the README", "priority": "medium", "status": "pending"},
            {"content": "Write the answer", "priority": "medium", "status": "pending"},
        ],
    )
    await turn.pause()
    await turn.plan_status(plan, 0, "completed")
    await turn.plan_status(plan, 1, "in_progress")
    readme = turn.session.workspace.read("README.md")
    call = await turn.tool_call(
        "Read README.md",
        "read",
        locations=[_location(turn, "README.md", 1)],
        raw_input={"path": str(turn.session.workspace.path("README.md"))},
    )
    await turn.update_tool(call, status="in_progress")
    await turn.pause()
    await turn.update_tool(
        call,
        status="completed",
        content=[_text(f"```markdown\n{readme}```")],
    )
    await turn.plan_status(plan, 1, "completed")
    await turn.plan_status(plan, 2, "in_progress")
    shown = " ".join(prompt.split())
    if len(shown) > 80:
        shown = shown[:79] + "…"
    await turn.say(
        DEFAULT_ANSWER.format(prompt=shown or "(nothing)") + _signature(turn)
    )
    await turn.plan_status(plan, 2, "completed")
    return "end_turn"


async def help_scenario(turn: Turn, argument: str) -> str:
    """`/help`: the scenarios and the current options."""
    lines = ["## Demo scenarios\n", "| Command | What it shows |", "|---|---|"]
    for command in COMMANDS:
        usage = f"/{command.name}" + (f" <{command.hint}>" if command.hint else "")
        lines.append(f"| `{usage}` | {command.description} |")
    lines.append("| *anything else* | A default answer with several features at once |")
    config = turn.session.config
    lines += [
        "",
        f"Current options: mode **{config.mode_name()}**, model "
        f"**{config.model_name()}**, thinking **{config.thought_level}**.",
        "",
        "Everything happens in a scratch workspace:",
        f"`{turn.session.workspace.root}`",
        "",
        "To talk to a real agent instead: `acp-tui --agent claude-code` "
        "(`acp-tui agents` lists them).",
        "",
        "To fork this conversation: focus one of my messages (tab) and press ctrl+f, "
        "or pick “Fork session” in the palette (ctrl+p): the fork opens in a new "
        "tab and both go on. In the session list (F2), ctrl+r renames a session "
        "and ctrl+o archives it.",
        "",
    ]
    await turn.say("\n".join(lines))
    return "end_turn"


# ------------------------------------------------------------------------------------
# /markdown, /long
# ------------------------------------------------------------------------------------

MARKDOWN: Final = """\
# Markdown tour

Streaming markdown is hard to render well: blocks stay open until they close.

## Text

Plain, **bold**, *italic*, ***both***, `inline code`, ~~struck~~ and a \
[link](https://agentclientprotocol.com).

> A quote, which may span
> several lines.

## Lists

1. First
2. Second
   - nested bullet
   - another one
     1. deeper
3. Third

- [x] a done task
- [ ] an open task

## Code

```python
from dataclasses import dataclass


@dataclass
class Point:
    x: float
    y: float

    def norm(self) -> float:
        return (self.x**2 + self.y**2) ** 0.5
```

```diff
-    return "Hello, " + name
+    return f"Hello, {name}!"
```

```json
{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "demo"}}
```

## Table

| Version | Turn ends with          | Terminals     |
|:--------|:------------------------|:--------------|
| v1      | the prompt response     | client-owned  |
| v2      | an idle `state_update`  | agent-owned   |

## The end

That's all — a horizontal rule follows.

---
"""


async def markdown_scenario(turn: Turn, argument: str) -> str:
    """`/markdown`: a long markdown answer streamed in chunks."""
    await turn.think(
        (
            "A markdown tour: every block type, streamed.",
            "Code fences and tables are the interesting cases for a renderer.",
            "Nested lists and task lists next.",
            "A diff fence too, for colour.",
            "Then a table with aligned columns.",
            "And a horizontal rule to finish.",
        )
    )
    await turn.say(MARKDOWN + _signature(turn))
    return "end_turn"


LONG_PARAGRAPH: Final = (
    "This answer is long on purpose, and it streams slowly even in tests, so that "
    "there is time to press Escape (or let `acp-tui print --timeout` fire). "
    "When the client sends `session/cancel`, I stop at once and end the turn with "
    "the stop reason `cancelled`. "
)


async def long_scenario(turn: Turn, argument: str) -> str:
    """`/long`: a slow answer (at least 50 ms per chunk), about half a minute."""
    message = turn.session.next_id("msg")
    for paragraph in range(1, 41):
        text = f"**Paragraph {paragraph}.** {LONG_PARAGRAPH}\n\n"
        for piece in chunks(text):
            await turn.stream(message, piece, paced=False)
            await turn.pace.tick(minimum=0.05)
    return "end_turn"


# ------------------------------------------------------------------------------------
# /plan
# ------------------------------------------------------------------------------------


async def plan_scenario(turn: Turn, argument: str) -> str:
    """`/plan`: two independent plans progressing side by side."""
    await turn.think(
        (
            "Two workstreams: the code and its documentation.",
            "They progress independently, so they get separate plans.",
            "Each update replaces that plan's entries completely.",
        )
    )
    code = await turn.plan(
        None,
        [
            {
                "content": "Sketch the greeting API",
                "priority": "high",
                "status": "pending",
            },
            {"content": "Implement greet()", "priority": "high", "status": "pending"},
            {"content": "Add tests", "priority": "medium", "status": "pending"},
            {"content": "Refactor helpers", "priority": "low", "status": "pending"},
        ],
    )
    docs = await turn.plan(
        None,
        [
            {"content": "Outline the guide", "priority": "medium", "status": "pending"},
            {"content": "Write examples", "priority": "medium", "status": "pending"},
            {"content": "Proofread", "priority": "low", "status": "pending"},
        ],
    )
    if turn.session.config.mode == "plan":
        await turn.say(
            "**Plan mode:** both plans are written down (**code** and **docs**); "
            "nothing was carried out.\n"
        )
        await _switch_to_code(turn)
        return "end_turn"
    await turn.say("I'm working on two plans at once: **code** and **docs**.\n\n")
    steps = [
        (code, 0),
        (docs, 0),
        (code, 1),
        (code, 2),
        (docs, 1),
        (code, 3),
        (docs, 2),
    ]
    for plan_id, index in steps:
        await turn.plan_status(plan_id, index, "in_progress")
        await turn.pause()
        await turn.plan_status(plan_id, index, "completed")
    await turn.say("Both plans are done." + _signature(turn))
    return "end_turn"


# ------------------------------------------------------------------------------------
# /read
# ------------------------------------------------------------------------------------


async def read_scenario(turn: Turn, argument: str) -> str:
    """`/read`: a read tool call and a search tool call, both with locations."""
    workspace = turn.session.workspace
    workspace.reset("src/greeting.py")
    source = workspace.read("src/greeting.py")
    await turn.think(
        (
            "Reading the greeting module first.",
            "Then a search, to show several locations at once.",
            "Locations let the client follow along in its editor.",
        )
    )
    read = await turn.tool_call(
        "Read src/greeting.py",
        "read",
        locations=[_location(turn, "src/greeting.py", 1)],
        raw_input={"path": str(workspace.path("src/greeting.py"))},
    )
    await turn.update_tool(read, status="in_progress")
    await turn.pause()
    await turn.update_tool(
        read,
        status="completed",
        content=[_text(f"```python\n{source}```")],
        raw_output={"lines": source.count("\n")},
    )
    hits = [
        (name, number)
        for name in ("README.md", "src/greeting.py")
        for number, line in enumerate(workspace.read(name).splitlines(), 1)
        if "greet" in line.lower()
    ]
    search = await turn.tool_call(
        "Search for “greet”",
        "search",
        status="in_progress",
        raw_input={"pattern": "greet", "path": str(workspace.root)},
    )
    await turn.pause()
    listing = "\n".join(f"- `{name}:{number}`" for name, number in hits)
    await turn.update_tool(
        search,
        status="completed",
        locations=[_location(turn, name, number) for name, number in hits],
        content=[_text(f"{len(hits)} matches:\n{listing}")],
    )
    await turn.say(
        "`greet()` lives in `src/greeting.py` and is called once, from its "
        f"`__main__` block. I found {len(hits)} mentions in total." + _signature(turn)
    )
    return "end_turn"


# ------------------------------------------------------------------------------------
# /edit, /files
# ------------------------------------------------------------------------------------

GREETING_AFTER: Final = (
    '"""Greetings."""\n'
    "\n"
    "\n"
    "def greet(name: str) -> str:\n"
    '    """Say hello to `name`."""\n'
    '    return f"Hello, {name}!"\n'
    "\n"
    "\n"
    'if __name__ == "__main__":\n'
    '    print(greet("world"))\n'
)
FAREWELL: Final = (
    '"""Farewells."""\n'
    "\n"
    "\n"
    "def farewell(name: str) -> str:\n"
    '    return f"Goodbye, {name}!"\n'
)


def _diff(changes: list[JSONObject], patch: str | None) -> JSONObject:
    return {"type": "diff", "changes": changes, "patch": patch}


async def edit_scenario(turn: Turn, argument: str) -> str:
    """`/edit`: modify one file and add another; a diff with a real git patch."""
    workspace = turn.session.workspace
    if turn.session.config.mode == "plan":
        return await _plan_mode_refusal(
            turn,
            "edit files",
            [
                "Add type hints to greet() in src/greeting.py",
                "Use an f-string and add a docstring",
                "Create src/farewell.py with farewell()",
            ],
        )
    workspace.reset("src/greeting.py")
    workspace.remove("src/farewell.py")
    await turn.think(
        (
            "greet() needs type hints and an f-string.",
            "A farewell() next to it makes the module pair complete.",
            "I'll report both changes in one diff with a git patch.",
        )
    )
    greeting, farewell = (
        workspace.path("src/greeting.py"),
        workspace.path("src/farewell.py"),
    )
    before = workspace.read("src/greeting.py")
    patch = git_patch(
        [
            TextChange(str(greeting), before, GREETING_AFTER),
            TextChange(str(farewell), None, FAREWELL),
        ]
    )
    changes = [
        {
            "operation": "modify",
            "path": str(greeting),
            "fileType": "text",
            "mimeType": "text/x-python",
            "oldText": before,
            "newText": GREETING_AFTER,
        },
        {
            "operation": "add",
            "path": str(farewell),
            "fileType": "text",
            "mimeType": "text/x-python",
            "newText": FAREWELL,
        },
    ]
    # The proposed diff comes with the tool call, before the question, as real
    # agents send it: the permission dialog shows what would change.
    call = await turn.tool_call(
        "Edit src/greeting.py, create src/farewell.py",
        "edit",
        locations=[
            _location(turn, "src/greeting.py", 4),
            _location(turn, "src/farewell.py", 1),
        ],
        raw_input={"files": [str(greeting), str(farewell)]},
        content=[_diff(changes, patch)],
    )
    if not await _allowed(
        turn,
        call,
        "edit",
        "Allow the demo agent to edit two files?",
        "It will change src/greeting.py and create src/farewell.py in its scratch "
        "workspace.",
    ):
        await _rejected(turn, call, "edit src/greeting.py or create src/farewell.py")
        return "end_turn"
    await turn.update_tool(call, status="in_progress")
    workspace.write("src/greeting.py", GREETING_AFTER)
    workspace.write("src/farewell.py", FAREWELL)
    await turn.pause()
    await turn.update_tool(call, status="completed", content=[_diff(changes, patch)])
    await turn.say(
        "Done: `greet()` now has type hints, a docstring and an f-string, and "
        "`src/farewell.py` is new." + _signature(turn)
    )
    return "end_turn"


async def files_scenario(turn: Turn, argument: str) -> str:
    """`/files`: delete, move and a binary change; diffs without a patch."""
    workspace = turn.session.workspace
    if turn.session.config.mode == "plan":
        return await _plan_mode_refusal(
            turn,
            "change files",
            [
                "Delete build.log",
                "Move docs/draft.md to docs/guide.md",
                "Recolour the logo",
            ],
        )
    workspace.reset("build.log", "docs/draft.md", "assets/logo.png")
    workspace.remove("docs/guide.md")
    await turn.think(
        (
            "Three file operations that have no useful text patch.",
            "A deletion, a move and a binary change.",
            "Each gets a diff with `changes` only.",
        )
    )
    log, draft = workspace.path("build.log"), workspace.path("docs/draft.md")
    guide, logo = workspace.path("docs/guide.md"), workspace.path("assets/logo.png")
    steps: list[tuple[str, str, str, JSONObject, Callable[[], None]]] = [
        (
            "Delete build.log",
            "delete",
            "delete build.log",
            {
                "operation": "delete",
                "path": str(log),
                "fileType": "text",
                "oldText": workspace.read("build.log"),
            },
            lambda: workspace.remove("build.log"),
        ),
        (
            "Move docs/draft.md → docs/guide.md",
            "move",
            "move docs/draft.md",
            {
                "operation": "move",
                "oldPath": str(draft),
                "path": str(guide),
                "fileType": "text",
                "mimeType": "text/markdown",
                "oldText": workspace.read("docs/draft.md"),
                "newText": workspace.read("docs/draft.md"),
            },
            lambda: workspace.move("docs/draft.md", "docs/guide.md"),
        ),
        (
            "Recolour assets/logo.png",
            "edit",
            "change assets/logo.png",
            {
                "operation": "modify",
                "path": str(logo),
                "fileType": "binary",
                "mimeType": "image/png",
                "oldSize": len(LOGO_BEFORE),
                "newSize": len(LOGO_AFTER),
            },
            lambda: workspace.write_bytes("assets/logo.png", LOGO_AFTER),
        ),
    ]
    done = 0
    for title, kind, what, change, action in steps:
        path = change["path"]
        call = await turn.tool_call(
            title,
            kind,
            locations=[{"path": path}],
            raw_input={"path": path},
            content=[_diff([change], None)],
        )
        if not await _allowed(
            turn,
            call,
            "edit",
            f"Allow the demo agent to {what}?",
            "In its scratch workspace.",
        ):
            await _rejected(turn, call, what)
            continue
        await turn.update_tool(call, status="in_progress")
        action()
        await turn.pause()
        await turn.update_tool(
            call, status="completed", content=[_diff([change], None)]
        )
        done += 1
    await turn.say(
        f"{done} of 3 file operations done. None of them has a text patch: the "
        "client shows them from the list of changes." + _signature(turn)
    )
    return "end_turn"


# ------------------------------------------------------------------------------------
# /run, /stream
# ------------------------------------------------------------------------------------


async def run_scenario(turn: Turn, argument: str) -> str:
    """`/run [long]`: really run a command in a PTY (coloured, with a progress bar)."""
    workspace = turn.session.workspace
    long = argument.lower() == "long"
    if turn.session.config.mode == "plan":
        return await _plan_mode_refusal(
            turn, "run commands", ["Run tools/progress.py", "Report the result"]
        )
    workspace.reset("tools/progress.py")
    steps, delay = (
        (2000, max(turn.pace.delay, 0.05)) if long else (10, turn.pace.delay * 2)
    )
    # Absolute paths: with v1 client terminals the command runs in the session's
    # cwd (the client confines terminals to it), not in the scratch workspace.
    script = str(workspace.root / "tools" / "progress.py")
    argv = [turn.python(), "-u", script, str(steps), f"{delay:g}"]
    if long:
        argv.append(str(workspace.root / "run.pid"))
    display = "python tools/progress.py" + (" (long)" if long else "")
    await turn.think(
        (
            "Running the build script shows real terminal output.",
            "It prints colours and redraws a progress bar with carriage returns.",
            "The output streams into the tool call's terminal as it arrives.",
        )
    )
    call = await turn.tool_call(
        f"Run `{display}`",
        "execute",
        raw_input={"command": argv, "cwd": str(workspace.root)},
    )
    if not await _allowed(
        turn,
        call,
        "execute",
        "Allow the demo agent to run a command?",
        "It runs a small Python script in its scratch workspace.",
        command=display,
    ):
        await _rejected(turn, call, f"run `{display}`")
        return "end_turn"
    status = await turn.run_command(call, argv, display, workspace.root)
    ok = status.exit_code == 0
    await turn.update_tool(
        call,
        status="completed" if ok else "failed",
        raw_output={"exitStatus": status.to_json()},
    )
    await turn.say(
        ("The build passed." if ok else f"The command ended with {status.to_json()}.")
        + _signature(turn)
    )
    return "end_turn"


STREAMED_FINDINGS: Final = (
    "Scanning README.md… 1 heading, 2 lines of prose.",
    "Scanning src/greeting.py… 1 function: greet().",
    "Scanning notes.txt… 1 reminder.",
    "Scanning docs/draft.md… a draft page.",
    "Scanning tools/progress.py… the build script.",
)


async def stream_scenario(turn: Turn, argument: str) -> str:
    """`/stream`: tool-call content streamed in pieces, then replaced.

    The pieces are `tool_call_content_chunk`s; the final `tool_call_update`
    replaces them all with a summary.
    """
    call = await turn.tool_call(
        "Survey the workspace",
        "search",
        status="in_progress",
        raw_input={"path": str(turn.session.workspace.root)},
    )
    for finding in STREAMED_FINDINGS:
        await turn.pause(3)
        await turn.tool_chunk(call, _text(finding + "\n"))
    await turn.pause(3)
    await turn.update_tool(
        call,
        status="completed",
        content=[
            _text(
                "**Summary:** 5 files, 2 Python modules, 1 build script. "
                "(This replaced the streamed lines.)"
            )
        ],
    )
    await turn.say(
        "The tool call's content streamed line by line, then the final update "
        "replaced all of it with a summary." + _signature(turn)
    )
    return "end_turn"


# ------------------------------------------------------------------------------------
# /permission
# ------------------------------------------------------------------------------------


async def permission_scenario(turn: Turn, argument: str) -> str:
    """`/permission`: a tool-call subject, then a command subject.

    A rejection is honoured (nothing is done, and the agent says so); "Always
    allow" is remembered for the rest of the session.
    """
    workspace = turn.session.workspace
    if turn.session.config.mode == "plan":
        return await _plan_mode_refusal(
            turn,
            "edit files or run commands",
            ["Append a line to notes.txt", "Run tools/progress.py"],
        )
    workspace.reset("notes.txt", "tools/progress.py")
    notes = workspace.path("notes.txt")
    before = workspace.read("notes.txt")
    after = before + "- try acp-tui\n"
    change = {
        "operation": "modify",
        "path": str(notes),
        "fileType": "text",
        "mimeType": "text/plain",
        "oldText": before,
        "newText": after,
    }
    diff = _diff([change], git_patch([TextChange(str(notes), before, after)]))
    edit = await turn.tool_call(
        "Append a line to notes.txt",
        "edit",
        locations=[_location(turn, "notes.txt", 3)],
        raw_input={"path": str(notes), "append": "- try acp-tui\n"},
        content=[diff],
    )
    summary: list[str] = []
    if await _allowed(
        turn,
        edit,
        "edit",
        "Allow the demo agent to edit notes.txt?",
        "A tool-call subject: the request points at the tool call above.",
        always_ask=True,
    ):
        await turn.update_tool(edit, status="in_progress")
        workspace.write("notes.txt", after)
        await turn.update_tool(edit, status="completed", content=[diff])
        summary.append("edited `notes.txt`")
    else:
        await _rejected(turn, edit, "edit notes.txt")
        summary.append("left `notes.txt` alone")
    display = "python tools/progress.py 3"
    script = str(workspace.root / "tools" / "progress.py")
    argv = [turn.python(), "-u", script, "3", f"{turn.pace.delay:g}"]
    command = await turn.tool_call(
        f"Run `{display}`",
        "execute",
        raw_input={"command": argv, "cwd": str(workspace.root)},
    )
    if await _allowed(
        turn,
        command,
        "execute",
        "Allow the demo agent to run this command?",
        "A command subject: approving lets the agent run it; the client runs nothing.",
        command=display,
        always_ask=True,
    ):
        status = await turn.run_command(command, argv, display, workspace.root)
        await turn.update_tool(
            command,
            status="completed" if status.exit_code == 0 else "failed",
            raw_output={"exitStatus": status.to_json()},
        )
        summary.append(f"ran `{display}`")
    else:
        await _rejected(turn, command, f"run `{display}`")
        summary.append("ran nothing")
    remembered = sorted(turn.session.allow_always)
    note = (
        f" Remembered for this session: always allow {', '.join(remembered)}."
        if remembered
        else ""
    )
    await turn.say(f"Summary: I {' and '.join(summary)}.{note}" + _signature(turn))
    return "end_turn"


# ------------------------------------------------------------------------------------
# /misbehave, /title
# ------------------------------------------------------------------------------------


async def misbehave_scenario(turn: Turn, argument: str) -> str:
    """`/misbehave`: odd but legal behaviour.

    An unknown update type (v2), an `_demo/status` extension notification, a tool
    call that fails, and a `refusal` stop.
    """
    session = turn.session
    await turn.say("Let me misbehave a little, within the rules of the protocol.\n\n")
    if turn.port.version >= 2:
        await turn.emit(
            Unknown(
                {
                    "sessionUpdate": "_demo_sparkles",
                    "sparkles": 3,
                    "note": "an update type no ACP version defines",
                }
            )
        )
        await turn.say("1. I sent a `_demo_sparkles` update, which no client knows.\n")
    else:
        await turn.say(
            "1. (ACP v1's update union is closed, so I skip the unknown update.)\n"
        )
    await turn.port.extension(
        "_demo/status",
        {"sessionId": session.session_id, "mood": "mischievous", "level": 3},
    )
    await turn.say("2. I sent a `_demo/status` extension notification.\n")
    call = await turn.tool_call(
        "Fetch https://example.invalid/data.json",
        "fetch",
        raw_input={"url": "https://example.invalid/data.json"},
    )
    await turn.update_tool(call, status="in_progress")
    await turn.pause()
    await turn.update_tool(
        call,
        status="failed",
        content=[_text("Network access is disabled in the demo: the fetch failed.")],
        raw_output={"error": "ENETUNREACH"},
    )
    await turn.say("3. A tool call failed (the demo never touches the network).\n")
    await turn.say("4. And now I refuse to go on: this turn ends with `refusal`.\n")
    return "refusal"


async def title_scenario(turn: Turn, argument: str) -> str:
    """`/title <text>`: rename the session (`session_info_update`)."""
    title = " ".join(argument.split())
    if not title:
        await turn.say("Usage: `/title <new session title>`\n")
        return "end_turn"
    turn.session.title = title
    await turn.emit(Info({"title": title}))
    await turn.say(f"Renamed this session to **{title}**.\n")
    return "end_turn"


_SCENARIOS: Final[dict[str, Scenario]] = {
    "help": help_scenario,
    "markdown": markdown_scenario,
    "plan": plan_scenario,
    "read": read_scenario,
    "edit": edit_scenario,
    "files": files_scenario,
    "run": run_scenario,
    "stream": stream_scenario,
    "permission": permission_scenario,
    "misbehave": misbehave_scenario,
    "long": long_scenario,
    "slow": slow_scenario,
    "title": title_scenario,
    "ask": ask_scenario,
    "login": login_scenario,
    "usage": usage_scenario,
    "notice": notice_scenario,
    "compact": compact_scenario,
    "subagents": subagents_scenario,
    "cancel-tool": cancel_tool_scenario,
    "plan-docs": plan_docs_scenario,
    "changes": changes_scenario,  # not advertised yet: see its module
}
