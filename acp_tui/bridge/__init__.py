"""`acp-tui bridge`: serve a local stdio agent over ACP's remote transport.

One `/acp` endpoint speaks both profiles of the RFD "Streamable HTTP & WebSocket
Transport": POST/GET(SSE)/DELETE, and a WebSocket upgrade. Each connection gets
its own agent process (`acp_tui.protocol.transport.StdioTransport`); messages are
relayed line by line, unchanged. This package is a front end like the CLI: it uses
the protocol layer only, never the client or the UI, and imports starlette and
uvicorn (the `remote` extra) only when the bridge runs.

* `options`, `cli_args`: the settings and their checks (listen address, token);
* `peek`: what routing needs from a message (ids, method, session ids);
* `mailbox`: bounded outbound queues (backpressure);
* `link`: one client connection and the agent process behind it;
* `registry`: every connection, limits, grace periods, adoption;
* `asgi`: the `/acp` endpoint (starlette), its guard (token, Origin);
* `serve`: the uvicorn launcher.
"""
