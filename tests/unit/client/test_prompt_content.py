"""Prompt content: capabilities, `@path` mentions, blocks valid in v1 and v2."""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path
from typing import Any, cast

import pytest
from jsonschema import Draft202012Validator

from acp_tui.client.connection import AgentIdentity, Connection
from acp_tui.client.prompt_content import (
    EMBED_LIMIT,
    PromptCapabilities,
    build_prompt,
    find_mentions,
    mention_text,
    mentioned_paths,
    prompt_capabilities,
    scan_project_files,
)
from acp_tui.protocol.dispatcher import Dispatcher
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.transport import MessageStream
from acp_tui.store.values import JSONObject
from tests.spec_examples import SCHEMAS, load_schema

ALL = PromptCapabilities(image=True, audio=True, embedded_context=True)
NONE = PromptCapabilities()
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))

pytestmark = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"reference schemas missing at {SCHEMAS}"
)


@cache
def _validator(version: int, definition: str) -> Any:
    root = load_schema(f"v{version}/schema.json")
    return Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]},
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def assert_valid(blocks: list[JSONObject]) -> None:
    """Every block is a ContentBlock and the list a PromptRequest, in v1 and v2."""
    request = {"sessionId": "s1", "prompt": blocks}
    for version in (1, 2):
        for block in blocks:
            errors = list(_validator(version, "ContentBlock").iter_errors(block))
            assert not errors, (version, block, [e.message for e in errors])
        errors = list(_validator(version, "PromptRequest").iter_errors(request))
        assert not errors, (version, [e.message for e in errors])
    # Our own wire models read them as the known variants, not as unknown blocks.
    v1_request = v1.PromptRequest.model_validate(request)
    v2_request = v2.PromptRequest.model_validate(request)
    for parsed in (v1_request.prompt, v2_request.prompt):
        assert [type(b).__name__ for b in parsed] == [
            _model_name(block) for block in blocks
        ]


def _model_name(block: JSONObject) -> str:
    return {
        "text": "TextContent",
        "image": "ImageContent",
        "resource": "EmbeddedResource",
        "resource_link": "ResourceLink",
    }[cast(str, block["type"])]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n", "utf-8")
    (root / "notes.md").write_text("# Notes\n", "utf-8")
    (root / "my file.txt").write_text("spaces\n", "utf-8")
    (root / "logo.png").write_bytes(PNG)
    (root / "blob.bin").write_bytes(b"\x00\x01\x02\xff")
    (root / "data").write_bytes("héllo".encode("latin-1"))
    (tmp_path / "secret.txt").write_text("outside\n", "utf-8")
    return root


# -- capabilities -------------------------------------------------------------------


def _connection(result: v1.InitializeResponse | v2.InitializeResponse) -> Connection:
    return Connection(
        protocol_version=1 if isinstance(result, v1.InitializeResponse) else 2,
        dispatcher=cast(Dispatcher, object()),
        stream=cast(MessageStream, object()),
        initialize_result=result,
        agent=AgentIdentity(name="agent", title=None, version=None),
    )


def test_v1_prompt_capabilities_are_read() -> None:
    result = v1.InitializeResponse.model_validate(
        {
            "protocolVersion": 1,
            "agentCapabilities": {
                "promptCapabilities": {"image": True, "embeddedContext": True}
            },
        }
    )
    assert prompt_capabilities(_connection(result)) == PromptCapabilities(
        image=True, audio=False, embedded_context=True
    )


def test_v1_without_prompt_capabilities_supports_nothing_extra() -> None:
    result = v1.InitializeResponse.model_validate({"protocolVersion": 1})
    assert prompt_capabilities(_connection(result)) == NONE


