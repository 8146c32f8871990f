"""A scripted fake ACP agent that speaks raw JSON lines on stdio.

Run as `python tests/fakes/agent.py SCENARIO` (that launcher runs `main()` of this
module, so that its bytecode is cached: see `agent.py`). It imports nothing from
acp_tui, so a bug in the client's wire layer cannot hide behind a shared model. Every
message it receives is appended, one JSON object per line, to the file named by
`FAKE_AGENT_RECORD` (when set), so tests can assert what the agent was sent.

Scenarios:
  v2              a real v2 agent (answers 2 with info and capabilities)
  v1              a v1-only agent (answers 1 to any offer)
  lying-v2        echoes the offered version with a v1-shaped body (no `info`), like the
                  Python SDK's echo_agent
  error-on-v2     answers -32602 to a v2 initialize, and 1 to a v1 one
  unsupported     answers protocolVersion 7
  exit-on-init    prints to stderr and exits with code 3 when initialize arrives
  hang            reads everything and never answers
  evil            a v2 agent whose name and stderr carry terminal escape sequences
  garbage         a v2 agent that first writes garbage, invalid UTF-8, an invalid
                  object, an unknown-id response and a 64 MiB notification

With `v1` and `v2`, `session/prompt` plays a full scripted turn (messages, a
thought, a plan, a tool call with a permission request, a terminal, usage, a vendor
update) and ends with `end_turn`. The v1 turn also writes and reads a file through
the client's `fs/*` methods. Prompt text chooses variants:
  "hang"     accept the prompt and wait for session/cancel, then end `cancelled`
  "fail"     answer session/prompt with an error
  "turn-error" (v2) accept the prompt, then end the turn idle with stopReason
             "error" and an `error` object (the 2.4 draft's failed turn)
  "malformed" send a known update with a malformed payload first
  "stubborn" accept the prompt and never end the turn, even after session/cancel
  "reports"  a turn of what the agent reports about itself (`reports_turn`): an
             info notice, a compaction "cmp1" (in_progress, two summary chunks,
             completed), a warning notice with a description, an agent message,
             and (v2) a session message "sm1" from session "s-helper". A v1 agent
             sends notices only when the client set `session.notices`, and the
             compaction only with `session.compaction` (else it says so in an
             agent message); "reports broken" ends the compaction `failed`,
             followed by an error notice
  "subagents" / "subagents wait"  subagents as child sessions (v1: only if the
           client declared the `subagents` capability): tests/fakes/agent_subagents.py
  "paths"  (v2) a turn naming paths: edit "e1" with locations
           <cwd>/notes.txt:2, $HOME/elsewhere/todo.md and `FAR_PATH` (long,
           outside both) and a git_patch diff
           of <cwd>/notes.txt, asked with a tool_call subject (allow once /
           always / reject); then execute "x1" (`make` in <cwd>), asked with a
           command subject, shown as terminal "tx" (cwd <cwd>, exit 0); ends
           `end_turn`

  "cancel-one" (v2), "plan-docs", "named" (v1, v2): see `agent_cards.py`

Session management (the scenarios below play the same prompt turns and variants):
  v2-full         a v2 agent (1 to a v1 offer, with the v1-full body) with
                  `capabilities.session: {delete: {}}` (list, resume and close are
                  v2 baseline) and no auth methods
  v1-full         a v1-only agent with `loadSession: true` and
                  `sessionCapabilities: {list, resume, delete, close}`
  v2-auth         v2-full plus auth methods "agent-login" (type agent) and
                  "terminal-login" (type terminal, args ["--login"],
                  env FAKE_AGENT_LOGIN_UI=plain)
  v1-auth         v1-full plus the same methods in v1 shape (`id`; the agent method
                  untyped; terminal env as a map) and `auth.logout`

In these four:
  session/new     answers "s1", "s2", ... with config options (v2: `mode` select
                  ask/code/plan, `model` select grouped fast{mini}/smart{large,max},
                  `thought_level` select low/medium/high, boolean `auto_approve`;
                  v1: `modes` ask/code plus a flat `model` select), then sends an
                  available_commands_update ("review"; "search" with an input hint)
  session/list    three stored sessions "s-alpha" "Refactor the parser", "s-beta",
                  "s-gamma", two per page behind an opaque `nextCursor`; `cwd` is the
                  one asked for, else /tmp/project (FAKE_AGENT_LIST_CWD, when set,
                  overrides both, like an agent that ignores the filter). Created
                  sessions are not listed.
  session/resume  v2: with `replayFrom: {type: start}`, first replays a stored
                  session's history (user message, plan, completed tool call, agent
                  message "Earlier answer in <title>"), then answers configOptions
                  and availableCommands. v1: no replay; answers modes and
                  configOptions, then sends the commands update.
  session/load    v1: replays the same history in v1 shapes, answers like resume
  session/delete  removes a stored session from the list
  session/close   forgets an open session
  session/set_config_option   checks the id and value (v2 `type: "id"` or
                  `"boolean"`), answers the complete updated list; -32602 otherwise
  session/set_mode    v1: sends current_mode_update, then answers {}
  prompt "agent-switch"  the agent switches its own mode: v2 config_option_update
                      (mode plan), v1 current_mode_update (code); the turn ends
  prompt "read PATH"  v1: the agent asks `fs/read_text_file` for PATH and ends the
                      turn with the message "read PATH: " and the content, or
                      "refused CODE"
  prompt "write PATH"  v1: the agent asks `fs/write_text_file` to write "written by
                      the agent" to PATH and ends the turn with "write PATH: ok" or
                      "write PATH: refused CODE"
  FAKE_AGENT_ADDITIONAL_DIRECTORIES=1  the agent advertises `additionalDirectories`
  FAKE_AGENT_AUTH_STATUS=1  the agent advertises the unstable `auth.status` and
                      answers `auth/status`: "authenticated" with the account
                      `STATUS_ACCOUNT` (Fake Pro, ada@example.com) while logged in,
                      else "unauthenticated"
  prompt "usage N"    a turn that reports context usage N% of 200,000 tokens with a
                      cost of 1.25 EUR (`usage_update`), and ends with the unstable
                      end-turn usage `TURN_USAGE` (v1: on the prompt response; v2:
                      on the idle state_update)
  prompt "auth-update"  the agent sends `auth/status_update` (signed in as
                      `TEAM_ACCOUNT`), then ends the turn
  FAKE_AGENT_STEERING=1  the agent advertises claude-agent-acp's steering extension
                      (`_meta.steering.supported`). During a "hang" turn,
                      `_session/steering` answers `{outcome: injected}`, the agent
                      says "heard: TEXT" and ends the turn `end_turn` (a "hang
                      lapsed" turn answers `promptRequired` and hangs on); with no turn
                      running it answers `{outcome: promptRequired, reason:
                      noRunningTurn}` when asked to (`_meta.steering.idleBehavior`),
                      else `{outcome: startedNewTurn}` and says "heard: TEXT".
                      Without it, `_session/steering` gets -32601
  Unknown session ids get -32002 with `data: {sessionId}`. A prompt saying "crash"
  makes the agent print "fatal: simulated crash" to stderr and exit with code 9.

Client-owned terminals (v1):
  v1-terminal     a v1-only agent (answers 1 to any offer, like `v1`). Its
                  `session/prompt` runs commands in the client's terminals: it
                  creates one (`sh -c`, coloured output, exit 3, an env variable,
                  the session cwd, `outputByteLimit` 1000), embeds it in tool call
                  "run1", waits for its exit, reads its output, releases it, then
                  asks for its output again (an error now). It tries a terminal
                  with cwd "/" (refused unless the session is at /), and one
                  running `sleep 30` that it kills, waits for and releases. Prompt
                  text "orphans" instead starts `sh -c 'sleep 30 & echo pids $$ $!;
                  sleep 30'` in tool call "bg1", and ends the turn without
                  releasing it. The turn's agent message is one JSON object with
                  every response the agent received (keys "created", "exited",
                  "output", "released", "after_release", "outside", "killed",
                  "killed_exit", "killed_output", "killed_release").

The TS SDK 2.4 unstable session methods (the *-full behaviour otherwise):
  v2-sessions     v2-full (v1-full) advertising `fork`, `title`, `archive` and
  v1-sessions     `status` (v2 `capabilities.session`, v1 `sessionCapabilities`),
                  named "@agentclientprotocol/claude-agent-acp" (whose fork point
                  in `_meta.jetbrains.air.fork` the client sends). A fourth stored
                  session "s-delta" "Old experiment" is archived; `session/list`
                  filters by `archived` (exclude by default, include, only) and
                  marks each row `archived`. `session/fork` forks any session id
                  into "fork-1", "fork-2", ... (listed as "Fork of <title>"),
                  answering like session/new and sending no history;
                  `session/set_title` stores the trimmed title and answers it
                  (-32602 if empty); `session/archive` / `unarchive` move a known
                  session; `session/status` answers `open` (v2 with `state: idle`)
                  for an open session, `saved` for a stored one. v1 replays name
                  their messages ("h-u1", "h-a1"). FAKE_AGENT_NAME, when set, is
                  the name instead (an agent not known to fork at a message).

In the *-auth scenarios, session/new, list, resume, load and delete answer -32000
(auth_required) until `auth/login` (v2) or `authenticate` (v1) with "agent-login"
succeeds ({}); any other method id gets -32602. `auth/logout` / `logout` undo it. A
login is kept in the file named by FAKE_AGENT_AUTH_FILE, when set, so later agent
processes see it. `agent.py SCENARIO --login` (the terminal method's args appended)
prints "Logged in to Fake Agent." to stdout, writes that file and exits 0.

Logins that lapse, and odd methods (the *-full behaviour otherwise):
  v2-relogin      v2-auth, but logged in from the start; after `auth/logout` every
  v1-relogin      session method (new, list, resume, load, delete, prompt,
                  set_config_option, set_mode) answers -32000 until a login
                  (v1-relogin: v1-auth's shapes, with `auth.logout`)
  v2-odd-auth     v2-auth's gating, with odd methods: an agent method whose
  v1-odd-auth     `methodId` and `name` are both "", one whose id is 5,000 "x"
                  followed by an escape sequence and markup and whose name is "",
                  one of a custom type "_vendor-sso", and one whose id is a number
                  (invalid: dropped by the client). A login with the empty id
                  succeeds; the long one gets -32602
  v2-unusable-auth  v2-auth's gating, but its only methods are unusable: one of
                  type "_vendor-sso" and one whose id is a number. No login works
"""

