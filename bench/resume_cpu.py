"""The client's CPU time to resume bench/long_session.py's long session, no UI.

Runs `acp-tui print --session s1 --format json` in this process against
bench/long_agent.py replaying the cached recording (bench/long_session.py
`history_file`), with a one-chunk prompt after the replay, and prints this
process's CPU time (`time.process_time`: the agent is another process) from the
start of the command to its end. The document is written to `--out` (compare
two of them, before and after a change, for an identical result), and with
`--profile FILE` a cProfile (by CPU time) of the whole command is written.

The UI's bench (bench/long_session.py) measures the app; this one measures the
client path (dispatcher, dialect, update intake, store) alone, for A/B; the
CPU time from the first update to the last (the replay, with the prompt's few
chunks after it) is printed too.

Usage: `uv run python bench/resume_cpu.py [--updates N] [--repeat R]
[--out FILE] [--raw-chunks] [--profile FILE]`
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from long_session import AGENT, UPDATES, history_file

from acp_tui.cli import main as cli_main
from acp_tui.client.update_intake import UpdateIntake
from acp_tui.storage.paths import HOME_ENV_VAR


class ReplayClock:
    """CPU time from the first `session/update` received to the last."""

    def __init__(self) -> None:
        self.first: float | None = None
        self.last = 0.0
        self.updates = 0
        self._receive = UpdateIntake.receive_now

        def timed(intake: UpdateIntake, params: Any) -> Any:
            now = time.process_time()
            if self.first is None:
                self.first = now
            self.updates += 1
            later = self._receive(intake, params)
            self.last = time.process_time()
            return later

        UpdateIntake.receive_now = timed  # type: ignore[method-assign,assignment]

    @property
    def seconds(self) -> float:
        return self.last - (self.first or self.last)


def run_once(
    history: Path, out: Path | None, raw: bool, profile: str | None
) -> tuple[float, float]:
    argv = [
        "print",
        "--session",
        "s1",
        "--agent",
        f"{sys.executable} {AGENT} --history {history}",
        "--format",
        "json",
        *(["--raw-chunks"] if raw else []),
        "stream chunks=10 tools=0 marker=x",
    ]
    buffer = io.StringIO()
    profiler = cProfile.Profile(time.process_time) if profile else None
    clock = ReplayClock()
    with tempfile.TemporaryDirectory(prefix="acp-tui-resume-cpu-") as home:
        os.environ[HOME_ENV_VAR] = home
        started = time.process_time()
        if profiler is not None:
            profiler.enable()
        with contextlib.redirect_stdout(buffer):
            code = cli_main(argv)
        if profiler is not None:
            profiler.disable()
        cpu = time.process_time() - started
    UpdateIntake.receive_now = clock._receive  # type: ignore[method-assign]
    if profiler is not None and profile is not None:
        profiler.dump_stats(profile)
    if code != 0:
        raise SystemExit(f"print exited {code}")
    if out is not None:
        out.write_text(buffer.getvalue())
    return cpu, clock.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=UPDATES)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--raw-chunks", action="store_true")
    parser.add_argument("--profile")
    args = parser.parse_args()
    history = history_file(args.updates)
    for n in range(args.repeat):
        cpu, replay = run_once(history, args.out, args.raw_chunks, args.profile)
        print(
            f"run {n + 1}: the client's CPU {cpu:.2f} s, of which {replay:.2f} s "
            "from the first update received to the last",
            flush=True,
        )


if __name__ == "__main__":
    main()
