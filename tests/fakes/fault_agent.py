"""A raw-JSON fake ACP agent that misbehaves in one chosen way (the fault suite).

Run as `python tests/fakes/fault_agent.py FAULT [v1|v2]` (default v2: the version
it answers to any offer). Like `agent.py`, it imports nothing from acp_tui.

On start it spawns one child process (a sleeping Python, in the agent's process
group, detached from its pipes) and, when `FAULT_AGENT_PIDS` names a file, appends
a line "AGENT_PID CHILD_PID" to it, so tests can check that nothing outlives the
client. `session/new` answers "f1". Each `session/prompt` turn streams `BEFORE`,
commits the fault, then, if the fault leaves the connection usable, streams
`AFTER` and ends the turn with `end_turn` (v2: `state_update` idle; v1: the
response). A prompt saying "crash" makes the agent write `CRASH_STDERR` to stderr
and exit with code 9 instead (any fault).

Faults during a turn, after `BEFORE`:
  garbage        lines that are not JSON-RPC: first `HOSTILE` itself (escapes,
                 markup, invalid UTF-8), then text, truncated JSON, bare JSON
                 values, an empty batch, invalid objects and control bytes
  huge-line      a 64 MiB line of garbage, then a 64 MiB notification of an
                 unknown method
  invalid-utf8   lines with invalid UTF-8 (a whole update among them)
  malformed      known updates with malformed payloads (a numeric tool call id, a
                 chunk without content, a plan that is not an object) and an update
                 for an unknown session
  unknown        unknown notifications (`_fault/ping`, `fault/unknown`), an unknown
                 request `_fault/ask` (its answer is reported in `AFTER`: the
                 text then ends with " (ask: -32601)") and unknown update kinds
  unknown-id     responses (a result and an error) for ids never sent, and an
                 error response with `id: null`
  flood          `FLOOD_COUNT` (100,000) message chunks, `flood_chunk(i)`, paced at
                 `FLOOD_RATE` (10,000) a second: 10 s. `count=N` and `rate=R`
                 arguments change them.
  stderr-flood   a thread writes `STDERR_FLOOD_BYTES` of hostile stderr (escapes,
                 long lines, no final newline) while the turn goes on; the turn
                 ends once it is all written
  exit-mid-turn  writes "fault-agent: fatal: lost the model" to stderr, exits 7
  close-stdout   closes stdout and stays alive (never reads stdin again)
  hang-prompt    no `BEFORE`, no reply, no update: it stops reading and sleeps
                 (as a wedged agent does: end of input does not wake it)

Resource exhaustion (the agent writes as fast as the pipe takes it; bench/exhaustion.py
runs these at full size):
  huge-message   one agent_message_chunk of `size=N` bytes (default
                 `HUGE_MESSAGE_BYTES`, 5 MB): `huge_text(N)`, words on one line
                 (no line break at all) ending in `HUGE_TAIL`
  plan-flood     `count=N` plan updates (default `PLAN_FLOOD_COUNT`, 10,000) of
                 `entries=E` entries each (default 20, about 80 characters each):
                 `flood_plan(i, E)`; with `ids=K`, plan ids cycle through K
                 (default: each update a new plan). v1 has one plan (`plan`).
  tiny-flood     `count=N` message chunks `flood_chunk(i)` (default
                 `TINY_FLOOD_COUNT`, 1,000,000), not paced

Faults before any turn:
  exit-init      at `initialize`: writes "fault-agent: cannot start: no model
                 configured" to stderr and exits 5
  hang-init      at `initialize`: stops reading and sleeps

Hostile text (the injection tests):
  inject         a normal turn whose every agent-supplied string is `HOSTILE`
                 (Rich markup, ANSI, OSC, C1 and bidi controls, a lone
                 surrogate) or `HUGE_WORD` (a 200,000-character unbroken line):
                 the agent's title (its `initialize` info), the session title,
                 a thought, a tool call (title, raw input, content), a plan,
                 the commands, (v2) a notice, a permission request (title and
                 options), then the message (paragraphs, a code span, a markdown
                 link, a code fence) ending in "tail-marker", and the turn ends.
                 No `BEFORE`/`AFTER`. "crash" then shows `CRASH_STDERR`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (agent.py)
if TYPE_CHECKING:
    from typing import Any, Final

BEFORE: Final = "Before the fault. "
AFTER: Final = "After the fault."
CRASH_STDERR: Final = "fault-agent: crashing on request \x1b]0;pwned\x07 [bold]x[/]"
EXIT_MID_TURN_STDERR: Final = "fault-agent: fatal: lost the model"
EXIT_INIT_STDERR: Final = "fault-agent: cannot start: no model configured"
EXIT_MID_TURN_CODE: Final = 7
EXIT_INIT_CODE: Final = 5
CRASH_CODE: Final = 9

FLOOD_COUNT: Final = 100_000
FLOOD_RATE: Final = 10_000
FLOOD_BATCH: Final = 50
"""Chunks written at once (one `write`); the pause between batches keeps the rate."""

HUGE_MESSAGE_BYTES: Final = 5_000_000
HUGE_TAIL: Final = " huge-message-end"
PLAN_FLOOD_COUNT: Final = 10_000
PLAN_FLOOD_ENTRIES: Final = 20
TINY_FLOOD_COUNT: Final = 1_000_000
TINY_FLOOD_BATCH: Final = 2_000
"""Tiny-flood chunks written at once (one `write`)."""

STDERR_FLOOD_BYTES: Final = 16 * 1024 * 1024
HUGE_LINE_BYTES: Final = 64 * 1024 * 1024

HOSTILE: Final = (
    "[bold red]markup[/] [/] [link=https://evil.example]rich-link[/link] "
    "[@click=app.quit]click-quit[/] "
    "\x1b[31mansi-red\x1b[0m \x1b]0;evil-title\x07 "
    "\x1b]8;;https://evil.example\x1b\\osc8-link\x1b]8;;\x1b\\ "
    "\x1b]52;c;Y2xpcGJvYXJk\x07 \x1bP$qm\x1b\\ \x9b31mc1-csi\x9b0m "
    "\u202eevil-bidi\u202c \u2066isolate\u2069 \u202aembed\u202c "
    "cr\roverwrite back\x08space bell\x07 lone\ud800surrogate "
    "zero\u200bwidth \U000e0041\U000e0042tag-smuggled end"
)
"""Agent text that would act on a terminal or as Rich markup if shown raw (the
lone surrogate cannot even be encoded as UTF-8; the tag characters are invisible
text beyond U+FFFF)."""

HUGE_WORD: Final = "W" * 200_000
"""One unbroken line, far wider than any screen."""


def flood_chunk(index: int) -> str:
    """The text of flood chunk `index` (a paragraph ends every 100 chunks)."""
    return f"w{index}" + ("\n\n" if index % 100 == 99 else " ")


_WORDS: Final = (
    "the agent reads every file in the repository and writes a very long answer "
)


def huge_text(size: int) -> str:
    """`size` characters of words on one line (no line break), ending `HUGE_TAIL`."""
    body = size - len(HUGE_TAIL)
    repeats = body // len(_WORDS) + 1
    return (_WORDS * repeats)[:body] + HUGE_TAIL


def flood_plan(index: int, entries: int, plan_id: str) -> dict[str, Any]:
    """Plan update `index` (a v2 `items` plan) with `entries` entries."""
    done = index % (entries + 1)  # the plan progresses from update to update

    def status(step: int) -> str:
        if step < done:
            return "completed"
        return "in_progress" if step == done else "pending"

    return {
        "type": "items",
        "planId": plan_id,
        "entries": [
            {
                "content": f"Step {step} of plan update {index}: refactor the module "
                f"and run its tests again ({step}/{entries})",
                "priority": ("high", "medium", "low")[step % 3],
                "status": status(step),
            }
            for step in range(entries)
        ],
    }


class Agent:
    """Reads the client's lines; writes raw bytes or JSON lines."""

    def __init__(self, fault: str, version: int, options: dict[str, str]) -> None:
        self.fault = fault
        self.version = version
        self.options = options
        self.out = sys.stdout.buffer
        self.lines = iter(sys.stdin.buffer)
        self.next_id = 9000

    # -- wire

    def write_raw(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def write(self, message: Any) -> None:
        self.write_raw(json.dumps(message).encode() + b"\n")

    def read(self) -> Any:
        """The next JSON message from the client (None at end of input)."""
        for raw in self.lines:
            try:
                return json.loads(raw)
            except ValueError:
                continue
        return None

    def reply(self, rid: Any, result: Any) -> None:
        self.write({"jsonrpc": "2.0", "id": rid, "result": result})

    def call(self, method: str, params: Any) -> Any:
        """Send a request to the client and wait for its response."""
        self.next_id += 1
        rid = self.next_id
        self.write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            message = self.read()
            if message is None:
                sys.exit(0)
            is_reply = isinstance(message, dict) and "method" not in message
            if is_reply and message.get("id") == rid:
                return message

    def update(self, update: dict[str, Any], session_id: str = "f1") -> None:
        params = {"sessionId": session_id, "update": update}
        self.write({"jsonrpc": "2.0", "method": "session/update", "params": params})

    def chunk(self, text: str, kind: str = "agent_message_chunk") -> None:
        update: dict[str, Any] = {"sessionUpdate": kind, "content": block(text)}
        if self.version == 2:
            update["messageId"] = "m1" if kind == "agent_message_chunk" else "t1"
        self.update(update)

    # -- protocol

    def initialize(self, rid: Any) -> None:
        if self.fault == "exit-init":
            sys.stderr.write(EXIT_INIT_STDERR + "\n")
            sys.stderr.flush()
            os._exit(EXIT_INIT_CODE)
        if self.fault == "hang-init":
            hang()
        title = HOSTILE if self.fault == "inject" else "Fault Agent"
        info = {"name": "fault-agent", "title": title, "version": "1.0"}
        if self.version == 2:
            result: dict[str, Any] = {
                "protocolVersion": 2,
                "info": info,
                "capabilities": {"session": {}},
                "authMethods": [],
            }
        else:
            result = {
                "protocolVersion": 1,
                "agentCapabilities": {"loadSession": False},
                "agentInfo": info,
                "authMethods": [],
            }
        self.reply(rid, result)

    def prompt(self, rid: Any, params: dict[str, Any]) -> None:
        blocks = params.get("prompt") or []
        said = " ".join(b.get("text", "") for b in blocks if isinstance(b, dict))
        if "crash" in said:
            sys.stderr.write(CRASH_STDERR + "\n")
            sys.stderr.flush()
            os._exit(CRASH_CODE)
        if self.fault == "hang-prompt":
            hang()
        if self.version == 2:
            self.reply(rid, {})
            self.update(
                {"sessionUpdate": "user_message", "messageId": "u1", "content": blocks}
            )
            self.update({"sessionUpdate": "state_update", "state": "running"})
        if self.fault == "inject":
            self.inject()
            self.end_turn(rid)
            return
        self.chunk(BEFORE)
        suffix = FAULTS[self.fault](self)
        self.chunk(AFTER + (suffix or ""))
        self.end_turn(rid)

    def end_turn(self, rid: Any) -> None:
        if self.version == 2:
            idle = {"sessionUpdate": "state_update", "state": "idle"}
            self.update({**idle, "stopReason": "end_turn"})
        else:
            self.reply(rid, {"stopReason": "end_turn"})

    def run(self) -> None:
        while True:
            message = self.read()
            if message is None:
                return
            if not isinstance(message, dict) or "id" not in message:
                continue  # notifications (session/cancel) and stray values
            method, rid = message.get("method"), message["id"]
            params = message.get("params") or {}
            if method == "initialize":
                self.initialize(rid)
            elif method == "session/new":
                self.reply(rid, {"sessionId": "f1"})
            elif method == "session/prompt":
                self.prompt(rid, params)
            elif method is not None:
                error = {"code": -32601, "message": "Method not found"}
                self.write({"jsonrpc": "2.0", "id": rid, "error": error})

    # -- faults (each returns an optional suffix for AFTER)

    def garbage(self) -> None:
        for line in (
            HOSTILE.encode(errors="surrogatepass"),  # quoted in the warnings shown
            b"this is not json",
            b'{"jsonrpc": "2.0", "method": "session/update", "params": {',
            b"42",
            b'"just a string"',
            b"null",
            b"[]",
            b'{"no": "jsonrpc"}',
            b'{"jsonrpc": "1.0", "method": "x"}',
            b"\x00\x01\x02 control bytes \x7f",
        ):
            self.write_raw(line + b"\n")

    def huge_line(self) -> None:
        self.write_raw(b"X" * HUGE_LINE_BYTES + b"\n")
        head = b'{"jsonrpc":"2.0","method":"_fault/big","params":{"data":"'
        body = b"QUFB" * ((HUGE_LINE_BYTES - len(head) - 4) // 4)
        self.write_raw(head + body + b'"}}\n')

    def invalid_utf8(self) -> None:
        update = json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": "f1",
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "messageId": "m1",
                        "content": {"type": "text", "text": "BAD"},
                    },
                },
            }
        ).encode()
        self.write_raw(update.replace(b"BAD", b"bad \xff\xfe bytes") + b"\n")
        self.write_raw(b"\xff\xfe\xfd\n")
        self.write_raw(b'{"jsonrpc": "2.0", "method": "_fault/\xc0\xaf"}\n')
        self.write_raw(b"\xed\xa0\x80 a surrogate\n")

    def malformed(self) -> None:
        if self.version == 2:
            self.update({"sessionUpdate": "tool_call_update", "toolCallId": 5})
            self.update({"sessionUpdate": "agent_message_chunk", "messageId": "m1"})
            self.update({"sessionUpdate": "plan_update", "plan": "nope"})
        else:
            self.update({"sessionUpdate": "tool_call", "toolCallId": 5})
            self.update({"sessionUpdate": "agent_message_chunk"})
            self.update({"sessionUpdate": "plan", "entries": "nope"})
        self.update({"sessionUpdate": "agent_message_chunk"}, session_id="nobody")
        self.write(
            {"jsonrpc": "2.0", "method": "session/update", "params": {"update": 1}}
        )

    def unknown(self) -> str:
        self.write({"jsonrpc": "2.0", "method": "_fault/ping", "params": {"n": 1}})
        self.write({"jsonrpc": "2.0", "method": "fault/unknown"})
        self.update({"sessionUpdate": "_fault_sparkle", "level": 3})
        self.update({"sessionUpdate": "future_update", "data": [1, 2]})
        answer = self.call("_fault/ask", {"q": 1})
        code = (answer.get("error") or {}).get("code")
        return f" (ask: {code})"

    def unknown_id(self) -> None:
        self.reply(424242, {})
        error = {"code": -32603, "message": "Internal error"}
        self.write({"jsonrpc": "2.0", "id": "nobody-asked", "error": error})
        self.write({"jsonrpc": "2.0", "id": None, "error": error})

    def flood(self) -> None:
        count = int(self.options.get("count", FLOOD_COUNT))
        rate = float(self.options.get("rate", FLOOD_RATE))
        start = time.monotonic()
        for first in range(0, count, FLOOD_BATCH):
            due = start + first / rate
            delay = due - time.monotonic()
            if delay > 0:
                threading.Event().wait(delay)
            lines = [
                self.chunk_line(flood_chunk(index))
                for index in range(first, min(first + FLOOD_BATCH, count))
            ]
            self.write_raw(b"".join(lines))

    def chunk_line(self, text: str) -> bytes:
        update: dict[str, Any] = {
            "sessionUpdate": "agent_message_chunk",
            "content": block(text),
        }
        if self.version == 2:
            update["messageId"] = "m1"
        params = {"sessionId": "f1", "update": update}
        message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
        return json.dumps(message).encode() + b"\n"

    def huge_message(self) -> None:
        size = int(self.options.get("size", HUGE_MESSAGE_BYTES))
        self.write_raw(self.chunk_line(huge_text(size)))

    def plan_flood(self) -> None:
        count = int(self.options.get("count", PLAN_FLOOD_COUNT))
        entries = int(self.options.get("entries", PLAN_FLOOD_ENTRIES))
        ids = int(self.options.get("ids", count))
        lines: list[bytes] = []
        for index in range(count):
            plan = flood_plan(index, entries, f"plan-{index % max(ids, 1)}")
            if self.version == 2:
                update = {"sessionUpdate": "plan_update", "plan": plan}
            else:
                update = {"sessionUpdate": "plan", "entries": plan["entries"]}
            params = {"sessionId": "f1", "update": update}
            message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
            lines.append(json.dumps(message).encode() + b"\n")
            if len(lines) >= 100:
                self.write_raw(b"".join(lines))
                lines.clear()
        self.write_raw(b"".join(lines))

    def tiny_flood(self) -> None:
        count = int(self.options.get("count", TINY_FLOOD_COUNT))
        # Every line is the same but for its text: cut once, joined per chunk
        # (json.dumps per chunk would make this agent slower than the client).
        head, tail = self.chunk_line("\x00").split(b"\\u0000")
        for first in range(0, count, TINY_FLOOD_BATCH):
            last = min(first + TINY_FLOOD_BATCH, count)
            self.write_raw(
                b"".join(
                    head + flood_chunk(index).replace("\n", "\\n").encode() + tail
                    for index in range(first, last)
                )
            )

    def stderr_flood(self) -> None:
        def pour() -> None:
            err = sys.stderr.buffer
            line = (
                HOSTILE.encode(errors="surrogatepass") + b" " + b"e" * 9000 + b"\n"
            ) * 16
            written = 0
            while written < STDERR_FLOOD_BYTES:
                err.write(line)
                written += len(line)
            err.write(b"no final newline \x1b[2J")
            err.flush()

        thread = threading.Thread(target=pour)
        thread.start()
        for index in range(20):
            self.chunk(f"{index} ")  # the turn goes on during the flood
        thread.join()

    def exit_mid_turn(self) -> None:
        sys.stderr.write(EXIT_MID_TURN_STDERR + "\n")
        sys.stderr.flush()
        os._exit(EXIT_MID_TURN_CODE)

    def close_stdout(self) -> None:
        self.out.flush()
        os.close(1)
        hang()

    def inject(self) -> None:
        self.update({"sessionUpdate": "session_info_update", "title": HOSTILE})
        self.chunk(HOSTILE, "agent_thought_chunk")
        content = [{"type": "content", "content": block(HOSTILE)}]
        call = {
            "toolCallId": "x1",
            "title": HOSTILE,
            "kind": "execute",
            "status": "completed",
            "rawInput": {"command": HOSTILE},
            "content": content,
        }
        entry = {"content": HOSTILE, "priority": "high", "status": "pending"}
        if self.version == 2:
            self.update({"sessionUpdate": "tool_call_update", **call})
            plan = {"type": "items", "planId": "p1", "entries": [entry]}
            self.update({"sessionUpdate": "plan_update", "plan": plan})
            # pydantic refuses a notice title holding a lone surrogate.
            shown = HOSTILE.replace("\ud800", "")
            notice = {"severity": "warning", "title": shown, "description": shown}
            self.update({"sessionUpdate": "notice", **notice})
        else:
            self.update({"sessionUpdate": "tool_call", **call})
            self.update({"sessionUpdate": "plan", "entries": [entry]})
        commands = [{"name": "hostile", "description": HOSTILE}]
        self.update(
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": commands,
            }
        )
        options = [
            {"optionId": "yes", "name": HOSTILE, "kind": "allow_once"},
            {"optionId": "no", "name": HOSTILE, "kind": "reject_once"},
        ]
        if self.version == 2:
            subject = {"type": "tool_call", "toolCall": {"toolCallId": "x1"}}
            params = {"title": HOSTILE, "description": HOSTILE, "subject": subject}
        else:
            params = {"toolCall": {"toolCallId": "x1", "title": HOSTILE}}
        self.call(
            "session/request_permission",
            {"sessionId": "f1", **params, "options": options},
        )
        # The message comes last, so it is on screen (its end) once the turn
        # ends; the hostile paragraphs end it.
        self.chunk(f"{HUGE_WORD}\n\n```\n{HOSTILE}\n{HUGE_WORD}\n```\n\n")
        self.chunk(f"[md-link](https://evil.example)\n\n`{HOSTILE}`\n\n{HOSTILE}")
        self.chunk("\n\ntail-marker")