@pytest.mark.parametrize(
    ("session", "expected"),
    [
        (None, NONE),
        ({}, NONE),
        ({"prompt": None}, NONE),
        ({"prompt": {}}, NONE),
        ({"prompt": {"image": {}, "audio": None}}, PromptCapabilities(image=True)),
        ({"prompt": {"image": {}, "audio": {}, "embeddedContext": {}}}, ALL),
    ],
)
def test_v2_prompt_capabilities_are_read_from_session_prompt(
    session: dict[str, Any] | None, expected: PromptCapabilities
) -> None:
    capabilities: dict[str, Any] = {} if session is None else {"session": session}
    result = v2.InitializeResponse.model_validate(
        {
            "protocolVersion": 2,
            "info": {"name": "agent", "version": "1"},
            "capabilities": capabilities,
        }
    )
    assert prompt_capabilities(_connection(result)) == expected


# -- mentions -----------------------------------------------------------------------


def test_mentioned_paths_finds_bare_and_quoted_mentions_once() -> None:
    text = (
        '@src/main.py and @"my file.txt", see @notes.md. '
        "mail me@example.com @src/main.py\n@/abs/path (@x)"
    )
    assert mentioned_paths(text) == [
        "src/main.py",
        "my file.txt",
        "notes.md",
        "/abs/path",
    ]


def test_find_mentions_reports_spans() -> None:
    text = 'see @a.py, @"b c"'
    mentions = find_mentions(text)
    assert [(m.path, text[m.start : m.end], m.quoted) for m in mentions] == [
        ("a.py", "@a.py", False),
        ("b c", '@"b c"', True),
    ]


def test_lone_at_signs_are_not_mentions() -> None:
    assert mentioned_paths('@ @. @"" a@b') == []


def test_mention_text_quotes_paths_with_spaces() -> None:
    assert mention_text("src/a.py") == "@src/a.py"
    assert mention_text("my file.txt") == '@"my file.txt"'


# -- build_prompt -------------------------------------------------------------------


def test_plain_text_is_one_text_block(project: Path) -> None:
    blocks = build_prompt("hello\nworld", project, ALL)
    assert blocks == [{"type": "text", "text": "hello\nworld"}]
    assert_valid(blocks)


def test_text_file_is_embedded_with_embedded_context(project: Path) -> None:
    text = "explain @src/main.py"
    blocks = build_prompt(text, project, PromptCapabilities(embedded_context=True))
    assert blocks == [
        {"type": "text", "text": text},
        {
            "type": "resource",
            "resource": {
                "uri": (project / "src" / "main.py").as_uri(),
                "text": "print('hi')\n",
                "mimeType": "text/x-python",
            },
        },
    ]
    assert_valid(blocks)


def test_without_embedded_context_files_are_links(project: Path) -> None:
    blocks = build_prompt("@src/main.py @notes.md", project, NONE)
    assert blocks[1:] == [
        {
            "type": "resource_link",
            "uri": (project / "src" / "main.py").as_uri(),
            "name": "src/main.py",
            "mimeType": "text/x-python",
            "size": len("print('hi')\n"),
        },
        {
            "type": "resource_link",
            "uri": (project / "notes.md").as_uri(),
            "name": "notes.md",
            "mimeType": "text/markdown",
            "size": len("# Notes\n"),
        },
    ]
    assert_valid(blocks)


def test_image_is_sent_as_image_when_supported(project: Path) -> None:
    blocks = build_prompt("what is @logo.png", project, ALL)
    assert blocks[1] == {
        "type": "image",
        "mimeType": "image/png",
        "data": base64.b64encode(PNG).decode("ascii"),
        "uri": (project / "logo.png").as_uri(),
    }
    assert_valid(blocks)


def test_image_is_a_link_when_images_are_not_supported(project: Path) -> None:
    blocks = build_prompt(
        "@logo.png", project, PromptCapabilities(embedded_context=True)
    )
    assert blocks[1] == {
        "type": "resource_link",
        "uri": (project / "logo.png").as_uri(),
        "name": "logo.png",
        "mimeType": "image/png",
        "size": len(PNG),
    }
    assert_valid(blocks)


