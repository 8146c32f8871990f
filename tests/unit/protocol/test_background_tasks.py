"""`background_tasks`: the task group the dispatcher and the connection run in.

The block's own exception comes out as itself (never inside an `ExceptionGroup`),
and the tasks still running when the block ends are cancelled and waited for.
"""

from __future__ import annotations

import anyio
import pytest

from acp_tui.protocol.dispatcher import Dispatcher, background_tasks
from acp_tui.protocol.transport import memory_pair

TIMEOUT = 5


async def test_tasks_left_running_are_cancelled_when_the_block_ends() -> None:
    ended: list[str] = []

    async def forever() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            ended.append("cancelled")

    with anyio.fail_after(TIMEOUT):
        async with background_tasks() as tasks:
            tasks.start_soon(forever)
            await anyio.wait_all_tasks_blocked()
        assert ended == ["cancelled"]


async def test_the_blocks_error_propagates_as_itself() -> None:
    async def fail_inside() -> None:
        async with background_tasks() as tasks:
            tasks.start_soon(anyio.sleep_forever)
            raise KeyError("from the block")

    with anyio.fail_after(TIMEOUT), pytest.raises(KeyError, match="from the block"):
        await fail_inside()


async def test_a_running_dispatchers_block_error_propagates_as_itself() -> None:
    ours, theirs = memory_pair()
    dispatcher = Dispatcher(ours)

    async def fail_inside() -> None:
        async with dispatcher.running():
            raise KeyError("from the block")

    async with ours, theirs:
        with anyio.fail_after(TIMEOUT), pytest.raises(KeyError, match="from the block"):
            await fail_inside()
