"""An answered form in words: its fields' titles, and a choice by its title.

`elicitation_form.answer_text` is what the conversation, `acp-tui print`'s text
and the Markdown export show; the JSON document keeps the content as sent.
"""

from __future__ import annotations

from typing import Any

from acp_tui.client.elicitation_form import answer_text
from acp_tui.store import AddElicitation, ResolveElicitation, SessionStore
from acp_tui.store.model import Elicitation

ASK_USER_QUESTION: dict[str, Any] = {  # claude-agent-acp's AskUserQuestion shape
    "type": "object",
    "properties": {
        "question_0": {
            "type": "string",
            "title": "Approach",
            "oneOf": [
                {"const": "big", "title": "Big", "description": "Start over"},
                {"const": "small", "title": "Small"},
            ],
        },
    },
    "required": ["question_0"],
}


def answered(schema: Any, content: dict[str, Any]) -> Elicitation:
    store = SessionStore("s")
    store.apply_many(
        [
            AddElicitation("1", "form", "Which approach?", schema),
            ResolveElicitation("1", {"action": "accept", "content": content}),
        ]
    )
    (elicitation,) = store.elicitations()
    return elicitation


def test_a_question_reads_as_its_title_and_the_choice_as_its_title() -> None:
    elicitation = answered(ASK_USER_QUESTION, {"question_0": "big"})
    assert answer_text(elicitation) == "answered — Approach: Big"
    assert elicitation.content == {"question_0": "big"}  # the record keeps it as sent


def test_every_kind_of_field_is_labelled_by_its_title() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Project name"},
            "language": {
                "type": "string",
                "enum": ["py", "rs"],
                "enumNames": ["Python", "Rust"],
            },
            "hours": {"type": "number", "title": "Hours a week"},
            "tests": {"type": "boolean", "title": "Write tests"},
            "platforms": {
                "type": "array",
                "title": "Platforms",
                "items": {
                    "anyOf": [
                        {"const": "linux", "title": "Linux"},
                        {"const": "macos", "title": "macOS"},
                    ]
                },
            },
        },
    }
    content = {
        "name": "ui",
        "language": "rs",
        "hours": 2.5,
        "tests": False,
        "platforms": ["macos", "linux"],
    }
    assert answer_text(answered(schema, content)) == (
        "answered — Project name: ui; language: Rust; Hours a week: 2.5; "
        "Write tests: no; Platforms: [macOS, Linux]"
    )


def test_names_stay_where_there_is_no_title_or_no_readable_schema() -> None:
    untitled = {"type": "object", "properties": {"strategy": {"type": "string"}}}
    assert (
        answer_text(answered(untitled, {"strategy": "x", "extra": 1}))
        == "answered — strategy: x; extra: 1"
    )
    unreadable = {"type": "object", "properties": {"when": {"type": "time"}}}
    assert answer_text(answered(unreadable, {"when": "noon"})) == (
        "answered — when: noon"
    )


def test_other_answers_read_as_before() -> None:
    store = SessionStore("s")
    store.apply_many(
        [
            AddElicitation("1", "form", "Which approach?", ASK_USER_QUESTION),
            AddElicitation("2", "form", "Sure?", ASK_USER_QUESTION),
            ResolveElicitation("2", {"action": "decline"}),
        ]
    )
    assert [answer_text(e) for e in store.elicitations()] == [
        "waiting for an answer",
        "declined",
    ]
