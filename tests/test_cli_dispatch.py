"""The CLI only parses arguments and dispatches (issue 22).

The bodies of its commands live in `acp_tui/frontends/` (print, sessions, check,
the probe, export, replay), the bridge in `acp_tui/bridge/` and the app in
`acp_tui/ui/`; the CLI reaches the
client only for the agent catalogue, which resolves `--agent`.
"""

from __future__ import annotations

import grimp

ALLOWED_BELOW_FRONT_ENDS = {
    "acp_tui.client.agents",  # resolving --agent NAME to a command line
    "acp_tui.config",  # the config file's defaults for the arguments
    "acp_tui.safe_text",  # its own usage messages
    "acp_tui.sigint",  # ctrl+c held back while `print` starts
    "acp_tui.storage.paths",  # where the log goes
    "acp_tui.storage.private_files",
    "acp_tui.protocol.transport",  # AgentCommand, the parsed --agent
}


def test_the_cli_reaches_only_the_front_ends_the_app_and_its_own_needs() -> None:
    graph = grimp.build_graph("acp_tui")
    direct = graph.find_modules_directly_imported_by("acp_tui.cli")
    below = {
        module
        for module in direct
        if not module.startswith(("acp_tui.frontends", "acp_tui.ui", "acp_tui.bridge"))
        and module != "acp_tui"
    }
    assert below <= ALLOWED_BELOW_FRONT_ENDS
