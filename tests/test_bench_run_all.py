"""bench/run_all.py: reading each benchmark's figures, the table, running benches.

The parsers are fed captured outputs of the real benches (trimmed); no real
benchmark runs here. The few tests that run a process run tiny stand-in scripts.
"""

from __future__ import annotations

import copy
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import pytest

from tests.processes import ends_within

BENCH_DIR = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH_DIR))
try:
    import run_all
    from run_all import Bench, Figure, Goal
finally:
    sys.path.remove(str(BENCH_DIR))

# --- captured outputs -----------------------------------------------------------

EXHAUSTION_JSON: dict[str, Any] = {
    "scenarios": [
        {
            "scenario": "message-200MB",
            "label": "message 200 MB",
            "max_gap_ms": 2335.0,
            "echo_max_ms": 2421.0,
            "rss_peak_mb": 874.0,
            "gap_ok": False,
            "echo_ok": False,
            "rss_ok": True,
        },
        {
            "scenario": "chunks-1M",
            "label": "chunks 1,000,000",
            "max_gap_ms": 240.0,
            "echo_max_ms": 248.0,
            "rss_peak_mb": 116.0,
            "gap_ok": True,
            "echo_ok": True,
            "rss_ok": True,
        },
    ],
    "met": False,
}

UI_OUTPUT = """\
acp-tui UI bench, ACP v2, headless 120x40, 
best of 1 run(s) per figure, each in a fresh process

Streaming a markdown turn (agent_message_chunk + tool-call updates),
the agent writing as fast as the pipe takes it
  chunks tool upd  on screen  in store  chunks/s     cpu  frames  max gap
   2,500      125      0.21s     0.10s    12,023   0.19s       6     58ms
   5,000      250      0.44s     0.30s    11,481   0.43s      10    100ms
  10,000      500      0.65s     0.54s    15,376   0.57s      11    159ms
time ratios: 2.09 (x2 chunks), 3.13 (x4 chunks)
goal >= 5,000 chunks/s at 10,000: 15,376 (met)

One long paragraph (no line break), one word per chunk
  chunks      pace  on screen     lag     cpu  frames  max gap
   1,000     flood      0.09s   0.00s   0.08s       4     35ms
   2,000     flood      0.22s   0.00s   0.19s       5     57ms
   3,000     flood      0.25s   0.00s   0.21s       6     70ms
   1,000   1,000/s      1.08s   0.08s   0.67s      40     59ms
   2,000   1,000/s      2.07s   0.07s   1.31s      65     65ms
   3,000   1,000/s      3.10s   0.10s   1.86s     109     58ms
flood: time ratios 2.52 (x2 chunks), 2.93 (x3 chunks)
paced at 1,000/s: cpu ratios 1.96 (x2 chunks), 2.79 (x3 chunks)
(linear: 2 and 3; re-rendering the paragraph on every chunk is quadratic: 4 and 9;
 the peer that does takes 12 s / 49 s / 113 s)

A paced markdown turn (a fast agent, every chunk flushed alone)
5,000 chunks at 1,000/s: on screen 5.18s (lag 0.18s), cpu 4.81s, 89 frames, max gap 127ms, median 18.4ms

median gap between frames while streaming, the most of these turns: 21.3 ms (goal <= 20 ms: NOT MET)

20 parallel subagents vs one agent (10,000 chunks, 500 tool-call updates, as fast as the pipe takes them)
          turn  on screen  chunks/s     cpu  frames  max gap  gap cpu
     one agent      1.00s    10,014   0.55s      28     92ms     34ms
  20 subagents      0.55s    18,172   0.55s      28     66ms     20ms
ratios (subagents / one agent): time 0.55x, max gap 0.71x, cpu 1.00x (goal <= 1.5x: met)

largest gap between frames while streaming: 159 ms, this process's CPU time in it 91 ms (goal <= 100 ms: NOT MET)

time to first frame (app built -> prompt painted; agent still initialising: True): 161 ms (goal <= 300 ms: met)
  from a cold start (python started, imports and all): 1362 ms (goal <= 800 ms: NOT MET)

replay of 10,000 updates (1,024 timeline entries) resuming a session with session/resume, from building the app:
  in store 1.08s, on screen 1.22s, key echoed 1.22s, largest frame gap 403 ms
goal time to interactive <= 2 s: 1.22s (met)
the same 10,000 updates flooded right after session/new (rendered as they stream in): in store 1.70s, on screen 1.80s, key echoed after 1.83s
"""  # noqa: E501, W291

