"""Re-record the real agents' regression fixtures into `tests/fixtures/recordings/`.

One short full turn per agent and protocol version:

    uv run python scripts/record_real_agents.py            # all of them
    uv run python scripts/record_real_agents.py claude-v2  # some

Each agent (`tests/interop/real_agents.py`, installed by `.ci/install-peers`)
runs one `acp-tui print --format json --permissions allow --record` turn
against its scripted model server (`tests/modelserver`), offline: thinking and
text, a shell command that prints two lines and exits 3, a new file written, a
todo list where the agent has one, an answer. Written per agent:

* `<key>.jsonl`: the recording (`acp-tui replay` plays it; the replay tests play it
  with `python -m acp_tui.demo.replay FILE --instant` and need no Node);
* `<key>.json`: the live run's print document, which the replay must reproduce.

After an intended change of what acp-tui makes of a turn (the print document),
`--documents` rewrites only the `<key>.json` files from the recordings, by replaying
them (no agent, no Node needed); review the diff.

The workspace is always `/tmp/acp-tui-recording/{home,project}` and the agent is
started by its program name on PATH, so no path of the recording machine (a
checkout, a user's home, a pytest directory) is in the files. Nothing secret is
either: the model is the scripted one and its key is `dummy`; the script checks
both before writing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acp_tui import cli  # noqa: E402
from tests.interop.real_agents import AGENTS, RealAgent, Workspace, print_json  # noqa: E402
from tests.interop.scenes import (  # noqa: E402
    HELLO,
    INTRO,
    PLAN,
    PROMPT,
    RECORDED_ANSWER,
    SHELL,
    THOUGHT,
)
from tests.modelserver._script import Reply, Text, Thinking  # noqa: E402

FIXTURES: Final = ROOT / "tests" / "fixtures" / "recordings"
WORKSPACE: Final = Path("/tmp/acp-tui-recording")

FORBIDDEN: Final = (str(ROOT), str(Path.home()), "/work/", "sk-ant-", "sk-proj-")
"""What must not be in a fixture: this checkout, this user's home, real keys."""


def script(agent: RealAgent, workspace: Workspace) -> list[Reply]:
    """The short full turn, in the agent's own tools."""
    kit = agent.toolkit
    return [
        (Thinking(THOUGHT), Text(INTRO), *kit.shell(SHELL)),
        kit.write(workspace.project / "hello.py", HELLO),
        *([kit.todo(PLAN)] if kit.todo is not None else []),
        (Text(RECORDED_ANSWER),),
    ]


def record(agent: RealAgent) -> None:
    """Record `agent`'s turn into FIXTURES."""
    shutil.rmtree(WORKSPACE, ignore_errors=True)
    workspace = Workspace(WORKSPACE).create()
    recording = FIXTURES / f"{agent.key}.jsonl"
    program = Path(agent.argv()[0])
    with agent.server(agent.script({PROMPT: script(agent, workspace)})) as server:
        env = agent.environment(workspace, server)
        env["PATH"] = f"{program.parent}{os.pathsep}{env['PATH']}"
        run = print_json(
            agent,
            workspace,
            env,
            PROMPT,
            "--permissions",
            "allow",
            "--timeout",
            "120",
            "--record",
            str(recording),
            command=" ".join((program.name, *agent.args)),
        )
    if run.code != 0:
        raise SystemExit(f"{agent.key}: exit {run.code}\n{run.err}")
    document = json.dumps(run.document, indent=2, ensure_ascii=False) + "\n"
    (FIXTURES / f"{agent.key}.json").write_text(document)
    for path in (recording, FIXTURES / f"{agent.key}.json"):
        text = path.read_text()
        leaked = [word for word in FORBIDDEN if word in text]
        if leaked:
            raise SystemExit(f"{path} holds {leaked}: not a portable fixture")
    size = recording.stat().st_size
    print(f"{agent.key}: {agent.version()}, {size} bytes -> {recording}")


def document_from_replay(key: str) -> None:
    """Rewrite `<key>.json` from the replay of `<key>.jsonl`."""
    recording = FIXTURES / f"{key}.jsonl"
    live = json.loads((FIXTURES / f"{key}.json").read_text())
    agent = f"{sys.executable} -m acp_tui.demo.replay {recording} --instant"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(
            [
                *("print", "--format", "json", "--agent", agent, "--permissions"),
                *("allow", "--protocol", str(live["protocolVersion"]), PROMPT),
            ]
        )
    if code != 0:
        raise SystemExit(f"{key}: the replay exited {code}")
    document = json.loads(out.getvalue())
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    (FIXTURES / f"{key}.json").write_text(text)
    print(f"{key}: document rewritten from the replay")


def main(argv: list[str] | None = None) -> int:
    """Record the agents named (all by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="*", help=f"some of {', '.join(AGENTS)}")
    parser.add_argument(
        "--documents",
        action="store_true",
        help="only rewrite the <key>.json documents by replaying the recordings",
    )
    args = parser.parse_args(argv)
    unknown = set(args.agents) - set(AGENTS)
    if unknown:
        parser.error(f"unknown agents: {', '.join(sorted(unknown))}")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    os.environ["ACP_TUI_HOME"] = str(WORKSPACE / "acp-tui-home")
    for key in args.agents or list(AGENTS):
        if args.documents:
            document_from_replay(key)
        else:
            record(AGENTS[key])
    shutil.rmtree(WORKSPACE, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
