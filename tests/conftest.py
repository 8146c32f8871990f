"""Test-wide set-up.

`tests.ui.helpers` (`wait_for`, `screen_settled`) is imported by UI, fault and
integration tests alike; registered here, before any test module is imported, its
asserts are rewritten like a test module's wherever it is first imported.

Skips that mean lost coverage (interop peers or the browser not installed) are
repeated in a red banner at the end of the run. The banner is built here, from the
skip reports, because under pytest-xdist only the controlling process writes the
summary, and it never imports tests/interop/conftest.py or tests/serve/conftest.py.

Where the time goes (issue 28): most of the suite waits rather than computes. Pilot
sleeps at least 40 ms after every key it types (Textual's idle detection), real
agents and fake ones take seconds to start and answer, and timeouts run out. So
pytest-xdist starts three workers per CPU (`pytest_xdist_auto_num_workers`; pyproject's
`--maxprocesses 6` caps them), and the slowest files are collected first
(`pytest_collection_modifyitems`; pyproject's `--dist loadfile
--no-loadscope-reorder` hands files out in that order), so that no worker is left
alone with a long file at the end; test_real_turns.py, minutes of waiting on real
agents, is handed out one agent at a time (`SplitFileScheduling`). The slow files
that mostly wait (real agents, a browser, the bridge: a third of a core each) are
handed out in turn with the ones that compute (`WAITING`, `interleaved`), so that
the two cores stay busy from the start rather than four workers waiting on agents
together for the first minutes. Likewise the Pilot files (tests/ui), whose tests
wait after every key, get most of the computing files (tests/unit) spread among
them (`blended`): six workers in tests/ui together left 13% of the cores idle,
and the unit files ran alone at the end (December 2026, `vmstat 1` beside
four runs: 373-377 s before, two: 363 and 372 s after). Before the
workers start, the controller rewrites the test modules' asserts once for all of
them (`pytest_sessionstart`; tests/assert_cache.py says why).

A test process's full garbage collections (`pytest_configure`): a worker keeps
every collected test and the modules of all the apps it ran, and Python's default
collects all of it every 10 younger collections: about 0.2 s each in a UI worker,
growing as the worker goes on, 20% of its CPU time (tests/ui/test_app.py alone:
22 full collections, 3.1 s of 15.4 s). Every 100 younger collections instead
(4 full collections, 1.1 s of 12.7 s there; about 25 MB more at the peak). The
garbage is the same and still collected, later; a test that needs it gone calls
`gc.collect()` itself, as before; subprocesses (agents, `acp-tui` commands) are
not pytest and keep Python's default.

The apps a test process boots (each Pilot test its own) share what each would
compute alike, the parsed CSS and the theme colours (tests/textual_caches.py,
`pytest_configure`): about 0.04 s of CPU of each boot's 0.26 s. They keep the
compositor's full map after a layout pass, the CSS rules matched for each
place a node can have (as every app before matched them), and the number of
parameters of each callback's code, as `AcpTuiApp` does
(`acp_tui.ui.compositor_map`, `acp_tui.ui.matched_rules`,
`acp_tui.ui.callback_arity`), whatever app hosts the widgets under test.

Node agents (claude-agent-acp, gemini-cli, codex-acp's launcher, the TypeScript
SDK peer under Node 22) start about 45 times a run, each compiling the same
JavaScript again. `NODE_COMPILE_CACHE` (Node 22's on-disk V8 code cache, which
Node 20 ignores) is set for every process the tests start (`pytest_configure`,
before xdist starts the workers, who inherit it): a directory in the temporary
directory, kept between runs; Node checks each entry against its source and
version. claude-agent-acp's Node process: 0.40 s of CPU a start without it,
0.34 s with it; gemini-cli's two: 1.55 s, 1.22 s. What the agents do is the same.

With four workers the run was mostly bound by the 2 cores (`bench/suite.py
--cpu`, a full run on 2 cores, December 2026): its processes used about 670-700 s
of CPU (the test processes about 60%, the rest the agents and commands they start:
claude-agent-acp 60 s, the demo agent 52 s, opencode 44 s, fake agents 16 s,
`acp-tui` runs and the bridge 17 s), and on average 2.5 of their threads ran or
waited to run; yet only 1.6 of the 2 cores were busy on average (669 CPU-s of the
machine in 415 s): in the UI files the four workers often waited together (Pilot's
pauses, agents starting). Six workers fill those waits: on the same code, idle
machine, same hour, 413-415 s with four (two runs) and 376 s with six. Another
order of the files did not help (at most two waiting files at once: 416 s). Less
CPU helps as well.

Each test's CPU time is recorded beside its wall time, and the run ends with the
slowest tests by CPU time (tests/cpu_times.py): on 2 cores shared by 6 workers,
wall time says as much about a test's neighbours as about the test.
"""

import gc
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import pytest
from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