TERMINAL_OUTPUT = """\
acp-tui terminal bench: 10 MB of coloured build output in 4 KB terminal_output_chunks (v2), headless 120x40

raw emulation of the first 1 MB, 4 KB chunks:
  pyte Screen            1.15 MB/s
  pyte HistoryScreen     0.31 MB/s
  TerminalEmulator       4.60 MB/s (every byte emulated)

the app (prompt sent -> marker on screen in the card), 5 runs: 33.8, 33.0, 32.3, 27.6, 21.1 MB/s; the median run:
  10 MB on screen after 0.31 s (in the store after 0.31 s), 8 frames, cpu 0.29 s
  bytes emulated by the card: 0.10 MB (1.0% of the output)
  peak RSS 86 MB, 14 MB above the 72 MB before the prompt; the store holds 10.0 MB (cap 33.6 MB), the card's scrollback 90 lines (cap 2000)

goals:
  effective 32.3 MB/s, 106x raw HistoryScreen, 28x raw Screen (goal >= 20 MB/s and >= 40x: met)
  largest frame gap 72 ms, the worst of all runs; the app's CPU time in it 55 ms (goal <= 100 ms: met)
  memory bounded by the caps (scrollback <= 2000 lines, RSS growth <= 3x retained output + 64 MB, every run): met
"""  # noqa: E501

PROTOCOL_JSON: dict[str, Any] = {
    "messages": 50000,
    "megabytes": 17.6,
    "repeat": 5,
    "paths": {
        "json_loads": {
            "seconds": 0.2082,
            "msg_per_s": 240138.0,
            "mb_per_s": 84.5,
            "us_per_msg": 4.164,
            "x_json_loads": 1.0,
        },
        "inbound": {
            "seconds": 0.4348,
            "msg_per_s": 115000.0,
            "mb_per_s": 40.5,
            "us_per_msg": 8.696,
            "x_json_loads": 2.0884,
        },
        "pydantic_one_pass": {
            "seconds": 0.3141,
            "msg_per_s": 159164.0,
            "mb_per_s": 56.0,
            "us_per_msg": 6.283,
            "x_json_loads": 1.5087,
        },
    },
    "goal_x_json_loads": 3.0,
    "goal_met": True,
}

STORE_JSON: dict[str, Any] = {
    "updates": 100000,
    "window": 10000,
    "repeat": 3,
    "realistic": {
        "first": 562269.0,
        "last": 556352.0,
        "overall": 549854.0,
        "last_over_first": 0.9895,
    },
    "one_message": {
        "first": 854829.0,
        "last": 864331.0,
        "overall": 851000.0,
        "last_over_first": 1.0111,
    },
}

DIFF_JSON: dict[str, Any] = {
    "lines": 20000,
    "parse_s": 0.094,
    "goal_first_paint_s": 1.0,
    "goal_max_gap_s": 0.1,
    "layouts": {
        "unified": {
            "rows": 20002,
            "first_paint_s": 0.306,
            "max_gap_s": 0.0567,
            "slowest_scroll_s": 0.0562,
            "rows_painted": 6400,
            "first_paint_ok": True,
            "gap_ok": True,
        },
        "split": {
            "rows": 15002,
            "first_paint_s": 0.180,
            "max_gap_s": 0.1004,
            "slowest_scroll_s": 0.0593,
            "rows_painted": 7400,
            "first_paint_ok": True,
            "gap_ok": False,
        },
    },
    "goals_met": False,
}


def by_name(figures: Sequence[Figure]) -> dict[str, Figure]:
    return {figure.name: figure for figure in figures}


def drop_line(text: str, containing: str) -> str:
    kept = [line for line in text.splitlines() if containing not in line]
    assert len(kept) < len(text.splitlines()), containing
    return "\n".join(kept) + "\n"


# --- ui -------------------------------------------------------------------------


def test_ui_headline_figures_and_verdicts() -> None:
    figures = by_name(run_all.parse_ui(UI_OUTPUT))

    streaming = figures["streaming throughput, 10,000 chunks"]
    assert (streaming.value, streaming.unit, streaming.baseline) == (
        15376,
        "chunks/s",
        5000,
    )
    assert streaming.ratio == pytest.approx(15376 / 5000)
    assert streaming.met is True

    gap = figures["largest frame gap while streaming"]
    assert (gap.value, gap.unit, gap.met) == (159, "ms", False)
    gap_cpu = figures["largest frame gap while streaming: the app's CPU time in it"]
    assert (gap_cpu.value, gap_cpu.unit, gap_cpu.met) == (91, "ms", None)
    median_name = "median frame gap while streaming, the most of the turns"
    median = figures[median_name]
    assert (median.value, median.unit, median.baseline) == (21.3, "ms", 20)
    assert median.met is False
    met = UI_OUTPUT.replace(
        "21.3 ms (goal <= 20 ms: NOT MET)", "16.9 ms (goal <= 20 ms: met)"
    )
    shown = by_name(run_all.parse_ui(met))[median_name]
    assert (shown.value, shown.met) == (16.9, True)

    lanes = figures["20 parallel subagents: time, x one agent"]
    assert (lanes.value, lanes.unit, lanes.baseline, lanes.met) == (
        0.55,
        "x",
        1.5,
        True,
    )
    lanes_gap = figures["20 parallel subagents: largest frame gap, x one agent"]
    assert (lanes_gap.value, lanes_gap.met) == (0.71, True)

    paragraph = figures["long paragraph, paced: CPU growth for x3 chunks"]
    assert (paragraph.value, paragraph.baseline, paragraph.met) == (2.79, 3, None)

    first = figures["time to first frame"]
    assert (first.value, first.baseline, first.met) == (161, 300, True)
    cold = figures["first frame from a cold start"]
    assert (cold.value, cold.baseline, cold.met) == (1362, 800, False)
    # A cold line without its own verdict is judged here against 0.8 s.
    old = UI_OUTPUT.replace(" (goal <= 800 ms: NOT MET)", "").replace("1362", "640")
    assert by_name(run_all.parse_ui(old))["first frame from a cold start"].met is True

    replay = figures["time to interactive after a 10,000-update replay"]
    assert (replay.value, replay.unit, replay.baseline, replay.met) == (
        1.22,
        "s",
        2,
        True,
    )
    flood = figures["key echoed after a 10,000-update flood after session/new"]
    assert (flood.value, flood.unit, flood.baseline, flood.met) == (
        1.83,
        "s",
        None,
        None,
    )


