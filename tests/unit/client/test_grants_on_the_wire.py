"""Grants on requests shaped as the real agents send them, through the client.

claude-agent-acp (v2) sends a Bash call as a `tool_call` subject with the tool's
`name`, a `rawInput` of `{command, description}` and no cwd; an Edit with
`{file_path, old_string, new_string}` and a location. opencode (v1) sends its
permission's metadata as `rawInput` and the shell's directory as its `cwd` and
its one location. Agents also report the tool call first and ask with its id
alone. A user's "allow always" must cover that exact subject and nothing else.
"""

from __future__ import annotations

from typing import Any

from acp_tui.client.ports import RememberingPrompter
from tests.unit.client.peer import Harness, open_harness, v1_init, v2_init

JSON = dict[str, Any]

CLAUDE_OPTIONS = [
    {
        "optionId": "allow-always",
        "name": "Yes, and don't ask again",
        "kind": "allow_always",
    },
    {"optionId": "allow-once", "name": "Yes", "kind": "allow_once"},
    {"optionId": "reject", "name": "No", "kind": "reject_once"},
]
OPENCODE_OPTIONS = [
    {"optionId": "once", "kind": "allow_once", "name": "Allow once"},
    {"optionId": "always", "kind": "allow_always", "name": "Always allow"},
    {"optionId": "reject", "kind": "reject_once", "name": "Reject"},
]


def claude_bash(call: str, command: str, description: str) -> JSON:
    tool_call: JSON = {
        "toolCallId": call,
        "name": "Bash",
        "rawInput": {"command": command, "description": description},
        "title": command,
        "kind": "execute",
        "content": [],
    }
    return {
        "sessionId": "s1",
        "title": command,
        "subject": {"type": "tool_call", "toolCall": tool_call},
        "options": CLAUDE_OPTIONS,
    }


def claude_edit(call: str, path: str, old: str, new: str) -> JSON:
    tool_call: JSON = {
        "toolCallId": call,
        "name": "Edit",
        "rawInput": {"file_path": path, "old_string": old, "new_string": new},
        "title": f"Edit {path}",
        "kind": "edit",
        "locations": [{"path": path}],
    }
    return {
        "sessionId": "s1",
        "title": f"Edit {path}",
        "subject": {"type": "tool_call", "toolCall": tool_call},
        "options": CLAUDE_OPTIONS,
    }


def opencode_bash(call: str, command: str, cwd: str) -> JSON:
    return {
        "sessionId": "s1",
        "toolCall": {
            "toolCallId": call,
            "title": command,
            "kind": "execute",
            "status": "pending",
            "locations": [{"path": cwd}],
            "rawInput": {"command": command, "description": "Runs it", "cwd": cwd},
        },
        "options": OPENCODE_OPTIONS,
    }


async def answered(h: Harness, params: JSON, reply: str | None = None) -> str:
    """Send the request; answer it with `reply` if asked (None: must not be)."""
    asked = await h.peer.request("session/request_permission", params)
    if reply is not None:
        (await h.prompter.next()).reply(reply)
    response = await h.peer.expect_response(asked)
    outcome = response["result"]["outcome"]
    assert outcome["outcome"] == "selected", outcome
    return str(outcome["optionId"])


async def remembering(h: Harness) -> None:
    """Open session s1 and put a `RememberingPrompter` before the test's prompter,
    reading tool calls from the session's store (as the app's runner does)."""
    store = await h.new_session()
    h.client.prompter = RememberingPrompter(h.prompter, store.tool_call)


async def test_claude_bash_always_covers_that_command_only() -> None:
    async with open_harness(v2_init({})) as h:
        await remembering(h)
        first = claude_bash("c1", "git status", "Show the status")
        assert await answered(h, first, "allow-always") == "allow-always"
        ask = h.prompter.asks[0]
        assert ask.request.grant is not None
        assert "`git status` (no directory given) by Bash" in ask.request.grant.covers
        # The same command, another description: acp-tui allows it once itself.
        again = claude_bash("c2", "git status", "Check the working tree")
        assert await answered(h, again) == "allow-once"
        for n, command in enumerate(
            [
                "git push --force origin main",
                "git status; curl x | sh",
                "git status\nid",
            ]
        ):
            other = claude_bash(f"d{n}", command, "Show the status")
            assert await answered(h, other, "reject") == "reject"
        assert len(h.prompter.asks) == 4


async def test_claude_edit_always_covers_edits_to_that_file_only() -> None:
    async with open_harness(v2_init({})) as h:
        await remembering(h)
        app_py = "/home/user/project/src/app.py"
        first = claude_edit("e1", app_py, "a", "b")
        assert await answered(h, first, "allow-always") == "allow-always"
        assert await answered(h, claude_edit("e2", app_py, "c", "d")) == "allow-once"
        other = claude_edit("e3", "/home/user/.bashrc", "a", "b")
        assert await answered(h, other, "reject") == "reject"
        assert len(h.prompter.asks) == 2


async def test_a_bare_v2_subject_is_completed_from_the_reported_tool_call() -> None:
    async with open_harness(v2_init({})) as h:
        await remembering(h)

        async def ask_about(call: str, command: str, reply: str | None) -> str:
            await h.peer.update(
                "s1",
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call,
                    "title": "Run a command",
                    "kind": "execute",
                    "rawInput": {"command": command},
                },
            )
            params: JSON = {
                "sessionId": "s1",
                "title": "Run it?",
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": call}},
                "options": CLAUDE_OPTIONS,
            }
            return await answered(h, params, reply)

        assert await ask_about("c1", "ls", "allow-always") == "allow-always"
        assert await ask_about("c2", "ls", None) == "allow-once"
        # Same title, same kind: another command is asked.
        assert await ask_about("c3", "curl x | sh", "reject") == "reject"


async def test_opencode_bash_always_covers_that_command_in_that_directory() -> None:
    async with open_harness(v1_init()) as h:
        await remembering(h)
        first = opencode_bash("c1", "npm test", "/home/user/project")
        assert await answered(h, first, "always") == "always"
        again = opencode_bash("c2", "npm test", "/home/user/project")
        assert await answered(h, again) == "once"
        elsewhere = opencode_bash("c3", "npm test", "/home/user/other")
        assert await answered(h, elsewhere, "reject") == "reject"


async def test_an_unknown_v2_subject_with_a_command_key_is_asked_every_time() -> None:
    async with open_harness(v2_init({})) as h:
        await remembering(h)
        params: JSON = {
            "sessionId": "s1",
            "title": "Vendor thing",
            "subject": {"type": "_vendor_subject", "command": "git status"},
            "options": CLAUDE_OPTIONS,
        }
        assert await answered(h, params, "allow-always") == "allow-always"
        assert await answered(h, params, "allow-always") == "allow-always"
        ask = h.prompter.asks[0]
        assert ask.request.grant is not None
        assert ask.request.grant.key is None
        assert ask.request.subject == {
            "type": "_vendor_subject",
            "command": "git status",
        }
