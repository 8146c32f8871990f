"""Parse-plus-validate throughput of the wire layer against plain `json.loads`.

Builds a deterministic, realistic ACP v2 `session/update` stream (message and
thought chunks, tool-call patches and content chunks, base64 terminal output,
plans, state and usage updates), then times, on the same lines:

* `json.loads` alone (the floor);
* acp-tui's inbound path: `framing.decode_line` + `jsonrpc.parse_message` + the v2
  `UpdateSessionNotification` model on the params;
* pydantic's one-pass `validate_json` of the same notification (for reference).

Prints messages/s and MB/s for each, and the ratio to `json.loads`. Goal: the
inbound path within 3x of `json.loads`.

With `--json FILE`, the figures are also written to FILE as one JSON object
(bench/run_all.py reads it).

Usage: `uv run python bench/protocol.py [--messages N] [--repeat R] [--json FILE]`
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from acp_tui.protocol.framing import decode_line
from acp_tui.protocol.jsonrpc import Notification, parse_message
from acp_tui.protocol.schema import v2
from acp_tui.protocol.schema._base import WireModel

_SENTENCE = (
    "the agent reads the file and then edits the function to handle the empty "
    "case before running the tests again with coverage enabled"
)
WORDS = tuple(_SENTENCE.split(" "))


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _update(rng: random.Random, n: int) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.45:
        return {
            "sessionUpdate": "agent_message_chunk",
            "messageId": f"msg_{n // 200}",
            "content": {"type": "text", "text": _text(rng, 1, 12) + " "},
        }
    if roll < 0.55:
        return {
            "sessionUpdate": "agent_thought_chunk",
            "messageId": f"thought_{n // 200}",
            "content": {"type": "text", "text": _text(rng, 1, 8)},
        }
    if roll < 0.70:
        update: dict[str, Any] = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": f"call_{n // 50}",
        }
        if rng.random() < 0.5:
            update["status"] = rng.choice(["pending", "in_progress", "completed"])
        if rng.random() < 0.3:
            update["title"] = _text(rng, 2, 6)
            update["kind"] = rng.choice(["read", "edit", "execute", "search"])
        if rng.random() < 0.3:
            location = {"path": "/work/project/src/app.py", "line": n % 400}
            update["locations"] = [location]
        if rng.random() < 0.2:
            update["rawInput"] = {"command": "pytest -q", "cwd": "/work/project"}
        if rng.random() < 0.1:
            update["content"] = None
        return update
    if roll < 0.78:
        return {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": f"call_{n // 50}",
            "content": {
                "type": "content",
                "content": {"type": "text", "text": _text(rng, 5, 40)},
            },
        }
    if roll < 0.93:
        raw = (_text(rng, 20, 200) + "\r\n").encode()
        raw = b"\x1b[32m" + raw + b"\x1b[0m"
        return {
            "sessionUpdate": "terminal_output_chunk",
            "terminalId": f"term_{n // 500}",
            "data": base64.b64encode(raw).decode(),
        }
    if roll < 0.96:
        return {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "plan-1",
                "entries": [
                    {
                        "content": _text(rng, 3, 8),
                        "priority": "medium",
                        "status": rng.choice(["pending", "in_progress", "completed"]),
                    }
                    for _ in range(rng.randint(2, 6))
                ],
            },
        }
    if roll < 0.98:
        return {"sessionUpdate": "state_update", "state": "running"}
    return {
        "sessionUpdate": "usage_update",
        "used": n * 13,
        "size": 200000,
        "cost": {"amount": n / 1000, "currency": "USD"},
    }


def build_stream(count: int, seed: int = 20261129) -> list[bytes]:
    """`count` JSON lines (without newlines) of v2 session/update notifications."""
    rng = random.Random(seed)
    lines = []
    for n in range(count):
        message = {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "sess_bench", "update": _update(rng, n)},
        }
        lines.append(json.dumps(message, separators=(",", ":")).encode())
    return lines


NOTIFICATION = v2.UpdateSessionNotification


def inbound_path(line: bytes) -> Any:
    """What acp-tui does with each line from an agent."""
    data = decode_line(line)
    message = parse_message(data)
    assert isinstance(message, Notification)
    return NOTIFICATION.model_validate(message.params)


def best_of(repeat: int, lines: list[bytes], function: Callable[[bytes], Any]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for line in lines:
            function(line)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write the figures to FILE"
    )
    args = parser.parse_args()

    lines = build_stream(args.messages)
    megabytes = sum(len(line) + 1 for line in lines) / 1e6
    for line in lines[:2000]:  # the stream really is valid v2
        inbound_path(line)

    class OneShot(WireModel):
        jsonrpc: str
        method: str
        params: v2.UpdateSessionNotification

    one_shot = TypeAdapter(OneShot)

    results = {
        "json.loads": best_of(args.repeat, lines, json.loads),
        "acp-tui inbound (decode+envelope+model)": best_of(
            args.repeat, lines, inbound_path
        ),
        "pydantic validate_json (one pass)": best_of(
            args.repeat, lines, one_shot.validate_json
        ),
    }
    floor = results["json.loads"]
    print(
        f"{args.messages} v2 session/update lines, {megabytes:.1f} MB, "
        f"best of {args.repeat}"
    )
    print(f"{'path':42} {'msg/s':>12} {'MB/s':>8} {'x json.loads':>13}")
    for name, seconds in results.items():
        print(
            f"{name:42} {args.messages / seconds:12,.0f} {megabytes / seconds:8.1f} "
            f"{seconds / floor:13.2f}"
        )
    ratio = results["acp-tui inbound (decode+envelope+model)"] / floor
    verdict = "within" if ratio <= 3 else "OUTSIDE"
    print(f"goal: inbound path within 3x of json.loads -> {ratio:.2f}x ({verdict})")
    if args.json is not None:
        keys = {
            "json.loads": "json_loads",
            "acp-tui inbound (decode+envelope+model)": "inbound",
            "pydantic validate_json (one pass)": "pydantic_one_pass",
        }
        figures = {
            "messages": args.messages,
            "megabytes": megabytes,
            "repeat": args.repeat,
            "paths": {
                keys[name]: {
                    "seconds": seconds,
                    "msg_per_s": args.messages / seconds,
                    "mb_per_s": megabytes / seconds,
                    "us_per_msg": seconds / args.messages * 1e6,
                    "x_json_loads": seconds / floor,
                }
                for name, seconds in results.items()
            },
            "goal_x_json_loads": 3.0,
            "goal_met": ratio <= 3,
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
