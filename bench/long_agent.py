"""A fake ACP v2 agent for bench/long_session.py: resumes a long recorded session.

Run as `python bench/long_agent.py [--history FILE]`. It is bench/ui_agent.py's
agent (stdlib only, writing as fast as the pipe takes it), with one difference:
`session/resume` (and `session/load`) replays FILE, the agent's side of a long
session recorded once by `build_history` (one `session/update` line each; see
bench/long_session.py, which caches it), byte for byte, then answers. Without
`--history` a resume replays nothing. `session/new` answers `s1`, and prompts
play ui_agent's scenarios (`stream chunks=C tools=T marker=M`).

`build_history(path, updates)` writes such a file: `updates` v2 updates in turns
of a user message, a thought, agent messages (markdown, several words per
chunk), tool calls with diffs (created with their diff, then in progress, then
completed) and a terminal per turn (a tool call showing it, its command, output
chunks and exit). The last agent message ends with `LAST_TEXT`.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
from pathlib import Path
from typing import IO, Any, Final

from ui_agent import OUT, SESSION_ID, WORDS, Agent, document_words

HISTORY_VERSION: Final = 1
"""Bumped whenever `build_history` writes something else (the cache key)."""
LAST_TEXT: Final = "LONG-SESSION-END"
TURN_UPDATES: Final = 500
"""Updates per turn: 100,000 updates are 200 turns."""
TOOLS_PER_TURN: Final = 10
"""Tool calls with a diff per turn (3 updates each): 2,000 in 200 turns."""
MESSAGES_PER_TURN: Final = TOOLS_PER_TURN + 1
WORDS_PER_CHUNK: Final = 8


def session_patch(path: str, rng: random.Random, lines: int) -> str:
    """A git patch of one file: `lines` changed lines between context."""
    body = [
        f"diff --git a/{path} b/{path}",
        f"--- a/{path}",
        f"+++ b/{path}",
        f"@@ -1,{lines * 2} +1,{lines * 2} @@",
    ]
    for n in range(lines):
        body.append(f" def helper_{n}(value):")
        body.append(f"-    return value + {rng.randint(0, 99)}")
        body.append(f"+    return value * {rng.randint(0, 99)}")
    return "\n".join(body) + "\n"


class _History:
    """Writes one session's updates as wire lines."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.sent = 0

    def update(self, update: dict[str, Any]) -> None:
        params = {"sessionId": SESSION_ID, "update": update}
        line = {"jsonrpc": "2.0", "method": "session/update", "params": params}
        self.out.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
        self.sent += 1

    def chunk(self, kind: str, message_id: str, text: str) -> None:
        self.update(
            {
                "sessionUpdate": kind,
                "messageId": message_id,
                "content": {"type": "text", "text": text},
            }
        )


def build_history(path: Path, updates: int, seed: int = 20261203) -> dict[str, int]:
    """Write `updates` updates of a long session to `path` (atomically).

    Returns what it holds: updates, turns, tool calls, terminals, text bytes.
    """
    rng = random.Random(seed)
    words = document_words(rng)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    counts = {"turns": 0, "tool_calls": 0, "terminals": 0, "text_bytes": 0}
    with tmp.open("wb") as stream:
        out = _History(stream)
        turn = 0
        while out.sent < updates - 1:
            turn += 1
            counts["turns"] += 1
            end = min(updates - 1, out.sent + TURN_UPDATES)
            out.update(
                {
                    "sessionUpdate": "user_message",
                    "messageId": f"u{turn}",
                    "content": [{"type": "text", "text": f"Please do step {turn}."}],
                }
            )
            for _ in range(20):
                out.chunk("agent_thought_chunk", f"th{turn}", rng.choice(WORDS) + " ")
            # The terminal: a tool call showing it, its command, output, exit.
            term, call = f"term{turn}", f"run{turn}"
            out.update(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call,
                    "title": "Run the tests",
                    "kind": "execute",
                    "status": "in_progress",
                    "content": [{"type": "terminal", "terminalId": term}],
                }
            )
            out.update(
                {
                    "sessionUpdate": "terminal_update",
                    "terminalId": term,
                    "command": "pytest -q",
                    "cwd": "/work/project",
                }
            )
            for n in range(4):
                data = (
                    f"\x1b[32m{'.' * 40}\x1b[0m [{(n + 1) * 25:3d}%]\r\n"
                    f"tests/test_step_{turn}_{n}.py::test_case PASSED\r\n"
                ).encode()
                out.update(
                    {
                        "sessionUpdate": "terminal_output_chunk",
                        "terminalId": term,
                        "data": base64.b64encode(data).decode("ascii"),
                    }
                )
            out.update(
                {
                    "sessionUpdate": "terminal_update",
                    "terminalId": term,
                    "exitStatus": {"exitCode": 0},
                }
            )
            out.update(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call,
                    "status": "completed",
                }
            )
            counts["terminals"] += 1
            counts["tool_calls"] += 1
            fixed = TOOLS_PER_TURN * 3
            chunks = max(0, end - out.sent - fixed)
            per_message = max(1, chunks // MESSAGES_PER_TURN)
            for message in range(MESSAGES_PER_TURN):
                share = (
                    per_message
                    if message < MESSAGES_PER_TURN - 1
                    else chunks - per_message * (MESSAGES_PER_TURN - 1)
                )
                for _ in range(share):
                    text = "".join(next(words) for _ in range(WORDS_PER_CHUNK))
                    counts["text_bytes"] += len(text)
                    out.chunk("agent_message_chunk", f"m{turn}-{message}", text)
                if message == MESSAGES_PER_TURN - 1 or out.sent + 3 > end:
                    continue
                call = f"edit{turn}-{message}"
                file = f"/work/project/src/module_{turn}_{message}.py"
                out.update(
                    {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": call,
                        "title": f"Edit module_{turn}_{message}.py",
                        "kind": "edit",
                        "status": "pending",
                        "locations": [{"path": file, "line": 1}],
                        "content": [
                            {
                                "type": "diff",
                                "changes": [{"operation": "modify", "path": file}],
                                "patch": {
                                    "format": "git_patch",
                                    "text": session_patch(
                                        file, rng, rng.randint(3, 12)
                                    ),
                                },
                            }
                        ],
                    }
                )
                out.update(
                    {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": call,
                        "status": "in_progress",
                    }
                )
                out.update(
                    {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": call,
                        "status": "completed",
                    }
                )
                counts["tool_calls"] += 1
        out.chunk("agent_message_chunk", f"m{turn}-last", f"Done. {LAST_TEXT}")
    os.replace(tmp, path)
    counts["updates"] = out.sent
    return counts


class LongAgent(Agent):
    """ui_agent's agent, whose resume replays a recorded history file."""

    def __init__(self, history: Path | None) -> None:
        super().__init__(2, 0, 0.0)
        self.history_file = history

    def history(self, updates: int) -> None:
        """The recorded session, as its replay (before the resume's answer)."""
        self.out.flush()
        if self.history_file is None:
            return
        with self.history_file.open("rb") as file:
            while block := file.read(1 << 20):
                OUT.write(block)
        OUT.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=Path)
    args = parser.parse_args()
    LongAgent(args.history).serve()


if __name__ == "__main__":
    main()
