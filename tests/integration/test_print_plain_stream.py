"""A turn of plain updates is printed without building the session/update models.

`tests/fakes/plain_stream_agent.py` streams the shapes of `bench/print.py`'s
stress turn (text chunks, state updates, a tool call and its display terminal).
`client.v2_chunks` and `client.v2_plain` translate each of them without the
wire models, so `acp-tui print` never builds the `session/update` schema (every
update kind's model, about 30 ms); and the document is the very one the models
give (the same run with the fast paths turned off).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

AGENT = Path(__file__).resolve().parent.parent / "fakes" / "plain_stream_agent.py"

PROBE = """
import io, json, sys
from acp_tui.cli import main
from acp_tui.client import v2 as dialect
if sys.argv[1] == "models":
    dialect.fast_chunk_ops = lambda params, bad: None
out, sys.stdout = sys.stdout, io.StringIO()
code = main(["--agent", sys.argv[2], "print", "--format", "json", "go"])
document, sys.stdout = sys.stdout.getvalue(), out
from acp_tui.protocol.schema import v2
built = sorted(
    name for name, value in vars(v2).items()
    if isinstance(value, type) and getattr(value, "__pydantic_complete__", False)
)
result = {"code": code, "document": document, "built": built}
print(json.dumps({**result, "modules": sorted(sys.modules)}))
"""


def _print(tmp_path: Path, path: str) -> dict[str, object]:
    agent = f"{sys.executable} {AGENT} 50"
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, path, agent],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={"ACP_TUI_HOME": str(tmp_path / path), "PATH": "/usr/bin:/bin"},
    )
    result: dict[str, object] = json.loads(completed.stdout.splitlines()[-1])
    assert result["code"] == 0, completed.stderr
    return result


@pytest.mark.subprocess
def test_plain_updates_build_no_session_update_model(tmp_path: Path) -> None:
    built = _print(tmp_path, "fast")["built"]
    assert isinstance(built, list)
    assert "InitializeResponse" in built  # (the probe sees built models)
    assert not set(built) & {
        "UpdateSessionNotification",
        "RunningStateUpdate",
        "IdleStateUpdate",
        "SessionToolCallUpdate",
        "TerminalUpdate",
        "ContentChunk",
    }


@pytest.mark.subprocess
def test_the_document_is_the_models_one(tmp_path: Path) -> None:
    fast = _print(tmp_path, "fast")
    models = _print(tmp_path, "models")
    built = models["built"]
    assert isinstance(built, list)
    assert "UpdateSessionNotification" in built  # (they were used)
    assert fast["document"] == models["document"]
    document = json.loads(str(fast["document"]))
    assert document["state"] == "idle"
    assert document["toolCalls"][0]["status"] == "completed"
    assert document["terminals"][0]["exitStatus"] == {"exitCode": 0}


@pytest.mark.subprocess
def test_print_leaves_the_sessions_listing_alone(tmp_path: Path) -> None:
    modules = _print(tmp_path, "fast")["modules"]
    assert isinstance(modules, list)
    assert "acp_tui.frontends.print_turn" in modules
    assert not set(modules) & {
        "acp_tui.frontends.sessions",
        "acp_tui.client.session_admin",
    }
