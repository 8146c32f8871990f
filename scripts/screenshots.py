"""Regenerate `screenshots/*.svg` from the real app driving the built-in demo agent.

    uv run python scripts/screenshots.py            # every scene
    uv run python scripts/screenshots.py hero plan  # some scenes

Each scene starts the real `acp-tui` app headless (Textual `run_test`) against the
real demo agent subprocess, types prompts, answers permission dialogs, presses keys,
and saves what is on screen with `App.save_screenshot`. Nothing is drawn by hand.
The demo runs with no streaming delay and a pinned clock, in its scratch project
(`paths.demo_project_dir()`, where `acp-tui` opens it, so its paths read as a
project's) under a fixed throwaway acp-tui home, so reruns give the same pictures
(apart from the spinner).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from textual.pilot import Pilot

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acp_tui.client.agents import load_catalogue, resolve_agent  # noqa: E402
from acp_tui.protocol.transport import AgentCommand  # noqa: E402
from acp_tui.storage import paths  # noqa: E402
from acp_tui.ui.agent_runner import SessionRequest  # noqa: E402
from acp_tui.ui.app import AcpTuiApp, make_app  # noqa: E402
from acp_tui.ui.screens.elicitation import ElicitationScreen  # noqa: E402
from acp_tui.ui.screens.permission import PermissionScreen  # noqa: E402
from acp_tui.ui.screens.review import ReviewScreen  # noqa: E402
from acp_tui.ui.widgets.conversation import Conversation  # noqa: E402
from acp_tui.ui.widgets.subagent_lane import SubagentLane  # noqa: E402

OUT: Final = ROOT / "screenshots"
SCREENS: Final = Path(tempfile.gettempdir()) / "acp-tui-screens"
SIZE: Final = (120, 36)
WAIT_STEPS: Final = 3000
"""At most 30 s per wait (0.01 s steps)."""


@dataclass(frozen=True)
class Scene:
    """One screenshot: prompts to send, then keys to press."""

    name: str
    description: str
    prompts: Sequence[str] = ()
    keys: Sequence[str] = ()
    theme: str | None = None
    answer_permissions: bool = True
    request: SessionRequest | None = None
    scroll_home: bool = False
    """Show the start of the conversation instead of its tail."""
    size: tuple[int, int] = SIZE
    ready: Callable[[AcpTuiApp], bool] = field(default=lambda app: True)
    then: Sequence[str] = ()
    """Prompts sent once the keys were pressed and `ready` holds (a new tab's)."""
    act: Callable[[AcpTuiApp], Awaitable[object]] | None = None
    """Run after the prompts, before the keys (e.g. expand a subagent's lane)."""
    review: bool = False
    """Snapshot and diff each turn for the review (the config's default)."""


async def _expand_first_lane(app: AcpTuiApp) -> None:
    lane = app.query(SubagentLane).first()
    lane.focus()
    await lane.action_toggle_lane()


def _is_permission(app: AcpTuiApp) -> bool:
    """A permission dialog is up and takes keys (its key guard has passed)."""
    screen = app.screen
    return isinstance(screen, PermissionScreen) and screen.armed


def _is_elicitation(app: AcpTuiApp) -> bool:
    """An elicitation dialog is up and takes keys (its key guard has passed)."""
    screen = app.screen
    return isinstance(screen, ElicitationScreen) and screen.guard.armed


def _is_review(app: AcpTuiApp) -> bool:
    return isinstance(app.screen, ReviewScreen)


def _second_tab_open(app: AcpTuiApp) -> bool:
    return len(app.panes) == 2 and app.store is not None


SCENES: Final = (
    Scene(
        "hero",
        "A plain prompt: streamed markdown, a thought, tool calls and a plan",
        prompts=("Hello! Show me what you can do.",),
        scroll_home=True,
        size=(120, 44),
    ),
    Scene("markdown", "A long streamed markdown answer", prompts=("/markdown",)),
    Scene(
        "plan",
        "Two plans that progress, with the plan panel open (F4)",
        prompts=("/plan",),
        keys=("f4",),
    ),
    Scene("edit", "An edit: a tool call with its diff", prompts=("/edit",)),
    Scene("files", "Delete, move and binary changes", prompts=("/files",)),
    Scene("terminal", "A command run in a terminal", prompts=("/run",)),
    Scene(
        "permission",
        "The permission dialog for an edit",
        prompts=("/permission",),
        answer_permissions=False,
        ready=_is_permission,
    ),
    Scene(
        "ask",
        "The agent asks: the form dialog for the demo's /ask",
        prompts=("/ask",),
        ready=_is_elicitation,
        size=(120, 44),
    ),
    Scene(
        "sessions",
        "The session picker (F2)",
        prompts=("/title Refactor the greeting module", "Hello!"),
        keys=("f2",),
    ),
    Scene(
        "tabs",
        "Two sessions in tabs, each with its own agent (ctrl+t opens one)",
        prompts=("/title Refactor the greeting module", "Hello!"),
        keys=("ctrl+t",),
        ready=_second_tab_open,
        then=("/plan",),
    ),
    Scene(
        "subagents",
        "Subagents as lanes: three in parallel, one failed, one expanded",
        prompts=("/subagents",),
        act=_expand_first_lane,
    ),
    Scene(
        "review",
        "The review of a turn's changes (F6): an edit and a shell command's",
        prompts=("/changes",),
        keys=("f6", "down", "down", "down"),
        ready=_is_review,
        review=True,
    ),
    Scene("settings", "The session settings switcher (F3)", keys=("f3",)),
    Scene("keys", "Key help (F1)", keys=("f1",)),
    Scene("misbehave", "A misbehaving agent, handled", prompts=("/misbehave",)),
    Scene(
        "usage",
        "The context meter past 95% (the demo's /usage), with the cost and the "
        "turn's tokens",
        prompts=("/usage",),
    ),
    Scene(
        "light",
        "The light theme",
        prompts=("Hello! Show me what you can do.",),
        theme="acp-light",
        scroll_home=True,
    ),
)


async def _wait(pilot: Pilot[None], condition: Callable[[], bool]) -> None:
    for _ in range(WAIT_STEPS):
        if condition():
            return
        await pilot.pause(0.01)
    raise TimeoutError("the app did not get there in time")


def _turns(app: AcpTuiApp) -> int:
    return app.store.state.turns_ended if app.store is not None else -1


async def _send(pilot: Pilot[None], app: AcpTuiApp, prompt: str, answer: bool) -> None:
    before = _turns(app)
    await pilot.press(*prompt)
    await pilot.press("escape")  # close any completion dropdown
    await pilot.press("enter")
    await _wait(pilot, lambda: app.runner.in_turn or _turns(app) > before)
    while _turns(app) <= before:
        if _is_elicitation(app):
            return  # the agent waits for the answer: the scene shows the question
        if _is_permission(app):
            if not answer:
                return
            await pilot.press("y")
        await pilot.pause(0.01)


async def shoot(scene: Scene, out: Path) -> Path:
    """Run one scene and save its screenshot; returns the file written."""
    home = SCREENS / "home"  # fixed, so paths in the pictures are stable
    shutil.rmtree(home, ignore_errors=True)
    os.environ["ACP_TUI_HOME"] = str(home)
    project = paths.demo_project_dir()  # where `acp-tui` opens the demo
    project.mkdir(parents=True)
    name, command = _demo()
    app = make_app(
        command,
        name,
        cwd=project,
        request=scene.request,
        theme=scene.theme,
        review=scene.review,
    )
    try:
        async with app.run_test(size=scene.size) as pilot:
            await _wait(pilot, lambda: app.store is not None)
            for prompt in scene.prompts:
                await _send(pilot, app, prompt, scene.answer_permissions)
            if scene.scroll_home:
                conversation = app.query_one(Conversation)
                await conversation.load_earlier()
                await pilot.pause(0.3)
                conversation.scroll_home(animate=False)
            if scene.act is not None:
                await scene.act(app)
                await pilot.pause(0.3)
            for key in scene.keys:
                await pilot.press(key)
            await _wait(pilot, lambda: scene.ready(app))
            for prompt in scene.then:
                await _send(pilot, app, prompt, scene.answer_permissions)
            await pilot.pause(0.3)  # let the last refresh land
            return Path(app.save_screenshot(f"{scene.name}.svg", path=str(out)))
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _demo() -> tuple[str, AgentCommand]:
    resolved = resolve_agent("demo", catalogue=load_catalogue())
    return resolved.name, resolved.require()


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the chosen scenes (all by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", help="scene names (default: all)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    chosen = [s for s in SCENES if not args.scenes or s.name in args.scenes]
    unknown = set(args.scenes) - {s.name for s in SCENES}
    if unknown:
        parser.error(f"unknown scenes: {', '.join(sorted(unknown))}")
    os.environ["ACP_TUI_DEMO_DELAY"] = "0"
    os.environ["ACP_TUI_DEMO_NOW"] = "2026-11-29T12:00:00Z"
    args.out.mkdir(parents=True, exist_ok=True)
    for scene in chosen:
        path = asyncio.run(shoot(scene, args.out))
        print(
            f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
            f"{scene.description}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
