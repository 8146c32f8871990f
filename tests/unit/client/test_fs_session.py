"""v1 `fs/write_text_file` under `.git`, over the wire: refused unless the user
allows it (`ClientFeatures.git_writes`), with a message that says how."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.client.connection import ClientFeatures
from acp_tui.protocol.jsonrpc import INVALID_PARAMS
from tests.unit.client.peer import open_harness, v1_init


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "config").write_text("[core]\n")
    return tmp_path


async def test_a_write_under_git_is_refused_by_default(repository: Path) -> None:
    features = ClientFeatures(read_text_file=True, write_text_file=True)
    config = repository / ".git" / "config"
    async with open_harness(v1_init(), features=features) as h:
        await h.new_session(cwd=repository)
        refused = await h.peer.call(
            "fs/write_text_file",
            {
                "sessionId": "s1",
                "path": str(config),
                "content": "[core]\n\tfsmonitor = /tmp/evil\n",
            },
        )
        read = await h.peer.call(
            "fs/read_text_file", {"sessionId": "s1", "path": str(config)}
        )
    assert refused["error"]["code"] == INVALID_PARAMS
    assert "allow_git_writes" in refused["error"]["message"]
    assert config.read_text() == "[core]\n"
    assert read["result"] == {"content": "[core]\n"}


async def test_a_write_under_git_when_the_user_allows_it(repository: Path) -> None:
    features = ClientFeatures(write_text_file=True, git_writes=True)
    hook = repository / ".git" / "hooks" / "pre-commit"
    async with open_harness(v1_init(), features=features) as h:
        await h.new_session(cwd=repository)
        response = await h.peer.call(
            "fs/write_text_file",
            {"sessionId": "s1", "path": str(hook), "content": "#!/bin/sh\n"},
        )
    assert response["result"] == {}
    assert hook.read_text() == "#!/bin/sh\n"
