"""Where a key's echo time goes while the agent streams (one fresh session).

Runs bench/long_session.py's fresh child (a warm-up turn, then 10,000 chunks
with a key typed every 50 ms) with every event-loop step and every message
dispatch timed, and prints, for the slowest keys, how long each took to reach
the app, then the prompt, then its frame, and how long that frame took; then
the loop's longest steps. Figures only: nothing is asserted.

What it found (issue 28): a Backspace bubbled up to the app through the session
pane's queue, held while the pane awaited the mounts of a batch (up to 190 ms);
a frame waited for the screen's queue and its update timer (20-50 ms); most
appends of streamed text laid the whole screen out again.

Usage: `uv run python bench/key_echo_trace.py [--keys N] [--json FILE]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import long_session
from exhaustion import Probe
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from ui import Frames

from acp_tui.storage.paths import HOME_ENV_VAR
from acp_tui.ui.app import AcpTuiApp

Step = tuple[float, float, str]
"""(start, seconds, task or callback) of one event-loop step."""
Dispatch = tuple[float, float, str, str]
"""(start, seconds, pump class, message class); frames as ("Screen", "FRAME")."""

FRAME: Final = "FRAME"


class Tracer:
    """Times the loop's steps and the message dispatches while `on`."""

    def __init__(self) -> None:
        self.on = False
        self.steps: list[Step] = []
        self.dispatches: list[Dispatch] = []

    def install(self) -> None:
        tracer = self
        run = asyncio.events.Handle._run

        def timed(handle: asyncio.events.Handle) -> None:
            if not tracer.on:
                run(handle)
                return
            callback = handle._callback  # type: ignore[attr-defined]
            task = getattr(callback, "__self__", None)
            name = (
                task.get_name()
                if isinstance(task, asyncio.Task)
                else f"{callback!r:.80}"
            )
            started = time.perf_counter()
            try:
                run(handle)
            finally:
                tracer.steps.append((started, time.perf_counter() - started, name))

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]
        dispatch = MessagePump._dispatch_message

        async def dispatched(pump: MessagePump, message: Message) -> None:
            if not tracer.on:
                await dispatch(pump, message)
                return
            started = time.perf_counter()
            try:
                await dispatch(pump, message)
            finally:
                tracer.dispatches.append(
                    (
                        started,
                        time.perf_counter() - started,
                        type(pump).__name__,
                        type(message).__name__,
                    )
                )

        MessagePump._dispatch_message = dispatched  # type: ignore[method-assign,assignment]
        update = Screen._on_timer_update

        def painted(screen: Screen[object]) -> None:
            started = time.perf_counter()
            try:
                update(screen)
            finally:
                if tracer.on:
                    seconds = time.perf_counter() - started
                    tracer.dispatches.append((started, seconds, "Screen", FRAME))

        Screen._on_timer_update = painted  # type: ignore[method-assign,assignment]


def traced_stream(
    tracer: Tracer, found: dict[str, Any]
) -> Callable[[AcpTuiApp, Frames, str], Awaitable[long_session.StreamFigures]]:
    """`long_session.stream_turn`, traced; its probe's keys and edits go to `found`."""
    stream_turn = long_session.stream_turn

    class KeptProbe(Probe):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            found["probe"] = self

    async def traced(
        app: AcpTuiApp, frames: Frames, tag: str
    ) -> long_session.StreamFigures:
        long_session.Probe = KeptProbe  # type: ignore[attr-defined]
        tracer.on = True
        try:
            return await stream_turn(app, frames, tag)
        finally:
            tracer.on = False

    return traced


def first_after(times: list[float], at: float | None) -> float | None:
    if at is None:
        return None
    return next((t for t in times if t >= at), None)


def report(tracer: Tracer, probe: Probe, keys: int) -> list[str]:
    """The slowest keys' hops, then the longest loop steps."""
    dispatches = tracer.dispatches
    app_keys = [t for t, _, pump, m in dispatches if pump == "AcpTuiApp" and m == "Key"]
    prompt_keys = [
        t for t, _, pump, m in dispatches if pump == "PromptInput" and m == "Key"
    ]
    frames = [(t, s) for t, s, _, m in dispatches if m == FRAME]
    frame_starts = [t for t, _ in frames]
    rows: list[tuple[float, str]] = []
    edited = list(probe.edited)
    index = 0
    for number, sent in enumerate(probe.sent, start=1):
        while index < len(edited) and edited[index][1] < number:
            index += 1
        if index >= len(edited):
            continue
        echo = edited[index][0] - sent
        at_app = first_after(app_keys, sent)
        at_prompt = first_after(prompt_keys, at_app)
        frame = first_after(frame_starts, at_prompt)
        took = dict(frames).get(frame, 0.0) if frame is not None else 0.0

        def ms(a: float | None, b: float | None) -> str:
            return "?" if a is None or b is None else f"{(b - a) * 1000:.0f}"

        rows.append(
            (
                echo,
                f"echo {echo * 1000:.0f} ms: to the app {ms(sent, at_app)}, to the "
                f"prompt {ms(at_app, at_prompt)}, to its frame {ms(at_prompt, frame)}, "
                f"the frame {took * 1000:.0f} ms",
            )
        )
    rows.sort(reverse=True)
    longest = sorted(tracer.steps, key=lambda step: -step[1])[:10]
    return [
        *(line for _, line in rows[:keys]),
        "longest loop steps:",
        *(f"  {seconds * 1000:.1f} ms {name}" for _, seconds, name in longest),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=10, help="slowest keys shown")
    parser.add_argument("--json", type=Path, help="write the steps and dispatches")
    args = parser.parse_args()
    tracer = Tracer()
    tracer.install()
    found: dict[str, Any] = {}
    long_session.stream_turn = traced_stream(tracer, found)  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="acp-tui-echo-") as tmp:
        os.environ[HOME_ENV_VAR] = str(Path(tmp) / "home")
        os.environ["ACP_TUI_DEMO_DELAY"] = "0"
        result = asyncio.run(long_session.run_child("fresh", {}, Path(tmp)))
    stream = result.stream
    assert stream is not None
    probe: Probe = found["probe"]
    echoes = sorted(stream.echoes_ms)
    print(
        f"{len(echoes)} keys while streaming {long_session.STREAM_CHUNKS:,} chunks in "
        f"{stream.seconds:.2f} s (the app's CPU {stream.cpu_s:.2f} s): p50 "
        f"{echoes[len(echoes) // 2]:.0f} ms, p99 "
        f"{long_session.percentile(echoes, 0.99):.0f} ms, max {echoes[-1]:.0f} ms; "
        f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )
    for line in report(tracer, probe, args.keys):
        print(line)
    if args.json is not None:
        args.json.write_text(
            json.dumps({"steps": tracer.steps, "dispatches": tracer.dispatches})
        )


if __name__ == "__main__":
    main()
