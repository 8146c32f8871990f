"""Everything acp-tui keeps on disk, in one room.

* `paths`: where: the config, data, state and log directories (`ACP_TUI_HOME`
  or the platform's), and the file names derived from a project's directory.
* `private_files`: how: files readable by the user only (0600 in 0700
  directories), created that way rather than tightened later; appends that
  refuse symlinks; atomic replacement (`replace_privately`); pruning and
  a rotating log handler.
* `transcripts`, `history`, `drafts`: what: session journals that rebuild a
  store, sent prompts per project, and the prompt being typed (with the prompts
  still queued) per project.

This package's `__init__` imports nothing, so a low layer (the protocol layer's
traffic log) can import `storage.paths` or `storage.private_files` without
pulling in `transcripts`, which needs the store.
"""
