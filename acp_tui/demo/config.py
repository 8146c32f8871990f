"""The demo's session configuration: mode, model and thought level.

Version-neutral: `options()` describes each option once; the emitters turn the
descriptions into v1 (`id`, `group`) or v2 (`configId`, `groupId`) config options,
and v1 also into the modes API (`SessionModeState`).

What each option changes (scenarios read `Config`):

* **mode** (category `mode`): `ask` asks permission before editing or running
  anything; `code` acts without asking; `plan` is read-only: it never edits files
  or runs commands, it writes a plan instead (and then switches itself to `code`,
  once per session, with a `config_option_update`).
* **model** (category `model`): only a label in the answers, and the context size
  in `usage_update`. Its options are grouped, to show the grouped select form.
* **thought level** (category `thought_level`): how long the thoughts are.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "MODEL_CONTEXT",
    "MODES",
    "Choice",
    "Config",
    "OptionSpec",
    "options",
]


@dataclass(frozen=True, slots=True)
class Choice:
    """One value of a select option."""

    value: str
    name: str
    description: str
    group: str | None = None
    """The id of the group the value belongs to (grouped selects only)."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """A select config option, version-neutral."""

    option_id: str
    name: str
    description: str
    category: str
    current: str
    choices: tuple[Choice, ...]
    groups: tuple[tuple[str, str], ...] = ()
    """`(group id, group name)` in order; empty for a flat select."""


MODES: Final = (
    Choice("ask", "Ask", "Asks before it edits files or runs commands"),
    Choice("code", "Code", "Edits files and runs commands without asking"),
    Choice("plan", "Plan", "Read-only: writes plans, never edits or runs anything"),
)

_MODELS: Final = (
    Choice("demo-swift", "Demo Swift", "Quick, short answers", "fast"),
    Choice("demo-mini", "Demo Mini", "The smallest context window", "fast"),
    Choice("demo-deep", "Demo Deep", "A large context window", "thorough"),
)
_MODEL_GROUPS: Final = (("fast", "Fast"), ("thorough", "Thorough"))

MODEL_CONTEXT: Final = {"demo-swift": 32_000, "demo-mini": 8_000, "demo-deep": 200_000}
"""The context window reported in `usage_update`, per model."""

_THOUGHT_LEVELS: Final = (
    Choice("low", "Low", "One-line thoughts"),
    Choice("medium", "Medium", "A few sentences of thought"),
    Choice("high", "High", "Long, detailed thoughts"),
)


@dataclass(slots=True)
class Config:
    """A session's current option values."""

    mode: str = "ask"
    model: str = "demo-swift"
    thought_level: str = "medium"

    def get(self, option_id: str) -> str:
        """The current value of an option.

        Raises:
            KeyError: No such option.
        """
        if option_id == "mode":
            return self.mode
        if option_id == "model":
            return self.model
        if option_id == "thought_level":
            return self.thought_level
        raise KeyError(option_id)

    def set(self, option_id: str, value: str) -> None:
        """Set an option to one of its values.

        Raises:
            KeyError: No such option.
            ValueError: Not one of the option's values.
        """
        spec = next((o for o in options(self) if o.option_id == option_id), None)
        if spec is None:
            raise KeyError(option_id)
        if value not in {choice.value for choice in spec.choices}:
            raise ValueError(f"{value!r} is not a value of {option_id!r}")
        if option_id == "mode":
            self.mode = value
        elif option_id == "model":
            self.model = value
        else:
            self.thought_level = value

    def model_name(self) -> str:
        """The display name of the current model."""
        return _name(_MODELS, self.model)

    def mode_name(self) -> str:
        """The display name of the current mode."""
        return _name(MODES, self.mode)

    def to_json(self) -> dict[str, str]:
        """The values, for the session file."""
        return {
            "mode": self.mode,
            "model": self.model,
            "thought_level": self.thought_level,
        }

    @classmethod
    def from_json(cls, data: object) -> Config:
        """Read values back; unknown or invalid ones fall back to the defaults."""
        config = cls()
        if isinstance(data, dict):
            for key in ("mode", "model", "thought_level"):
                value = data.get(key)
                if isinstance(value, str):
                    with contextlib.suppress(KeyError, ValueError):
                        config.set(key, value)
        return config


def _name(choices: Sequence[Choice], value: str) -> str:
    return next((c.name for c in choices if c.value == value), value)


def options(config: Config) -> list[OptionSpec]:
    """The complete option list, in priority order, with the current values."""
    return [
        OptionSpec(
            "mode",
            "Mode",
            "How careful the agent is with your workspace",
            "mode",
            config.mode,
            MODES,
        ),
        OptionSpec(
            "model",
            "Model",
            "Which (pretend) model answers",
            "model",
            config.model,
            _MODELS,
            _MODEL_GROUPS,
        ),
        OptionSpec(
            "thought_level",
            "Thinking",
            "How much the agent thinks out loud",
            "thought_level",
            config.thought_level,
            _THOUGHT_LEVELS,
        ),
    ]
