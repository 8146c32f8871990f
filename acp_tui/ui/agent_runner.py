"""The agent connection loop run by the app's long-lived worker.

Starts the agent, negotiates, opens one session, then sends prompts taken from a
queue, one turn at a time. Every failure becomes an `AgentFailed` message with a
plain explanation (and the agent's stderr tail); nothing here raises to the app.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import anyio
from textual.app import App

from acp_tui.client.connection import ClientFeatures, connect
from acp_tui.client.launch import AGENT_FAILURES, AgentLauncher
from acp_tui.client.session import AcpClient
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.protocol.transport import (
    AgentCommand,
    ConnectionClosed,
)
from acp_tui.protocol.version import ProtocolChoice
from acp_tui.store.store import SessionStore
from acp_tui.ui.bridge import ModalPermissionPrompter, StoreBridge
from acp_tui.ui.messages import (
    AgentConnected,
    AgentFailed,
    PromptStarted,
    SessionStarted,
)

__all__ = ["AgentRunner", "AgentSettings"]

log = logging.getLogger(__name__)

SESSION_SETUP_TIMEOUT: Final = 120.0
"""Seconds allowed for `session/new`."""


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """Which agent to run and how to negotiate with it."""

    command: AgentCommand
    name: str
    cwd: Path
    choice: ProtocolChoice = "auto"
    init_timeout: float = 60.0


class AgentRunner:
    """Owns the client, the session store and the prompt queue.

    Args:
        app: Receives the messages and shows permission dialogs.
        settings: The agent to run.
    """

    def __init__(self, app: App[None], settings: AgentSettings) -> None:
        self.app = app
        self.settings = settings
        self.prompts: asyncio.Queue[tuple[int, str]] = asyncio.Queue()
        self.client: AcpClient | None = None
        self.store: SessionStore | None = None
        self.bridge: StoreBridge | None = None
        self.in_turn = False
        self._launcher = AgentLauncher(settings.command, settings.name)

    async def run(self) -> None:
        """Run until the agent fails or the worker is cancelled."""
        try:
            await self._run()
        except AGENT_FAILURES as error:
            failure = self._launcher.explain(error, tail_lines=10)
            self.app.post_message(AgentFailed(failure.message, failure.stderr_tail))
        except Exception as error:  # never a traceback in the UI
            log.exception("agent worker failed")
            self.app.post_message(AgentFailed(f"unexpected error: {error!r}"))
        finally:
            if self.bridge is not None:
                self.bridge.close()

    async def _run(self) -> None:
        settings = self.settings
        client = AcpClient(
            prompter=ModalPermissionPrompter(self.app),
            features=ClientFeatures(read_text_file=True, write_text_file=True),
        )
        async with connect(
            self._launcher.open_stream,
            choice=settings.choice,
            init_timeout=settings.init_timeout,
            features=client.features,
            on_request=client.handle_request,
            on_notification=client.handle_notification,
        ) as connection:
            client.attach(connection)
            self.client = client
            self.app.post_message(
                AgentConnected(connection.agent, connection.protocol_version)
            )
            with anyio.fail_after(SESSION_SETUP_TIMEOUT):
                store = await client.new_session(settings.cwd)
            self.store = store
            self.bridge = StoreBridge(store, self.app)
            self.app.post_message(SessionStarted(store))
            closed: list[str] = []
            failure: list[ConnectionClosed] = []
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    closed.append(await connection.dispatcher.wait_closed())
                    group.cancel_scope.cancel()

                group.start_soon(watch)
                try:
                    await self._serve_prompts(client, store)
                except ConnectionClosed as error:
                    failure.append(error)
                group.cancel_scope.cancel()
            if failure:
                raise failure[0]
            raise ConnectionClosed(closed[0] if closed else "the connection ended")

    async def _serve_prompts(self, client: AcpClient, store: SessionStore) -> None:
        while True:
            prompt_id, text = await self.prompts.get()
            self.in_turn = True
            self.app.post_message(PromptStarted(prompt_id))
            try:
                await client.prompt(store.session_id, [{"type": "text", "text": text}])
            except RpcError as error:
                self.app.post_message(AgentFailed(f"the prompt failed: {error}"))
            finally:
                self.in_turn = False

    async def cancel(self) -> None:
        """Cancel the running turn, if any."""
        if self.client is not None and self.store is not None and self.in_turn:
            await self.client.cancel(self.store.session_id)
