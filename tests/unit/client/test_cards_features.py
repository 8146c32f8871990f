"""Issue 25's card features below the UI: plan removal and plan documents, the
tool-call `name` on both versions, and cancelling one tool call or terminal.

Raw `session/update` params go through each version's translator into a store
(`tests.unit.client.scripts.play`); the store's answers, its JSON document, a
journal replay and the `print` transcript are checked.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client import v1 as translate_v1
from acp_tui.client import v2 as translate_v2
from acp_tui.client.plan_documents import (
    MAX_FILE_BYTES,
    PlanDocument,
    plan_document,
    read_plan_file,
)
from acp_tui.frontends.print_turn import Transcript
from acp_tui.protocol.schema import v1, v2
from acp_tui.store import SessionStore, ops
from acp_tui.store.journal import op_from_record, op_to_record
from acp_tui.ui.widgets.tool_call_header import CANCELLING, header_content
from tests.unit.client.scripts import Player, dump, play

SID = "sess_1"


def plan_update(plan: dict[str, Any]) -> dict[str, Any]:
    return {"sessionUpdate": "plan_update", "plan": plan}


MARKDOWN = {"type": "markdown", "planId": "md", "content": "## Steps\n- one"}
ITEMS = {
    "type": "items",
    "planId": "gone",
    "entries": [{"content": "x", "priority": "low", "status": "pending"}],
}
FILE = {"type": "file", "planId": "f", "uri": "file:///tmp/plan%20one.md"}
REMOVED = {"sessionUpdate": "plan_removed", "planId": "gone"}


# ---------------------------------------------------------------- plans (v2)


def test_plan_removed_takes_the_plan_out_of_the_store_and_the_timeline() -> None:
    store = play(2, [plan_update(ITEMS), plan_update(MARKDOWN), REMOVED])
    assert [p.plan_id for p in store.plans()] == ["md"]
    assert ("plan", "gone") not in store.timeline()
    assert store.removed_plans() == ("gone",)
    document = dump(store)
    assert [p["planId"] for p in document["plans"]] == ["md"]
    assert document["removedPlans"] == ["gone"]


def test_plan_removed_reports_a_removed_change_once() -> None:
    player = Player(2)
    player.send(plan_update(ITEMS))
    (op,) = player.ops(REMOVED)
    assert op == ops.RemovePlan("gone")
    changes = player.store.apply(op)
    assert [(c.kind, c.id, c.action) for c in changes] == [("plan", "gone", "removed")]
    assert player.store.apply(op) == ()  # unknown now: nothing


def test_a_removed_plan_sent_again_is_back_at_the_end() -> None:
    store = play(2, [plan_update(ITEMS), plan_update(MARKDOWN), REMOVED])
    store.apply_many(translate_v2.translate_update(v2_update(plan_update(ITEMS))))
    assert [p.plan_id for p in store.plans()] == ["md", "gone"]
    assert store.removed_plans() == ()
    assert "removedPlans" not in dump(store)


def v2_update(raw: dict[str, Any]) -> Any:
    params = {"sessionId": SID, "update": raw}
    return v2.UpdateSessionNotification.model_validate(params).update


def test_markdown_and_file_plans_are_read_as_documents() -> None:
    store = play(2, [plan_update(MARKDOWN), plan_update(FILE)])
    markdown, file_plan = store.plans()
    assert plan_document(markdown) == PlanDocument("markdown", text="## Steps\n- one")
    assert plan_document(file_plan) == PlanDocument(
        "file", uri="file:///tmp/plan%20one.md", path="/tmp/plan one.md"
    )
    assert dump(store)["plans"] == [MARKDOWN, FILE]  # the wire objects kept


def test_a_markdown_plan_without_content_is_a_validation_error() -> None:
    with pytest.raises(ValueError, match="content"):
        v2_update(plan_update({"type": "markdown", "planId": "md"}))


def test_a_file_plan_is_read_bounded(tmp_path: Path) -> None:
    path = tmp_path / "PLAN.md"
    path.write_bytes(b"a" * (MAX_FILE_BYTES + 10))
    read = read_plan_file(PlanDocument("file", uri="x", path=str(path)))
    assert read.text is not None
    assert len(read.text) == MAX_FILE_BYTES
    assert read.problem is not None
    assert "first" in read.problem
    assert read.markdown


def test_a_remote_or_missing_file_plan_is_not_read(tmp_path: Path) -> None:
    remote = read_plan_file(PlanDocument("file", uri="https://x.test/plan.md"))
    assert remote.text is None
    assert "not a local file" in (remote.problem or "")
    missing = read_plan_file(
        PlanDocument("file", uri="file:///nope", path=str(tmp_path / "nope.txt"))
    )
    assert missing.text is None
    assert "could not read" in (missing.problem or "")


def test_the_journal_replays_removed_plans_and_cancelling_marks() -> None:
    live = play(
        2,
        [
            plan_update(ITEMS),
            plan_update(MARKDOWN),
            REMOVED,
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "status": "in_progress",
                "capabilities": {"cancel": {}},
            },
        ],
    )
    recorded: list[dict[str, Any]] = []
    replayed = SessionStore(SID)
    # Journal what the live store got, the client's mark included.
    for op in [
        *translate_v2.translate_update(v2_update(plan_update(ITEMS))),
        *translate_v2.translate_update(v2_update(plan_update(MARKDOWN))),
        *translate_v2.translate_update(v2_update(REMOVED)),
    ]:
        recorded.append(json.loads(json.dumps(op_to_record(op))))
    live.apply(ops.MarkCancelling("tool_call", "t1"))
    for update in [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "status": "in_progress",
            "capabilities": {"cancel": {}},
        }
    ]:
        for op in translate_v2.translate_update(v2_update(update)):
            recorded.append(op_to_record(op))
    recorded.append(op_to_record(ops.MarkCancelling("tool_call", "t1")))
    for record in recorded:
        replayed.apply(op_from_record(record))
    assert replayed.to_json() == live.to_json()
    assert replayed.removed_plans() == live.removed_plans() == ("gone",)
    assert replayed.cancelling("tool_call", "t1")


def test_v1_plan_operations_are_read_like_v2s() -> None:
    """With the `plan` capability, a v1 agent may send plans by id and remove them."""
    store = play(1, [plan_update(ITEMS), plan_update(MARKDOWN), REMOVED])
    assert [p.plan_id for p in store.plans()] == ["md"]
    assert store.removed_plans() == ("gone",)
    (markdown,) = store.plans()
    assert plan_document(markdown) == PlanDocument("markdown", text="## Steps\n- one")


def test_both_versions_advertise_plan_operations_to_v1_agents() -> None:
    from acp_tui.client.connection import ClientFeatures, ClientIdentity

    identity = ClientIdentity()
    features = ClientFeatures()
    for params in (
        translate_v1.V1Dialect.initialize_params(identity, features),
        translate_v2.V2Dialect.initialize_params(identity, features),
    ):
        assert params["clientCapabilities"]["plan"] == {}


# ------------------------------------------------------------ tool-call names


def test_v1_tool_calls_carry_their_name_and_null_keeps_it() -> None:
    store = play(
        1,
        [
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "Read",
                "name": "read_file",
            },
            {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "name": None},
        ],
    )
    call = store.tool_call("t1")
    assert call is not None
    assert call.name == "read_file"
    store = play(
        1,
        [
            {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read"},
            {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "name": "grep"},
        ],
    )
    call = store.tool_call("t1")
    assert call is not None
    assert call.name == "grep"


def test_v2_null_clears_the_name() -> None:
    store = play(
        2,
        [
            {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "name": "a"},
            {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "name": None},
        ],
    )
    call = store.tool_call("t1")
    assert call is not None
    assert call.name is None


def test_a_v1_permission_subject_names_its_tool() -> None:
    store = SessionStore(SID)
    request = v1.RequestPermissionRequest.model_validate(
        {
            "sessionId": SID,
            "toolCall": {"toolCallId": "t9", "name": "bash", "title": "Run"},
            "options": [{"optionId": "y", "name": "Yes", "kind": "allow_once"}],
        }
    )
    dialect = translate_v1.V1Dialect(
        v1.InitializeResponse.model_validate({"protocolVersion": 1})
    )
    dialect.permission(request.model_dump(by_alias=True), lambda _: store)
    call = store.tool_call("t9")
    assert call is not None
    assert call.name == "bash"


def test_the_header_tags_the_name_and_says_cancelling() -> None:
    store = play(
        2,
        [
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "title": "Run the tests",
                "name": "run_tests",
                "kind": "execute",
                "status": "in_progress",
            }
        ],
    )
    call = store.tool_call("t1")
    assert call is not None
    plain = header_content(call).plain
    assert plain == "❯ Run the tests run_tests  ◐ in progress"
    assert header_content(call, cancelling=True).plain.endswith(CANCELLING)
    untitled = play(
        2, [{"sessionUpdate": "tool_call_update", "toolCallId": "t", "name": "ls"}]
    ).tool_call("t")
    assert untitled is not None
    assert header_content(untitled).plain == "• ls  ○ pending"  # no tag twice


# ------------------------------------------------------------- cancel one


def test_the_cancelling_mark_lasts_until_a_final_status() -> None:
    store = play(
        2,
        [
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "status": "pending",
            }
        ],
    )
    changes = store.apply(ops.MarkCancelling("tool_call", "t1"))
    assert [(c.kind, c.id, c.action) for c in changes] == [
        ("tool_call", "t1", "updated")
    ]
    assert store.cancelling("tool_call", "t1")
    assert store.apply(ops.MarkCancelling("tool_call", "unknown")) == ()
    store.apply(ops.PatchToolCall("t1", status="cancelled"))
    assert not store.cancelling("tool_call", "t1")


def test_a_failed_request_clears_the_mark() -> None:
    store = play(
        2,
        [{"sessionUpdate": "terminal_update", "terminalId": "k", "command": "tail"}],
    )
    store.apply(ops.MarkCancelling("terminal", "k"))
    assert store.cancelling("terminal", "k")
    store.apply(ops.MarkCancelling("terminal", "k", cancelling=False))
    assert not store.cancelling("terminal", "k")


def v2_dialect() -> translate_v2.V2Dialect:
    result = v2.InitializeResponse.model_validate(
        {
            "protocolVersion": 2,
            "info": {"name": "a", "version": "1"},
            "capabilities": {},
            "authMethods": [],
        }
    )
    return translate_v2.V2Dialect(result)


def test_only_an_advertised_cancel_makes_a_request() -> None:
    dialect = v2_dialect()
    assert dialect.cancel_one("tool_call", "s", "t1", {"cancel": {}}) == (
        "tool_call/cancel",
        {"sessionId": "s", "toolCallId": "t1"},
    )
    assert dialect.cancel_one("terminal", "s", "k", {"cancel": {}}) == (
        "terminal/cancel",
        {"sessionId": "s", "terminalId": "k"},
    )
    assert dialect.cancel_one("tool_call", "s", "t1", None) is None
    assert dialect.cancel_one("tool_call", "s", "t1", {}) is None
    assert dialect.cancel_one("tool_call", "s", "t1", {"cancel": None}) is None
    v1_dialect = translate_v1.V1Dialect(
        v1.InitializeResponse.model_validate({"protocolVersion": 1})
    )
    assert v1_dialect.cancel_one("tool_call", "s", "t1", {"cancel": {}}) is None


def test_the_sent_requests_match_the_unstable_schema() -> None:
    dialect = v2_dialect()
    for kind, model in (
        ("tool_call", v2.CancelToolCallRequest),
        ("terminal", v2.CancelTerminalRequest),
    ):
        request = dialect.cancel_one(kind, "s", "x", {"cancel": {}})
        assert request is not None
        method, params = request
        assert v2.AGENT_METHODS[method].params is model
        model.model_validate(params)


# ---------------------------------------------------------------- print


def test_print_shows_plan_documents_and_a_removed_plan() -> None:
    store = SessionStore(SID, cwd="/tmp")
    out = io.StringIO()
    store.subscribe(Transcript(store, out).on_changes)
    player = Player(2, store)
    player.send(plan_update(ITEMS), plan_update(MARKDOWN), plan_update(FILE), REMOVED)
    text = out.getvalue()
    assert "[plan md (markdown)]\n  ## Steps\n  - one" in text
    assert "[plan f (file)]\n  file: plan one.md" in text
    assert text.rstrip().endswith("[plan gone removed]")


def test_a_hostile_tool_name_is_shown_as_text() -> None:
    store = play(
        2,
        [
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "title": "Run",
                "name": "[b]bash[/b]\x1b]0;pwned\x07",
            }
        ],
    )
    call = store.tool_call("t1")
    assert call is not None
    plain = header_content(call).plain
    assert "[b]bash[/b]" in plain
    assert "\x1b" not in plain
    assert "\x07" not in plain


def test_the_markdown_export_shows_plan_documents_and_not_a_removed_plan() -> None:
    from acp_tui.export import session_markdown

    store = play(2, [plan_update(ITEMS), plan_update(MARKDOWN), plan_update(FILE)])
    store.apply_many(translate_v2.translate_update(v2_update(REMOVED)))
    text = session_markdown(store)
    assert "> ## Steps\n> - one" in text
    assert "*(in the file `/tmp/plan one.md`)*" in text
    assert text.count("### Plan") == 2  # the removed one is gone


def test_no_tag_repeats_the_first_word_of_the_title() -> None:
    """claude-agent-acp titles a Write "Write hello.py": the tag would say it twice."""
    store = play(
        2,
        [
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "w",
                "title": "Write hello.py",
                "name": "Write",
                "kind": "edit",
                "status": "completed",
            },
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "b",
                "title": "Writer checks",
                "name": "write",
                "status": "completed",
            },
        ],
    )
    written, other = store.tool_call("w"), store.tool_call("b")
    assert written is not None
    assert other is not None
    assert header_content(written).plain == "✎ Write hello.py  ✓ completed"
    assert " write " in header_content(other).plain  # "Writer" is another word