from __future__ import annotations

import json
import os
import sys

from tests.fakes.agent_subagents import subagents_turn

try:
    from tests.fakes import agent_cards
except ImportError:  # run as a script: this directory is on the path
    import agent_cards  # type: ignore[no-redef, import-not-found]

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (agent.py)
if TYPE_CHECKING:
    from typing import Any

SCENARIO = sys.argv[1] if len(sys.argv) > 1 else "v2"
RECORD = os.environ.get("FAKE_AGENT_RECORD")
OUT = sys.stdout.buffer
INIT_PARAMS: dict[str, Any] = {}
"""The client's `initialize` params (what it declared)."""


def write(message: Any) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def write_raw(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


def record(message: Any) -> None:
    if RECORD:
        with open(RECORD, "a", encoding="utf-8") as file:
            file.write(json.dumps(message) + "\n")


def v2_result() -> dict[str, Any]:
    return {
        "protocolVersion": 2,
        "info": {"name": "fake-agent", "title": "Fake Agent", "version": "1.0.0"},
        "capabilities": {"session": {}},
        "authMethods": [],
    }


def v1_result() -> dict[str, Any]:
    return {
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": False,
            "sessionCapabilities": {"list": {}},
        },
        "agentInfo": {"name": "fake-agent", "version": "1.0.0"},
        "authMethods": [],
    }


def initialize(request: dict[str, Any]) -> dict[str, Any] | None:
    """Return the reply to initialize, or None to send nothing."""
    params = request.get("params") or {}
    INIT_PARAMS.update(params)
    offered = params.get("protocolVersion")
    rid = request["id"]
    if SCENARIO == "exit-on-init":
        sys.stderr.write("fake-agent: cannot start: missing credentials\n")
        sys.stderr.flush()
        sys.exit(3)
    if SCENARIO == "hang":
        return None
    if SCENARIO == "v1":
        return {"jsonrpc": "2.0", "id": rid, "result": v1_result()}
    if SCENARIO == "v1-terminal":
        return {"jsonrpc": "2.0", "id": rid, "result": v1_result()}
    if SCENARIO == "lying-v2":
        body = v1_result()
        body["protocolVersion"] = offered
        return {"jsonrpc": "2.0", "id": rid, "result": body}
    if SCENARIO == "error-on-v2":
        if offered == 2:
            error = {
                "code": -32602,
                "message": "Invalid params",
                "data": "info missing",
            }
            return {"jsonrpc": "2.0", "id": rid, "error": error}
        return {"jsonrpc": "2.0", "id": rid, "result": v1_result()}
    if SCENARIO == "evil":
        sys.stderr.write("\x1b]0;pwned\x07\x1b[2J evil stderr\n")
        sys.stderr.flush()
        body = v2_result()
        body["info"]["title"] = "Evil\x1b]0;pwned\x07\x1b[31m Agent"
        return {"jsonrpc": "2.0", "id": rid, "result": body}
    if SCENARIO == "unsupported":
        return {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 7}}
    if SCENARIO == "garbage":
        write_raw(b"this is not json\n")
        write_raw(b'{"jsonrpc": "2.0", "method": "x", "params": "\xff"}\n')
        write_raw(b'{"no": "jsonrpc"}\n')
        write({"jsonrpc": "2.0", "id": 424242, "result": {}})
        big = "QUFB" * (16 * 1024 * 1024)  # 64 MiB of base64
        write({"jsonrpc": "2.0", "method": "_fake/big", "params": {"data": big}})
    if offered == 1:
        return {"jsonrpc": "2.0", "id": rid, "result": v1_result()}
    return {"jsonrpc": "2.0", "id": rid, "result": v2_result()}


class Agent:
    """Reads the client's messages; can wait for the answer to its own requests."""

    def __init__(self) -> None:
        self.next_id = 1000
        self.lines = iter(sys.stdin.buffer)
        self.cwd = "/"
        self.cancelled: set[str] = set()
        self.client_session: dict[str, Any] = {}
        """`clientCapabilities.session` of the client's `initialize`."""

    def read(self) -> Any:
        for raw in self.lines:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            record(message)
            return message
        return None

    def call(self, method: str, params: Any) -> Any:
        """Send a request to the client and wait for its response."""
        self.next_id += 1
        rid = self.next_id
        write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            message = self.read()
            if message is None:
                sys.exit(0)
            if message.get("id") == rid and "method" not in message:
                return message
            if message.get("method") == "session/cancel":
                self.cancelled.add(message["params"]["sessionId"])

    def update(self, session_id: str, update: dict[str, Any]) -> None:
        params = {"sessionId": session_id, "update": update}
        write({"jsonrpc": "2.0", "method": "session/update", "params": params})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


STEERING = bool(os.environ.get("FAKE_AGENT_STEERING"))
"""The agent advertises and serves `_session/steering` (see the docstring)."""

STEERING_META: dict[str, Any] = (
    {"_meta": {"steering": {"supported": True}}} if STEERING else {}
)


def steered_text(params: dict[str, Any]) -> str:
    prompt = params.get("prompt") or []
    return " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))


def hang(agent: Agent, sid: str, lapsed: bool = False) -> str | None:
    """Wait for session/cancel (None) or, with steering, a steer (its text).

    None too when the client went away. `lapsed`: answer steers as if the turn
    had just ended (`promptRequired`) and keep waiting.
    """
    while sid not in agent.cancelled:
        message = agent.read()
        if message is None:
            return None
        if message.get("method") == "session/cancel":
            agent.cancelled.add(message["params"]["sessionId"])
        elif message.get("method") == "_session/steering" and "id" in message:
            if not STEERING:
                error = {"code": -32601, "message": "Method not found"}
                write({"jsonrpc": "2.0", "id": message["id"], "error": error})
                continue
            if lapsed:
                result = {"outcome": "promptRequired", "reason": "noRunningTurn"}
                write({"jsonrpc": "2.0", "id": message["id"], "result": result})
                continue
            result = {"outcome": "injected"}
            write({"jsonrpc": "2.0", "id": message["id"], "result": result})
            return steered_text(message.get("params") or {})
    return None


