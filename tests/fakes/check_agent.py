"""A small fake ACP agent (raw JSON lines on stdio) for `acp-tui check`.

Run as `python tests/fakes/check_agent.py [MODE]`. Like `agent.py` it imports
nothing from acp_tui, so the probe cannot agree with it through a shared model.

It answers 2 to a proper v2 `initialize` (one with `info`) and 1 otherwise, and
implements what the probe exercises, in both versions: `session/new`,
`session/prompt`, `session/cancel`, `session/list`, v2 `session/resume` (with
`replayFrom: {type: start}` it replays the session's history first), v1
`session/load` (replays, then answers), `session/close` and `session/delete`.
Sessions live in memory (one process per connection).

A prompt containing "hello" plays a short turn: v2 `{}`, the `user_message`
acknowledgement, `running`, a plan, an agent message chunk, idle `end_turn`; v1
the plan and the chunk, then the response `end_turn`. Any other prompt starts a
long turn that waits for `session/cancel`, then ends `cancelled`.

Modes (all conformant except for the one planted violation, on v2 connections):
  ok                     no violation (the default)
  no-message-id          the v2 agent_message_chunk has no `messageId`
  no-plan-id             the v2 plan has no `planId`
  no-idle-after-cancel   after session/cancel the v2 turn stops, but no idle
                         state_update is ever sent
  exit-at-once           prints a reason to stderr and exits 1 before reading
  crash-on-prompt        prints a reason to stderr and exits 5 on session/prompt
  steering-odd           advertises steering (`_meta.steering.supported`), and
                         `_session/steering` answers `{outcome: queued}`
  asks-url-anyway        a prompt containing "ask" sends a URL
                         `elicitation/create` (both versions), whatever the
                         client advertised, then plays the short turn
"""

from __future__ import annotations

import json
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (agent.py)
if TYPE_CHECKING:
    from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
OUT = sys.stdout.buffer


def write(message: Any) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def reply(rid: Any, result: Any) -> None:
    write({"jsonrpc": "2.0", "id": rid, "result": result})


