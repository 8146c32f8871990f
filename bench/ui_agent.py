"""A fake ACP agent for bench/ui.py: floods the client with raw JSON lines.

Run as `python bench/ui_agent.py [--protocol 1|2] [--replay N] [--init-delay S]`.
It imports nothing from acp_tui (a bug in the client cannot hide behind a shared
model) and writes as fast as the pipe takes it: every figure bench/ui.py prints is the
client's and the UI's cost, not the agent's pacing.

* `initialize` is answered with the version given by `--protocol` (default 2),
  after `--init-delay` seconds (default 0).
* `session/new` answers `s1`, then lists its commands
  (`available_commands_update`, as claude-agent-acp, opencode and codex-acp do
  when a session opens); with `--replay N` it then sends N history updates
  at once (user, thought and agent messages, tool calls, plans), as a
  `session/resume` replay would. `session/resume` and `session/load` replay the
  same history before their response, as the spec orders it.
* `session/prompt` plays the scenario named by the prompt's first word, with
  `key=value` words as parameters:
    `stream chunks=C tools=T`  C agent_message_chunk updates of a markdown
        document (headings, paragraphs, lists, code fences) split into words,
        with T tool-call updates (5 per tool call) spread evenly between them;
        each tool call starts a new agent message.
    `paragraph chunks=C`  one message holding one long paragraph (no line
        break at all), streamed in C chunks of one word each.
    `subagents chunks=C tools=T agents=N`  `stream`'s C chunks and T tool-call
        updates dealt round-robin to N subagents (child sessions announced with
        `subagent_update`, default 20), each ended `end_turn`; the parent then
        says the last chunk.
  `rate=R` paces either scenario at R chunks per second (each chunk flushed
  alone); without it they are written as fast as the pipe takes them.
  The last chunk of every scenario ends with `END` + `marker=M` (default
  `-OF-STREAM`), so the bench can tell when it is on screen (the prompt, echoed
  as the user message, holds only `M`). The turn then ends (`state_update`
  idle in v2, the `session/prompt` response in v1).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

OUT = sys.stdout.buffer
SESSION_ID = "s1"

_SENTENCE = (
    "the agent reads the file and then edits the function to handle the empty "
    "case before running the tests again with coverage enabled while the user "
    "waits for the results of the refactoring"
)
WORDS = tuple(_SENTENCE.split(" "))


class Writer:
    """Buffered JSON-lines output (flushed when a reply is due)."""

    def __init__(self) -> None:
        self.buffer: list[bytes] = []

    def send(self, message: dict[str, Any]) -> None:
        self.buffer.append(json.dumps(message, separators=(",", ":")).encode())
        if len(self.buffer) >= 256:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            OUT.write(b"\n".join(self.buffer) + b"\n")
            OUT.flush()
            self.buffer.clear()


class Pacer:
    """Holds a rate of chunks per second (0: as fast as the pipe takes them)."""

    def __init__(self, out: Writer, rate: float) -> None:
        self.out = out
        self.rate = rate
        self.start = time.monotonic()

    def before(self, n: int) -> None:
        """Wait until chunk `n` is due; flush what was written so far."""
        if not self.rate:
            return
        self.out.flush()
        delay = self.start + n / self.rate - time.monotonic()
        if delay > 0:
            threading.Event().wait(delay)


class Agent:
    def __init__(self, protocol: int, replay: int, init_delay: float) -> None:
        self.protocol = protocol
        self.replay_count = replay
        self.init_delay = init_delay
        self.out = Writer()
        self.ids = 0

    # ----------------------------------------------------------- updates

    def update(self, update: dict[str, Any], session_id: str = SESSION_ID) -> None:
        params = {"sessionId": session_id, "update": update}
        self.out.send({"jsonrpc": "2.0", "method": "session/update", "params": params})

    def chunk(
        self, kind: str, message_id: str, text: str, session_id: str = SESSION_ID
    ) -> None:
        update: dict[str, Any] = {
            "sessionUpdate": kind,
            "content": {"type": "text", "text": text},
        }
        if self.protocol == 2:
            update["messageId"] = message_id
        self.update(update, session_id)

    def user_message(self, message_id: str, text: str) -> None:
        if self.protocol == 2:
            self.update(
                {
                    "sessionUpdate": "user_message",
                    "messageId": message_id,
                    "content": [{"type": "text", "text": text}],
                }
            )
        else:
            self.chunk("user_message_chunk", message_id, text)

    def tool_call(
        self,
        call_id: str,
        step: int,
        rng: random.Random,
        session_id: str = SESSION_ID,
    ) -> None:
        """One of a tool call's 5 updates: create, locate, 2 outputs, complete."""
        v2 = self.protocol == 2

        def send(update: dict[str, Any]) -> None:
            self.update(update, session_id)

        if step == 0:
            send(
                {
                    "sessionUpdate": "tool_call_update" if v2 else "tool_call",
                    "toolCallId": call_id,
                    "title": f"Run pytest on module {call_id}",
                    "kind": rng.choice(["read", "edit", "execute", "search"]),
                    "status": "pending",
                    "rawInput": {"command": "pytest -q", "cwd": "/work/project"},
                }
            )
        elif step == 1:
            send(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call_id,
                    "status": "in_progress",
                    "locations": [{"path": "/work/project/src/app.py", "line": 12}],
                }
            )
        elif step in (2, 3):
            text = " ".join(rng.choice(WORDS) for _ in range(12))
            item = {"type": "content", "content": {"type": "text", "text": text}}
            if v2:
                send(
                    {
                        "sessionUpdate": "tool_call_content_chunk",
                        "toolCallId": call_id,
                        "content": item,
                    }
                )
            else:  # v1 has no content append: the update restates the content
                send(
                    {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": call_id,
                        "content": [item] * (step - 1),
                    }
                )
        else:
            send(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call_id,
                    "status": rng.choice(["completed", "completed", "failed"]),
                    "rawOutput": {"exitCode": 0},
                }
            )

    def commands(self) -> None:
        """The session's commands, as agents list them when a session opens."""
        listed = [
            {"name": "review", "description": "Review the changes on this branch"},
            {"name": "compact", "description": "Summarise the conversation so far"},
        ]
        self.update(
            {"sessionUpdate": "available_commands_update", "availableCommands": listed}
        )

    def state(self, state: str, stop_reason: str | None = None) -> None:
        if self.protocol == 2:
            update: dict[str, Any] = {"sessionUpdate": "state_update", "state": state}
            if stop_reason is not None:
                update["stopReason"] = stop_reason
            self.update(update)

    # --------------------------------------------------------- scenarios

    def stream(
        self, chunks: int, tools: int, marker: str, tag: str, pacer: Pacer
    ) -> None:
        rng = random.Random(20261129)
        calls = tools // 5
        every = chunks // (calls + 1) if calls else chunks + 1
        message = 0
        call = 0
        words = document_words(rng)
        previous = ""
        for n in range(chunks):
            # A tool call is due every `every` chunks, at the next block boundary
            # (a message never starts inside a code fence or a list).
            due = call < calls and n >= (call + 1) * every
            if due and previous.endswith("\n\n"):
                for step in range(5):
                    self.tool_call(f"{tag}-call-{call}", step, rng)
                call += 1
                message += 1
            text = previous = next(words)
            if n == chunks - 1:
                text += f" END{marker}"
            pacer.before(n)
            self.chunk("agent_message_chunk", f"{tag}-agent-{message}", text)
        for rest in range(call, calls):  # any the spacing did not place
            for step in range(5):
                self.tool_call(f"{tag}-call-{rest}", step, rng)

    def subagents(
        self, chunks: int, tools: int, agents: int, marker: str, tag: str, pacer: Pacer
    ) -> None:
        """`stream`'s chunks and tool calls, dealt round-robin to `agents` subagents.

        Each subagent is a child session (announced with `subagent_update`,
        then its own updates under its id); the last chunk, with the marker, is
        the parent's, after every subagent ended.
        """
        rng = random.Random(20261203)
        children = [f"{tag}-sub-{k}" for k in range(agents)]
        for k, child in enumerate(children):
            self.update(
                {
                    "sessionUpdate": "subagent_update",
                    "sessionId": child,
                    "title": f"Worker {k + 1}",
                    "description": "Streams messages and tool calls",
                    "capabilities": {"cancel": {}},
                    "state": {"state": "running"},
                }
            )
        calls = tools // 5
        every = chunks // (calls + 1) if calls else chunks + 1
        words = document_words(rng)
        messages = [0] * agents
        call = 0
        for n in range(chunks - 1):
            k = n % agents
            if call < calls and n >= (call + 1) * every:
                for step in range(5):
                    self.tool_call(f"{tag}-call-{call}", step, rng, children[k])
                call += 1
                messages[k] += 1
            pacer.before(n)
            message_id = f"{children[k]}-agent-{messages[k]}"
            self.chunk("agent_message_chunk", message_id, next(words), children[k])
        for rest in range(call, calls):
            for step in range(5):
                self.tool_call(f"{tag}-call-{rest}", step, rng, children[0])
        for child in children:
            state = {"state": "idle", "stopReason": "end_turn"}
            self.update(
                {"sessionUpdate": "subagent_update", "sessionId": child, "state": state}
            )
        pacer.before(chunks - 1)
        self.chunk("agent_message_chunk", f"{tag}-agent-end", f"Done END{marker}")

    def paragraph(self, chunks: int, marker: str, tag: str, pacer: Pacer) -> None:
        rng = random.Random(7)
        for n in range(chunks):
            text = rng.choice(WORDS) + " "
            if n == chunks - 1:
                text += f"END{marker}"
            pacer.before(n)
            self.chunk("agent_message_chunk", f"{tag}-paragraph", text)

    def history(self, updates: int) -> None:
        """`updates` updates of past turns, as a replay sends them."""
        rng = random.Random(99)
        sent = 0
        turn = 0
        words = document_words(rng)
        while sent < updates:
            turn += 1
            self.user_message(f"h-user-{turn}", f"Please do step {turn} of the plan")
            self.chunk("agent_thought_chunk", f"h-thought-{turn}", "Thinking it over.")
            sent += 2
            for _ in range(min(30, updates - sent)):
                self.chunk("agent_message_chunk", f"h-agent-{turn}-a", next(words))
                sent += 1
            for step in range(min(5, updates - sent)):
                self.tool_call(f"h-call-{turn}", step, rng)
                sent += 1
            for _ in range(min(12, updates - sent)):
                self.chunk("agent_message_chunk", f"h-agent-{turn}-b", next(words))
                sent += 1
        self.chunk("agent_message_chunk", f"h-agent-{turn}-end", " REPLAY-DONE")

    # ---------------------------------------------------------- requests

    def prompt(self, rid: Any, prompt: list[Any]) -> None:
        said = " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))
        words = said.split()
        scenario = words[0] if words else "stream"
        options = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        chunks = int(options.get("chunks", "10000"))
        tools = int(options.get("tools", "500"))
        marker = options.get("marker", "-OF-STREAM")
        pacer = Pacer(self.out, float(options.get("rate", "0")))
        self.ids += 1
        tag = f"t{self.ids}"
        if self.protocol == 2:
            self.out.send({"jsonrpc": "2.0", "id": rid, "result": {}})
            self.user_message(f"{tag}-user", said)
            self.state("running")
        if scenario == "paragraph":
            self.paragraph(chunks, marker, tag, pacer)
        elif scenario == "subagents":
            agents = int(options.get("agents", "20"))
            self.subagents(chunks, tools, agents, marker, tag, pacer)
        else:
            self.stream(chunks, tools, marker, tag, pacer)
        if self.protocol == 2:
            self.state("idle", "end_turn")
        else:
            self.out.send(
                {"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}}
            )
        self.out.flush()

    def initialize(self, rid: Any) -> None:
        if self.init_delay:  # a slow agent: the UI must not wait for it
            threading.Event().wait(self.init_delay)
        if self.protocol == 2:
            result: dict[str, Any] = {
                "protocolVersion": 2,
                "info": {"name": "ui-bench-agent", "version": "1.0.0"},
                "capabilities": {"session": {"resume": {}}},
                "authMethods": [],
            }
        else:
            result = {
                "protocolVersion": 1,
                "agentCapabilities": {"loadSession": True},
                "agentInfo": {"name": "ui-bench-agent", "version": "1.0.0"},
                "authMethods": [],
            }
        self.out.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def serve(self) -> None:
        for raw in sys.stdin.buffer:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(message, dict) or "id" not in message:
                continue  # notifications (session/cancel) and responses
            method = message.get("method")
            rid = message["id"]
            params = message.get("params") or {}
            if method == "initialize":
                self.initialize(rid)
            elif method == "session/new":
                self.out.send(
                    {"jsonrpc": "2.0", "id": rid, "result": {"sessionId": SESSION_ID}}
                )
                self.commands()
                if self.replay_count:
                    self.history(self.replay_count)
                    self.state("idle")
            elif method in ("session/resume", "session/load"):
                self.history(self.replay_count)
                self.state("idle")
                self.out.send({"jsonrpc": "2.0", "id": rid, "result": {}})
            elif method == "session/prompt":
                self.prompt(rid, params.get("prompt") or [])
            elif method is not None:
                error = {"code": -32601, "message": "Method not found"}
                self.out.send({"jsonrpc": "2.0", "id": rid, "error": error})
            self.out.flush()


def document_words(rng: random.Random) -> Iterator[str]:
    """An endless markdown document, one word (with its spacing) per item."""
    section = 0
    while True:
        section += 1
        yield f"\n\n## Section {section}\n\n"
        for _ in range(rng.randint(1, 3)):
            for word in range(rng.randint(20, 60)):
                yield rng.choice(WORDS) + (". " if word % 11 == 10 else " ")
            yield "\n\n"
        if section % 2:
            for item in range(rng.randint(2, 5)):
                yield f"- item {item}: "
                for _ in range(rng.randint(3, 8)):
                    yield rng.choice(WORDS) + " "
                yield "\n"
            yield "\n"
        else:
            yield "```python\n"
            for line in range(rng.randint(2, 6)):
                yield f"def step_{line}(value):\n"
                yield f"    return value + {line}\n"
            yield "```\n\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", type=int, choices=(1, 2), default=2)
    parser.add_argument("--replay", type=int, default=0)
    parser.add_argument("--init-delay", type=float, default=0.0)
    args = parser.parse_args()
    Agent(args.protocol, args.replay, args.init_delay).serve()


if __name__ == "__main__":
    main()