def reports_turn(agent: Agent, sid: str, said: str, version: int) -> None:
    """Notices, a compaction and (v2) a session message; the caller ends the turn.

    v1 sends notices and compactions only to a client that opted in.
    """

    def up(update: dict[str, Any]) -> None:
        agent.update(sid, update)

    notices = version == 2 or agent.client_session.get("notices") is not None
    compaction = version == 2 or agent.client_session.get("compaction") is not None
    message_id = {"messageId": "a-rep"} if version == 2 else {}

    def say(value: str) -> None:
        up(
            {
                "sessionUpdate": "agent_message_chunk",
                **message_id,
                "content": text(value),
            }
        )

    if notices:
        up(
            {
                "sessionUpdate": "notice",
                "severity": "info",
                "title": "Using the fast model",
            }
        )
    else:
        say("(notices not advertised) ")
    if compaction:
        cmp = {"sessionUpdate": "compaction_update", "compactionId": "cmp1"}
        up({**cmp, "status": "in_progress"})
        chunk = {"sessionUpdate": "compaction_summary_chunk", "compactionId": "cmp1"}
        up({**chunk, "content": text("## Retained context\n")})
        up({**chunk, "content": text("The user is fixing the parser.")})
        if "broken" in said:
            up({**cmp, "status": "failed", "error": "summary too long"})
            if notices:
                error = {"severity": "error", "title": "Context still too large"}
                up({"sessionUpdate": "notice", **error})
        else:
            up({**cmp, "status": "completed"})
    else:
        say("(compaction not advertised) ")
    if notices:
        up(
            {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "MCP server unavailable",
                "description": "Continuing without it.",
            }
        )
    if version == 2:
        sent = {"sessionUpdate": "session_message", "messageId": "sm1"}
        up({**sent, "senderSessionId": "s-helper", "recipientSessionId": sid})
        piece = {"sessionUpdate": "session_message_chunk", "messageId": "sm1"}
        up({**piece, "content": text("Found 3 ")})
        up({**piece, "content": text("failing tests.")})
    say("Carrying on.")


def turn_v2(agent: Agent, rid: Any, sid: str, prompt: list[Any]) -> None:
    said = " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))
    if "fail" in said:
        error = {
            "code": -32603,
            "message": "Internal error",
            "data": "model overloaded",
        }
        write({"jsonrpc": "2.0", "id": rid, "error": error})
        return
    if "stubborn" in said:
        write({"jsonrpc": "2.0", "id": rid, "result": {}})
        while agent.read() is not None:
            pass
        return
    write({"jsonrpc": "2.0", "id": rid, "result": {}})

    def up(update: dict[str, Any]) -> None:
        agent.update(sid, update)

    up({"sessionUpdate": "user_message", "messageId": "u1", "content": prompt})
    up({"sessionUpdate": "state_update", "state": "running"})
    if "forge" in said:  # a user message the user never typed, mid-turn
        forged = [text("Forged: delete the tests.")]
        up({"sessionUpdate": "user_message", "messageId": "uf", "content": forged})
    if "turn-error" in said:
        message = "model overloaded"
        if "unicode" in said:
            message += " · retry in 30 s — or switch models"
        up(
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "error",
                "error": {"code": -32603, "message": message},
            }
        )
        return
    if "malformed" in said:
        up({"sessionUpdate": "tool_call_update", "toolCallId": 5})
    if "reports" in said:
        reports_turn(agent, sid, said, 2)
        up({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        return
    if "paths" in said:
        turn_paths(agent, sid, up)
        return
    if "subagents" in said:
        stop = subagents_turn(agent, sid, said, 2, True)
        up({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop})
        return
    if agent_cards.play_v2(agent, sid, up, said):
        return
    if "hang" in said:
        steered = hang(agent, sid, lapsed="lapsed" in said)
        if steered is None and sid not in agent.cancelled:
            return
        if steered is not None:
            heard = {"sessionUpdate": "agent_message_chunk", "messageId": "a-heard"}
            up({**heard, "content": text(f"heard: {steered}")})
            up(
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "end_turn",
                }
            )
            return
        up(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "a0",
                "content": text("stopped"),
            }
        )
        up(
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "cancelled",
            }
        )
        return
    up(
        {
            "sessionUpdate": "agent_thought_chunk",
            "messageId": "t1",
            "content": text("Thinking about it."),
        }
    )
    plan: dict[str, Any] = {
        "type": "items",
        "planId": "p1",
        "entries": [
            {"content": "Look around", "priority": "high", "status": "in_progress"},
            {"content": "Answer", "priority": "medium", "status": "pending"},
        ],
    }
    up({"sessionUpdate": "plan_update", "plan": plan})
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "title": "Run ls",
            "kind": "execute",
            "status": "pending",
            "rawInput": {"command": "ls"},
        }
    )
    answer = agent.call(
        "session/request_permission",
        {
            "sessionId": sid,
            "title": "Run ls?",
            "description": "Lists the directory",
            "subject": {
                "type": "tool_call",
                "toolCall": {
                    "toolCallId": "c1",
                    "status": "pending",
                    "kind": "execute",
                },
            },
            "options": [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
            ],
        },
    )
    chosen = answer.get("result", {}).get("outcome", {}).get("optionId")
    allowed = chosen in ("yes", "always")
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "t1"}],
        }
    )
    up(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t1",
            "command": "ls",
            "cwd": "/tmp",
        }
    )
    up(
        {
            "sessionUpdate": "terminal_output_chunk",
            "terminalId": "t1",
            "data": b64(b"\x1b[32mfile.txt\x1b[0m\r\n"),
        }
    )
    up(
        {
            "sessionUpdate": "terminal_output_chunk",
            "terminalId": "t1",
            "data": b64(b"done\r\n"),
        }
    )
    up(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "t1",
            "exitStatus": {"exitCode": 0},
        }
    )
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed" if allowed else "failed",
            "rawOutput": {"ok": allowed},
        }
    )
    up(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": text("listed")},
        }
    )
    plan["entries"][0]["status"] = "completed"
    plan["entries"][1]["status"] = "completed"
    up({"sessionUpdate": "plan_update", "plan": plan})
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": text("Hello "),
        }
    )
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": text("\x1b]0;pwned\x07world"),
        }
    )
    up(
        {
            "sessionUpdate": "usage_update",
            "used": 1200,
            "size": 200000,
            "cost": {"amount": 0.01, "currency": "USD"},
        }
    )
    up({"sessionUpdate": "session_info_update", "title": "Greeting"})
    up({"sessionUpdate": "_vendor_sparkle", "level": 3})
    up({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


FAR_PATH = "/var/lib/fake-agent/builds/2026/nightly/linux-x86_64/reports/summary.txt"
"""A long path outside the session's directory and the home directory."""

PATHS_OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


def turn_paths(agent: Agent, sid: str, up: Any) -> None:
    """The "paths" prompt (v2): tool calls, a diff, permissions and a terminal that
    name files in the session's directory and one under $HOME outside it."""
    cwd = agent.cwd.rstrip("/") or "/"
    notes = cwd.rstrip("/") + "/notes.txt"
    todo = os.environ.get("HOME", "/nonexistent").rstrip("/") + "/elsewhere/todo.md"
    patch = (
        f"diff --git {notes} {notes}\n--- {notes}\n+++ {notes}\n"
        "@@ -1 +1,2 @@\n Things to remember:\n+- water the plants\n"
    )
    diff = {
        "type": "diff",
        "changes": [{"operation": "modify", "path": notes}],
        "patch": {"format": "git_patch", "text": patch},
    }
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "e1",
            "title": "Edit notes.txt",
            "kind": "edit",
            "status": "pending",
            "locations": [
                {"path": notes, "line": 2},
                {"path": todo},
                {"path": FAR_PATH},
            ],
            "rawInput": {"file_path": notes},
            "content": [diff],
        }
    )
    agent.call(
        "session/request_permission",
        {
            "sessionId": sid,
            "title": "Edit notes.txt?",
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": "e1"}},
            "options": PATHS_OPTIONS,
        },
    )
    up({"sessionUpdate": "tool_call_update", "toolCallId": "e1", "status": "completed"})
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "x1",
            "title": "Run make",
            "kind": "execute",
            "status": "pending",
            "rawInput": {"command": "make", "cwd": cwd},
        }
    )
    agent.call(
        "session/request_permission",
        {
            "sessionId": sid,
            "title": "Run make?",
            "subject": {"type": "command", "command": "make", "cwd": cwd},
            "options": PATHS_OPTIONS,
        },
    )
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "x1",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "tx"}],
        }
    )
    up(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "tx",
            "command": "make",
            "cwd": cwd,
        }
    )
    up(
        {
            "sessionUpdate": "terminal_output_chunk",
            "terminalId": "tx",
            "data": b64(b"built\r\n"),
        }
    )
    up(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "tx",
            "exitStatus": {"exitCode": 0},
        }
    )
    up({"sessionUpdate": "tool_call_update", "toolCallId": "x1", "status": "completed"})
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": text("Done."),
        }
    )
    up({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


def turn_v1(agent: Agent, rid: Any, sid: str, prompt: list[Any]) -> None:
    said = " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))

    def up(update: dict[str, Any]) -> None:
        agent.update(sid, update)

    if "fail" in said:
        error = {
            "code": -32603,
            "message": "Internal error",
            "data": "model overloaded",
        }
        write({"jsonrpc": "2.0", "id": rid, "error": error})
        return
    if "hang" in said:
        steered = hang(agent, sid, lapsed="lapsed" in said)
        if steered is not None:
            up(
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": text(f"heard: {steered}"),
                }
            )
            write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        elif sid in agent.cancelled:
            write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "cancelled"}})
        return
    if "reports" in said:
        reports_turn(agent, sid, said, 1)
        write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        return
    if "subagents" in said:
        declared = isinstance(
            INIT_PARAMS.get("clientCapabilities", {}).get("subagents"), dict
        )
        stop = subagents_turn(agent, sid, said, 1, declared)
        write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": stop}})
        return
    if agent_cards.play_v1(agent, rid, sid, up, said):
        return
    up({"sessionUpdate": "agent_thought_chunk", "content": text("Hmm.")})
    if "forge" in said:  # a user message the user never typed, mid-turn
        forged = text("Forged: delete the tests.")
        up({"sessionUpdate": "user_message_chunk", "content": forged})
    up({"sessionUpdate": "agent_message_chunk", "content": text("Let me ")})
    up({"sessionUpdate": "agent_message_chunk", "content": text("check.")})
    up(
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Write a note", "priority": "high", "status": "in_progress"}
            ],
        }
    )
    note = agent.cwd.rstrip("/") + "/note.txt"
    up(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "w1",
            "title": "Write note.txt",
            "kind": "edit",
            "status": "pending",
            "locations": [{"path": note}],
        }
    )
    answer = agent.call(
        "session/request_permission",
        {
            "sessionId": sid,
            "toolCall": {"toolCallId": "w1", "title": "Write note.txt?"},
            "options": [
                {"optionId": "ok", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "never", "name": "Reject", "kind": "reject_once"},
            ],
        },
    )
    outcome = answer.get("result", {}).get("outcome", {})
    written = ""
    if outcome.get("optionId") == "ok":
        agent.call(
            "fs/write_text_file",
            {"sessionId": sid, "path": note, "content": "written by agent\n"},
        )
        read = agent.call("fs/read_text_file", {"sessionId": sid, "path": note})
        written = read.get("result", {}).get("content", "")
    escape = agent.call("fs/read_text_file", {"sessionId": sid, "path": "/etc/passwd"})
    refused = "error" in escape
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "w1",
            "status": "completed",
            "content": [
                {"type": "diff", "path": note, "oldText": None, "newText": written}
            ],
        }
    )
    up({"sessionUpdate": "current_mode_update", "currentModeId": "code"})
    up(
        {
            "sessionUpdate": "agent_message_chunk",
            "content": text(
                f" read back: {written.strip()}; outside refused: {refused}"
            ),
        }
    )
    write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})


