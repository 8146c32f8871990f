"""The demo agent forks, renames, archives and reports status (`demo/session_admin.py`).

Driven through acp-tui's own client core in both versions: a session with two
turns is forked at the first turn's answer by another demo process (the fork
holds the history up to it, and takes prompts), renamed, archived (hidden from
the default list, listed with `include`/`only`) and unarchived; its status is
`open` where it is open and `saved` elsewhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import anyio
import pytest

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
from tests.demo.client import demo_client, prompt
from tests.demo.recorder import BOUND

pytestmark = pytest.mark.subprocess


@pytest.mark.parametrize("version", [1, 2])
async def test_fork_rename_archive_and_status(
    version: Literal[1, 2], project: Path
) -> None:
    with anyio.fail_after(3 * BOUND):
        async with demo_client(version) as client:
            features = client.session_features()
            assert fork_at_message(features, client.agent_name)
            assert (features.set_title, features.archive, features.status) == (
                True,
                True,
                True,
            )
            source = await client.new_session(project)
            await prompt(client, source.session_id, "/title Before the fork")
            first_turn = len(source.timeline())
            await prompt(client, source.session_id, "/plan")
            answer = next(
                key
                for kind, key in reversed(source.timeline()[:first_turn])
                if kind == "message"
                and (m := source.message(key))
                and m.role == "agent"
            )
            point = fork_point(source, answer)
            assert point is not None
            message_id, history = point
            status = await session_status(client, source.session_id)
            assert status.status == "open"
        async with demo_client(version) as client:
            assert (await session_status(client, source.session_id)).status == "saved"
            fork = ForkSource(source.session_id, message_id, history, "Before the fork")
            store = await fork_session(client, fork, project)
            assert store.session_id != source.session_id
            assert store.timeline() == source.timeline()[: len(store.timeline())]
            assert len(store.timeline()) < len(source.timeline())
            await prompt(client, store.session_id, "hello")  # the fork lives on
            listed = {s.session_id: s for s in await client.list_sessions(project)}
            assert listed[store.session_id].title == "Before the fork (fork)"

            assert await set_title(client, store.session_id, " Forked ") == "Forked"
            with pytest.raises(RpcError):
                await set_title(client, store.session_id, "  ")
            await set_archived(client, source.session_id, True)
            default = await client.list_sessions(project)
            assert source.session_id not in [s.session_id for s in default]
            only = await list_sessions(client, project, "only")
            assert [(s.session_id, s.archived) for s in only] == [
                (source.session_id, True)
            ]
            await set_archived(client, source.session_id, False)
            everything = await list_sessions(client, project, "include")
            titles = {s.session_id: s.title for s in everything}
            assert titles[store.session_id] == "Forked"
            assert source.session_id in titles
            with pytest.raises(RpcError):
                await fork_session(client, ForkSource("demo-9999"), project)
