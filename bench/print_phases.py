"""Where the CPU time of `acp-tui print --format json` goes on bench/print.py's stream.

bench/print.py says how long print takes against a json.loads-only client; this
says what print spends its CPU on, phase by phase, so that a round of work on
issue 28 starts from figures, not from a guess. Each run is a fresh process of
the real CLI (`python -m acp_tui ... print --format json go`, the same agent and
stream as bench/print.py, bytecode and `print_compiled`'s code cached by an
untimed run first) with hooks that only read the clock (`time.process_time`,
this process's CPU: the agent's is not counted):

* **phases**, each from the end of the one before: the interpreter and
  `acp_tui.cli`; the parser and the config (`_load_config`: it imports
  pydantic); importing the client stack (`print_turn`); to the first
  `session/update` (initialize, session/new, the prompt, the agent's start);
  the stream (every update read, translated, stored and journaled); building
  the document; writing it; the `atexit` hooks and the interpreter's exit are
  not in the sum (the process's own CPU, from `getrusage`, is the total);
* **across phases**: pydantic's model classes made (`ModelMetaclass.__new__`,
  defining the wire and config models), its schemas built at first use
  (`complete_model_class` outside class creation: the models a run validates
  with), `dataclasses` making classes, and the garbage collector;
* **imports by package**, from a run with `-X importtime` (which slows imports
  down, so only the shares are given): pydantic and pydantic_core, the wire
  models (`acp_tui.protocol.schema`), the rest of acp_tui, anyio/asyncio, and
  the rest; a standard library module counts for the package that imported it.

The figures are the median of `--repeat` runs (default 5). Figures only:
nothing is asserted. Usage: `uv run python bench/print_phases.py [--chunks N]
[--megabytes M] [--repeat R] [--json FILE]`.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Final

# (The measured process imports only these, which print imports anyway; the
# driver's own imports are in its functions.)

HERE: Final = Path(__file__).resolve()
PHASES: Final = (
    ("start", "interpreter, acp_tui.cli, the parser"),
    ("config", "the config (_load_config: imports pydantic)"),
    ("client", "client stack imported (print_turn)"),
    ("first", "to the first session/update"),
    ("stream", "the stream (every update)"),
    ("document", "document built"),
    ("written", "document written"),
)
COUNTERS: Final = (
    ("model_classes", "pydantic model classes made"),
    ("schema_builds", "pydantic schemas built at first use"),
    ("dataclasses", "dataclasses made"),
    ("gc", "garbage collections"),
)
IMPORT_GROUPS: Final = (
    ("pydantic", "pydantic + pydantic_core"),
    ("schema", "wire models (acp_tui.protocol.schema)"),
    ("acp_tui", "the rest of acp_tui"),
    ("anyio", "anyio + asyncio"),
    ("other", "stdlib and other packages"),
)


# --- in the measured process (`--child`) -----------------------------------------


def _child(argv: list[str], report: Path) -> None:
    """Run the CLI with clock-reading hooks; write the figures to `report`."""
    import atexit
    import dataclasses
    import gc
    import importlib.abc
    import resource
    import time

    clock = time.process_time
    marks: dict[str, float] = {}
    counters: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)

    def mark(name: str) -> None:
        marks.setdefault(name, clock())

    def timed(name: str, function: Any, outermost: list[int]) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            outermost[0] += 1
            started = clock()
            try:
                return function(*args, **kwargs)
            finally:
                outermost[0] -= 1
                if not outermost[0]:
                    counters[name] += clock() - started
                counts[name] += 1

        return wrapper

    in_class = [0]

    def patch_pydantic(module: Any) -> None:
        meta = module.ModelMetaclass
        new = meta.__new__
        build = module.complete_model_class
        builds = [0]

        def made(mcs: Any, *args: Any, **kwargs: Any) -> Any:
            in_class[0] += 1
            started = clock()
            try:
                return new(mcs, *args, **kwargs)
            finally:
                in_class[0] -= 1
                if not in_class[0]:
                    counters["model_classes"] += clock() - started
                counts["model_classes"] += 1

        def built(*args: Any, **kwargs: Any) -> Any:
            if in_class[0]:  # (a model built as its class is made)
                return build(*args, **kwargs)
            return timed("schema_builds", build, builds)(*args, **kwargs)

        meta.__new__ = made
        module.complete_model_class = built

    def patch_dispatcher(module: Any) -> None:
        handle = module.Dispatcher._handle_now

        def first(self: Any, line: Any) -> Any:
            if "first" not in marks and b'"session/update"' in line:
                mark("first")
            return handle(self, line)

        module.Dispatcher._handle_now = first

    def patch_print_turn(module: Any) -> None:
        mark("client")
        document = module.PrintRun.document
        write = module.write_document

        def documented(self: Any) -> Any:
            mark("stream")
            value = document(self)
            mark("document")
            return value

        def written(value: Any, out: Any) -> None:
            write(value, out)
            mark("written")

        module.PrintRun.document = documented
        module.write_document = written

    def patch_cli(module: Any) -> None:
        load = module._load_config

        def loaded() -> Any:
            mark("start")
            value = load()
            mark("config")
            return value

        module._load_config = loaded

    patches = {
        "pydantic._internal._model_construction": patch_pydantic,
        "acp_tui.protocol.dispatcher": patch_dispatcher,
        "acp_tui.frontends.print_turn": patch_print_turn,
        "acp_tui.cli": patch_cli,
    }

    class Patching(importlib.abc.MetaPathFinder):
        """Patches the modules above once they are loaded (the others: untouched)."""

        def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
            patch = patches.get(name)
            if patch is None:
                return None
            for finder in sys.meta_path:
                if finder is self:
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
            else:
                return None
            loader: Any = spec.loader
            run = loader.exec_module

            def exec_module(module: Any) -> None:
                run(module)
                patch(module)

            loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Patching())
    process_class = dataclasses._process_class  # type: ignore[attr-defined]
    dataclasses._process_class = timed("dataclasses", process_class, [0])  # type: ignore[attr-defined]
    collecting: list[float] = []

    def collection(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting.append(clock())
        elif collecting:
            counters["gc"] += clock() - collecting.pop()
            counts["gc"] += 1

    gc.callbacks.append(collection)

    def save() -> None:  # registered first: runs after every other hook
        usage = resource.getrusage(resource.RUSAGE_SELF)
        figures = {
            "marks": marks,
            "counters": dict(counters),
            "counts": dict(counts),
            "total": usage.ru_utime + usage.ru_stime,
        }
        report.write_text(json.dumps(figures), "utf-8")

    atexit.register(save)
    sys.argv = ["acp-tui", *argv]
    from acp_tui.cli import main

    code = main()
    if code:
        raise SystemExit(code)


# --- the driver ---------------------------------------------------------------------


def _run(
    stream: Path, env: dict[str, str], home: Path, report: Path, importtime: bool
) -> tuple[dict[str, Any], str]:
    import subprocess

    from print import ROOT, TIMEOUT, agent_command

    agent = " ".join(agent_command(stream))
    command = [sys.executable]
    if importtime:
        command += ["-X", "importtime"]
    command += [str(HERE), "--child", str(report), "--"]
    command += ["--agent", agent, "print", "--format", "json", "go"]
    done = subprocess.run(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
        timeout=TIMEOUT,
        cwd=ROOT,
        env={**env, "ACP_TUI_HOME": str(home)},
    )
    return json.loads(report.read_text("utf-8")), done.stderr


_IMPORT_LINE: Final = re.compile(r"import time:\s+(\d+) \|\s+\d+ \| ( *)(\S+)")


def _own_group(name: str) -> str | None:
    """The group a module belongs to by its name (None: stdlib or other)."""
    top = name.split(".")[0]
    if top in ("pydantic", "pydantic_core", "typing_inspection", "annotated_types"):
        return "pydantic"
    if name.startswith("acp_tui.protocol.schema"):
        return "schema"
    if top == "acp_tui":
        return "acp_tui"
    if top in ("anyio", "asyncio", "sniffio"):
        return "anyio"
    return None


def import_shares(importtime: str) -> dict[str, float]:
    """Each group's share of the self time `-X importtime` gave (see the module).

    A standard library module counts for the group whose module imported it
    first (pydantic's `decimal`, `uuid`, `zoneinfo` are pydantic's).
    """
    rows: list[tuple[int, str, int]] = []
    for line in importtime.splitlines():
        found = _IMPORT_LINE.match(line)
        if found is not None:
            depth = len(found.group(2)) // 2
            rows.append((depth, found.group(3), int(found.group(1))))
    groups: dict[str, float] = defaultdict(float)
    importers: list[tuple[int, str | None]] = []
    """The modules being imported around the current row (a row's importer is
    the nearest one with a smaller depth, listed after it)."""
    for depth, name, own in reversed(rows):  # importers are listed after
        while importers and importers[-1][0] >= depth:
            importers.pop()
        group = _own_group(name)
        if group is None:
            group = importers[-1][1] if importers else None
        importers.append((depth, group))
        groups[group or "other"] += own
    total = sum(groups.values()) or 1
    return {group: value / total for group, value in groups.items()}


def phase_times(figures: dict[str, Any]) -> dict[str, float]:
    """Seconds of CPU per phase (each from the mark before it)."""
    marks = figures["marks"]
    out: dict[str, float] = {}
    before = 0.0
    for name, _ in PHASES:
        at = marks.get(name, before)
        out[name] = at - before
        before = at
    out["exit"] = figures["total"] - before
    return out


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[4:], Path(sys.argv[2]))  # (`--child REPORT -- ARGS`)
        return
    import argparse
    import statistics
    import tempfile

    sys.path.insert(0, str(HERE.parent))
    from print import bytecode_env, stress_stream

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--megabytes", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures there")
    args = parser.parse_args()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        stream = root / "stream.jsonl"
        stream.write_bytes(stress_stream(args.chunks, args.megabytes))
        env = bytecode_env(root / "bytecode")
        home = root / "home"
        report = root / "figures.json"
        _run(stream, env, home, report, importtime=False)  # untimed: fills caches
        for _ in range(args.repeat):
            runs.append(_run(stream, env, home, report, importtime=False)[0])
        _, importtime = _run(stream, env, home, report, importtime=True)
    phases = [phase_times(run) for run in runs]
    median = {
        name: statistics.median(p[name] for p in phases)
        for name in [*(n for n, _ in PHASES), "exit"]
    }
    total = statistics.median(run["total"] for run in runs)
    counters = {
        name: statistics.median(run["counters"].get(name, 0.0) for run in runs)
        for name, _ in COUNTERS
    }
    counts = {name: runs[-1]["counts"].get(name, 0) for name, _ in COUNTERS}
    shares = import_shares(importtime)
    figures = {
        "chunks": args.chunks,
        "megabytes": args.megabytes,
        "runs": args.repeat,
        "total_cpu_s": total,
        "phases_s": median,
        "counters_s": counters,
        "counts": counts,
        "import_shares": shares,
    }
    if args.json:
        args.json.write_text(json.dumps(figures), "utf-8")
    print(
        f"acp-tui print --format json, v2 stress stream: {args.chunks:,} message "
        f"chunks + {args.megabytes:g} MB of terminal output; CPU of the print "
        f"process only, median of {args.repeat} runs\n"
    )
    print(f"  {'phase':44s} {'ms':>7s}  share")
    for name, label in [*PHASES, ("exit", "atexit hooks + interpreter exit")]:
        ms = median[name] * 1000
        print(f"  {label:44s} {ms:7.1f}  {median[name] / total:5.1%}")
    print(f"  {'total (getrusage)':44s} {total * 1000:7.1f}\n")
    print(f"  {'across phases':44s} {'ms':>7s}  count")
    for name, label in COUNTERS:
        print(f"  {label:44s} {counters[name] * 1000:7.1f}  {counts[name]:5d}")
    client = median["config"] + median["client"]
    print(
        f"\n  imports (parser + config + client stack: {client * 1000:.0f} ms), "
        "shares of -X importtime's self time:"
    )
    for name, label in IMPORT_GROUPS:
        print(f"  {label:44s} {shares.get(name, 0.0):7.1%}")


if __name__ == "__main__":
    main()