from acp_tui.ui.callback_arity import count_callback_parameters_by_code
from acp_tui.ui.compositor_map import keep_full_map_after_reflow
from acp_tui.ui.matched_rules import share_matched_rules
from tests import assert_cache, cpu_times, textual_caches
from tests.cpu_times import pytest_runtest_call  # noqa: F401 (a hook)

REWRITTEN_HELPERS = ("tests.ui.helpers",)
pytest.register_assert_rewrite(*REWRITTEN_HELPERS)

LOUD_SKIPS = {
    "INTEROP SKIPPED": "INTEROP TESTS SKIPPED",
    "BROWSER TEST SKIPPED": "BROWSER TEST SKIPPED",
}
"""Reason prefix (see tests/interop/conftest.py, tests/serve/conftest.py): banner."""


def _skip_reason(report: pytest.TestReport) -> str | None:
    longrepr = report.longrepr
    if isinstance(longrepr, Sequence) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    cpu_times.write_summary(terminalreporter)  # the slowest tests by CPU time
    found: dict[str, set[str]] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = _skip_reason(report)
        for prefix, banner in LOUD_SKIPS.items():
            if reason is not None and reason.startswith(prefix):
                found.setdefault(banner, set()).add(reason)
    for banner, reasons in found.items():
        terminalreporter.write_sep("!", banner, red=True, bold=True)
        for reason in sorted(reasons):
            terminalreporter.write_line(reason, red=True)


WORKERS_PER_CPU = 3
"""`-n auto` workers per CPU: the suite is mostly waiting (see above)."""

SLOW_FIRST = (
    "tests/interop/test_real_turns.py",
    "tests/interop/",
    "tests/serve/",
    "tests/bridge/",
    "tests/faults/",
    "tests/fuzz/",
)
"""Where tests take seconds each (real agents, a browser, floods), scheduled first
in this order (the real agents' scenes, a minute or more per agent, first of all);
everything else follows in its usual order."""

WAITING = ("tests/interop/", "tests/serve/", "tests/bridge/")
"""Slow files whose tests mostly wait on other processes: real agents, Chromium,
`acp-tui bridge` (tests/interop: 443 s of test time for 145 s of CPU, the bridge
175 s for 45 s). `interleaved` hands them out in turn with the rest."""


FULL_COLLECTION_EVERY = 100
"""Younger (generation 1) collections between two full ones in a test process
(Python's default: 10). See the module docstring."""


NODE_COMPILE_CACHE: Final = "NODE_COMPILE_CACHE"
"""The variable that gives Node 22 a directory for its V8 code cache."""


def node_compile_cache() -> Path:
    """The code cache directory the tests' Node processes share (see above)."""
    return Path(tempfile.gettempdir()) / f"acp-tui-tests-node-cache-{os.getuid()}"