# --- The *-full and *-auth scenarios ------------------------------------------------
#
# Tables of data first, then small builders, then `FullAgent`, whose methods answer
# one request each. Everything is plain JSON in the wire shape of each version.

RELOGIN_SCENARIOS = ("v2-relogin", "v1-relogin")
ODD_AUTH_SCENARIOS = ("v2-odd-auth", "v1-odd-auth")
UNUSABLE_AUTH_SCENARIOS = ("v2-unusable-auth",)
AUTH_SCENARIOS = (
    "v2-auth",
    "v1-auth",
    *RELOGIN_SCENARIOS,
    *ODD_AUTH_SCENARIOS,
    *UNUSABLE_AUTH_SCENARIOS,
)
SESSIONS_SCENARIOS = ("v2-sessions", "v1-sessions")
FULL_SCENARIOS = ("v2-full", "v1-full", *AUTH_SCENARIOS, *SESSIONS_SCENARIOS)
# The TS SDK 2.4 unstable session methods the *-sessions scenarios advertise.
SESSION_ADMIN: dict[str, Any] = {"fork": {}, "title": {}, "archive": {}, "status": {}}
# claude-agent-acp's name: the client then sends the fork point it reads.
SESSIONS_AGENT_NAME = os.environ.get(
    "FAKE_AGENT_NAME", "@agentclientprotocol/claude-agent-acp"
)
AUTH_FILE = os.environ.get("FAKE_AGENT_AUTH_FILE")

AUTH_REQUIRED = -32000
RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601

DEFAULT_CWD = "/tmp/project"
LIST_CWD = os.environ.get("FAKE_AGENT_LIST_CWD")
ADDITIONAL_DIRECTORIES: dict[str, Any] = (
    {"additionalDirectories": {}}
    if os.environ.get("FAKE_AGENT_ADDITIONAL_DIRECTORIES")
    else {}
)
PAGE_SIZE = 2

# (sessionId, title, updatedAt), most recent first.
STORED_SESSIONS = (
    ("s-alpha", "Refactor the parser", "2026-11-28T16:30:00Z"),
    ("s-beta", "Fix the flaky login test", "2026-11-27T09:15:00Z"),
    ("s-gamma", "Write the release notes", "2026-11-20T12:00:00Z"),
)

# (value, name, description). v1 offers only the first two, as `modes`.
MODES = (
    ("ask", "Ask", "Answer questions without changing files"),
    ("code", "Code", "Edit files and run commands"),
    ("plan", "Plan", "Make a plan before acting"),
)
V1_MODES = MODES[:2]

# (groupId, group name, ((value, name), ...)).
MODEL_GROUPS = (
    ("fast", "Fast", (("mini", "Fake Mini"),)),
    ("smart", "Smart", (("large", "Fake Large"), ("max", "Fake Max"))),
)
THOUGHT_LEVELS = (("low", "Low"), ("medium", "Medium"), ("high", "High"))

# The settings of a session that was just created or resumed.
DEFAULT_SETTINGS: dict[str, Any] = {
    "mode": "ask",
    "model": "large",
    "thought_level": "medium",
    "auto_approve": False,
}

# (name, description, input hint or None).
COMMANDS = (
    ("review", "Review the current changes", None),
    ("search", "Search the project", "what to search for"),
)

AGENT_LOGIN = "agent-login"
TERMINAL_LOGIN = "terminal-login"
LOGIN_ARGS = ["--login"]
LOGIN_ENV = {"FAKE_AGENT_LOGIN_UI": "plain"}
LOGGED_IN_TEXT = "Logged in to Fake Agent.\n"

# Methods answered with auth_required until the user logs in (the *-auth scenarios).
AUTH_GATED = frozenset(
    {"session/new", "session/list", "session/resume", "session/load", "session/delete"}
)
# ... and in the *-relogin scenarios, once logged out.
RELOGIN_GATED = AUTH_GATED | {
    "session/prompt",
    "session/set_config_option",
    "session/set_mode",
}

