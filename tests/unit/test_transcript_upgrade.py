"""Transcripts saved before config options were neutral still load, the same.

`tests/fixtures/transcripts/demo-v{1,2}.jsonl` were written by the release before
the store kept config options version-neutral (record format 1: options in wire
form, v1 `id`/`group`, v2 `configId`/`groupId`): `acp-tui print` against the demo
agent, `/permission`, then `/run` in the same session (`--session`), each a
segment of its own. `demo-before-i22.expected.json` is what that release rebuilt
from each segment (`read_transcript(...).store.to_json()`). Reading them now must
give the same stores: the same conversation, config options (exported in wire
form), tool calls, permissions and terminals, with the options also readable in
the neutral shape the UI uses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.storage.transcripts import read_transcript
from acp_tui.store import ConfigChoice
from acp_tui.store.journal import RECORD_FORMAT, op_from_record, op_to_record

FIXTURES = Path(__file__).parent.parent / "fixtures" / "transcripts"

EXPECTED: dict[str, Any] = json.loads(
    (FIXTURES / "demo-before-i22.expected.json").read_text()
)

MODEL_CHOICES = (
    ConfigChoice("demo-swift", "Demo Swift", "Quick, short answers", "Fast"),
    ConfigChoice("demo-mini", "Demo Mini", "The smallest context window", "Fast"),
    ConfigChoice("demo-deep", "Demo Deep", "A large context window", "Thorough"),
)


def segments(version: int) -> list[str]:
    """The fixture's segments (an `open` header and the op lines after it)."""
    lines = (FIXTURES / f"demo-v{version}.jsonl").read_text().splitlines(True)
    starts = [i for i, line in enumerate(lines) if line.startswith('{"open"')]
    ends = [*starts[1:], len(lines)]
    return ["".join(lines[start:end]) for start, end in zip(starts, ends, strict=True)]


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("segment", [0, 1])
def test_a_transcript_saved_before_loads_the_same(
    tmp_path: Path, version: int, segment: int
) -> None:
    text = segments(version)[segment]
    assert '"version":1,' in text  # saved in the old record format
    path = tmp_path / "t.jsonl"
    path.write_text(text)
    loaded = read_transcript(path)
    assert loaded is not None
    assert loaded.skipped == 0
    store = loaded.store
    expected = EXPECTED[f"v{version}"][str(segment)]
    assert store.to_json() == expected
    # What the widgets read: nothing of it in wire form.
    mode, model, thought = store.settings
    assert (mode.config_id, mode.kind, mode.category) == ("mode", "select", "mode")
    assert mode.current == "ask"
    assert [c.value for c in mode.choices] == ["ask", "code", "plan"]
    assert (model.config_id, model.current, model.choices) == (
        "model",
        "demo-swift",
        MODEL_CHOICES,
    )
    assert (thought.config_id, thought.category) == ("thought_level", "thought_level")
    assert len(store.tool_calls()) == len(expected["toolCalls"]) > 0
    assert len(store.terminals()) == 1
    assert len(store.permissions()) == len(expected["permissions"]) > 0


@pytest.mark.parametrize("version", [1, 2])
def test_the_whole_file_rebuilds_its_last_segment(tmp_path: Path, version: int) -> None:
    loaded = read_transcript(FIXTURES / f"demo-v{version}.jsonl")
    assert loaded is not None
    assert (loaded.segments, loaded.skipped) == (2, 0)
    assert loaded.store.to_json() == EXPECTED[f"v{version}"]["1"]


@pytest.mark.parametrize("version", [1, 2])
def test_an_upgraded_record_is_written_back_in_the_current_format(
    version: int,
) -> None:
    for line in segments(version)[0].splitlines():
        record = json.loads(line)
        if record.get("op") != "SetConfigOptions":
            continue
        op = op_from_record(record, record_format=1)
        again = op_from_record(json.loads(json.dumps(op_to_record(op))))
        assert again == op
        assert RECORD_FORMAT > 1
        return
    raise AssertionError("the fixture has no config options")