def fail(rid: Any, code: int, message: str) -> None:
    write({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


INFO = {"name": "check-agent", "title": "Check Agent", "version": "0.1.0"}


class Agent:
    def __init__(self) -> None:
        self.lines = iter(sys.stdin.buffer)
        self.version = 2
        self.sessions: dict[str, dict[str, Any]] = {}
        self.count = 0

    def read(self) -> Any:
        for raw in self.lines:
            try:
                return json.loads(raw)
            except ValueError:
                continue
        return None

    def update(self, sid: str, update: dict[str, Any], *, keep: bool = True) -> None:
        params = {"sessionId": sid, "update": update}
        write({"jsonrpc": "2.0", "method": "session/update", "params": params})
        if keep:
            self.sessions[sid]["history"].append(update)

    def run(self) -> None:
        while True:
            message = self.read()
            if message is None:
                return
            if not isinstance(message, dict) or "id" not in message:
                continue  # notifications (a late session/cancel)
            if "method" not in message:
                continue  # the client's answers (to an elicitation)
            method = message.get("method")
            params = message.get("params") or {}
            handler = getattr(self, "on_" + str(method).replace("/", "_"), None)
            if handler is None:
                fail(message["id"], -32601, "Method not found")
            else:
                handler(message["id"], params)

    # ------------------------------------------------------------------ methods

    def on_initialize(self, rid: Any, params: dict[str, Any]) -> None:
        if params.get("protocolVersion") == 2 and "info" in params:
            self.version = 2
            caps: dict[str, Any] = {"session": {"delete": {}}}
            result = {"protocolVersion": 2, "info": INFO, "capabilities": caps}
            if MODE == "steering-odd":
                result["_meta"] = {"steering": {"supported": True}}
            reply(rid, result)
            return
        self.version = 1
        agent_caps = {
            "loadSession": True,
            "sessionCapabilities": {"list": {}, "close": {}, "delete": {}},
        }
        result = {
            "protocolVersion": 1,
            "agentCapabilities": agent_caps,
            "agentInfo": INFO,
            "authMethods": [],
        }
        reply(rid, result)

    def on__session_steering(self, rid: Any, params: dict[str, Any]) -> None:
        if self.known(rid, params) is not None:
            reply(rid, {"outcome": "queued"})

    def on_session_new(self, rid: Any, params: dict[str, Any]) -> None:
        self.count += 1
        sid = f"chk-{self.count}"
        self.sessions[sid] = {"cwd": params.get("cwd"), "history": []}
        reply(rid, {"sessionId": sid})

    def known(self, rid: Any, params: dict[str, Any]) -> str | None:
        sid = params.get("sessionId")
        if sid not in self.sessions:
            fail(rid, -32002, "Resource not found")
            return None
        return str(sid)

    def on_session_list(self, rid: Any, params: dict[str, Any]) -> None:
        cwd = params.get("cwd")
        listed = [
            {"sessionId": sid, "cwd": session["cwd"]}
            for sid, session in self.sessions.items()
            if cwd is None or session["cwd"] == cwd
        ]
        reply(rid, {"sessions": listed})

    def replay(self, sid: str) -> None:
        for update in list(self.sessions[sid]["history"]):
            self.update(sid, update, keep=False)

    def on_session_resume(self, rid: Any, params: dict[str, Any]) -> None:
        sid = self.known(rid, params)
        if sid is None:
            return
        replay_from = params.get("replayFrom")
        if isinstance(replay_from, dict) and replay_from.get("type") == "start":
            self.replay(sid)
        reply(rid, {})

    def on_session_load(self, rid: Any, params: dict[str, Any]) -> None:
        sid = self.known(rid, params)
        if sid is None:
            return
        self.replay(sid)
        reply(rid, {})

    def on_session_close(self, rid: Any, params: dict[str, Any]) -> None:
        if self.known(rid, params) is not None:
            reply(rid, {})

    def on_session_delete(self, rid: Any, params: dict[str, Any]) -> None:
        sid = self.known(rid, params)
        if sid is not None:
            del self.sessions[sid]
            reply(rid, {})

    def on_session_prompt(self, rid: Any, params: dict[str, Any]) -> None:
        sid = self.known(rid, params)
        if sid is None:
            return
        if MODE == "crash-on-prompt":
            sys.stderr.write("check-agent: crashed on a prompt\n")
            sys.stderr.flush()
            sys.exit(5)
        prompt = params.get("prompt") or []
        said = " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))
        self.count += 1
        n = self.count
        if self.version == 2:
            reply(rid, {})
            self.update(
                sid,
                {
                    "sessionUpdate": "user_message",
                    "messageId": f"u{n}",
                    "content": prompt,
                },
            )
            self.update(
                sid, {"sessionUpdate": "state_update", "state": "running"}, keep=False
            )
        else:  # v1: the client shows the prompt itself; only a replay sends it
            user = {"sessionUpdate": "user_message_chunk", "content": text(said)}
            self.sessions[sid]["history"].append(user)
        if MODE == "asks-url-anyway" and "ask" in said.lower():
            self.ask_url(sid, n)
            self.short_turn(rid, sid, n)
        elif "hello" in said.lower():
            self.short_turn(rid, sid, n)
        else:
            self.long_turn(rid, sid, n)

    def chunk(self, n: int, value: str) -> dict[str, Any]:
        update: dict[str, Any] = {
            "sessionUpdate": "agent_message_chunk",
            "content": text(value),
        }
        if self.version == 2 and MODE != "no-message-id":
            update["messageId"] = f"a{n}"
        return update

    def ask_url(self, sid: str, n: int) -> None:
        """A URL elicitation, never waited for (its answer is skipped)."""
        params = {
            "sessionId": sid,
            "mode": "url",
            "elicitationId": f"e{n}",
            "url": "https://example.com/login",
            "message": "Please sign in",
        }
        write(
            {
                "jsonrpc": "2.0",
                "id": f"ask-{n}",
                "method": "elicitation/create",
                "params": params,
            }
        )

    def short_turn(self, rid: Any, sid: str, n: int) -> None:
        entries = [{"content": "Say hello", "priority": "high", "status": "completed"}]
        if self.version == 2:
            plan: dict[str, Any] = {"type": "items", "entries": entries}
            if MODE != "no-plan-id":
                plan["planId"] = f"p{n}"
            self.update(sid, {"sessionUpdate": "plan_update", "plan": plan})
        else:
            self.update(sid, {"sessionUpdate": "plan", "entries": entries})
        self.update(sid, self.chunk(n, "Hello from the check agent."))
        self.end(rid, sid, "end_turn")

    def long_turn(self, rid: Any, sid: str, n: int) -> None:
        self.update(sid, self.chunk(n, "Working on a long answer..."))
        while True:
            message = self.read()
            if message is None:
                sys.exit(0)
            if (
                isinstance(message, dict)
                and message.get("method") == "session/cancel"
                and (message.get("params") or {}).get("sessionId") == sid
            ):
                break
        self.update(sid, self.chunk(n, " Stopped."))
        if self.version == 2 and MODE == "no-idle-after-cancel":
            return
        self.end(rid, sid, "cancelled")

    def end(self, rid: Any, sid: str, stop: str) -> None:
        if self.version == 2:
            idle = {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": stop,
            }
            self.update(sid, idle, keep=False)
        else:
            reply(rid, {"stopReason": stop})


def main() -> None:
    if MODE == "exit-at-once":
        sys.stderr.write("check-agent: cannot start: no model configured\n")
        sys.stderr.flush()
        sys.exit(1)
    Agent().run()


if __name__ == "__main__":
    main()
