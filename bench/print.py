"""How fast `acp-tui print --format json` takes a stress stream, against json.loads.

The stream (ACP v2, this file run as an agent with `--agent`): one turn of
`--chunks` agent_message_chunk updates (default 20,000: a markdown document split
into words), then a tool call whose display terminal streams `--megabytes` MB
(default 5) of coloured build output (bench/terminal.py's: compiler lines,
coloured warnings, `\\r` progress bars, 256-colour and truecolour results) in 4 KB
base64 `terminal_output_chunk`s, then its exit status and the end of the turn.
The stream is made once, into a file the agent reads when it starts, and written
in large batches: the figures are the client's, not the agent's.

Measured `--repeat` times (default 5), alternating, each in a fresh process:

* **print**: `acp-tui print --format json` (the real CLI, `python -m acp_tui`)
  from start to exit, with its document written to a file;
* **json.loads**: a client that starts the same agent, sends initialize,
  session/new and the prompt, and runs `json.loads` on every line until the turn
  ends (the floor for a Python client reading that stream);
* the **ratio** print / json.loads per pair of runs, and its median. Goal: <= 3x.

Each run's CPU time (user + system, the agent's included: it is the same
agent and stream for both) is given too, with the median ratio by CPU: on a
shared machine, wall time measures the neighbours as much as the client.

Both run with Python's bytecode cached, as an installed app runs after its first
start: an untimed run of each first fills a cache of compiled modules
(`PYTHONPYCACHEPREFIX`, in the run's temporary directory) that the timed runs
read. Without it, where `PYTHONDONTWRITEBYTECODE` is set or the packages were
installed without their bytecode (`uv sync` compiles none by default), every run
compiled the modules it imports from source again: about 0.15 s for `print` and
a quarter of a second for the app, paid by the client only (`--as-is` measures
that way).

Figures only: nothing is asserted. Usage:
`uv run python bench/print.py [--chunks N] [--megabytes M] [--repeat R] [--json FILE]
[--as-is]`
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _v2_agent import send, serve

HERE: Final = Path(__file__).resolve()
ROOT: Final = HERE.parent.parent
TIMEOUT: Final = 300.0
GOAL: Final = 3.0
WRITE_BATCH: Final = 1024 * 1024
_DOCUMENT: Final = (
    "## Plan\n\nThe agent reads `src/app.py` and then edits the function to handle "
    "the empty case before running the tests again:\n\n- one\n- two\n\n```python\n"
    "def handle(value):\n    return value or None\n```\n\n"
)
WORDS: Final = _DOCUMENT.split(" ")


def _line(update: dict[str, Any]) -> bytes:
    params = {"sessionId": "s1", "update": update}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def stress_stream(chunks: int, megabytes: float) -> bytes:
    """The turn's updates, as the JSON lines the agent writes."""
    # bench/terminal.py's output; imported here only: it imports the app, which
    # neither the agent nor the json.loads client may pay for.
    from terminal import CHUNK, MB, build_output

    lines = [_line({"sessionUpdate": "state_update", "state": "running"})]
    for n in range(chunks):
        text = WORDS[n % len(WORDS)] + " "
        lines.append(
            _line(
                {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": "m1",
                    "content": {"type": "text", "text": text},
                }
            )
        )
    lines.append(
        _line(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "build",
                "title": "make -j8",
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": "term-1"}],
            }
        )
    )
    lines.append(
        _line(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": "term-1",
                "command": "make -j8",
                "cwd": "/work/project",
            }
        )
    )
    data = build_output(int(megabytes * MB))
    for start in range(0, len(data), CHUNK):
        piece = base64.b64encode(data[start : start + CHUNK]).decode()
        lines.append(
            _line(
                {
                    "sessionUpdate": "terminal_output_chunk",
                    "terminalId": "term-1",
                    "data": piece,
                }
            )
        )
    lines.append(
        _line(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": "term-1",
                "exitStatus": {"exitCode": 0},
            }
        )
    )
    lines.append(
        _line(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "build",
                "status": "completed",
            }
        )
    )
    lines.append(
        _line(
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "end_turn",
            }
        )
    )
    return b"".join(lines)


class StressAgent:
    """A v2 agent that answers any prompt with the stream in `path` (`--agent`)."""

    def __init__(self, path: Path) -> None:
        self.out = sys.stdout.buffer
        self.stream = path.read_bytes()

    def prompt(self, rid: object) -> None:
        """The response at once (v2), then the turn, in large batches."""
        send(self.out, {"jsonrpc": "2.0", "id": rid, "result": {}})
        self.out.flush()
        view = memoryview(self.stream)
        for start in range(0, len(view), WRITE_BATCH):
            self.out.write(view[start : start + WRITE_BATCH])

    def serve(self) -> None:
        serve("print-bench-agent", self.prompt, self.out)


def agent_command(stream: Path) -> list[str]:
    return [sys.executable, str(HERE), "--agent", str(stream)]