ODD_LOGIN = ""

AUTH_STATUS = bool(os.environ.get("FAKE_AGENT_AUTH_STATUS"))
STATUS_ACCOUNT = {"label": "Fake Pro", "email": "ada@example.com", "active": True}
TEAM_ACCOUNT = {"label": "Fake Team", "name": "Team Account", "active": True}
TURN_USAGE = {
    "totalTokens": 53000,
    "inputTokens": 35000,
    "outputTokens": 12000,
    "thoughtTokens": 5000,
}
LONG_ODD_ID = "x" * 5000 + "\x1b[31m[b]red[/b]"


class Reject(Exception):
    """Answer the current request with this JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            self.error["data"] = data


def invalid(data: str) -> Reject:
    return Reject(INVALID_PARAMS, "Invalid params", data)


def not_found(session_id: Any) -> Reject:
    return Reject(RESOURCE_NOT_FOUND, "Resource not found", {"sessionId": session_id})


# -- wire builders ------------------------------------------------------------------


def odd_auth_methods(version: int) -> list[dict[str, Any]]:
    key = "id" if version == 1 else "methodId"
    typed = {} if version == 1 else {"type": "agent"}
    methods: list[dict[str, Any]] = []
    if SCENARIO in ODD_AUTH_SCENARIOS:
        methods += [
            {key: ODD_LOGIN, "name": "", **typed},
            {key: LONG_ODD_ID, "name": "", **typed},
        ]
    methods += [
        {key: "sso", "name": "Company SSO", "type": "_vendor-sso"},
        {key: 42, "name": "A number for an id", **typed},
    ]
    return methods


def auth_methods(version: int) -> list[dict[str, Any]]:
    if SCENARIO in ODD_AUTH_SCENARIOS or SCENARIO in UNUSABLE_AUTH_SCENARIOS:
        return odd_auth_methods(version)
    agent = {
        "name": "Log in with Fake Agent",
        "description": "The agent opens its own login flow",
    }
    terminal = {
        "name": "Log in from the terminal",
        "description": "Run the agent's interactive login",
        "type": "terminal",
        "args": list(LOGIN_ARGS),
    }
    if version == 1:  # `id`; the agent method has no `type`; env is a map
        return [
            {"id": AGENT_LOGIN, **agent},
            {"id": TERMINAL_LOGIN, **terminal, "env": dict(LOGIN_ENV)},
        ]
    env = [{"name": name, "value": value} for name, value in LOGIN_ENV.items()]
    return [
        {"methodId": AGENT_LOGIN, **agent, "type": "agent"},
        {"methodId": TERMINAL_LOGIN, **terminal, "env": env},
    ]


def full_v2_result() -> dict[str, Any]:
    # v2: `session: {}` already means new/list/resume/close/prompt/cancel; delete
    # has its own marker.
    session: dict[str, Any] = {"delete": {}, **ADDITIONAL_DIRECTORIES}
    info = {"name": "fake-agent", "title": "Fake Agent", "version": "1.0.0"}
    if SCENARIO in SESSIONS_SCENARIOS:
        session.update(SESSION_ADMIN)
        info["name"] = SESSIONS_AGENT_NAME
    return {
        "protocolVersion": 2,
        "info": info,
        "capabilities": {
            "session": session,
            **({"auth": {"status": {}}} if AUTH_STATUS else {}),
        },
        "authMethods": auth_methods(2) if SCENARIO in AUTH_SCENARIOS else [],
        **STEERING_META,
    }


def full_v1_result() -> dict[str, Any]:
    capabilities: dict[str, Any] = {
        "loadSession": True,
        "sessionCapabilities": {
            "list": {},
            "resume": {},
            "delete": {},
            "close": {},
            **ADDITIONAL_DIRECTORIES,
        },
    }
    if SCENARIO in AUTH_SCENARIOS:
        capabilities["auth"] = {"logout": {}}
    if AUTH_STATUS:
        capabilities.setdefault("auth", {})["status"] = {}
    name = "fake-agent"
    if SCENARIO in SESSIONS_SCENARIOS:
        capabilities["sessionCapabilities"].update(SESSION_ADMIN)
        name = SESSIONS_AGENT_NAME
    return {
        "protocolVersion": 1,
        "agentCapabilities": capabilities,
        "agentInfo": {"name": name, "title": "Fake Agent", "version": "1.0.0"},
        "authMethods": auth_methods(1) if SCENARIO in AUTH_SCENARIOS else [],
        **STEERING_META,
    }


def choices(table: Any) -> list[dict[str, Any]]:
    """`(value, name[, description])` rows as select options."""
    options = []
    for row in table:
        option = {"value": row[0], "name": row[1]}
        if len(row) > 2:
            option["description"] = row[2]
        options.append(option)
    return options


def v2_config_options(settings: dict[str, Any]) -> list[dict[str, Any]]:
    groups = [
        {"groupId": group_id, "name": name, "options": choices(models)}
        for group_id, name, models in MODEL_GROUPS
    ]

    def select(config_id: str, name: str, options: Any) -> dict[str, Any]:
        return {
            "configId": config_id,
            "name": name,
            "category": config_id,
            "type": "select",
            "currentValue": settings[config_id],
            "options": options,
        }

    return [
        select("mode", "Mode", choices(MODES)),
        select("model", "Model", groups),
        select("thought_level", "Thinking", choices(THOUGHT_LEVELS)),
        {
            "configId": "auto_approve",
            "name": "Auto-approve",
            "description": "Run tools without asking first",
            "type": "boolean",
            "currentValue": settings["auto_approve"],
        },
    ]


def v1_config_options(settings: dict[str, Any]) -> list[dict[str, Any]]:
    models = [model for _, _, rows in MODEL_GROUPS for model in rows]
    return [
        {
            "id": "model",
            "name": "Model",
            "category": "model",
            "type": "select",
            "currentValue": settings["model"],
            "options": choices(models),
        }
    ]


def v1_modes(settings: dict[str, Any]) -> dict[str, Any]:
    available = [
        {"id": mode_id, "name": name, "description": description}
        for mode_id, name, description in V1_MODES
    ]
    return {"currentModeId": settings["mode"], "availableModes": available}


def commands(version: int) -> list[dict[str, Any]]:
    result = []
    for name, description, hint in COMMANDS:
        command: dict[str, Any] = {"name": name, "description": description}
        if hint is not None:
            command["input"] = {"hint": hint} if version == 1 else text_input(hint)
        result.append(command)
    return result


def text_input(hint: str) -> dict[str, Any]:
    return {"type": "text", "hint": hint}


def option_values(option: dict[str, Any]) -> list[str]:
    """The values a select option offers, grouped or not."""
    values: list[str] = []
    for entry in option.get("options", []):
        if "options" in entry:  # a group
            values.extend(choice["value"] for choice in entry["options"])
        else:
            values.append(entry["value"])
    return values


def history_v2(title: str, cwd: str) -> list[dict[str, Any]]:
    return [
        {
            "sessionUpdate": "user_message",
            "messageId": "h-u1",
            "content": [text(f"Earlier question in {title}")],
        },
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "h-p1",
                "entries": [
                    {
                        "content": "Read the code",
                        "priority": "high",
                        "status": "completed",
                    }
                ],
            },
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "h-c1",
            "title": "Read README.md",
            "kind": "read",
            "status": "completed",
            "locations": [{"path": cwd.rstrip("/") + "/README.md"}],
        },
        {
            "sessionUpdate": "agent_message",
            "messageId": "h-a1",
            "content": [text(f"Earlier answer in {title}")],
        },
    ]


def history_v1(title: str, cwd: str) -> list[dict[str, Any]]:
    return [
        {
            "sessionUpdate": "user_message_chunk",
            "content": text(f"Earlier question in {title}"),
        },
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Read the code", "priority": "high", "status": "completed"}
            ],
        },
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "h-c1",
            "title": "Read README.md",
            "kind": "read",
            "status": "completed",
            "locations": [{"path": cwd.rstrip("/") + "/README.md"}],
        },
        {
            "sessionUpdate": "agent_message_chunk",
            "content": text(f"Earlier answer in {title}"),
        },
    ]


def encode_cursor(offset: int) -> str:
    return b64(json.dumps({"offset": offset}).encode())


def decode_cursor(cursor: Any) -> int:
    import base64

    try:
        offset = json.loads(base64.b64decode(str(cursor), validate=True))["offset"]
    except (ValueError, KeyError, TypeError) as error:
        raise invalid("unknown cursor") from error
    if not isinstance(offset, int) or offset < 0:
        raise invalid("unknown cursor")
    return offset


# -- authentication -----------------------------------------------------------------


def persisted_login() -> bool:
    return AUTH_FILE is not None and os.path.exists(AUTH_FILE)


def persist_login(method_id: str) -> None:
    if AUTH_FILE is not None:
        login = {"methodId": method_id, "ui": os.environ.get("FAKE_AGENT_LOGIN_UI")}
        with open(AUTH_FILE, "w", encoding="utf-8") as file:
            file.write(json.dumps(login) + "\n")


def terminal_login() -> None:
    """`agent.py SCENARIO --login`: the terminal auth method's login-only run."""
    sys.stdout.write(LOGGED_IN_TEXT)
    sys.stdout.flush()
    persist_login(TERMINAL_LOGIN)
    sys.exit(0)


