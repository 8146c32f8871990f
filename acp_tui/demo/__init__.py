"""The built-in demo agent: a real, deterministic ACP agent (v1 and v2).

Run it with `python -m acp_tui.demo` (JSON-RPC lines on stdin/stdout). It never
touches the network, never touches the user's files (it works in a scratch
workspace under `<data_dir>/demo/workspaces/`), and produces the same output for
the same input (no randomness; wall-clock time only in `updatedAt`).

Layout (each module's docstring states its invariants):

* `events`: the version-neutral events a session emits, and `fold()` for replay.
* `config`: the mode / model / thought-level options and what they mean.
* `session`: the core. `DemoAgent` (sessions, turns), `DemoSession` (history,
  settings) and `Port`, the protocol the emitters implement.
* `turn`: one prompt turn, its cancellation, and the helpers scenarios use.
* `scenarios`: the slash commands (`/help`, `/edit`, `/run`, ...) and the default
  answer.
* `workspace`: the scratch directory and git-format patches.
* `pty_runner`: runs a command in a pseudo-terminal (and kills it on cancel).
* `persist`: sessions on disk under `<data_dir>/demo/sessions/`, and paging.
* `pacing`: the streaming delay (`ACP_TUI_DEMO_DELAY`) and the clock
  (`ACP_TUI_DEMO_NOW`).
* `emit_v1`, `emit_v2`, `emit_common`: the two thin wire faces.
* `server`, `stdio`: negotiation, the JSON-RPC methods, and the stdio stream.

Import rules: the package imports `acp_tui.protocol` and `acp_tui.storage.paths` only
(never `acp_tui.client`, `store`, `ui`, Textual or Rich), so it can run as the
peer of any client, including acp-tui's own.
"""
