"""How long the full test suite takes: the README's test command, timed.

Runs `uv run pytest` (or `--command`) from the project root, with the default
options of `pyproject.toml` (xdist workers, slow files first), and prints its
wall time and the pytest summary line. Goal (issue 28): <= 6 minutes on the
2-core development machine, with no test weakened.

It takes as long as the suite, so bench/run_all.py runs it only when asked:
`uv run python bench/run_all.py --only suite`. With `--json FILE` the figures are
written as one JSON object (`seconds`, `summary`, `status`, `goal_s`).

With `--cpu`, it also prints where the machine's CPU went during the run: by kind
of process (test processes, real agents, demo and fake agents, the bridge, ...)
and by test file (bench/suite_cpu.py; bench/suite_log.py, a pytest plugin it
adds with PYTEST_ADDOPTS, says which test each test process was running).

Usage: `uv run python bench/suite.py [--command CMD] [--json FILE] [--cpu]`
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
BENCH: Final = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH), str(ROOT)]
from suite_cpu import Sampler  # noqa: E402

GOAL_S: Final = 360.0
SUMMARY: Final = re.compile(r"^=+ (.*\b(?:passed|failed|error)\b.*) =+$", re.MULTILINE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--command", default="uv run pytest")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--cpu", action="store_true", help="where the CPU went")
    args = parser.parse_args()
    env = {**os.environ, "CI": os.environ.get("CI", "true")}
    with tempfile.TemporaryDirectory() as log_dir:
        if args.cpu:
            path = os.pathsep.join(filter(None, [str(BENCH), env.get("PYTHONPATH")]))
            addopts = f"{env.get('PYTEST_ADDOPTS', '')} -p suite_log".strip()
            env.update(
                PYTHONPATH=path, PYTEST_ADDOPTS=addopts, ACP_TUI_SUITE_LOG=log_dir
            )
        start = time.perf_counter()
        process = subprocess.Popen(
            shlex.split(args.command),
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        sampler = Sampler(process.pid, Path(log_dir))
        if args.cpu:
            sampler.start()
        stdout, _ = process.communicate()
        seconds = time.perf_counter() - start
        if args.cpu:
            sampler.stop()
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout)
    found = SUMMARY.findall(done.stdout)
    summary = found[-1] if found else "no pytest summary line"
    ok = done.returncode == 0 and seconds <= GOAL_S
    print(f"suite: {summary}")
    print(
        f"full test suite wall time: {seconds:.1f} s "
        f"(goal <= {GOAL_S:.0f} s: {'met' if ok else 'NOT MET'})"
    )
    if args.cpu:
        print(sampler.report(seconds))
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "seconds": seconds,
                    "summary": summary,
                    "status": done.returncode,
                    "goal_s": GOAL_S,
                }
            ),
            "utf-8",
        )
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:])
        sys.exit(f"the suite failed (exit status {done.returncode}): {summary}")


if __name__ == "__main__":
    main()
