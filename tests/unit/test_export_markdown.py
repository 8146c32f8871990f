"""`session_markdown`: every entity kind as readable Markdown, with no control codes."""

from __future__ import annotations

import json
import re
from typing import Any, Final

from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from acp_tui.export import export_text, json_text, session_document, session_markdown
from acp_tui.store.ops import (
    AddElicitation,
    AddPermission,
    AppendMessageChunk,
    AppendTerminalOutput,
    PatchSessionInfo,
    PatchTerminal,
    PatchToolCall,
    PatchUsage,
    RecordUnknownUpdate,
    ReplacePlan,
    ResolveElicitation,
    ResolvePermission,
    SetMessageOrigin,
    SetState,
    UpsertMessage,
)
from acp_tui.store.store import SessionStore
from acp_tui.store.values import JSONObject

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters other than newline and tab (C0, DEL, C1)."""


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def full_store() -> SessionStore:
    """A session with one of each entity kind, in a known order."""
    store = SessionStore("sess-1")
    store.apply_many(
        [
            PatchSessionInfo(title="Fix the bug"),
            UpsertMessage("u1", "user", content=[text("please fix\nthe bug")]),
            SetState("running"),
            AppendMessageChunk("t1", "thought", text("thinking hard")),
            AppendMessageChunk("a1", "agent", text("I will **fix** it.")),
            PatchToolCall(
                "tc-read",
                title="Read main.py",
                kind="read",
                status="completed",
                locations=[{"path": "/w/main.py", "line": 3}],
                content=[{"type": "content", "content": text("file body here")}],
            ),
            PatchToolCall(
                "tc-edit",
                title="Edit main.py",
                kind="edit",
                status="completed",
                content=[
                    {
                        "type": "diff",
                        "path": "/w/main.py",
                        "oldText": "a = 1\n",
                        "newText": "a = 2\n",
                    },
                    {"type": "diff", "patch": {"text": "--- x\n+++ y\n-old\n+new\n"}},
                ],
            ),
            PatchTerminal("term-1", command="make test"),
            AppendTerminalOutput("term-1", b"\x1b[32mok\x1b[0m 3 passed\r\n"),
            PatchTerminal("term-1", exit_status={"exitCode": 0}),
            PatchToolCall(
                "tc-run",
                title="Run tests",
                kind="execute",
                status="failed",
                content=[{"type": "terminal", "terminalId": "term-1"}],
            ),
            ReplacePlan(
                "p1",
                "todo",
                [
                    {"content": "read the code", "status": "completed"},
                    {"content": "write the fix", "status": "in_progress"},
                    {"content": "ship it", "status": "pending"},
                ],
                {},
            ),
            AddPermission(
                "perm-1",
                "Run make test",
                options=[
                    {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
                    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
                ],
                tool_call_id="tc-run",
            ),
            ResolvePermission("perm-1", {"outcome": "selected", "optionId": "allow"}),
            RecordUnknownUpdate({"sessionUpdate": "future_thing"}),
            PatchUsage(used=1200, size=200000),
            SetState("idle", "end_turn"),
        ]
    )
    return store


def test_every_entity_kind_is_rendered_in_order() -> None:
    markdown = session_markdown(full_store(), agent="Fake Agent", protocol_version=2)
    assert markdown.startswith("# Fix the bug\n")
    assert "- Session: `sess-1`" in markdown
    assert "- Agent: Fake Agent" in markdown
    assert "- Protocol: ACP v2" in markdown
    # User text is quoted line by line under a heading.
    assert "## User\n\n> please fix\n> the bug" in markdown
    # Thoughts are collapsed; agent text is kept as Markdown.
    assert "<details>\n<summary>Thought</summary>\n\n> thinking hard" in markdown
    assert "## Agent\n\nI will **fix** it." in markdown
    # Tool calls: title, kind and status, locations, text content.
    assert "### Tool: Read main.py\n\n*read · completed*" in markdown
    assert "@ `/w/main.py:3`" in markdown
    assert "file body here" in markdown
    assert "*execute · failed*" in markdown
    # Plans as task lists.
    assert "- [x] read the code" in markdown
    assert "- [ ] (in progress) write the fix" in markdown
    assert "- [ ] ship it" in markdown
    # The permission's outcome by option name; the unknown update; the end state.
    assert "**Permission:** Run make test: **Allow once**" in markdown
    assert "unknown update `future_thing`" in markdown
    assert "- State: idle" in markdown
    assert "- Stop reason: end_turn" in markdown
    assert "- Context: 1200 / 200000 tokens" in markdown
    order = [
        "## User",
        "<summary>Thought",
        "## Agent",
        "Read main.py",
        "Edit main.py",
        "Run tests",
        "### Plan",
        "**Permission:**",
        "unknown update",
        "- State:",
    ]
    positions = [markdown.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert markdown.endswith("\n")


def test_diffs_are_diff_fences() -> None:
    markdown = session_markdown(full_store())
    fences = re.findall(r"```diff\n(.*?)\n```", markdown, flags=re.DOTALL)
    assert len(fences) == 2
    v1_patch, v2_patch = fences
    assert "-a = 1" in v1_patch
    assert "+a = 2" in v1_patch
    assert "main.py" in v1_patch
    assert v2_patch == "--- x\n+++ y\n-old\n+new"


def test_terminal_output_is_a_plain_fence_of_the_emulated_text() -> None:
    markdown = session_markdown(full_store())
    assert "`$ make test` (exit 0)\n\n```\nok 3 passed\n```" in markdown
    # Shown once, inside its tool call (not again as a standalone terminal).
    assert markdown.count("ok 3 passed") == 1
    assert "\x1b" not in markdown


def test_standalone_terminal_is_rendered() -> None:
    store = SessionStore("s")
    store.apply_many(
        [
            PatchTerminal("t", command="ls"),
            AppendTerminalOutput("t", b"a.txt\r\n"),
        ]
    )
    markdown = session_markdown(store)
    assert "### Terminal\n\n`$ ls`\n\n```\na.txt\n```" in markdown


def test_fences_outgrow_backticks_in_the_content() -> None:
    store = SessionStore("s")
    store.apply(
        PatchToolCall(
            "d",
            kind="edit",
            content=[{"type": "diff", "patch": {"text": "+```python\n+x\n"}}],
        )
    )
    markdown = session_markdown(store)
    assert "````diff\n+```python\n+x\n````" in markdown


def test_control_characters_are_escaped_everywhere() -> None:
    nasty = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"
    store = SessionStore("id\x1b[1m")
    store.apply_many(
        [
            PatchSessionInfo(title=f"title {nasty}\nsecond line"),
            UpsertMessage("u", "user", content=[text(f"user {nasty}")]),
            AppendMessageChunk("a", "agent", text(f"agent {nasty}\r\nnext")),
            AppendMessageChunk("th", "thought", text(f"thought {nasty}")),
            PatchToolCall(
                "t",
                title=f"tool {nasty}",
                kind=f"kind{nasty}",
                status="pending",
                content=[{"type": "content", "content": text(f"out {nasty}")}],
            ),
            ReplacePlan("p", "todo", [{"content": f"step {nasty}"}], {}),
            AddPermission("q", f"ask {nasty}"),
            SetState("idle", f"stop{nasty}"),
        ]
    )
    markdown = session_markdown(store, agent=f"agent{nasty}")
    assert CONTROL.search(markdown) is None
    assert "\u202e" not in markdown
    assert "\\x1b" in markdown  # escaped, visibly
    # A title stays on its heading line; CRLF becomes a plain newline.
    assert markdown.splitlines()[0].startswith("# title ")
    assert "\\r" not in markdown
    assert "next" in markdown


@given(st.text())
def test_no_control_character_survives(value: str) -> None:
    store = SessionStore("s")
    store.apply_many(
        [
            UpsertMessage("u", "user", content=[text(value)]),
            AppendMessageChunk("a", "agent", text(value)),
            PatchToolCall(
                "t", title=value, content=[{"type": "diff", "newText": value}]
            ),
        ]
    )
    markdown = session_markdown(store)
    assert CONTROL.search(markdown) is None
    assert all(ch.isprintable() or ch in "\n\t" for ch in markdown)


def test_non_text_blocks_and_unanswered_permission() -> None:
    store = SessionStore("s")
    store.apply_many(
        [
            UpsertMessage(
                "u",
                "user",
                content=[
                    text("see"),
                    {"type": "resource_link", "name": "spec", "uri": "file:///spec"},
                    {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                ],
            ),
            AddPermission("q", "Delete everything"),
        ]
    )
    markdown = session_markdown(store)
    assert "[link spec](file:///spec)" in markdown
    assert "*[image image/png]*" in markdown
    assert "AAAA" not in markdown
    assert "**Permission:** Delete everything: **no answer**" in markdown


def test_questions_show_their_answers_and_urls_as_code() -> None:
    store = SessionStore("s")
    store.apply_many(
        [
            AddElicitation("1", "form", "Which strategy?", {"type": "object"}),
            ResolveElicitation(
                "1", {"action": "accept", "content": {"strategy": "balanced"}}
            ),
            AddElicitation("2", "url", "Log in", url="javascript:alert(1)", url_id="e"),
            ResolveElicitation("2", {"action": "decline"}),
            AddElicitation("3", "form", "Still there?", {"type": "object"}),
        ]
    )
    markdown = session_markdown(store)
    assert (
        "**Question:** Which strategy?: **answered — strategy: balanced**" in markdown
    )
    assert "**Question:** Log in — `javascript:alert(1)`: **declined**" in markdown
    assert "**Question:** Still there?: **waiting for an answer**" in markdown


def test_an_answered_form_shows_its_titles_and_the_document_its_content() -> None:
    schema: JSONObject = {
        "type": "object",
        "properties": {
            "question_0": {
                "type": "string",
                "title": "Approach",
                "oneOf": [{"const": "big", "title": "Big"}],
            }
        },
    }
    outcome: JSONObject = {"action": "accept", "content": {"question_0": "big"}}
    store = SessionStore("s")
    store.apply_many(
        [
            AddElicitation("1", "form", "Which approach?", schema),
            ResolveElicitation("1", outcome),
        ]
    )
    markdown = session_markdown(store)
    assert "**Question:** Which approach?: **answered — Approach: Big**" in markdown
    document = session_document(protocol_version=2, agent=None, store=store)
    (elicitation,) = document["elicitations"]
    assert elicitation["outcome"] == outcome


def test_json_export_is_the_print_document() -> None:
    store = full_store()
    agent = {"name": "fake", "title": None, "version": None}
    document = json.loads(export_text(store, "json", protocol_version=2, agent=agent))
    assert document["protocolVersion"] == 2
    assert document["agent"] == agent
    assert document["sessionId"] == "sess-1"
    assert document["stopReason"] == "end_turn"
    assert [m["messageId"] for m in document["messages"]] == ["u1", "t1", "a1"]
    markdown = export_text(store, "markdown", protocol_version=2, agent=agent)
    assert "- Agent: fake" in markdown


def test_json_text_escapes_c1_and_bidi_but_keeps_the_value() -> None:
    value = {"s": "a\x1b\x9b\u202e\U0001f600é"}
    out = json_text(value)
    assert all(ch.isprintable() or ch == "\n" for ch in out)
    assert "é" in out
    assert json.loads(out) == value
    # All ASCII: DEL is the one control that JSON leaves raw.
    assert json_text({"s": "a\x7f"}) == '{\n  "s": "a\\u007f"\n}\n'


# --- raw HTML and dangerous links are neutralised ---------------------------------

_OWN_HTML: Final = frozenset({"<details>", "<summary>Thought</summary>", "</details>"})
"""The only raw HTML lines the export writes itself (thoughts collapse)."""

_SAFE_SCHEMES: Final = ("http:", "https:", "mailto:", "file:", "#", "/")


def _renderers() -> list[MarkdownIt]:
    """CommonMark with raw HTML on, and GFM-like tables: as viewers render files.

    Link validation is off, so a `javascript:` link shows up as a link token here
    (markdown-it's own renderer would drop it; other viewers may not).
    """
    plain = MarkdownIt("commonmark")
    tables = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for renderer in (plain, tables):
        renderer.validateLink = lambda url: True  # type: ignore[method-assign]
    return [plain, tables]


def _active(markdown: str) -> list[str]:
    """Raw HTML and links to dangerous schemes that a viewer would act on."""
    found: list[str] = []
    for renderer in _renderers():
        for token in renderer.parse(markdown):
            own = set(token.content.splitlines()) <= _OWN_HTML
            if token.type == "html_block" and not own:
                found.append(f"html block {token.content!r}")
            for child in token.children or ():
                if child.type == "html_inline":
                    found.append(f"inline html {child.content!r}")
                if child.type in ("link_open", "image"):
                    target = str(child.attrGet("href") or child.attrGet("src") or "")
                    scheme = target.strip().lower()
                    if not scheme.startswith(_SAFE_SCHEMES):
                        found.append(f"{child.type} {target!r}")
    return found


_NASTY_AGENT_TEXT: Final = "\n".join(
    [
        "Hello <script>alert(1)</script> there.",
        "",
        '<img src="x" onerror="alert(1)">',
        "",
        '<a href="javascript:alert(1)">click</a>',
        "",
        "[plain](javascript:alert(1)) [upper](JaVaScRiPt:alert(1))",
        "[entity](&#106;avascript:alert(1)) [escaped](javascript\\:alert(1))",
        "[angle](<javascript:alert(1)>) [vb](vbscript:msgbox(1))",
        "![pixel](data:text/html;base64,PHNjcmlwdD4=)",
        "[split](",
        "javascript:alert(1))",
        "<javascript:alert(1)>",
        "",
        "[ref]: javascript:alert(1)",
        "",
        "see [ref]",
        "",
        "<!-- comment -->",
        "    <script>alert('after a comment')</script>",
    ]
)


def _nasty_store() -> SessionStore:
    store = SessionStore("s")
    store.apply_many(
        [
            PatchSessionInfo(title="<img src=x onerror=alert(1)>"),
            UpsertMessage("u", "user", content=[text(_NASTY_AGENT_TEXT)]),
            AppendMessageChunk("a", "agent", text(_NASTY_AGENT_TEXT)),
            AppendMessageChunk("th", "thought", text(_NASTY_AGENT_TEXT)),
            PatchToolCall(
                "t",
                title="<script>alert('title')</script>",
                kind="<b>edit</b>",
                status="completed",
                content=[{"type": "content", "content": text(_NASTY_AGENT_TEXT)}],
            ),
            UpsertMessage(
                "links",
                "user",
                content=[
                    {
                        "type": "resource_link",
                        "name": "x](javascript:alert(1))",
                        "uri": "javascript:alert(2)",
                    }
                ],
            ),
            ReplacePlan("p", "todo", [{"content": "<script>step</script>"}], {}),
            AddPermission("q", "<iframe src=javascript:alert(1)>"),
        ]
    )
    return store


def test_raw_html_and_dangerous_links_are_neutralised() -> None:
    markdown = session_markdown(_nasty_store(), agent="<b>agent</b>")
    assert _active(markdown) == []
    # Neutralised, not dropped: the text still reads as the agent wrote it.
    assert "&lt;script>alert(1)&lt;/script>" in markdown
    assert "[plain]\\(javascript:alert(1))" in markdown
    assert "\\[ref]: javascript:alert(1)" in markdown or (
        "[ref]\\: javascript:alert(1)" in markdown
    )


def test_code_and_safe_links_are_kept_as_written() -> None:
    body = "\n".join(
        [
            "Use `a < b` and `<div>` here; see [docs](https://example.com/a?b=1).",
            "",
            "Mail <https://example.com> or <me@example.com>.",
            "",
            "```html",
            '<div onclick="x()">[x](javascript:void(0))</div>',
            "```",
            "",
            "    <indented>code</indented>",
        ]
    )
    store = SessionStore("s")
    store.apply(AppendMessageChunk("a", "agent", text(body)))
    markdown = session_markdown(store)
    assert body in markdown
    assert _active(markdown) == []


_MARKDOWN_ALPHABET: Final = st.sampled_from(
    [
        "<",
        ">",
        "`",
        "``",
        "[",
        "]",
        "(",
        ")",
        ":",
        "\\",
        "|",
        "!",
        "&#106;",
        "&lt;",
        " ",
        "    ",
        "\n",
        "\n\n",
        "```",
        "~~~",
        "-",
        "> ",
        "# ",
        "<!--",
        "-->",
        "a",
        "script",
        "img src=x onerror=alert(1)",
        "javascript:",
        "data:",
        "https://x",
    ]
)


@given(st.lists(_MARKDOWN_ALPHABET, max_size=40).map("".join))
def test_no_agent_text_becomes_active_markdown(value: str) -> None:
    store = SessionStore("s")
    store.apply_many(
        [
            UpsertMessage("u", "user", content=[text(value)]),
            AppendMessageChunk("a", "agent", text(value)),
            AppendMessageChunk("t", "thought", text(value)),
        ]
    )
    assert _active(session_markdown(store)) == []


def test_a_user_message_the_agent_wrote_is_not_exported_as_the_users() -> None:
    store = SessionStore("s")
    store.apply_many(
        [
            UpsertMessage("u", "user", content=[text("fix it")]),
            UpsertMessage("f", "user", content=[text("and delete the tests")]),
            SetMessageOrigin("f", "agent"),
        ]
    )
    markdown = session_markdown(store)
    assert "## User\n\n> fix it\n" in markdown
    assert "## From the agent, not typed by you\n\n> and delete the tests\n" in markdown
    assert markdown.count("## User") == 1