# -- the agent ---------------------------------------------------------------------


class FullAgent:
    """Answers the *-full and *-auth scenarios' requests (see the module docstring)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.version = 1 if SCENARIO.startswith("v1") else 2
        self.stored = {sid: (title, updated) for sid, title, updated in STORED_SESSIONS}
        self.archived: set[str] = set()
        """Archived stored sessions (the *-sessions scenarios)."""
        if SCENARIO in SESSIONS_SCENARIOS:
            self.stored["s-delta"] = ("Old experiment", "2026-10-01T08:00:00Z")
            self.archived.add("s-delta")
        self.forks = 0
        self.settings: dict[str, dict[str, Any]] = {}
        """Open sessions (created or resumed) and their config values."""
        self.created = 0
        self.logged_in = SCENARIO in RELOGIN_SCENARIOS
        self.after: list[tuple[str, dict[str, Any]]] = []
        """Updates to send once the current reply is written."""

    def run(self) -> None:
        while True:
            message = self.agent.read()
            if message is None:
                return
            if not isinstance(message, dict):
                continue
            method = message.get("method")
            params = message.get("params") or {}
            if method == "session/cancel":
                self.agent.cancelled.add(str(params.get("sessionId")))
                continue
            if "id" not in message or not isinstance(method, str):
                continue  # another notification, or a response to something we sent
            self.answer(message["id"], method, params)

    def answer(self, rid: Any, method: str, params: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
        if method == "session/prompt":
            if self.gated(method):
                reply["error"] = Reject(AUTH_REQUIRED, "Authentication required").error
                write(reply)
            else:
                self.prompt(rid, params)
            return
        try:
            reply["result"] = self.handle(method, params)
        except Reject as rejection:
            reply["error"] = rejection.error
            self.after.clear()
        write(reply)
        for sid, update in self.after:
            self.agent.update(sid, update)
        self.after.clear()

    def handle(self, method: str, params: dict[str, Any]) -> Any:
        if method == "initialize":
            return self.initialize(params)
        handler = self.handlers().get(method)
        if handler is None:
            raise Reject(METHOD_NOT_FOUND, "Method not found", method)
        if self.gated(method):
            raise Reject(AUTH_REQUIRED, "Authentication required", "log in first")
        return handler(params)

    def handlers(self) -> dict[str, Any]:
        common = {
            "session/new": self.new_session,
            "session/list": self.list_sessions,
            "session/close": self.close,
            "session/delete": self.delete,
            "session/set_config_option": self.set_config_option,
        }
        if AUTH_STATUS:
            common["auth/status"] = self.auth_status
        if STEERING:
            common["_session/steering"] = self.steer_idle
        if SCENARIO in SESSIONS_SCENARIOS:
            common["session/fork"] = self.fork
            common["session/set_title"] = self.set_title
            common["session/archive"] = self.archive
            common["session/unarchive"] = self.unarchive
            common["session/status"] = self.status
        if self.version == 2:
            common["session/resume"] = self.resume_v2
            if SCENARIO in AUTH_SCENARIOS:
                common["auth/login"] = self.login
                common["auth/logout"] = self.logout
        else:
            common["session/load"] = self.load_v1
            common["session/resume"] = self.resume_v1
            common["session/set_mode"] = self.set_mode
            if SCENARIO in AUTH_SCENARIOS:
                common["authenticate"] = self.login
                common["logout"] = self.logout
        return common

    # -- setup

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        if SCENARIO.startswith("v2") and params.get("protocolVersion") != 1:
            self.version = 2
            return full_v2_result()
        self.version = 1
        return full_v1_result()

    def authenticated(self) -> bool:
        return SCENARIO not in AUTH_SCENARIOS or self.logged_in or persisted_login()

    def gated(self, method: str) -> bool:
        """Whether `method` answers auth_required until the user logs in."""
        gated = RELOGIN_GATED if SCENARIO in RELOGIN_SCENARIOS else AUTH_GATED
        return method in gated and not self.authenticated()

    def login(self, params: dict[str, Any]) -> dict[str, Any]:
        method_id = params.get("methodId")
        accepted = AGENT_LOGIN
        if SCENARIO in ODD_AUTH_SCENARIOS:
            accepted = ODD_LOGIN
        elif SCENARIO in UNUSABLE_AUTH_SCENARIOS:
            raise invalid(f"no login works here ({method_id!r})")
        if method_id == TERMINAL_LOGIN:
            raise invalid("terminal-login is a terminal method: run the agent instead")
        if method_id != accepted:
            raise invalid(f"unknown authentication method {str(method_id)[:40]!r}")
        self.logged_in = True
        persist_login(accepted)
        return {}

    def auth_status(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.authenticated():
            return {"state": "authenticated", "accounts": [STATUS_ACCOUNT]}
        return {"state": "unauthenticated"}

    def logout(self, params: dict[str, Any]) -> dict[str, Any]:
        self.logged_in = False
        if AUTH_FILE is not None and os.path.exists(AUTH_FILE):
            os.remove(AUTH_FILE)
        return {}

    # -- sessions

    def open(self, sid: str, params: dict[str, Any]) -> dict[str, Any]:
        self.agent.cwd = params.get("cwd", "/")
        return self.settings.setdefault(sid, dict(DEFAULT_SETTINGS))

    def setup_result(self, settings: dict[str, Any]) -> dict[str, Any]:
        if self.version == 2:
            return {"configOptions": v2_config_options(settings)}
        return {
            "modes": v1_modes(settings),
            "configOptions": v1_config_options(settings),
        }

    def announce_commands(self, sid: str) -> None:
        update = {
            "sessionUpdate": "available_commands_update",
            "availableCommands": commands(self.version),
        }
        self.after.append((sid, update))

    def new_session(self, params: dict[str, Any]) -> dict[str, Any]:
        self.created += 1
        sid = f"s{self.created}"
        result = {"sessionId": sid, **self.setup_result(self.open(sid, params))}
        self.announce_commands(sid)
        return result

    def list_sessions(self, params: dict[str, Any]) -> dict[str, Any]:
        cursor = params.get("cursor")
        offset = 0 if cursor is None else decode_cursor(cursor)
        cwd = LIST_CWD or params.get("cwd") or DEFAULT_CWD
        rows = list(self.stored.items())
        if SCENARIO in SESSIONS_SCENARIOS:
            wanted = params.get("archived") or "exclude"
            if wanted not in ("exclude", "include", "only"):
                raise invalid(f"unknown archived filter {wanted!r}")
            only = wanted == "only"
            rows = [
                row
                for row in rows
                if wanted == "include" or (row[0] in self.archived) == only
            ]
        sessions = [
            {"sessionId": sid, "cwd": cwd, "title": title, "updatedAt": updated}
            for sid, (title, updated) in rows[offset : offset + PAGE_SIZE]
        ]
        if SCENARIO in SESSIONS_SCENARIOS:
            for session in sessions:
                session["archived"] = session["sessionId"] in self.archived
        page: dict[str, Any] = {"sessions": sessions}
        if offset + PAGE_SIZE < len(rows):
            page["nextCursor"] = encode_cursor(offset + PAGE_SIZE)
        return page

    def known(self, params: dict[str, Any]) -> str:
        """The session id of the params, if the agent has such a session."""
        sid = params.get("sessionId")
        if not isinstance(sid, str) or (
            sid not in self.stored and sid not in self.settings
        ):
            raise not_found(sid)
        return sid

    def replay(self, sid: str, cwd: str) -> None:
        if sid not in self.stored:
            return  # created in this process: nothing happened before
        title = self.stored[sid][0]
        history = history_v2 if self.version == 2 else history_v1
        for update in history(title, cwd):
            if SCENARIO in SESSIONS_SCENARIOS and "messageId" not in update:
                names = {"user_message_chunk": "h-u1", "agent_message_chunk": "h-a1"}
                name = names.get(update["sessionUpdate"])
                update = {**update, "messageId": name} if name else update
            self.agent.update(sid, update)

    def resume_v2(self, params: dict[str, Any]) -> dict[str, Any]:
        sid = self.known(params)
        replay_from = params.get("replayFrom")
        if replay_from is not None:
            if not isinstance(replay_from, dict) or replay_from.get("type") != "start":
                raise invalid("unsupported replayFrom")
            self.replay(sid, params.get("cwd", DEFAULT_CWD))
        result = self.setup_result(self.open(sid, params))
        result["availableCommands"] = commands(2)
        return result

    def load_v1(self, params: dict[str, Any]) -> dict[str, Any]:
        sid = self.known(params)
        self.replay(sid, params.get("cwd", DEFAULT_CWD))
        self.announce_commands(sid)
        return self.setup_result(self.open(sid, params))

    def resume_v1(self, params: dict[str, Any]) -> dict[str, Any]:
        sid = self.known(params)
        self.announce_commands(sid)
        return self.setup_result(self.open(sid, params))

    def close(self, params: dict[str, Any]) -> dict[str, Any]:
        sid = params.get("sessionId")
        if sid not in self.settings:
            raise not_found(sid)
        del self.settings[sid]
        self.agent.cancelled.add(str(sid))
        return {}

    # -- the unstable session methods (*-sessions)

    def fork(self, params: dict[str, Any]) -> dict[str, Any]:
        """Any session id forks (the agent's sessions live on a shared disk)."""
        source = params.get("sessionId")
        if not isinstance(source, str) or not isinstance(params.get("cwd"), str):
            raise invalid("sessionId and cwd are required")
        self.forks += 1
        sid = f"fork-{self.forks}"
        title = self.stored.get(source, (source, None))[0]
        self.stored[sid] = (f"Fork of {title}", "2026-12-01T10:00:00Z")
        result = {"sessionId": sid, **self.setup_result(self.open(sid, params))}
        self.announce_commands(sid)
        return result

    def set_title(self, params: dict[str, Any]) -> dict[str, Any]:
        sid = self.known(params)
        title = params.get("title")
        if not isinstance(title, str) or not title.strip():
            raise invalid("the title is empty")
        updated = self.stored.get(sid, ("", "2026-12-01T10:00:00Z"))[1]
        self.stored[sid] = (title.strip(), updated)
        return {"title": title.strip()}

    def archive(self, params: dict[str, Any]) -> dict[str, Any]:
        self.archived.add(self.known(params))
        return {}

    def unarchive(self, params: dict[str, Any]) -> dict[str, Any]:
        self.archived.discard(self.known(params))
        return {}

    def status(self, params: dict[str, Any]) -> dict[str, Any]:
        sid = self.known(params)
        if sid not in self.settings:
            return {"status": "saved"}
        if self.version == 1:
            return {"status": "open"}
        return {"status": "open", "state": {"state": "idle"}}

    def delete(self, params: dict[str, Any]) -> dict[str, Any]:
        sid = params.get("sessionId")
        if sid not in self.stored:
            raise not_found(sid)
        del self.stored[sid]
        self.settings.pop(sid, None)
        return {}

    # -- settings

    def open_settings(self, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        sid = params.get("sessionId")
        if not isinstance(sid, str) or sid not in self.settings:
            raise not_found(sid)
        return sid, self.settings[sid]

    def set_config_option(self, params: dict[str, Any]) -> dict[str, Any]:
        _, settings = self.open_settings(params)
        build = v2_config_options if self.version == 2 else v1_config_options
        key = "configId" if self.version == 2 else "id"
        options = {option[key]: option for option in build(settings)}
        option = options.get(params.get("configId"))
        if option is None:
            raise invalid(f"unknown config option {params.get('configId')!r}")
        value = params.get("value")
        if option["type"] == "boolean":
            valid = params.get("type") == "boolean" and isinstance(value, bool)
        else:
            # v2 tags a value id `type: "id"`; v1 sends no `type` (or an unknown one).
            tagged = params.get("type") == "id" if self.version == 2 else True
            tagged = tagged and params.get("type") != "boolean"
            valid = tagged and value in option_values(option)
        if not valid:
            raise invalid(f"invalid value {value!r} for {option[key]!r}")
        settings[option[key]] = value
        return {"configOptions": build(settings)}

    def set_mode(self, params: dict[str, Any]) -> dict[str, Any]:
        sid, settings = self.open_settings(params)
        mode_id = params.get("modeId")
        if mode_id not in [mode[0] for mode in V1_MODES]:
            raise invalid(f"unknown mode {mode_id!r}")
        settings["mode"] = mode_id
        update = {"sessionUpdate": "current_mode_update", "currentModeId": mode_id}
        self.agent.update(sid, update)  # before the reply, as agents usually do
        return {}

    # -- turns

    def steer_idle(self, params: dict[str, Any]) -> dict[str, Any]:
        """`_session/steering` with no turn running (see the docstring)."""
        meta = (params.get("_meta") or {}).get("steering") or {}
        if meta.get("idleBehavior") == "promptRequired":
            return {"outcome": "promptRequired", "reason": "noRunningTurn"}
        heard = text(f"heard: {steered_text(params)}")
        update = {"sessionUpdate": "agent_message_chunk", "content": heard}
        if self.version == 2:
            update["messageId"] = "a-heard"
        self.after.append((str(params.get("sessionId")), update))
        return {"outcome": "startedNewTurn"}

    def prompt(self, rid: Any, params: dict[str, Any]) -> None:
        prompt = params.get("prompt") or []
        said = " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))
        if "crash" in said:
            sys.stderr.write("fatal: simulated crash\n")
            sys.stderr.flush()
            os._exit(9)
        if "agent-switch" in said:
            self.agent_switch(rid, params)
            return
        if said.startswith(("usage", "auth-update")):
            self.reporting_turn(rid, params["sessionId"], said)
            return
        if said.startswith("read ") and self.version == 1:
            self.read(rid, params["sessionId"], said.removeprefix("read "))
            return
        if said.startswith("write ") and self.version == 1:
            self.write_file(rid, params["sessionId"], said.removeprefix("write "))
            return
        turn = turn_v1 if self.version == 1 else turn_v2
        turn(self.agent, rid, params["sessionId"], prompt)

    def reporting_turn(self, rid: Any, sid: str, said: str) -> None:
        """A turn that reports usage ("usage N") or an auth status update."""
        said_back: dict[str, Any] = {"sessionUpdate": "agent_message_chunk"}
        if self.version == 2:
            write({"jsonrpc": "2.0", "id": rid, "result": {}})
            echo = {"messageId": "u-report", "content": [text(said)]}
            self.agent.update(sid, {"sessionUpdate": "user_message", **echo})
            running = {"sessionUpdate": "state_update", "state": "running"}
            self.agent.update(sid, running)
            said_back["messageId"] = "a-report"
        usage: dict[str, Any] = {}
        if said.startswith("auth-update"):
            update = {"state": "authenticated", "accounts": [TEAM_ACCOUNT]}
            write({"jsonrpc": "2.0", "method": "auth/status_update", "params": update})
        else:
            percent = float(said.removeprefix("usage").strip() or 50)
            used = int(200_000 * percent / 100)
            cost = {"amount": 1.25, "currency": "EUR"}
            report = {"used": used, "size": 200_000, "cost": cost}
            self.agent.update(sid, {"sessionUpdate": "usage_update", **report})
            usage = {"usage": TURN_USAGE}
        self.agent.update(sid, {**said_back, "content": text("Done.")})
        if self.version == 2:
            idle = {"state": "idle", "stopReason": "end_turn", **usage}
            self.agent.update(sid, {"sessionUpdate": "state_update", **idle})
        else:
            result = {"stopReason": "end_turn", **usage}
            write({"jsonrpc": "2.0", "id": rid, "result": result})

    def read(self, rid: Any, sid: str, path: str) -> None:
        """v1: read PATH through the client, and say what came back."""
        answer = self.agent.call("fs/read_text_file", {"sessionId": sid, "path": path})
        if "result" in answer:
            said = answer["result"].get("content", "")
        else:
            said = f"refused {answer.get('error', {}).get('code')}"
        message = text(f"read {path}: {said}")
        self.agent.update(
            sid, {"sessionUpdate": "agent_message_chunk", "content": message}
        )
        write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})

    def write_file(self, rid: Any, sid: str, path: str) -> None:
        """v1: write PATH through the client, and say how it went."""
        params = {"sessionId": sid, "path": path, "content": "written by the agent\n"}
        answer = self.agent.call("fs/write_text_file", params)
        if "result" in answer:
            said = "ok"
        else:
            said = f"refused {answer.get('error', {}).get('code')}"
        message = text(f"write {path}: {said}")
        self.agent.update(
            sid, {"sessionUpdate": "agent_message_chunk", "content": message}
        )
        write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})

    def agent_switch(self, rid: Any, params: dict[str, Any]) -> None:
        """The agent changes its own mode during a turn (plan in v2, code in v1)."""
        sid, settings = self.open_settings(params)
        if self.version == 2:
            write({"jsonrpc": "2.0", "id": rid, "result": {}})
            self.agent.update(
                sid, {"sessionUpdate": "state_update", "state": "running"}
            )
            settings["mode"] = "plan"
            update = {
                "sessionUpdate": "config_option_update",
                "configOptions": v2_config_options(settings),
            }
            self.agent.update(sid, update)
            idle = {"sessionUpdate": "state_update", "state": "idle"}
            self.agent.update(sid, {**idle, "stopReason": "end_turn"})
            return
        settings["mode"] = "code"
        update = {"sessionUpdate": "current_mode_update", "currentModeId": "code"}
        self.agent.update(sid, update)
        write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})


