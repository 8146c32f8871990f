"""`agent.py`'s session scenarios with every name the agent gives made hostile.

Run as `python tests/fakes/hostile_agent.py SCENARIO` with one of `agent.py`'s
`FULL_SCENARIOS` (`v2-full`, `v1-full`, `v2-auth`, `v1-auth`). It plays those
scenarios unchanged (same ids, values, turns and errors), but every string the
agent names things with carries Textual/Rich markup (`[link=...]`, `[@click=...]`,
a stray `[/]`, `[b]`, a benign `Default [opus]`, tags Textual's own `escape`
misses) and a control character (an OSC 8 hyperlink, an SGR sequence, or at
least a C1 control):

  initialize        the agent's title (`TITLE`)
  session/new       config option names, select choice names and group names,
                    descriptions (`MODES`, `MODEL_GROUPS`, `THOUGHT_LEVELS`,
                    `OPTION_NAMES`, `AUTO_APPROVE_DESCRIPTION`); v1 mode names;
                    the slash commands' names, descriptions and input hints
                    (`COMMANDS`); a `session_info_update` with `SESSION_TITLE`
                    and, before its answer, an unknown notification whose
                    method is `NOTIFICATION_METHOD`
  session/list      the stored sessions' titles (`STORED_TITLES`)
  set_config_option the value "max" is refused with `REFUSAL` as the message
  auth methods      names and descriptions (`AUTH_NAMES`, `AUTH_DESCRIPTIONS`);
                    `--login` prints `LOGGED_IN_TEXT`

The values and ids stay plain, so tests pick choices as they do with `agent.py`.
Like `agent.py`, it imports nothing from acp_tui.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # run as a script: the checkout is not on the path
    sys.path.insert(
        0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    )

from tests.fakes import scripted_agent as base  # (after the path is set)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (agent.py)
if TYPE_CHECKING:
    from typing import Any, Final

JS_LINK: Final = "[link='javascript:alert(1)']js-link[/link]"
CLICK: Final = "[@click=app.quit]click-quit[/]"
CLOSE: Final = "[/]"
BOLD: Final = "[b]bold[/b]"
OPUS: Final = "Default [opus]"
VARIABLE: Final = "[$accent]variable[/]"
"""A tag Textual's `markup.escape` leaves alone (it escapes `[a-z#/@...]` only)."""
UPPER: Final = "[B]upper[/B]"
"""Another: an upper-case style name."""
OSC8: Final = "\x1b]8;;https://evil.example\x1b\\osc8-link\x1b]8;;\x1b\\"
ANSI: Final = "\x1b[31mansi-red\x1b[0m"

C1: Final = "\x9b"
"""A C1 control (CSI in 8-bit terminals), ending each name below that holds no
other control character: every name must come out `printable`."""

PIECES: Final = (JS_LINK, CLICK, CLOSE, BOLD, OPUS, VARIABLE, UPPER, OSC8, ANSI, C1)
"""Every hostile piece; each name below holds one or more."""

TITLE: Final = f"Agent {BOLD} {CLOSE} {ANSI}"

# (value, name, description), as agent.py's MODES.
MODES: Final = (
    ("ask", f"Ask {BOLD}{C1}", f"Answer {JS_LINK}{C1}"),
    ("code", f"Code {CLOSE}{C1}", f"Edit {OSC8}"),
    ("plan", f"Plan {CLICK}{C1}", f"{OPUS} plans{C1}"),
)

MODEL_GROUPS: Final = (
    ("fast", f"Fast {UPPER}{C1}", (("mini", f"{OPUS}{C1}"),)),
    (
        "smart",
        f"Smart {VARIABLE}{C1}",
        (("large", f"Large {ANSI}"), ("max", f"Max {JS_LINK}{C1}")),
    ),
)
THOUGHT_LEVELS: Final = (
    ("low", f"Low {CLOSE}{C1}"),
    ("medium", "Medium"),
    ("high", f"High {CLICK}{C1}"),
)

OPTION_NAMES: Final = {
    "mode": f"Mode {CLOSE}{C1}",
    "model": f"Model {JS_LINK}{C1}",
    "thought_level": f"Thinking {BOLD}{C1}",
    "auto_approve": f"Auto {CLICK}{C1}",
}
AUTO_APPROVE_DESCRIPTION: Final = f"Run {OSC8} {OPUS}"

# (name, description, input hint or None), as agent.py's COMMANDS.
COMMANDS: Final = (
    ("[b]review[/b][/]" + C1, f"Review {JS_LINK} {OPUS}{C1}", None),
    ("search", f"{OSC8} {CLOSE}", f"{CLICK} {ANSI}"),
)