def pytest_configure(config: pytest.Config) -> None:
    """Full garbage collections less often in this test process, the apps it
    boots share their parsed CSS and theme colours and keep the compositor's
    full map as the app does, and the Node agents it starts share a code
    cache, unless one is set already (see above)."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    textual_caches.install()
    keep_full_map_after_reflow()  # as `AcpTuiApp` does, for every app tests host
    share_matched_rules()  # likewise
    count_callback_parameters_by_code()  # likewise
    os.environ.setdefault(NODE_COMPILE_CACHE, str(node_compile_cache()))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: three workers per CPU this process may use (xdist's own answer,
    one per CPU, when `PYTEST_XDIST_AUTO_NUM_WORKERS` says otherwise)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return WORKERS_PER_CPU * len(os.sched_getaffinity(0))


def _rank(item: pytest.Item) -> int:
    for rank, prefix in enumerate(SLOW_FIRST):
        if item.nodeid.startswith(prefix):
            return rank
    return len(SLOW_FIRST)


SPLIT_BY_PARAMETER: Final = ("tests/interop/test_real_turns.py",)
"""Files whose tests `--dist loadfile` hands out by parameter id (each id a work
unit, in its file's place) rather than as one unit. test_real_turns.py runs the
real agents' scenes once per agent (its module fixture keeps them per agent):
about 210 s on one worker, most of it waiting on the agents (60 s of CPU); so
each agent's tests now go to a worker of their own, like a file of their own."""


def work_unit(nodeid: str) -> str:
    """The work unit of a test: its file, or its file and parameter id for the
    `SPLIT_BY_PARAMETER` files."""
    path = nodeid.split("::", 1)[0]
    if path in SPLIT_BY_PARAMETER and nodeid.endswith("]") and "[" in nodeid:
        return f"{path}[{nodeid.rsplit('[', 1)[1]}"
    return path


class SplitFileScheduling(LoadFileScheduling):  # type: ignore[misc]
    """`--dist loadfile`, with the `SPLIT_BY_PARAMETER` files split by parameter."""

    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """`SplitFileScheduling` for `--dist loadfile` (else xdist's own choice)."""
    if config.getvalue("dist") == "loadfile":
        return SplitFileScheduling(config, log)
    return None


def interleaved(units: Sequence[str]) -> list[str]:
    """The work units in turn: one that waits (`WAITING`), one that does not, and
    so on while both last; the others keep their order after them."""
    waiting = [unit for unit in units if unit.startswith(WAITING)]
    other = [unit for unit in units if not unit.startswith(WAITING)]
    paired = [unit for pair in zip(waiting, other, strict=False) for unit in pair]
    shorter = min(len(waiting), len(other))
    return paired + waiting[shorter:] + other[shorter:]


PILOTED = "tests/ui/"
"""Files whose tests drive an app with Pilot: each test pauses after every key
and waits for the screen, so six workers running them together left 6-29% of
the two cores idle (`vmstat 1` beside a run: 13% on average over the 137 s of
tests/ui)."""
LONG_PILOTED = (
    "tests/ui/test_conversation_window.py",
    "tests/ui/test_queue_steering.py",
    "tests/ui/test_app.py",
    "tests/ui/test_following.py",
    "tests/ui/test_session_fork.py",
    "tests/ui/test_prompt_queue.py",
    "tests/ui/test_tabs.py",
)
"""The `PILOTED` files that take longest (wall time, December 2026: 99 s down to
26 s), handed out early among the others (`_long_ones_early`): handed out last,
two of them ran on for 35 s with the cores 90% idle at the end of a run."""
COMPUTING = "tests/unit/"
"""Files whose tests compute without waiting (0% idle while they ran)."""
SPREAD = 0.75
"""The share of the `COMPUTING` units spread among the `PILOTED` ones; the rest
(the last in their order) follow them, short units that end the run evenly."""


def _long_ones_early(units: list[str], long: Sequence[str]) -> list[str]:
    """`units` with those in `long` (in that order) spread over the first half:
    the first of them first, then one every few units. All at the start, six
    workers waited on them together (16-26% of the cores idle for 30 s)."""
    ahead = [unit for unit in long if unit in units]
    if not ahead:
        return list(units)
    rest = [unit for unit in units if unit not in ahead]
    between = max(1, len(units) // (2 * len(ahead))) - 1
    result: list[str] = []
    for index, unit in enumerate(ahead):
        result.append(unit)
        result.extend(rest[index * between : (index + 1) * between])
    result.extend(rest[len(ahead) * between :])
    return result


def blended(units: Sequence[str]) -> list[str]:
    """The `PILOTED` units (the `LONG_PILOTED` first) with the first `SPREAD` of
    the `COMPUTING` units spread evenly among them, in the place of the first of
    either; the other `COMPUTING` units after them; the rest keep their places."""
    piloted = _long_ones_early(
        [unit for unit in units if unit.startswith(PILOTED)], LONG_PILOTED
    )
    computing = [unit for unit in units if unit.startswith(COMPUTING)]
    if not piloted or not computing:
        return list(units)
    spread = computing[: round(len(computing) * SPREAD)]
    bounds = [len(spread) * index // len(piloted) for index in range(len(piloted) + 1)]
    mixed: list[str] = []
    for index, unit in enumerate(piloted):
        mixed += [unit, *spread[bounds[index] : bounds[index + 1]]]
    block = [*mixed, *computing[len(spread) :]]
    result: list[str] = []
    for unit in units:
        if unit.startswith((PILOTED, COMPUTING)):
            result.extend(block)
            block = []
        else:
            result.append(unit)
    return result


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The `SLOW_FIRST` directories first (a stable sort: each file keeps its order),
    the work units that wait handed out in turn with the others (`interleaved`),
    the Pilot files with most of the computing ones (`blended`)."""
    items.sort(key=_rank)
    units = list(dict.fromkeys(work_unit(item.nodeid) for item in items))
    order = {unit: index for index, unit in enumerate(interleaved(blended(units)))}
    items.sort(key=lambda item: order[work_unit(item.nodeid)])


@pytest.hookimpl(tryfirst=True)  # before xdist starts the workers (its hook is trylast)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Under xdist, the controller writes pytest's assert-rewrite cache for the
    modules the workers will collect, so that each worker reads it instead of
    rewriting every module again (tests/assert_cache.py)."""
    config = session.config
    if not config.pluginmanager.has_plugin("dsession"):  # not xdist's controller
        return
    if config.getini("enable_assertion_pass_hook"):
        return  # `assert_cache` rewrites without the hook
    root = config.rootpath
    invoked = config.invocation_params.dir
    args = [invoked / arg.split("::", 1)[0] for arg in config.args]
    helpers = [root / (name.replace(".", "/") + ".py") for name in REWRITTEN_HELPERS]
    files = assert_cache.modules(args, root, config.getini("python_files"), helpers)
    assert_cache.prepare(files, len(os.sched_getaffinity(0)))
