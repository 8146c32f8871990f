"""acp-tui's own client core (`AcpClient`) connected to a real demo agent process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio

from acp_tui.client.connection import ClientFeatures, connect
from acp_tui.client.ports import (
    ElicitationPrompter,
    PermissionPolicy,
    PermissionRequest,
)
from acp_tui.client.session import AcpClient
from acp_tui.export import terminal_text
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from acp_tui.store.changes import Change
from acp_tui.store.store import SessionStore
from tests.demo.recorder import BOUND, DEMO


class ChoosingPrompter:
    """Answers permission requests with the first option of a preferred kind."""

    def __init__(self, *kinds: str) -> None:
        self.kinds = kinds
        self.asked: list[PermissionRequest] = []

    async def ask(self, request: PermissionRequest) -> str | None:
        self.asked.append(request)
        for kind in self.kinds:
            for option in request.options:
                if option.kind == kind:
                    return option.option_id
        return None


@asynccontextmanager
async def demo_client(
    version: Literal[1, 2],
    prompter: PermissionPolicy | ChoosingPrompter | None = None,
    elicitor: ElicitationPrompter | None = None,
) -> AsyncIterator[AcpClient]:
    """An `AcpClient` on a fresh `python -m acp_tui.demo` (protocol pinned).

    With `elicitor`, form and URL elicitation are advertised and answered by it.
    """
    client = AcpClient(
        prompter=prompter or PermissionPolicy("allow"),
        elicitor=elicitor,
        features=ClientFeatures(
            read_text_file=True,
            write_text_file=True,
            elicitation_form=elicitor is not None,
            elicitation_url=elicitor is not None,
        ),
    )
    async with connect(
        lambda: StdioTransport(AgentCommand(DEMO), name="demo"),
        choice="1" if version == 1 else "2",
        features=client.features,
        on_request=client.handle_request,
        on_notification=client.handle_notification,
    ) as connection:
        client.attach(connection)
        yield client


def snapshot(store: SessionStore) -> dict[str, Any]:
    """The store as `acp-tui print --format json` would show it."""
    return store.to_json(terminal_text)


async def prompt(client: AcpClient, session_id: str, text: str) -> str | None:
    with anyio.fail_after(BOUND):
        return await client.prompt(session_id, [{"type": "text", "text": text}])


async def prompt_and_cancel(
    client: AcpClient,
    store: SessionStore,
    text: str,
    when: Callable[[Sequence[Change]], bool],
) -> str | None:
    """Prompt, and cancel as soon as a store change matches `when`."""
    ready = anyio.Event()

    def listener(changes: Sequence[Change]) -> None:
        if when(changes):
            ready.set()

    unsubscribe = store.subscribe(listener)
    result: list[str | None] = []
    try:
        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as tasks:

                async def turn() -> None:
                    result.append(
                        await client.prompt(
                            store.session_id, [{"type": "text", "text": text}]
                        )
                    )

                tasks.start_soon(turn)
                await ready.wait()
                await client.cancel(store.session_id)
    finally:
        unsubscribe()
    return result[0]
