"""The front ends that are not the app: one room for the commands without a screen.

`print_turn` (`acp-tui print`), `sessions` (`acp-tui sessions`), `check`
(`acp-tui check`), `probe` (`acp-tui --probe`), `export_transcript`
(`acp-tui export`) and `replay` (`acp-tui replay`'s agent command line). Each
drives the client through `client.runner.ClientRunner` (those that talk to an
agent) and writes to the streams it is given; `acp_tui.cli` only parses the
arguments and dispatches here. `acp-tui serve`'s launcher stays in
`ui/serve.py`: what it launches is the Textual app.

Layering: the front ends sit beside the UI, above the client and render layers
(an import-linter contract); they never import Textual or Rich, and neither
they nor the UI import each other. The package's `__init__` imports nothing.
"""