def test_ui_missing_figure_is_reported_not_raised() -> None:
    text = drop_line(UI_OUTPUT, "goal time to interactive")
    figures = run_all.parse_ui(text)

    assert len(figures) == len(run_all.parse_ui(UI_OUTPUT))
    replay = by_name(figures)["time to interactive after a 10,000-update replay"]
    assert replay.value is None
    assert replay.met is None
    row = run_all.cells(replay)
    assert row[2] == "missing"
    assert row[6] == "missing"
    assert row[4] == ""  # no ratio without a value
    assert by_name(figures)["time to first frame"].value == 161


def test_ui_verdict_in_new_words_is_judged_against_the_goal() -> None:
    text = UI_OUTPUT.replace("15,376 (met)", "15,376 (fine)").replace(
        "91 ms (goal <= 100 ms: NOT MET)", "91 ms"
    )
    figures = by_name(run_all.parse_ui(text))

    streaming = figures["streaming throughput, 10,000 chunks"]
    assert streaming.verdict is None
    assert streaming.met is True  # 15,376 >= 5,000, judged here
    gap = figures["largest frame gap while streaming"]
    assert (gap.value, gap.verdict, gap.met) == (159, None, False)


# --- terminal -------------------------------------------------------------------


def test_terminal_figures_against_raw_pyte() -> None:
    figures = by_name(run_all.parse_terminal(TERMINAL_OUTPUT))

    effective = figures["effective throughput, 10 MB, median of 5 runs"]
    assert (effective.value, effective.baseline) == (32.3, 0.31)
    assert effective.baseline_label == "raw pyte HistoryScreen"
    # The bench's own ratio (from unrounded rates), not 32.3 / 0.31.
    assert effective.ratio == 106
    assert effective.met is True
    assert effective.goal_text == "≥ 20 MB/s, ≥ 40x"

    emulator = figures["TerminalEmulator alone (every byte)"]
    assert emulator.value == 4.60
    assert emulator.ratio == pytest.approx(4.60 / 0.31)

    gap = figures["largest frame gap, worst run"]
    assert (gap.value, gap.met) == (72, True)
    gap_cpu = figures["largest frame gap, worst run: the app's CPU time in it"]
    assert (gap_cpu.value, gap_cpu.unit, gap_cpu.met) == (55, "ms", None)

    memory = figures["peak RSS growth, median run"]
    assert (memory.value, memory.baseline, memory.met) == (14, 3 * 10.0 + 64, True)


def test_terminal_compound_goal_judged_here_without_a_verdict() -> None:
    slow = TERMINAL_OUTPUT.replace(
        "effective 32.3 MB/s, 106x", "effective 18.5 MB/s, 60x"
    ).replace("40x: met)", "40x)")
    effective = run_all.parse_terminal(slow)[0]

    assert effective.verdict is None
    assert (effective.value, effective.ratio) == (18.5, 60)
    assert effective.met is False  # 60x is enough, 18.5 MB/s is not


def test_terminal_without_raw_rates_keeps_its_own_figures() -> None:
    text = drop_line(TERMINAL_OUTPUT, "pyte HistoryScreen")
    figures = run_all.parse_terminal(text)

    effective, emulator = figures[0], figures[1]
    assert effective.baseline is None
    assert effective.value == 32.3
    assert effective.ratio == 106  # printed on the goal line
    assert emulator.ratio is None
    assert run_all.cells(emulator)[3] == "missing (raw pyte HistoryScreen)"


@pytest.mark.parametrize(
    ("parse", "output"),
    [(run_all.parse_ui, UI_OUTPUT), (run_all.parse_terminal, TERMINAL_OUTPUT)],
)
def test_empty_output_gives_every_row_as_missing(
    parse: run_all.Parser, output: str
) -> None:
    full = parse(output, None)
    empty = parse("", None)

    assert len(empty) == len(full)
    assert all(figure.value is None for figure in empty)
    assert all(run_all.cells(figure)[2] == "missing" for figure in empty)
    assert all(figure.value is not None for figure in full)


