/**
 * A loopback WebSocket proxy in front of a test chain's JSON-RPC socket, to lose the app's subscription on
 * command the way a provider does: POST /__control with {"silence": true} keeps every connection open now
 * open but drops the subscription notifications it carries from then on (requests still get answers);
 * connections made later are not silenced. Every answer says `connections`, how many were ever opened, so a
 * test can see the app subscribe again.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";

export type WsProxy = { url: string; controlUrl: string; stop: () => Promise<void> };

export async function startWsProxy(targetUrl: string): Promise<WsProxy> {
  const open = new Set<{ silenced: boolean; client: WebSocket; upstream: WebSocket }>();
  let connections = 0;
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const command = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { silence?: boolean };
    if (command.silence) for (const connection of open) connection.silenced = true;
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ connections }));
  });
  const sockets = new WebSocketServer({ server });
  sockets.on("connection", (client) => {
    connections++;
    const upstream = new WebSocket(targetUrl);
    const connection = { silenced: false, client, upstream };
    open.add(connection);
    const waiting: string[] = [];
    upstream.on("open", () => {
      for (const message of waiting.splice(0)) upstream.send(message);
    });
    client.on("message", (data) => {
      const message = data.toString();
      if (upstream.readyState === WebSocket.OPEN) upstream.send(message);
      else waiting.push(message);
    });
    upstream.on("message", (data) => {
      const message = data.toString();
      if (connection.silenced && message.includes('"eth_subscription"')) return;
      if (client.readyState === WebSocket.OPEN) client.send(message);
    });
    const close = () => {
      open.delete(connection);
      client.terminate();
      upstream.terminate();
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    controlUrl: `http://127.0.0.1:${port}/__control`,
    stop: async () => {
      for (const connection of open) {
        connection.client.terminate();
        connection.upstream.terminate();
      }
      sockets.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
