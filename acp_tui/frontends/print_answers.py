"""`acp-tui print --answers FILE`: the form answers, read before anything starts.

Read by `print_turn.run_print`, and first by the command line, which starts the
agent early (`print_early`) only when they can be read: a usage error never
starts the agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["read_answers"]


def read_answers(path: Path | None) -> list[dict[str, Any]]:
    """The form answers of `--answers`: a JSON object, or a list of objects.

    Raises:
        ValueError: The file cannot be read, or is not such JSON (said why).
    """
    if path is None:
        return []
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"cannot read the answers in {path}: {error}") from None
    answers = value if isinstance(value, list) else [value]
    if not answers or not all(isinstance(answer, dict) for answer in answers):
        raise ValueError(
            f"{path}: the answers must be a JSON object, or a list of objects"
        )
    for number, answer in enumerate(answers, 1):
        for name, item in answer.items():
            if not _answer_value(item):
                raise ValueError(
                    f"{path}: answer {number}: {name!r} is {json.dumps(item)[:60]}, "
                    "but an answer is text, a number, true/false or a list of "
                    "strings"
                )
    return answers


def _answer_value(value: object) -> bool:
    """Whether `value` can answer a form field (a wire `ElicitationContentValue`)."""
    if isinstance(value, list):
        return all(isinstance(item, str) for item in value)
    return isinstance(value, str | int | float | bool)