FAULTS: Final[dict[str, Callable[[Agent], str | None]]] = {
    "garbage": Agent.garbage,
    "huge-line": Agent.huge_line,
    "invalid-utf8": Agent.invalid_utf8,
    "malformed": Agent.malformed,
    "unknown": Agent.unknown,
    "unknown-id": Agent.unknown_id,
    "flood": Agent.flood,
    "stderr-flood": Agent.stderr_flood,
    "exit-mid-turn": Agent.exit_mid_turn,
    "close-stdout": Agent.close_stdout,
    "huge-message": Agent.huge_message,
    "plan-flood": Agent.plan_flood,
    "tiny-flood": Agent.tiny_flood,
}
"""The faults committed during a turn, after `BEFORE`."""

ALL_FAULTS: Final = (*FAULTS, "hang-prompt", "exit-init", "hang-init", "inject")


def block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def hang() -> None:
    """Stop reading and sleep until killed (end of input does not wake us)."""
    while True:
        signal.pause()


def spawn_child() -> None:
    """Start a sleeping child in our process group and record both pids."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import signal\nwhile True: signal.pause()"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    record = os.environ.get("FAULT_AGENT_PIDS")
    if record:
        with open(record, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()} {child.pid}\n")


def main() -> None:
    fault = sys.argv[1] if len(sys.argv) > 1 else "garbage"
    if fault not in ALL_FAULTS:
        sys.exit(f"fault-agent: unknown fault {fault!r}")
    version = 1 if len(sys.argv) > 2 and sys.argv[2] == "v1" else 2
    options = dict(arg.split("=", 1) for arg in sys.argv[3:] if "=" in arg)
    spawn_child()
    Agent(fault, version, options).run()


if __name__ == "__main__":
    main()
