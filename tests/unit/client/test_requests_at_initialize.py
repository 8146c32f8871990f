"""The agent's requests around its `initialize` answer.

One read before the answer is refused (`-32600`: the client is not set up); one
read after it is served once the connection is handed over, even when it was
read before `connect()` took in the answer (`tests/integration/
test_ask_at_initialize.py` has the same write from a real process).
"""

from __future__ import annotations

from typing import Any

import anyio

from acp_tui.client.connection import connect
from acp_tui.protocol.dispatcher import RequestContext
from acp_tui.protocol.transport import memory_pair
from tests.unit.client.peer import BOUND, Peer, v2_init


async def test_a_request_before_the_answer_is_refused_and_one_after_is_served() -> None:
    served: list[str] = []

    async def on_request(method: str, params: Any, context: RequestContext) -> Any:
        served.append(method)
        return {"ok": True}

    client_end, agent_end = memory_pair()
    peer = Peer(agent_end)
    finished = anyio.Event()
    with anyio.fail_after(BOUND):
        async with agent_end, anyio.create_task_group() as group:

            async def agent() -> None:
                initialize = await peer.expect_request("initialize")
                early = await peer.call("_test/early", {})
                assert early["error"]["code"] == -32600, early
                await peer.reply(initialize, v2_init())
                late = await peer.request("_test/late", {})  # no wait in between
                assert (await peer.expect_response(late))["result"] == {"ok": True}
                finished.set()

            group.start_soon(agent)
            async with connect(lambda: client_end, on_request=on_request):
                await finished.wait()
    assert served == ["_test/late"]
