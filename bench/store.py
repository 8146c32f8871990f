"""Throughput of `SessionStore.apply` on a realistic stream of store ops.

Builds a deterministic 100k-op stream such as the translators produce for a busy
session (agent and thought chunks across a few hundred messages plus one message
that grows for the whole run, user messages, tool-call patches and content
appends, base64-decoded terminal output of 1-4 KiB, occasional plan replacements,
state changes and usage updates), applies it to a fresh store with one subscribed
no-op listener, and prints updates/s for the first 10k and the last 10k ops and
their ratio (goal: >= 100k updates/s, and no slow-down as messages grow: a ratio
near 1). A second run appends 100k chunks to a single message.

Figures only: nothing is asserted. Ops are built before timing (that is the
translator's cost, not the store's). Each figure is the best of `--repeat` runs
on fresh stores, to damp noise from a busy machine.

With `--json FILE`, the figures are also written to FILE as one JSON object
(bench/run_all.py reads it).

Usage: `uv run python bench/store.py [--updates N] [--window W] [--seed S]
[--repeat R] [--json FILE]`
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

from acp_tui.store import (
    UNSET,
    AppendMessageChunk,
    AppendTerminalOutput,
    AppendToolCallContent,
    Change,
    JSONObject,
    Op,
    PatchTerminal,
    PatchToolCall,
    PatchUsage,
    ReplacePlan,
    SessionStore,
    SetState,
    UpsertMessage,
)

_SENTENCE = (
    "the agent reads the file and then edits the function to handle the empty "
    "case before running the tests again with coverage enabled"
)
WORDS = tuple(_SENTENCE.split(" "))
STATUSES = ("pending", "in_progress", "in_progress", "completed", "failed")
KINDS = ("read", "edit", "execute", "search", "think", "fetch", "other")


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _terminal_bytes(rng: random.Random) -> bytes:
    # What the translator hands over: one wire chunk's base64, decoded alone.
    raw = rng.randbytes(rng.randint(768, 3072))
    return base64.b64decode(base64.b64encode(raw))


def build_stream(count: int, seed: int) -> list[Op]:
    """Return a deterministic, realistic stream of `count` store ops."""
    rng = random.Random(seed)
    ops: list[Op] = []
    n = 0
    while len(ops) < count:
        n += 1
        roll = rng.random()
        turn = n // 800
        if roll < 0.40:
            ops.append(
                AppendMessageChunk(
                    f"msg_{n // 400}",
                    "agent",
                    {"type": "text", "text": _text(rng, 1, 12) + " "},
                )
            )
        elif roll < 0.48:
            ops.append(
                AppendMessageChunk(
                    f"thought_{n // 800}",
                    "thought",
                    {"type": "text", "text": _text(rng, 1, 8)},
                )
            )
        elif roll < 0.53:
            # One message that keeps growing for the whole run.
            ops.append(
                AppendMessageChunk(
                    "long", "agent", {"type": "text", "text": _text(rng, 1, 6)}
                )
            )
        elif roll < 0.54:
            ops.append(
                UpsertMessage(
                    f"user_{turn}",
                    "user",
                    content=[{"type": "text", "text": _text(rng, 3, 30)}],
                )
            )
        elif roll < 0.68:
            tool_call_id = f"call_{n // 100}"
            locations: Sequence[JSONObject] | None = [
                {"path": f"/work/src/file_{rng.randint(0, 40)}.py", "line": n % 300}
            ]
            ops.append(
                PatchToolCall(
                    tool_call_id,
                    title=f"Run step {n}" if rng.random() < 0.3 else UNSET,
                    kind=rng.choice(KINDS) if rng.random() < 0.2 else UNSET,
                    status=rng.choice(STATUSES),
                    locations=locations if rng.random() < 0.2 else UNSET,
                    raw_input={"command": _text(rng, 1, 5)}
                    if rng.random() < 0.2
                    else UNSET,
                )
            )
        elif roll < 0.78:
            ops.append(
                AppendToolCallContent(
                    f"call_{n // 100}",
                    {
                        "type": "content",
                        "content": {"type": "text", "text": _text(rng, 2, 20)},
                    },
                )
            )
        elif roll < 0.88:
            ops.append(AppendTerminalOutput(f"term_{n // 2000}", _terminal_bytes(rng)))
        elif roll < 0.885:
            ops.append(
                PatchTerminal(
                    f"term_{n // 2000}",
                    command="pytest -q",
                    cwd="/work",
                    exit_status={"exitCode": 0} if rng.random() < 0.5 else UNSET,
                )
            )
        elif roll < 0.90:
            entries = [
                {
                    "content": _text(rng, 2, 8),
                    "priority": "medium",
                    "status": rng.choice(("pending", "in_progress", "completed")),
                }
                for _ in range(rng.randint(2, 8))
            ]
            plan_id = f"plan_{rng.randint(0, 2)}"
            raw: JSONObject = {"type": "items", "planId": plan_id, "entries": entries}
            ops.append(ReplacePlan(plan_id, "items", entries, raw))
        elif roll < 0.95:
            if rng.random() < 0.5:
                ops.append(SetState("running"))
            else:
                ops.append(SetState("idle", stop_reason="end_turn"))
        else:
            ops.append(
                PatchUsage(
                    used=n * 37,
                    size=200_000,
                    cost={"amount": n / 1000, "currency": "USD"}
                    if rng.random() < 0.5
                    else UNSET,
                )
            )
    return ops


def _noop(changes: Sequence[Change]) -> None:
    pass


def run(ops: Sequence[Op], window: int) -> tuple[float, float, float, SessionStore]:
    """Apply `ops` to a fresh store; return first/last window and total rates."""
    store = SessionStore("bench")
    store.subscribe(_noop)
    apply = store.apply
    start = time.perf_counter()
    first_end = last_start = 0.0
    last_from = len(ops) - window
    for i, op in enumerate(ops):
        if i == window:
            first_end = time.perf_counter()
        if i == last_from:
            last_start = time.perf_counter()
        apply(op)
    end = time.perf_counter()
    first = window / (first_end - start)
    last = window / (end - last_start)
    total = len(ops) / (end - start)
    return first, last, total, store


def best_of(
    repeat: int, ops: Sequence[Op], window: int
) -> tuple[float, float, float, SessionStore]:
    """Run `repeat` times on fresh stores; keep the best rate of each figure."""
    runs = [run(ops, window) for _ in range(max(1, repeat))]
    return (
        max(r[0] for r in runs),
        max(r[1] for r in runs),
        max(r[2] for r in runs),
        runs[-1][3],
    )


def rates(first: float, last: float, total: float) -> dict[str, float]:
    """The figures of one stream, in updates/s, for `--json`."""
    return {
        "first": first,
        "last": last,
        "overall": total,
        "last_over_first": last / first,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=100_000)
    parser.add_argument("--window", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per figure; the best is shown"
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write the figures to FILE"
    )
    args = parser.parse_args()

    ops = build_stream(args.updates, args.seed)
    first, last, total, store = best_of(args.repeat, ops, args.window)
    chunks = sum(len(m.content) for m in store.messages())
    long_message = store.message("long")
    terminal_bytes = sum(len(t.output) for t in store.terminals())
    print(f"realistic stream: {len(ops):,} ops, one no-op listener")
    print(
        f"  {len(store.messages())} messages ({chunks:,} blocks; the long one has "
        f"{len(long_message.content) if long_message else 0:,}), "
        f"{len(store.tool_calls())} tool calls, {len(store.terminals())} terminals "
        f"({terminal_bytes / 2**20:.1f} MiB), {len(store.plans())} plans"
    )
    print(f"  first {args.window:,}: {first:,.0f} updates/s")
    print(f"  last  {args.window:,}: {last:,.0f} updates/s")
    print(f"  overall:     {total:,.0f} updates/s")
    print(f"  last/first:  {last / first:.2f}")
    figures: dict[str, object] = {
        "updates": len(ops),
        "window": args.window,
        "repeat": args.repeat,
        "realistic": rates(first, last, total),
    }

    one = [
        AppendMessageChunk("m", "agent", {"type": "text", "text": f"word{i} "})
        for i in range(args.updates)
    ]
    first, last, total, store = best_of(args.repeat, one, args.window)
    print(f"one message, {len(one):,} chunks:")
    print(f"  first {args.window:,}: {first:,.0f} updates/s")
    print(f"  last  {args.window:,}: {last:,.0f} updates/s")
    print(f"  last/first:  {last / first:.2f}")
    figures["one_message"] = rates(first, last, total)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    main()