# --- JSON benches ----------------------------------------------------------------


def test_protocol_from_json() -> None:
    inbound, pydantic_pass = run_all.parse_protocol("", PROTOCOL_JSON)

    assert inbound.name == "inbound parse+validate, 50,000 v2 updates"
    assert (inbound.value, inbound.unit, inbound.baseline) == (8.696, "µs/msg", 4.164)
    assert inbound.baseline_label == "json.loads"
    assert inbound.ratio == 2.0884
    assert inbound.goal_text == "≤ 3x"
    assert inbound.met is True
    assert pydantic_pass.ratio == 1.5087
    assert pydantic_pass.met is None


def test_protocol_goal_judged_here_when_the_verdict_is_absent() -> None:
    data = copy.deepcopy(PROTOCOL_JSON)
    del data["goal_met"]
    data["paths"]["inbound"]["x_json_loads"] = 3.4

    inbound = run_all.parse_protocol("", data)[0]
    assert inbound.verdict is None
    assert inbound.met is False


def test_store_from_json() -> None:
    figures = by_name(run_all.parse_store("", STORE_JSON))

    realistic = figures["realistic stream, 100,000 ops"]
    assert (realistic.value, realistic.baseline, realistic.met) == (
        549854,
        100_000,
        True,
    )
    steady = figures["realistic stream, 100,000 ops, last/first 10,000 rate"]
    assert (steady.value, steady.baseline, steady.met) == (0.9895, 1.0, None)
    assert steady.goal_text == "≈ 1"
    one = figures["one message, 100,000 chunks"]
    assert (one.value, one.goals, one.met) == (851000, (), None)


def test_diff_from_json_in_milliseconds_with_the_bench_verdicts() -> None:
    figures = by_name(run_all.parse_diff("", DIFF_JSON))

    paint = figures["first paint, 20,000 lines, unified"]
    assert paint.value == pytest.approx(306)
    assert (paint.baseline, paint.met) == (1000, True)
    gap = figures["largest gap scrolling, 20,000 lines, split"]
    assert gap.value == pytest.approx(100.4)
    assert gap.met is False
    # Rounded, it would read 100 ms: the bench's verdict is the one shown.
    assert run_all.cells(gap)[2:] == (
        "100 ms",
        "100 ms (goal)",
        "1.00x",
        "≤ 100 ms",
        "NOT MET",
    )


def test_exhaustion_from_json_per_flood_with_the_bench_verdicts() -> None:
    figures = by_name(run_all.parse_exhaustion("", EXHAUSTION_JSON))

    gap = figures["message 200 MB: largest frame gap"]
    assert (gap.value, gap.unit, gap.baseline, gap.met) == (2335.0, "ms", 250, False)
    echo = figures["chunks 1,000,000: key echo, worst"]
    assert (echo.value, echo.met) == (248.0, True)
    rss = figures["message 200 MB: peak RSS"]
    assert (rss.value, rss.unit, rss.met) == (874.0, "MB", True)
    assert rss.goal_text == "≤ 1,000 MB"
    assert len(figures) == 6


LONG_SESSION_JSON: dict[str, Any] = {
    "updates": 100000,
    "runs": 2,
    "resume_s": [5.11, 7.73],
    "rss_resumed_mb": [130.2, 131.0],
    "rss_stream_mb": [137.0, 138.5],
    "fresh_rate": [6046.0, 5033.0],
    "long_rate": [8574.0, 3500.0],
    "stream_ratio": [1.42, 0.695],
    "echo_p99_ms": [178.0, 199.0],
    "echo_max_ms": [178.0, 199.0],
    "echo_late": 0,
    "scroll_gap_ms": [60.0, 90.0],
    "scroll_whole": [True, False],
    "idle_rss_mb": [91.1, 90.2],
    "speedups": {
        "off": {"fresh_rate": [10524.0], "long_rate": [12886.0], "resume": [5.58]},
        "on": {"fresh_rate": [6438.0], "long_rate": [8300.0], "resume": [8.8]},
    },
}


def test_long_session_from_json_worst_run_of_each() -> None:
    figures = by_name(run_all.parse_long_session("", LONG_SESSION_JSON))

    resume = figures["resume 100,000 updates to interactive, worst run"]
    assert (resume.value, resume.unit, resume.met) == (7.73, "s", False)
    rss = figures["RSS after streaming 10,000 more chunks, worst run"]
    assert (rss.value, rss.met) == (138.5, True)
    # The stream row is the run with the worst ratio, its two rates beside it.
    stream = figures["streaming at the end of it, the run of the worst ratio"]
    assert (stream.value, stream.baseline, stream.ratio) == (3500.0, 5033.0, 0.695)
    assert stream.met is False
    echo = figures["key echo p99 while streaming 10,000 chunks, worst run"]
    assert (echo.value, echo.met) == (199.0, False)
    # Every gap within the goal, but one run did not scroll the whole session.
    scroll = figures["scrolling it top to bottom by page: largest gap"]
    assert (scroll.value, scroll.met) == (90.0, False)
    idle = figures["idle RSS, demo agent connected (app process)"]
    assert (idle.value, idle.met) == (91.1, False)
    speedups = figures["textual-speedups on: resume to interactive (median)"]
    assert (speedups.value, speedups.baseline) == (8.8, 5.58)
    assert speedups.met is None


