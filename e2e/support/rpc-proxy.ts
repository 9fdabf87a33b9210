/**
 * A loopback JSON-RPC proxy in front of a test chain, used to make the chain "fail" on command:
 * POST /__control {"mode":"up"|"down"} switches between forwarding and answering 503 to every call; every
 * answer of /__control says the mode and `calls`, how many JSON-RPC calls were forwarded so far (a batch
 * counts each of its calls), so a test can show a request never reached the node.
 *
 * It also holds `eth_getLogs` to geth's filter limits, which anvil does not enforce: more than 1000
 * addresses, or more than 1000 values in one topic position, is refused with geth's own error, so a
 * watcher that would break against a real node breaks against the test chain too.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type RpcProxy = { url: string; controlUrl: string; stop: () => Promise<void> };

/** geth's limit per filter position (eth/filters, since 1.14): addresses, and values per topic position. */
export const GETH_MAX_PER_POSITION = 1000;

type JsonRpcCall = { id?: unknown; method?: string; params?: unknown[] };

/** geth's refusal of an `eth_getLogs` filter past its limits, or undefined when the call may go through. */
function gethLimitError(call: JsonRpcCall) {
  if (call.method !== "eth_getLogs") return undefined;
  const filter = (call.params?.[0] ?? {}) as { address?: unknown; topics?: unknown[] };
  const tooMany = (value: unknown) => Array.isArray(value) && value.length > GETH_MAX_PER_POSITION;
  if (!tooMany(filter.address) && !(filter.topics ?? []).some(tooMany)) return undefined;
  return {
    jsonrpc: "2.0",
    id: call.id ?? null,
    error: { code: -32602, message: "exceed max addresses or topics per search position" },
  };
}

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
    let parsed: unknown;
    try {
      parsed = JSON.parse(body || "null");
    } catch {
      parsed = undefined;
    }
    calls += Array.isArray(parsed) ? parsed.length : 1;
    const json = (value: unknown) =>
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
    // Refused calls never reach the node; in a batch, the refused ones are answered in place.
    const batch = Array.isArray(parsed) ? (parsed as JsonRpcCall[]) : undefined;
    if (!batch && parsed && typeof parsed === "object") {
      const refusal = gethLimitError(parsed as JsonRpcCall);
      if (refusal) return json(refusal);
    }
    if (batch?.some((call) => gethLimitError(call))) {
      const answers = await Promise.all(
        batch.map(async (call) => gethLimitError(call) ?? (await forward(targetUrl, JSON.stringify(call)))),
      );
      return json(answers);
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

/** One call sent on to the node, its answer parsed. */
async function forward(targetUrl: string, body: string): Promise<unknown> {
  const upstream = await fetch(targetUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return upstream.json();
}
