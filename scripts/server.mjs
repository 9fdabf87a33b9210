#!/usr/bin/env node
/**
 * The app's HTTP server: Next's request handler on a plain Node HTTP server, plus the one thing Next's route
 * handlers cannot do, taking a WebSocket upgrade (a server's console, /api/v1/servers/{id}/console/socket).
 * Everything that starts the app starts it through here: `npm start`, `npm run demo`, the systemd unit, the
 * test suites, the chaos run and the benchmarks. It takes `next start`'s options:
 *
 *   node scripts/server.mjs [-H|--hostname HOST] [-p|--port PORT]    (defaults: every interface, $PORT or 3000)
 *
 * The console gateway itself is TypeScript built with the app (lib/servers/console/gateway.ts): the app's start-up
 * (instrumentation.ts) installs it on a process-wide symbol, where this file finds it for each upgrade.
 */
import { EventEmitter } from "node:events";
import http from "node:http";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const CONSOLE_SOCKET = /^\/api\/v1\/servers\/\d+\/console\/socket(\?|$)/;
const GATEWAY = Symbol.for("vps.console.gateway");

function options(argv) {
  let hostname;
  let port = process.env.PORT || "3000";
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === "-H" || flag === "--hostname") hostname = argv[++i];
    else if (flag === "-p" || flag === "--port") port = argv[++i];
    else {
      console.error(`server: unknown option ${flag}; usage: server.mjs [-H host] [-p port]`);
      process.exit(2);
    }
  }
  if (!/^\d+$/.test(port ?? "") || Number(port) > 65535) {
    console.error(`server: the port must be a number, not ${port}`);
    process.exit(2);
  }
  return { hostname, port: Number(port) };
}

// Standard output and error closed under us (whatever read them is gone): a log line can no longer be written,
// and Next reports that failure as an error, whose line fails in turn, without end and at a full core. The
// server stops instead, as a program does that has lost its terminal; a supervisor starts it again.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error?.code !== "EPIPE") throw error;
    process.exit(1);
  });
}

const { hostname, port } = options(process.argv.slice(2));
// As `next start` does: the app reads these (its own API's loopback address comes from PORT).
process.env.NODE_ENV = "production";
process.env.PORT = String(port);
const { default: next } = await import("next");

// Next attaches its own upgrade handling (development's hot reload) to the server it is given; in
// production it has nothing to upgrade, and it would end a socket on a path an app route matches. It gets
// an emitter of its own, so every upgrade on the real server is ours to route.
const app = next({ dev: false, dir: ROOT, hostname, port, webpack: true, httpServer: new EventEmitter() });
const started = Date.now();
await app.prepare();
const handle = app.getRequestHandler();

const server = http.createServer((request, response) => {
  handle(request, response).catch((error) => {
    console.error(`server: request failed: ${error?.message ?? error}`);
    if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
    response.end("Internal Server Error");
  });
});

// An idle keep-alive connection is closed by the side whose timer runs out first. Node's 5 s default closes it
// under a client (or nginx's upstream pool, 60 s) that has just sent its next request on it, which then sees
// ECONNRESET; a server that waits longer than its clients leaves the closing to them.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

const refuse = (socket, status, text) =>
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n${text}`,
  );

server.on("upgrade", (request, socket, head) => {
  if (!CONSOLE_SOCKET.test(request.url ?? "")) return refuse(socket, 404, "");
  const gateway = globalThis[GATEWAY];
  if (!gateway) return refuse(socket, 503, "");
  gateway.handleUpgrade(request, socket, head).catch((error) => {
    console.error(`server: console upgrade failed: ${error?.message ?? error}`);
    socket.destroy();
  });
});

server.on("error", (error) => {
  console.error(`server: ${error.message}`);
  process.exit(1);
});

server.listen(port, hostname, () => {
  const shown = hostname ? (hostname.includes(":") ? `[${hostname}]` : hostname) : "0.0.0.0";
  console.log(`server: listening on http://${shown}:${port} (ready in ${Date.now() - started} ms)`);
});

let stopping = false;
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
]) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    // New connections stop; consoles are told the instance is going (their browsers reconnect elsewhere);
    // requests in flight finish, then Next closes.
    const drained = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    await globalThis[GATEWAY]?.closeAll().catch(() => undefined);
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 25_000))]);
    await app.close().catch(() => undefined);
    process.exit(code);
  });
}