def test_long_session_without_the_a_b_has_no_speedups_rows() -> None:
    data = {k: v for k, v in LONG_SESSION_JSON.items() if k != "speedups"}
    names = by_name(run_all.parse_long_session("", data))

    assert not [name for name in names if "speedups" in name]
    assert len(names) == 10


@pytest.mark.parametrize(
    "parse",
    [
        run_all.parse_protocol,
        run_all.parse_store,
        run_all.parse_diff,
        run_all.parse_exhaustion,
        run_all.parse_long_session,
    ],
)
def test_json_bench_without_json_shows_missing(parse: run_all.Parser) -> None:
    figures = parse("", None)

    assert figures
    assert all(figure.value is None for figure in figures)
    table = run_all.plain_table(figures)
    assert table.count("missing") >= len(figures)


def test_partial_json_keeps_what_is_there() -> None:
    data = {key: STORE_JSON[key] for key in ("updates", "window", "realistic")}
    figures = by_name(run_all.parse_store("", data))

    assert figures["realistic stream, 100,000 ops"].value == 549854
    assert figures["one message, 100,000 chunks"].value is None
    # A value of the wrong type counts as missing too.
    data = copy.deepcopy(STORE_JSON)
    data["realistic"]["overall"] = "fast"
    assert run_all.parse_store("", data)[0].value is None


# --- goals, figures, table ------------------------------------------------------


def test_goal_on_value_or_ratio() -> None:
    at_most = Goal("<=", 100)
    assert at_most.holds(100, None) is True
    assert at_most.holds(100.5, None) is False
    assert at_most.holds(None, 0.5) is None
    assert at_most.describe("ms") == "≤ 100 ms"
    on_ratio = Goal(">=", 40, on_ratio=True)
    assert on_ratio.holds(1.0, 41) is True
    assert on_ratio.holds(1000, None) is None
    assert on_ratio.describe("MB/s") == "≥ 40x"
    assert Goal(">=", 100_000).describe("updates/s") == "≥ 100,000 updates/s"


def test_figure_with_a_goal_and_no_value_is_not_judged() -> None:
    figure = Figure("x", "rate", None, "MB/s", 10, "goal", (Goal(">=", 5),))
    assert figure.ratio is None
    assert figure.met is None
    assert run_all.cells(figure) == (
        "x",
        "rate",
        "missing",
        "10 MB/s (goal)",
        "",
        "≥ 5 MB/s",
        "missing",
    )


def sample_figures() -> list[Figure]:
    return [
        *run_all.parse_protocol("", PROTOCOL_JSON),
        *run_all.parse_store("", STORE_JSON),
        *run_all.parse_ui(drop_line(UI_OUTPUT, "from a cold start")),
        *run_all.parse_terminal(TERMINAL_OUTPUT),
        *run_all.parse_diff("", DIFF_JSON),
    ]


def test_plain_table_columns_line_up() -> None:
    figures = sample_figures()
    lines = run_all.plain_table(figures).splitlines()

    header, rule, rows = lines[0], lines[1], lines[2:]
    assert len(rows) == len(figures)
    spans = [match.span() for match in re.finditer(r"-+", rule)]
    assert len(spans) == len(run_all.HEADER)
    for line, expected in zip(
        [header, *rows],
        [run_all.HEADER, *(run_all.cells(f) for f in figures)],
        strict=True,
    ):
        padded = line.ljust(len(rule))
        assert tuple(padded[a:b].strip() for a, b in spans) == expected
    measured = spans[2]
    for line in rows:  # measured values are right-aligned
        assert line[measured[1] - 1] != " "
    cold = by_name(figures)["first frame from a cold start"]
    assert "missing" in rows[figures.index(cold)]


def test_markdown_table() -> None:
    figures = sample_figures()
    lines = run_all.markdown_table(figures).splitlines()

    assert len(lines) == 2 + len(figures)
    assert lines[1] == "| --- | --- | ---: | --- | ---: | --- | --- |"
    for line in lines:
        assert line.startswith("| ")
        assert line.endswith(" |")
        assert len(re.split(r"(?<!\\)\|", line)) == len(run_all.HEADER) + 2
    assert (
        "| protocol | inbound parse+validate, 50,000 v2 updates | 8.70 µs/msg "
        "| 4.16 µs/msg (json.loads) | 2.09x | ≤ 3x | met |"
    ) in lines
    piped = Figure("a|b", "x | y", 1.0)
    assert (
        run_all.markdown_table([piped])
        .splitlines()[2]
        .startswith("| a\\|b | x \\| y | 1 |")
    )


