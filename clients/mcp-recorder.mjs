// mcp-recorder.mjs sits between an MCP client and a stdio server and passes
// every byte through unchanged, both ways, while it sends a copy of each
// JSON-RPC line to a recording hub on 127.0.0.1 (model-check.mjs). The
// hub's connection stays open for as long as the server runs, so the hub
// learns that the server has ended when the connection closes, whoever
// ended it.
//
// Usage: node mcp-recorder.mjs <hub port> <server command> [args...]

import { spawn } from "node:child_process";
import { connect } from "node:net";

const [port, command, ...args] = process.argv.slice(2);
if (!port || !command) {
  console.error("usage: node mcp-recorder.mjs <hub port> <server command> [args...]");
  process.exit(2);
}

const hub = connect(Number(port), "127.0.0.1");
hub.on("error", () => {}); // the server's traffic never depends on the hub
const record = (event) => hub.write(JSON.stringify(event) + "\n");

const server = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
record({ event: "start", recorder: process.pid, server: server.pid });

// lines calls emit for each complete line of a stream's chunks.
function lines(emit) {
  let rest = "";
  return (chunk) => {
    rest += chunk.toString("utf8");
    let i;
    while ((i = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, i).replace(/\r$/, "");
      rest = rest.slice(i + 1);
      if (line !== "") emit(line);
    }
  };
}

const toServer = lines((line) => record({ event: "message", from: "client", line }));
const toClient = lines((line) => record({ event: "message", from: "server", line }));
process.stdin.on("data", (chunk) => {
  toServer(chunk);
  server.stdin.write(chunk);
});
process.stdin.on("end", () => server.stdin.end());
server.stdin.on("error", () => {});
server.stdout.on("data", (chunk) => {
  toClient(chunk);
  process.stdout.write(chunk);
});

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => server.kill(signal));
}

server.on("exit", (code, signal) => {
  record({ event: "exit", code, signal });
  hub.end();
  process.exitCode = code ?? 1;
  // Stop reading the client so that the event loop can drain and exit.
  process.stdin.destroy();
});