def turn_v1_terminal(agent: Agent, rid: Any, sid: str, prompt: list[Any]) -> None:
    said = " ".join(b.get("text", "") for b in prompt if isinstance(b, dict))

    def up(update: dict[str, Any]) -> None:
        agent.update(sid, update)

    def call(method: str, **params: Any) -> Any:
        return agent.call(method, {"sessionId": sid, **params})

    if "orphans" in said:
        script = "sleep 30 & echo pids $$ $!; sleep 30"
        created = call("terminal/create", command="sh", args=["-c", script])
        tid = created["result"]["terminalId"]
        up(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "bg1",
                "title": "Start a server",
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": tid}],
            }
        )
        up({"sessionUpdate": "agent_message_chunk", "content": text(tid)})
        write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        return
    report: dict[str, Any] = {}
    script = "printf '\\033[32mbuilt\\033[0m %s\\n' \"$FAKE_TERM_VAR\"; exit 3"
    report["created"] = call(
        "terminal/create",
        command="sh",
        args=["-c", script],
        env=[{"name": "FAKE_TERM_VAR", "value": "ok"}],
        cwd=agent.cwd,
        outputByteLimit=1000,
    )
    if "result" not in report["created"]:  # the client does not serve terminals
        up(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": text(json.dumps(report)),
            }
        )
        write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        return
    tid = report["created"]["result"]["terminalId"]
    up(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "run1",
            "title": "Run the build",
            "kind": "execute",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": tid}],
        }
    )
    report["exited"] = call("terminal/wait_for_exit", terminalId=tid)
    report["output"] = call("terminal/output", terminalId=tid)
    report["released"] = call("terminal/release", terminalId=tid)
    report["after_release"] = call("terminal/output", terminalId=tid)
    up(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "run1",
            "status": "completed",
        }
    )
    report["outside"] = call("terminal/create", command="true", cwd="/")
    sleeper = call("terminal/create", command="sleep", args=["30"])
    report["killed"] = sleeper
    sleeper_id = sleeper["result"]["terminalId"]
    call("terminal/kill", terminalId=sleeper_id)
    report["killed_exit"] = call("terminal/wait_for_exit", terminalId=sleeper_id)
    report["killed_output"] = call("terminal/output", terminalId=sleeper_id)
    report["killed_release"] = call("terminal/release", terminalId=sleeper_id)
    up({"sessionUpdate": "agent_message_chunk", "content": text(json.dumps(report))})
    write({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})