def test_summary_names_failures_and_missing_figures() -> None:
    ok = run_all.Outcome("protocol", run_all.parse_protocol("", PROTOCOL_JSON), 9.2)
    partial = run_all.Outcome(
        "ui", run_all.parse_ui(drop_line(UI_OUTPUT, "from a cold start")), 88.4
    )
    failed = run_all.Outcome(
        "diff", run_all.parse_diff("", None), 120.0, "timed out after 120 s"
    )

    lines = run_all.summary([ok, partial, failed], 217.6)
    assert lines[0].startswith(
        "Total runtime 3 min 38 s (protocol 9 s, ui 1 min 28 s, diff 2 min 00 s)"
    )
    assert "FAILED: diff: timed out after 120 s" in lines
    assert "Missing from ui's output: first frame from a cold start." in lines
    assert not any("protocol" in line for line in lines[1:])


def test_summary_gives_the_share_of_cpu_time_the_host_took(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    quiet = run_all.Outcome("protocol", [], 10.0, stolen=0.2)
    busy = run_all.Outcome("ui", [], 50.0, stolen=25.0)
    unknown = run_all.Outcome("diff", [], 12.0)

    lines = run_all.summary([quiet, busy, unknown], 72.0)
    steal = [line for line in lines if "steal" in line]
    assert len(steal) == 1
    assert "of its 2 CPUs' time: protocol 1%, ui 25%." in steal[0]
    assert "diff" not in steal[0]
    assert not any("steal" in line for line in run_all.summary([unknown], 12.0))


def test_host_steal_reads_the_cpu_line_of_proc_stat() -> None:
    stolen = run_all.host_steal()
    if not Path("/proc/stat").exists():
        assert stolen is None
        return
    assert stolen is not None
    assert stolen >= 0
    again = run_all.host_steal()
    assert again is not None
    assert again >= stolen  # a counter since boot


def test_select_by_name_in_bench_order() -> None:
    chosen = run_all.select(run_all.BENCHES, ["diff,protocol", "ui"])
    assert [bench.name for bench in chosen] == ["protocol", "ui", "diff"]
    assert run_all.select(run_all.BENCHES, None) == list(run_all.BENCHES[:-1])
    with pytest.raises(ValueError, match=r"unknown benchmark.*: nope"):
        run_all.select(run_all.BENCHES, ["ui,nope"])


def test_every_bench_script_exists_and_the_json_ones_take_the_option() -> None:
    names = [bench.name for bench in run_all.BENCHES]
    assert names == [
        "protocol",
        "store",
        "ui",
        "terminal",
        "diff",
        "print",
        "search",
        "remote",
        "exhaustion",
        "long-session",
        "suite",
    ]
    for bench in run_all.BENCHES:
        source = bench.script.read_text("utf-8")
        assert ('"--json"' in source) == bench.json, bench.name
        for option in bench.args[::2]:
            assert f'"{option}"' in source, (bench.name, option)


# --- running (stand-in scripts, not the real benches) ---------------------------


def stand_in(tmp_path: Path, name: str, body: str) -> Path:
    script = tmp_path / f"{name}.py"
    script.write_text(body, "utf-8")
    return script


@pytest.mark.subprocess
def test_run_bench_reads_stdout(tmp_path: Path) -> None:
    script = stand_in(tmp_path, "ui", f"import sys\nsys.stdout.write({UI_OUTPUT!r})\n")
    outcome = run_all.run_bench(Bench("ui", script, (), 30, run_all.parse_ui))

    assert outcome.error is None
    assert outcome.stdout == UI_OUTPUT
    assert outcome.stolen is None or outcome.stolen >= 0
    assert by_name(outcome.figures)["time to first frame"].value == 161


@pytest.mark.subprocess
def test_run_bench_passes_a_json_file_and_reads_it(tmp_path: Path) -> None:
    script = stand_in(
        tmp_path,
        "diff",
        "import json, sys\n"
        "path = sys.argv[sys.argv.index('--json') + 1]\n"
        f"open(path, 'w').write(json.dumps({DIFF_JSON!r}))\n"
        "print('goals NOT met')\n",
    )
    bench = Bench("diff", script, ("--lines", "20000"), 30, run_all.parse_diff, True)
    outcome = run_all.run_bench(bench)

    assert outcome.error is None
    assert outcome.command[2:4] == ["--lines", "20000"]
    assert outcome.command[4] == "--json"
    assert by_name(outcome.figures)["first paint, 20,000 lines, split"].value == (
        pytest.approx(180)
    )


@pytest.mark.subprocess
def test_run_bench_failure_keeps_partial_figures(tmp_path: Path) -> None:
    head = UI_OUTPUT.split("time to first frame")[0]
    script = stand_in(
        tmp_path,
        "ui",
        f"import sys\nsys.stdout.write({head!r})\n"
        "sys.stderr.write('Traceback...\\nTimeoutError: the key\\n')\n"
        "sys.exit(3)\n",
    )
    outcome = run_all.run_bench(Bench("ui", script, (), 30, run_all.parse_ui))

    assert outcome.error == "exit status 3: TimeoutError: the key"
    figures = by_name(outcome.figures)
    assert figures["streaming throughput, 10,000 chunks"].value == 15376
    assert figures["time to first frame"].value is None


@pytest.mark.subprocess
def test_run_bench_json_bench_that_writes_nothing_fails(tmp_path: Path) -> None:
    script = stand_in(tmp_path, "store", "print('no json here')\n")
    bench = Bench("store", script, (), 30, run_all.parse_store, True)
    outcome = run_all.run_bench(bench)

    assert outcome.error == "wrote no --json output"
    assert all(figure.value is None for figure in outcome.figures)


@pytest.mark.subprocess
def test_run_bench_timeout_kills_and_keeps_what_was_printed(tmp_path: Path) -> None:
    script = stand_in(
        tmp_path,
        "terminal",
        "import subprocess, sys, threading\n"
        "print('  pyte HistoryScreen     0.31 MB/s')\n"
        # A grandchild in the same process group, holding the pipe open.
        "child = subprocess.Popen([sys.executable, '-c', "
        "'import threading; threading.Event().wait()'])\n"
        "print('grandchild', child.pid)\n"
        "threading.Event().wait()\n",
    )
    bench = Bench("terminal", script, (), 3, run_all.parse_terminal)
    outcome = run_all.run_bench(bench)

    assert outcome.error == (
        "timed out after 3 s (output cut short; stderr: no error output)"
    )
    assert outcome.figures[0].baseline == 0.31
    assert outcome.figures[0].value is None
    # The whole group was killed: the pipes closed, the grandchild is gone
    # (or a zombie waiting for init to reap it).
    match = re.search(r"grandchild (\d+)", outcome.stdout)
    assert match is not None
    assert ends_within(int(match.group(1)))


@pytest.mark.subprocess
def test_main_prints_the_table_and_fails_when_a_bench_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = stand_in(
        tmp_path, "terminal", f"import sys\nsys.stdout.write({TERMINAL_OUTPUT!r})\n"
    )
    bad = stand_in(tmp_path, "ui", "raise SystemExit('ui broke')\n")
    benches = (
        Bench("ui", bad, (), 30, run_all.parse_ui),
        Bench("terminal", good, (), 30, run_all.parse_terminal),
    )

    assert run_all.main(["--markdown"], benches) == 1
    out = capsys.readouterr().out
    assert out.startswith("| benchmark | figure | measured |")
    assert "| terminal | largest frame gap, worst run | 72 ms |" in out
    assert "| ui | time to first frame | missing |" in out
    assert "FAILED: ui: exit status 1: ui broke" in out

    assert run_all.main(["--only", "terminal"], benches) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == list(run_all.HEADER)
    assert not any(line.startswith("ui ") for line in out.splitlines())


PRINT_JSON: Final = {
    "chunks": 20000,
    "megabytes": 5.0,
    "print_s": [1.5, 1.2, 1.3],
    "loads_s": [0.2, 0.2, 0.25],
    "ratios": [7.5, 6.0, 5.2],
    "ratio": 6.0,
    "worst_ratio": 7.5,
    "goal": 3.0,
}


def test_print_from_json_judged_on_its_worst_run() -> None:
    (figure,) = run_all.parse_print("", PRINT_JSON)
    assert figure.name == "print --format json, 20,000 chunks + 5 MB terminal (median)"
    assert (figure.value, figure.baseline, figure.ratio) == (1.3, 0.2, 6.0)
    assert figure.met is False
    fast = {**PRINT_JSON, "ratios": [2.0, 2.9], "ratio": 2.45, "worst_ratio": 2.9}
    assert run_all.parse_print("", fast)[0].met is True
    (missing,) = run_all.parse_print("", None)
    assert (missing.value, missing.met) == (None, None)


REMOTE_JSON = {
    "chunks": 5000,
    "goal": 1.5,
    "stdio": {
        "chunks_per_s": 9000.0,
        "max_gap_s": 0.078,
        "cpu_s": 0.3,
        "slowdown": 1.0,
    },
    "websocket": {
        "chunks_per_s": 8000.0,
        "max_gap_s": 0.071,
        "cpu_s": 0.3,
        "slowdown": 1.125,
    },
    "http": {"chunks_per_s": 5000.0, "max_gap_s": 0.055, "cpu_s": 0.5, "slowdown": 1.8},
}


def test_remote_figures_judge_each_transport_against_stdio() -> None:
    figures = by_name(run_all.parse_remote("", REMOTE_JSON))
    websocket = figures["streaming over websocket (chunks/s)"]
    http = figures["streaming over http (chunks/s)"]
    assert (websocket.value, websocket.baseline) == (8000.0, 9000.0)
    assert websocket.met is True
    assert http.met is False
    assert figures["largest frame gap over http"].value == 55.0
    missing = run_all.parse_remote("", None)
    assert all(figure.met is None for figure in missing)


SEARCH_JSON: Final = {
    "updates": 10000,
    "largest_stall_s": 0.084,
    "largest_stall_cpu_s": 0.04,
    "key_to_frame_max_s": 0.131,
    "scan_all_s": 0.15,
    "far_jump_s": 0.113,
    "goal_gap_s": 0.1,
}


def test_parse_search_reads_the_json_figures() -> None:
    figures = by_name(run_all.parse_search("", SEARCH_JSON))
    gap = figures["largest frame gap searching 10,000 updates"]
    assert gap.value == pytest.approx(84)
    assert gap.met is True
    cpu = figures["largest frame gap searching: the app's CPU time in it"]
    assert cpu.value == pytest.approx(40)
    keys = figures["key to frame while searching, max"]
    assert keys.value == pytest.approx(131)
    assert keys.met is False
    assert figures["scan after the last key"].value == pytest.approx(150)
    assert figures["jump far back, to the card on screen"].met is None
    missing = by_name(run_all.parse_search("", None))
    assert missing["largest frame gap searching a long session"].value is None


def test_spread_over_runs_is_met_only_when_met_in_every_run() -> None:
    def fig(name: str, value: float | None, baseline: float | None = 100) -> Figure:
        goals = (run_all.Goal("<=", 100),) if baseline is not None else ()
        return Figure("ui", name, value, "ms", baseline, "goal", goals)

    runs = [
        [fig("gap", 67), fig("cold", 500), fig("cpu", 3, None)],
        [fig("gap", 127), fig("cold", 90), fig("cpu", 5, None)],
        [fig("gap", 80), fig("cold", None), fig("cpu", 4, None)],
    ]
    rows = {row.first.name: row for row in run_all.spreads(runs)}
    assert list(rows) == ["gap", "cold", "cpu"]
    gap = rows["gap"]
    assert (gap.values, gap.met_in, gap.met) == ((67, 127, 80), 2, False)
    assert run_all.spread_cells(gap)[2:] == (
        "67 ms-127 ms",
        "0.67x-1.27x",
        "≤ 100 ms",
        "NOT MET (2/3)",
    )
    # A run that lost the figure is a run in which the goal did not hold.
    assert rows["cold"].met is False
    assert "(1 missing)" in run_all.spread_cells(rows["cold"])[2]
    cpu = run_all.spread_cells(rows["cpu"])
    assert (cpu[2], cpu[5]) == ("3 ms-5 ms", "—")
    every = run_all.spreads([[fig("gap", 50)], [fig("gap", 99)]])[0]
    assert every.met
    assert run_all.spread_cells(every)[5] == "met (2/2)"


@pytest.mark.subprocess
def test_main_runs_the_set_n_times_and_prints_the_spread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counter = tmp_path / "count"
    script = stand_in(
        tmp_path,
        "terminal",
        "import pathlib, sys\n"
        f"p = pathlib.Path({str(counter)!r})\n"
        "n = int(p.read_text()) + 1 if p.exists() else 1\n"
        "p.write_text(str(n))\n"
        "gap = 60 + n * 30\n"
        "verdict = 'met' if gap <= 100 else 'NOT MET'\n"
        f"text = {TERMINAL_OUTPUT!r}.replace('gap 72 ms', f'gap {{gap}} ms')\n"
        "text = text.replace('55 ms (goal <= 100 ms: met)', "
        "f'55 ms (goal <= 100 ms: {verdict})')\n"
        "sys.stdout.write(text)\n",
    )
    benches = (Bench("terminal", script, (), 30, run_all.parse_terminal),)

    assert run_all.main(["--runs", "2", "--markdown"], benches) == 0
    out = capsys.readouterr().out
    assert counter.read_text() == "2"
    assert "Run 1 of 2:" in out
    assert "Run 2 of 2:" in out
    spread = out.split("Spread over 2 runs", 1)[1]
    row = next(line for line in spread.splitlines() if "largest frame gap" in line)
    assert "90 ms-120 ms" in row
    assert "NOT MET (1/2)" in row


def test_the_suite_runs_only_when_named_and_is_judged_against_six_minutes() -> None:
    assert "suite" not in [
        bench.name for bench in run_all.select(run_all.BENCHES, None)
    ]
    assert [bench.name for bench in run_all.select(run_all.BENCHES, ["suite"])] == [
        "suite"
    ]
    data = {"seconds": 491.6, "summary": "5419 passed, 1 skipped", "goal_s": 360}
    (figure,) = run_all.parse_suite("", data)
    assert figure.name.endswith(": 5419 passed, 1 skipped")
    assert (figure.value, figure.baseline, figure.met) == (491.6, 360, False)
    assert run_all.parse_suite("", {**data, "seconds": 300.0})[0].met is True
    assert run_all.parse_suite("", None)[0].value is None
