"""`acp-tui print` reports the agent's usage, against the scripted fake agent.

`usage 91`: context usage 91% of 200,000 tokens with a cost of 1.25 EUR
(`usage_update`), and the unstable end-turn usage (v1: on the `session/prompt`
response; v2: on the idle `state_update`). Text ends with a `[usage]` line; the
JSON document has `usage` and `turnUsage`. A turn without end-turn usage has no
`turnUsage` (existing documents are unchanged).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_print import _home, fake, run, run_json

pytestmark = pytest.mark.subprocess

__all__ = ["_home"]

BOTH = pytest.mark.parametrize("version", ["v1", "v2"])


@BOTH
def test_text_ends_with_the_usage_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, version: str
) -> None:
    argv = ["print", "--agent", fake(f"{version}-full"), "--cwd", str(tmp_path)]
    code, out, err = run(capsys, *argv, "usage 91")
    assert code == 0, err
    assert out.splitlines()[-1] == (
        "[usage] context 182000/200000 tokens (91%), cost 1.25 EUR; "
        "turn 53000 tokens (35000 in, 12000 out, 5000 thought)"
    )


@BOTH
def test_json_has_the_turns_usage(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, version: str
) -> None:
    argv = ["--agent", fake(f"{version}-full"), "--cwd", str(tmp_path)]
    code, doc, err = run_json(capsys, *argv, "usage 91")
    assert code == 0, err
    assert doc["usage"] == {
        "used": 182000,
        "size": 200000,
        "cost": {"amount": 1.25, "currency": "EUR"},
    }
    assert doc["turnUsage"] == {
        "totalTokens": 53000,
        "inputTokens": 35000,
        "outputTokens": 12000,
        "thoughtTokens": 5000,
    }
    assert doc["stopReason"] == "end_turn"