def loads_client(stream: Path) -> None:
    """The floor: start the agent, ask for the turn, `json.loads` every line."""
    agent = subprocess.Popen(
        agent_command(stream),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert agent.stdin is not None
    assert agent.stdout is not None
    requests = [
        ("initialize", {"protocolVersion": 2, "capabilities": {}}),
        ("session/new", {"cwd": "/tmp", "additionalDirectories": []}),
        ("session/prompt", {"sessionId": "s1", "prompt": []}),
    ]
    for rid, (method, params) in enumerate(requests, 1):
        call = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        agent.stdin.write(json.dumps(call).encode() + b"\n")
        agent.stdin.flush()
        if rid < len(requests):
            json.loads(agent.stdout.readline())  # its answer
    for raw in agent.stdout:
        message = json.loads(raw)
        update = message.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "state_update" and update.get("state") == (
            "idle"
        ):
            break
    agent.stdin.close()
    agent.wait(timeout=TIMEOUT)


def bytecode_env(cache: Path | None) -> dict[str, str]:
    """The children's environment: bytecode read from and written to `cache`.

    None: the environment as it is.
    """
    env = dict(os.environ)
    if cache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def _children_cpu() -> float:
    """CPU seconds of the children waited for so far (theirs included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_print(stream: Path, out: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds for `acp-tui print --format json` from start to exit: wall, CPU."""
    agent = " ".join(agent_command(stream))
    with tempfile.TemporaryDirectory(prefix="acp-tui-bench-home-") as home:
        started = time.perf_counter()
        cpu = _children_cpu()
        with out.open("wb") as sink:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "acp_tui",
                    "--agent",
                    agent,
                    "print",
                    "--format",
                    "json",
                    "go",
                ],
                stdout=sink,
                check=True,
                timeout=TIMEOUT,
                cwd=ROOT,
                env={**env, "ACP_TUI_HOME": home},
            )
        return time.perf_counter() - started, _children_cpu() - cpu


def run_loads(stream: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds for the json.loads-only client, in a fresh interpreter: wall, CPU."""
    started = time.perf_counter()
    cpu = _children_cpu()
    subprocess.run(
        [sys.executable, str(HERE), "--loads", str(stream)],
        check=True,
        timeout=TIMEOUT,
        env=env,
    )
    return time.perf_counter() - started, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--megabytes", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures there")
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="no bytecode cache: the environment as it is (see above)",
    )
    parser.add_argument("--agent", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--loads", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.agent:
        StressAgent(args.agent).serve()
        return
    if args.loads:
        loads_client(args.loads)
        return
    prints: list[float] = []
    loads: list[float] = []
    prints_cpu: list[float] = []
    loads_cpu: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        document = Path(tmp) / "turn.json"
        stream = Path(tmp) / "stream.jsonl"  # made once: the agents only read it
        stream.write_bytes(stress_stream(args.chunks, args.megabytes))
        env = bytecode_env(None if args.as_is else Path(tmp) / "bytecode")
        if not args.as_is:  # untimed: fills the bytecode cache
            run_print(stream, document, env)
            run_loads(stream, env)
        for _ in range(args.repeat):
            wall, cpu = run_print(stream, document, env)
            prints.append(wall)
            prints_cpu.append(cpu)
            wall, cpu = run_loads(stream, env)
            loads.append(wall)
            loads_cpu.append(cpu)
        size = document.stat().st_size
    ratios = [p / q for p, q in zip(prints, loads, strict=True)]
    ratio = statistics.median(ratios)
    cpu_ratios = [p / q for p, q in zip(prints_cpu, loads_cpu, strict=True)]
    figures = {
        "chunks": args.chunks,
        "megabytes": args.megabytes,
        "print_s": prints,
        "loads_s": loads,
        "ratios": ratios,
        "ratio": ratio,
        "print_cpu_s": prints_cpu,
        "loads_cpu_s": loads_cpu,
        "cpu_ratio": statistics.median(cpu_ratios),
        "worst_ratio": max(ratios),
        "goal": GOAL,
        "document_bytes": size,
        "bytecode_cached": not args.as_is,
    }
    if args.json:
        args.json.write_text(json.dumps(figures), "utf-8")
    print(
        f"acp-tui print --format json, v2 stress stream: {args.chunks:,} message "
        f"chunks + {args.megabytes:g} MB of coloured terminal output, "
        f"{args.repeat} runs each, alternating, "
        + ("bytecode as the environment has it" if args.as_is else "bytecode cached")
        + "\n"
    )
    print("  run   print s   json.loads s   ratio   print CPU s   json.loads CPU s")
    rows = zip(prints, loads, ratios, prints_cpu, loads_cpu, strict=True)
    for n, (p, q, r, pc, qc) in enumerate(rows, 1):
        print(f"  {n:3d}   {p:7.2f}   {q:12.2f}   {r:5.2f}x   {pc:11.2f}   {qc:16.2f}")
    ok = max(ratios) <= GOAL
    print(
        f"\nmedian ratio {ratio:.2f}x, worst {max(ratios):.2f}x "
        f"(goal <= {GOAL:g}x in every run: {'met' if ok else 'NOT met'}); "
        f"document {size:,} bytes; by CPU (the agent's included) "
        f"{statistics.median(cpu_ratios):.2f}x"
    )


if __name__ == "__main__":
    main()