def test_binary_non_utf8_and_large_files_are_links(project: Path) -> None:
    (project / "big.txt").write_text("x" * (EMBED_LIMIT + 1), "utf-8")
    (project / "edge.txt").write_text("y" * EMBED_LIMIT, "utf-8")
    blocks = build_prompt("@blob.bin @data @big.txt @edge.txt", project, ALL)
    assert [(b["type"], b.get("name")) for b in blocks[1:]] == [
        ("resource_link", "blob.bin"),
        ("resource_link", "data"),
        ("resource_link", "big.txt"),
        ("resource", None),
    ]
    link_without_type = blocks[2]
    assert "mimeType" not in link_without_type
    assert_valid(blocks)


def test_quoted_and_absolute_mentions_resolve(project: Path) -> None:
    text = f'@"my file.txt" @{project / "notes.md"}'
    blocks = build_prompt(text, project, PromptCapabilities(embedded_context=True))
    resources = [cast(JSONObject, b["resource"]) for b in blocks[1:]]
    assert [r["uri"] for r in resources] == [
        (project / "my file.txt").as_uri(),
        (project / "notes.md").as_uri(),
    ]
    assert_valid(blocks)


def test_repeated_mentions_of_one_file_give_one_block(project: Path) -> None:
    text = f"@notes.md @./notes.md @src/../notes.md @{project}/notes.md @notes.md"
    blocks = build_prompt(text, project, NONE)
    assert len(blocks) == 2
    assert blocks[0] == {"type": "text", "text": text}


def test_paths_outside_cwd_missing_files_and_dirs_stay_text(
    project: Path, tmp_path: Path
) -> None:
    (project / "escape").symlink_to(tmp_path / "secret.txt")
    (project / "src" / "link.py").symlink_to(project / "src" / "main.py")
    text = (
        f"@../secret.txt @{tmp_path / 'secret.txt'} @escape @missing.py @src "
        "@src/link.py"
    )
    blocks = build_prompt(text, project, ALL)
    assert blocks[0] == {"type": "text", "text": text}
    # Only the symlink that stays inside the project is attached.
    assert [cast(JSONObject, b["resource"])["uri"] for b in blocks[1:]] == [
        (project / "src" / "main.py").as_uri()
    ]


def test_uri_keeps_the_unresolved_cwd(tmp_path: Path, project: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(project, target_is_directory=True)
    blocks = build_prompt("@notes.md", alias, NONE)
    assert blocks[1]["uri"] == (alias / "notes.md").as_uri()


def test_missing_cwd_gives_text_only(tmp_path: Path) -> None:
    blocks = build_prompt("@a.py", tmp_path / "nope", ALL)
    assert blocks == [{"type": "text", "text": "@a.py"}]


# -- scan_project_files -------------------------------------------------------------


def test_scan_lists_files_breadth_first_and_skips_noise(
    project: Path, tmp_path: Path
) -> None:
    for skipped in (".git", "node_modules", ".venv", ".hidden"):
        (project / skipped).mkdir()
        (project / skipped / "inside.txt").write_text("x", "utf-8")
    (project / ".env").write_text("hidden file", "utf-8")
    (project / "outside-link").symlink_to(tmp_path / "secret.txt")
    (project / "dir-link").symlink_to(project / "src", target_is_directory=True)
    (project / "src" / "deep").mkdir()
    (project / "src" / "deep" / "x.py").write_text("", "utf-8")

    files = scan_project_files(project)
    assert [f.path for f in files] == [
        ".env",
        "blob.bin",
        "data",
        "logo.png",
        "my file.txt",
        "notes.md",
        "src/main.py",
        "src/deep/x.py",
    ]
    assert [f.path for f in files if f.is_image] == ["logo.png"]


def test_scan_is_capped(tmp_path: Path) -> None:
    for n in range(30):
        (tmp_path / f"f{n:02}.txt").write_text("", "utf-8")
    assert [f.path for f in scan_project_files(tmp_path, limit=5)] == [
        f"f{n:02}.txt" for n in range(5)
    ]
    assert scan_project_files(tmp_path / "missing") == []
