"""Nothing above the client layer parses wire keys: the store gives neutral values.

The UI and the render layer read config options (`SessionStore.settings`),
permission subjects (`client.grants.SubjectFacts`), permission outcomes
(`Permission.chosen_option`) and terminal references (`store.model.terminal_ref`)
as typed, version-neutral values. The keys that differ between the versions, or
that the widgets used to pick out of wire JSON, must not appear there at all, not
even in a docstring, so a new widget cannot start reading them again unnoticed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import acp_tui

ROOT: Final = Path(acp_tui.__file__).parent

WIRE_KEYS: Final = re.compile(r"configId|groupId|\"toolCall\"|terminalId|optionId")
"""The wire keys the widgets once indexed dicts with."""

ALLOWED: Final[dict[str, str]] = {
    # path relative to acp_tui/ -> why it may name a wire key (raw-JSON display).
    # Empty: no module above the client layer shows these keys as JSON on purpose
    # (the inspector shows the traffic's text as received, without parsing it).
}


def test_ui_and_render_name_no_wire_keys() -> None:
    found: list[str] = []
    for layer in ("ui", "render"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in ALLOWED:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if WIRE_KEYS.search(line):
                    found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "wire keys above the client layer:\n" + "\n".join(found)


def test_the_check_sees_a_wire_key() -> None:
    assert WIRE_KEYS.search('item.get("terminalId")')
    assert WIRE_KEYS.search('subject.get("toolCall")')
    assert not WIRE_KEYS.search("tool_call.tool_call_id")