def main() -> None:
    if "--login" in sys.argv[2:]:
        terminal_login()
    if SCENARIO in FULL_SCENARIOS:
        FullAgent(Agent()).run()
        return
    agent = Agent()
    version = 2
    while True:
        message = agent.read()
        if message is None:
            return
        if not isinstance(message, dict):
            continue
        method = message.get("method")
        if method == "session/cancel":
            agent.cancelled.add(str((message.get("params") or {}).get("sessionId")))
            continue
        if "id" not in message or method is None:
            continue  # another notification, or a response to something we sent
        rid = message["id"]
        params = message.get("params") or {}
        reply: dict[str, Any] | None
        if method == "initialize":
            reply = initialize(message)
            capabilities = params.get("clientCapabilities") or {}
            agent.client_session = capabilities.get("session") or {}
            if reply is not None and "result" in reply:
                version = reply["result"].get("protocolVersion", 2)
        elif SCENARIO == "hang":
            reply = None
        elif method == "session/new":
            agent.cwd = params.get("cwd", "/")
            result: dict[str, Any] = {"sessionId": "s1"}
            if version == 1 and SCENARIO == "v1":
                result["modes"] = {
                    "currentModeId": "ask",
                    "availableModes": [
                        {"id": "ask", "name": "Ask"},
                        {"id": "code", "name": "Code"},
                    ],
                }
            if version == 2 and SCENARIO == "v2":
                commands = [{"name": "help", "description": "Help"}]
                agent.update(
                    "s1",
                    {
                        "sessionUpdate": "available_commands_update",
                        "availableCommands": commands,
                    },
                )
                result["configOptions"] = [
                    {
                        "configId": "model",
                        "name": "Model",
                        "category": "model",
                        "type": "select",
                        "currentValue": "m1",
                        "options": [{"value": "m1", "name": "Model One"}],
                    }
                ]
            reply = {"jsonrpc": "2.0", "id": rid, "result": result}
        elif method == "session/prompt" and SCENARIO in ("v1", "v2"):
            turn = turn_v1 if version == 1 else turn_v2
            turn(agent, rid, params["sessionId"], params["prompt"])
            continue
        elif method == "session/prompt" and SCENARIO == "v1-terminal":
            turn_v1_terminal(agent, rid, params["sessionId"], params["prompt"])
            continue
        elif method == "session/list":
            page: dict[str, Any]
            if params.get("cursor") is None:
                first = {"sessionId": "old1", "cwd": "/tmp", "title": "First"}
                page = {"sessions": [first], "nextCursor": "c2"}
            else:
                second = {
                    "sessionId": "old2",
                    "cwd": "/tmp",
                    "updatedAt": "2026-11-29T10:00:00Z",
                }
                page = {"sessions": [second]}
            reply = {"jsonrpc": "2.0", "id": rid, "result": page}
        else:
            error = {"code": -32601, "message": "Method not found"}
            reply = {"jsonrpc": "2.0", "id": rid, "error": error}
        if reply is not None:
            write(reply)
