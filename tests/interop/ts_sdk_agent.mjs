// A small ACP agent written with the TypeScript SDK 2.4.0, served by its own
// experimental server (`@agentclientprotocol/sdk/experimental/server` and
// `/experimental/node`) on 127.0.0.1, on a free port; prints `PORT <n>`.
// Streamable HTTP, and WebSocket upgrades on the same endpoint through the `ws`
// package (which the SDK does not depend on: .ci/install-peers installs it
// beside). Each prompt is answered with
// `ts-sdk heard: <prompt text>` in two chunks. Run with Node 22:
//   node tests/interop/ts_sdk_agent.mjs PEERS_DIR
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";

const peers = process.argv[2];
const sdk = `${peers}/node_modules/@agentclientprotocol/sdk/dist`;
const { agent } = await import(pathToFileURL(`${sdk}/v1/stable/acp.js`).href);
const { AcpServer } = await import(pathToFileURL(`${sdk}/transports/server.js`).href);
const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = await import(
  pathToFileURL(`${sdk}/transports/node-adapter.js`).href
);
const { WebSocketServer } = await import(
  pathToFileURL(`${peers}/node_modules/ws/wrapper.mjs`).href
);

let sessions = 0;
const app = agent()
  .onRequest("initialize", () => ({
    protocolVersion: 1,
    agentCapabilities: {},
    agentInfo: { name: "ts-sdk-agent", version: "2.4.0" },
  }))
  .onRequest("session/new", () => ({ sessionId: `ts-${++sessions}` }))
  .onRequest("session/prompt", async ({ params, client }) => {
    const text = params.prompt.map((block) => block.text ?? "").join(" ");
    for (const piece of ["ts-sdk heard: ", text]) {
      await client.notify("session/update", {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: piece } },
      });
    }
    return { stopReason: "end_turn" };
  })
  .onNotification("session/cancel", () => {});

const server = new AcpServer({ agent: app });
const http = createServer(createNodeHttpHandler(server));
const sockets = new WebSocketServer({ noServer: true });
http.on("upgrade", createNodeWebSocketUpgradeHandler(server, sockets));
http.listen(0, "127.0.0.1", () => {
  console.log(`PORT ${http.address().port}`);
});
