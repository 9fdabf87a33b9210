/**
 * A loopback JSON-RPC proxy in front of a test chain, used to make the chain "fail" on command:
 * POST /__control {"mode":"up"|"down"} switches between forwarding and answering 503 to every call; every
 * answer of /__control says the mode and `calls`, how many JSON-RPC calls were forwarded so far (a batch
 * counts each of its calls), so a test can show a request never reached the node.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type RpcProxy = { url: string; controlUrl: string; stop: () => Promise<void> };

export async function startRpcProxy(targetUrl: string): Promise<RpcProxy> {
  let mode: "up" | "down" = "up";
  let calls = 0;
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    if (request.url === "/__control") {
      const next = (JSON.parse(body || "{}") as { mode?: string }).mode;
      if (next === "up" || next === "down") mode = next;
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ mode, calls }));
      return;
    }
    if (mode === "down") {
      response.writeHead(503, { "content-type": "text/plain" }).end("chain unavailable (test fault)");
      return;
    }
    try {
      const parsed: unknown = JSON.parse(body || "null");
      calls += Array.isArray(parsed) ? parsed.length : 1;
    } catch {
      calls += 1;
    }
    try {
      const upstream = await fetch(targetUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      response.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
    } catch {
      response.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    controlUrl: `http://127.0.0.1:${port}/__control`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
