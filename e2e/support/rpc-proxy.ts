/**
 * A loopback JSON-RPC proxy in front of a test chain, used to make the chain "fail" on command and to see
 * and pace what the app asks of it. POST /__control with a JSON body:
 *   - {"mode":"up"|"down"}: forward, or answer 503 to every call;
 *   - {"hold":{"method":"eth_getLogs","dataPrefix"?:"0x…"}}: park the calls of that method (whose `data`
 *     starts so, when given) until released; parked calls are then forwarded as they were;
 *   - {"release":{"method"?:…,"text"?:…,"lose"?:true}}: forward the parked calls of that method (any method
 *     if absent) whose body contains `text` (case-insensitive; any if absent); without `text`, also stop
 *     holding that method (every method if absent). With `lose`, the node still gets them but the app is
 *     answered 503, as when a connection drops after the request was sent;
 *   - {"record":"start"} forgets and starts recording every call forwarded; {"record":"stop"} stops.
 * Every answer says the mode, `calls` (how many JSON-RPC calls were forwarded so far; a batch counts each of
 * its calls, so a test can show a request never reached the node), `held` (calls parked now) and
 * `recorded` (the calls recorded, `{method, params}` each).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type RpcProxy = { url: string; controlUrl: string; stop: () => Promise<void> };

type RpcCall = { method?: string; params?: unknown[] };
type HoldRule = { method: string; dataPrefix?: string };
type Parked = { method: string; body: string; forward: (lose: boolean) => void };

const MAX_RECORDED = 2_000;

/** The rule that holds this call, if any: single calls only, by method and the prefix of their `data`. */
function heldBy(rules: HoldRule[], call: unknown): HoldRule | undefined {
  if (!call || typeof call !== "object" || Array.isArray(call)) return undefined;
  const { method, params } = call as RpcCall;
  const request = params?.[0];
  const data =
    request && typeof request === "object" ? String((request as { data?: unknown }).data ?? "") : "";
  return rules.find(
    (rule) =>
      rule.method === method &&
      (rule.dataPrefix === undefined || data.toLowerCase().startsWith(rule.dataPrefix.toLowerCase())),
  );
}

export async function startRpcProxy(targetUrl: string): Promise<RpcProxy> {
  let mode: "up" | "down" = "up";
  let calls = 0;
  let rules: HoldRule[] = [];
  let parked: Parked[] = [];
  let recording = false;
  let recorded: RpcCall[] = [];

  const release = ({ method, text, lose }: { method?: string; text?: string; lose?: boolean }) => {
    const chosen = parked.filter(
      (entry) =>
        (method === undefined || entry.method === method) &&
        (text === undefined || entry.body.toLowerCase().includes(text.toLowerCase())),
    );
    parked = parked.filter((entry) => !chosen.includes(entry));
    if (text === undefined) rules = rules.filter((rule) => method !== undefined && rule.method !== method);
    for (const entry of chosen) entry.forward(lose === true);
  };

  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    if (request.url === "/__control") {
      const command = JSON.parse(body || "{}") as {
        mode?: string;
        hold?: HoldRule;
        release?: { method?: string; text?: string; lose?: boolean };
        record?: "start" | "stop";
      };
      if (command.mode === "up" || command.mode === "down") mode = command.mode;
      if (command.hold) rules.push(command.hold);
      if (command.release !== undefined) release(command.release);
      if (command.record === "start") recorded = [];
      if (command.record) recording = command.record === "start";
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ mode, calls, held: parked.length, recorded }));
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
    const forward = async (lose = false) => {
      const batch = Array.isArray(parsed) ? parsed : [parsed];
      calls += batch.length;
      if (recording && recorded.length < MAX_RECORDED) {
        for (const call of batch) {
          const { method, params } = (call ?? {}) as RpcCall;
          recorded.push({ method, params });
        }
      }
      try {
        const upstream = await fetch(targetUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        if (lose) {
          response.writeHead(503, { "content-type": "text/plain" }).end("answer lost (test fault)");
          return;
        }
        response
          .writeHead(upstream.status, { "content-type": "application/json" })
          .end(await upstream.text());
      } catch {
        response.writeHead(502).end();
      }
    };
    const rule = heldBy(rules, parsed);
    if (rule) {
      parked.push({ method: rule.method, body, forward: (lose) => void forward(lose) });
      return;
    }
    await forward();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    controlUrl: `http://127.0.0.1:${port}/__control`,
    stop: () =>
      new Promise<void>((resolve) => {
        release({});
        server.close(() => resolve());
      }),
  };
}
