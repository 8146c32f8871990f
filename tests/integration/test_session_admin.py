"""Fork, titles, archive and status (`client/session_admin.py`) against the fake agent.

The fake agent's `v1-sessions` / `v2-sessions` scenarios advertise the TS SDK 2.4
unstable session methods; `v1-full` / `v2-full` do not. Each test runs the real
client stack over a real process for both versions, bounded by `anyio.fail_after`,
and every request of these methods the agent received is validated against the
TS SDK 2.4 unstable schema of its version.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from jsonschema import Draft202012Validator

from acp_tui.client.errors import UnsupportedOperation
from acp_tui.client.session_admin import (
    ForkSource,
    fork_at_message,
    fork_point,
    fork_session,
    list_sessions,
    session_status,
    set_archived,
    set_title,
)
from acp_tui.protocol.jsonrpc import RpcError
from tests.integration.test_fake_agent_full import BOUND, VERSIONS, Agent, Launcher
from tests.spec_examples import SCHEMAS, load_schema

pytestmark = pytest.mark.subprocess

CWD: Final = Path("/tmp/project")

REQUESTS: Final = {
    "session/fork": "ForkSessionRequest",
    "session/set_title": "SetSessionTitleRequest",
    "session/archive": "ArchiveSessionRequest",
    "session/unarchive": "UnarchiveSessionRequest",
    "session/status": "SessionStatusRequest",
    "session/list": "ListSessionsRequest",
}
"""Each method's params definition in the unstable schemas."""

needs_schemas = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason="../shared/acp-schema is not there"
)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@cache
def _validator(version: int, definition: str) -> Any:
    schema = load_schema(f"ts-sdk-2.4.0/v{version}/schema.unstable.json")
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    )


def assert_sent_valid(agent: Agent, version: int) -> int:
    """Validate every request of `REQUESTS` the agent received; return the count."""
    count = 0
    for method, definition in REQUESTS.items():
        for params in agent.received(method):
            errors = [
                e.message for e in _validator(version, definition).iter_errors(params)
            ]
            assert not errors, (method, params, errors)
            count += 1
    return count


def ids(summaries: Any) -> list[str]:
    return [s.session_id for s in summaries]


@pytest.mark.parametrize("version", VERSIONS)
async def test_features_follow_the_markers(tmp_path: Path, version: int) -> None:
    with anyio.fail_after(BOUND):
        launcher = Launcher(tmp_path)
        async with launcher.open(f"v{version}-sessions") as agent:
            features = agent.client.session_features()
            assert (features.fork, features.set_title) == (True, True)
            assert (features.archive, features.status) == (True, True)
            assert fork_at_message(features, agent.client.agent_name)
        async with launcher.open(f"v{version}-full") as agent:
            features = agent.client.session_features()
            flags = (features.fork, features.set_title, features.archive)
            assert flags == (False, False, False)
            assert not features.status
            with pytest.raises(UnsupportedOperation):
                await set_title(agent.client, "s-alpha", "x")
            with pytest.raises(UnsupportedOperation):
                await set_archived(agent.client, "s-alpha", True)
            source = ForkSource("s-alpha")
            with pytest.raises(UnsupportedOperation):
                await fork_session(agent.client, source, CWD)
            # Without the capability the filter is not sent: all three are listed.
            listed = await list_sessions(agent.client, CWD, "only")
            assert len(listed) == 3
            assert "archived" not in agent.received("session/list")[-1]


@needs_schemas
@pytest.mark.parametrize("version", VERSIONS)
async def test_archive_rename_and_status(tmp_path: Path, version: int) -> None:
    with anyio.fail_after(BOUND):
        async with Launcher(tmp_path).open(f"v{version}-sessions") as agent:
            client = agent.client
            listed = await client.list_sessions(CWD)
            assert ids(listed) == ["s-alpha", "s-beta", "s-gamma"]
            assert not any(s.archived for s in listed)
            await set_archived(client, "s-beta", True)
            assert ids(await client.list_sessions(CWD)) == ["s-alpha", "s-gamma"]
            only = await list_sessions(client, CWD, "only")
            assert ids(only) == ["s-beta", "s-delta"]
            assert all(s.archived for s in only)
            await set_archived(client, "s-beta", False)
            everything = await list_sessions(client, CWD, "include")
            assert [s.session_id for s in everything if s.archived] == ["s-delta"]

            assert await set_title(client, "s-gamma", "  Notes  ") == "Notes"
            titles = {s.session_id: s.title for s in await client.list_sessions(CWD)}
            assert titles["s-gamma"] == "Notes"
            with pytest.raises(RpcError):
                await set_title(client, "s-gamma", "   ")

            saved = await session_status(client, "s-alpha")
            assert (saved.status, saved.state) == ("saved", None)
            store = await client.resume_session("s-alpha", CWD, replay=True)
            # The title of an open session is its store's too.
            await set_title(client, "s-alpha", "Parser work")
            assert store.session_info.title == "Parser work"
            opened = await session_status(client, "s-alpha")
            assert opened.status == "open"
            assert opened.state == ("idle" if version == 2 else None)
            assert agent.received("session/archive") == [{"sessionId": "s-beta"}]
            assert assert_sent_valid(agent, version) >= 10


@needs_schemas
@pytest.mark.parametrize("version", VERSIONS)
async def test_fork_at_a_message_copies_the_history_up_to_it(
    tmp_path: Path, version: int
) -> None:
    with anyio.fail_after(BOUND):
        launcher = Launcher(tmp_path)
        async with launcher.open(f"v{version}-sessions") as agent:
            source = await agent.client.resume_session("s-alpha", CWD, replay=True)
            user_key = source.timeline()[0][1]
            # At the user message nothing the agent said comes before: no point.
            assert fork_point(source, user_key) is None
            agent_key = source.timeline()[-1][1]
            point = fork_point(source, agent_key)
            assert point is not None
            message_id, history = point
            assert message_id == "h-a1"
            fork = ForkSource("s-alpha", message_id, history)
        # Another agent process (another tab) forks it.
        async with launcher.open(f"v{version}-sessions") as agent:
            store = await fork_session(agent.client, fork, CWD)
            assert store.session_id == "fork-1"
            sent = agent.received("session/fork")
            assert sent[0]["sessionId"] == "s-alpha"
            assert sent[0]["_meta"] == {
                "jetbrains": {"air": {"fork": {"version": 1, "messageId": "h-a1"}}}
            }
            wanted = source.to_json()
            got = store.to_json()
            for key in ("timeline", "messages", "toolCalls", "plans"):
                assert got[key] == wanted[key], key
            assert [k for k, _ in store.timeline()] == [k for k, _ in source.timeline()]
            # The fork is a live session: it takes a prompt.
            await agent.client.prompt(
                store.session_id, [{"type": "text", "text": "hi"}]
            )
            assert len(store.messages()) > len(source.messages())
            # A whole-session fork sends no fork point.
            await fork_session(agent.client, ForkSource("s-beta"), CWD)
            assert "_meta" not in agent.received("session/fork")[1]
            assert assert_sent_valid(agent, version) == 2
