"""Streaming to the app over WebSocket and Streamable HTTP, beside stdio.

The same turn as bench/ui.py's streaming figure (C agent_message_chunk updates
of a markdown document, C/20 tool-call updates, bench/ui_agent.py writing as
fast as it can) reaches the headless app three ways in one run: over stdio
(the agent a subprocess), and through bench/remote_relay.py on loopback, which
serves the same agent over WebSocket and over Streamable HTTP. Printed per
transport: chunks/s to the screen, the largest gap between frames, CPU
seconds, and the throughput ratio to stdio (goal: within 1.5x, i.e. a ratio of
at least 0.67).

Each measurement is a fresh interpreter (as in bench/ui.py); the figure is the
best of `--repeat` runs (the frame gap: the worst).

Usage: `uv run python bench/remote.py [--chunks C] [--repeat R] [--protocol 1|2]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

from ui import AGENT, TIMEOUT, TurnResult, run_turn

from acp_tui.protocol.remote.target import RemoteTarget
from acp_tui.protocol.transport import AgentCommand
from acp_tui.storage.paths import HOME_ENV_VAR

RELAY: Final = Path(__file__).resolve().parent / "remote_relay.py"
TRANSPORTS: Final = ("stdio", "websocket", "http")
GOAL: Final = 1.5
CHILD: Final = "--child"


def command_for(transport: str, port: int, protocol: int) -> AgentCommand | None:
    if transport == "stdio":
        return None
    url = f"http://127.0.0.1:{port}/acp"
    target = RemoteTarget(
        url, transport="websocket" if transport == "websocket" else "http"
    )
    return AgentCommand((url,), remote=target)


async def child(params: dict[str, Any]) -> dict[str, Any]:
    protocol = int(params["protocol"])
    command = command_for(str(params["transport"]), int(params["port"]), protocol)
    chunks = int(params["chunks"])
    with tempfile.TemporaryDirectory() as tmp:
        result = await run_turn(
            protocol, "stream", chunks, chunks // 20, Path(tmp), command=command
        )
    return result.__dict__


def measure(transport: str, port: int, protocol: int, chunks: int) -> TurnResult:
    params = {
        "transport": transport,
        "port": port,
        "protocol": protocol,
        "chunks": chunks,
    }
    with tempfile.TemporaryDirectory(prefix="acp-tui-bench-home-") as home:
        output = subprocess.run(
            [sys.executable, __file__, CHILD, json.dumps(params)],
            capture_output=True,
            text=True,
            check=True,
            timeout=TIMEOUT,
            env={**os.environ, HOME_ENV_VAR: home},
        ).stdout
    return TurnResult(**json.loads(output.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--protocol", type=int, choices=(1, 2), default=2)
    parser.add_argument("--json", type=Path, default=None, help="also write figures")
    parser.add_argument(CHILD, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(json.loads(args.child)))))
        return
    relay = subprocess.Popen(
        [
            sys.executable,
            str(RELAY),
            "--",
            sys.executable,
            str(AGENT),
            "--protocol",
            str(args.protocol),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert relay.stdout is not None
        port = int(relay.stdout.readline().split()[1])
        print(
            f"Streaming {args.chunks:,} chunks (+{args.chunks // 20:,} tool-call "
            f"updates), ACP v{args.protocol}, loopback"
        )
        print(
            f"{'transport':>10} {'chunks/s':>9} {'on screen':>10} {'cpu':>7} "
            f"{'max gap':>8} {'frames':>7} {'vs stdio':>9}"
        )
        base: float | None = None
        figures: dict[str, Any] = {"chunks": args.chunks, "goal": GOAL}
        for transport in TRANSPORTS:
            runs = [
                measure(transport, port, args.protocol, args.chunks)
                for _ in range(args.repeat)
            ]
            best = min(runs, key=lambda r: r.seconds)
            gap = max(r.max_gap for r in runs)
            if base is None:
                base = best.throughput
            ratio = base / best.throughput
            figures[transport] = {
                "chunks_per_s": best.throughput,
                "max_gap_s": gap,
                "cpu_s": best.cpu,
                "frames": best.frames,
                "slowdown": ratio,
            }
            print(
                f"{transport:>10} {best.throughput:9,.0f} {best.seconds:9.2f}s "
                f"{best.cpu:6.2f}s {gap * 1000:6.0f}ms {best.frames:7,} {ratio:8.2f}x"
                + (
                    ""
                    if transport == "stdio"
                    else f"  goal <= {GOAL}x: {'met' if ratio <= GOAL else 'NOT met'}"
                )
            )
        if args.json is not None:
            args.json.write_text(json.dumps(figures), "utf-8")
    finally:
        relay.terminate()
        relay.wait(timeout=10)


if __name__ == "__main__":
    main()