STORED_TITLES: Final = {
    "s-alpha": f"Refactor {JS_LINK}{C1}",
    "s-beta": f"Fix {CLOSE} {BOLD}{C1}",
    "s-gamma": f"Notes {OSC8} {CLICK}",
}

SESSION_TITLE: Final = f"Session {CLICK} {UPPER}{C1}"
NOTIFICATION_METHOD: Final = f"_hostile/{CLOSE}{BOLD}{ANSI}"

AUTH_NAMES: Final = {
    base.AGENT_LOGIN: f"Log in {BOLD} {CLOSE}{C1}",
    base.TERMINAL_LOGIN: f"Terminal {CLICK}{C1}",
}
AUTH_DESCRIPTIONS: Final = {
    base.AGENT_LOGIN: f"Opens {JS_LINK} {ANSI}",
    base.TERMINAL_LOGIN: f"{OPUS}{C1}",
}
LOGGED_IN_TEXT: Final = f"Logged in {BOLD} {CLOSE} {ANSI}\n"

REFUSED_VALUE: Final = "max"
REFUSAL: Final = f"Refused {CLICK} {CLOSE} {ANSI}"
"""The error message refusing `REFUSED_VALUE`."""


def _info(result: dict[str, Any]) -> dict[str, Any]:
    for key in ("info", "agentInfo"):
        if key in result:
            result[key] = {**result[key], "title": TITLE}
    return result


def full_v2_result() -> dict[str, Any]:
    return _info(_full_v2_result())


def full_v1_result() -> dict[str, Any]:
    return _info(_full_v1_result())


def _named(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for option in options:
        config_id = str(option.get("configId", option.get("id")))
        option["name"] = OPTION_NAMES.get(config_id, option["name"])
        if config_id == "auto_approve":
            option["description"] = AUTO_APPROVE_DESCRIPTION
    return options


def v2_config_options(settings: dict[str, Any]) -> list[dict[str, Any]]:
    return _named(_v2_config_options(settings))


def v1_config_options(settings: dict[str, Any]) -> list[dict[str, Any]]:
    return _named(_v1_config_options(settings))


def auth_methods(version: int) -> list[dict[str, Any]]:
    methods = _auth_methods(version)
    for method in methods:
        method_id = str(method.get("methodId", method.get("id")))
        method["name"] = AUTH_NAMES[method_id]
        method["description"] = AUTH_DESCRIPTIONS[method_id]
    return methods


class HostileAgent(base.FullAgent):
    """Titles new sessions, and refuses `REFUSED_VALUE` with `REFUSAL`."""

    def new_session(self, params: dict[str, Any]) -> dict[str, Any]:
        notice = {"jsonrpc": "2.0", "method": NOTIFICATION_METHOD, "params": {}}
        base.write(notice)
        result = super().new_session(params)
        update = {"sessionUpdate": "session_info_update", "title": SESSION_TITLE}
        self.after.append((result["sessionId"], update))
        return result

    def set_config_option(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("value") == REFUSED_VALUE:
            raise base.Reject(base.INVALID_PARAMS, REFUSAL)
        return super().set_config_option(params)


_full_v2_result = base.full_v2_result
_full_v1_result = base.full_v1_result
_v2_config_options = base.v2_config_options
_v1_config_options = base.v1_config_options
_auth_methods = base.auth_methods


def install() -> None:
    """Put the hostile names into `scripted_agent.py`'s tables and builders."""
    base.MODES = MODES
    base.V1_MODES = MODES[:2]
    base.MODEL_GROUPS = MODEL_GROUPS
    base.THOUGHT_LEVELS = THOUGHT_LEVELS
    base.COMMANDS = COMMANDS
    alpha, beta, gamma = base.STORED_SESSIONS
    base.STORED_SESSIONS = (
        (alpha[0], STORED_TITLES[alpha[0]], alpha[2]),
        (beta[0], STORED_TITLES[beta[0]], beta[2]),
        (gamma[0], STORED_TITLES[gamma[0]], gamma[2]),
    )
    base.LOGGED_IN_TEXT = LOGGED_IN_TEXT
    base.full_v2_result = full_v2_result
    base.full_v1_result = full_v1_result
    base.v2_config_options = v2_config_options
    base.v1_config_options = v1_config_options
    base.auth_methods = auth_methods
    base.FullAgent = HostileAgent  # type: ignore[misc]


if __name__ == "__main__":
    if base.SCENARIO not in base.FULL_SCENARIOS:
        sys.exit(
            f"hostile_agent.py: {base.SCENARIO!r} is not a *-full or *-auth scenario"
        )
    install()
    base.main()
