/**
 * What an MCP tool call costs over the API call it wraps, on the production build (embedded PGlite): the same
 * read (`GET /servers/{id}` and the `get_server` tool; `GET /account` and `get_account`) made one at a time,
 * interleaved, BENCH_CALLS times each after BENCH_WARMUP, with a scoped key. The tool is called both through
 * the SDK's client (what an agent runs) and as a bare JSON-RPC POST. Prints p50 and p95 of each and the p50
 * overhead of the tool over the API call. Target: p50 overhead <= 5 ms.
 *
 *   npm run bench:mcp
 *   BENCH_CALLS=300 BENCH_WARMUP=50 BENCH_PORT=3655 npm run bench:mcp
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startApp } from "../e2e/support/app-server";
import { apiCall } from "./api-call";
import { percentile } from "./percentile";

const calls = Number(process.env.BENCH_CALLS ?? 300);
const warmup = Number(process.env.BENCH_WARMUP ?? 50);
const port = process.env.BENCH_PORT ?? "3655";
const TARGET_MS = 5;
const IP = "10.77.0.1";

let base = "";

const call = (path: string, options: { method?: string; key?: string; body?: unknown } = {}) =>
  apiCall(base, path, { ...options, ip: IP });

async function setUp(): Promise<{ key: string; serverId: number }> {
  const { api_key: owner } = (await call("/account", { method: "POST" })) as { api_key: string };
  const { ref } = (await call("/topups", {
    method: "POST",
    key: owner,
    body: { amount: 50, coin: "BTC" },
  })) as {
    ref: string;
  };
  await call(`/demo/topups/${ref}/pay`, { method: "POST", key: owner, body: {} });
  while ((await call(`/topups/${ref}`, { key: owner })).status !== "completed") {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const server = await call("/servers", {
    method: "POST",
    key: owner,
    body: { plan: "pup", location: "nl", os: "debian-12" },
  });
  const { api_key: key } = (await call("/keys", {
    method: "POST",
    key: owner,
    body: { name: "bench agent", scopes: ["servers:read", "account:read", "billing:spend"] },
  })) as { api_key: string };
  return { key, serverId: server.id as number };
}

/** One bare JSON-RPC tools/call, as any HTTP client can send it. */
async function rawToolCall(key: string, name: string, args: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "x-forwarded-for": IP,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = (await response.json()) as { result?: { isError?: boolean } };
  if (!response.ok || !body.result || body.result.isError)
    throw new Error(`${name}: ${JSON.stringify(body)}`);
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

type Pair = {
  label: string;
  api: () => Promise<unknown>;
  sdk: () => Promise<unknown>;
  raw: () => Promise<unknown>;
};

async function main() {
  const app = await startApp({ PORT: port, PROVISION_DELAY_SECONDS: "1" });
  base = app.url;
  try {
    const { key, serverId } = await setUp();
    const client = new Client({ name: "bench", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}`, "x-forwarded-for": IP } },
      }),
    );
    const sdkCall = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    };
    const pairs: Pair[] = [
      {
        label: "GET /servers/{id} vs get_server",
        api: () => call(`/servers/${serverId}`, { key }),
        sdk: () => sdkCall("get_server", { id: String(serverId) }),
        raw: () => rawToolCall(key, "get_server", { id: String(serverId) }),
      },
      {
        label: "GET /account vs get_account",
        api: () => call("/account", { key }),
        sdk: () => sdkCall("get_account", {}),
        raw: () => rawToolCall(key, "get_account", {}),
      },
    ];
    console.log(`${calls} calls each, one at a time, interleaved, after ${warmup} warm-up calls (ms)`);
    let worst = 0;
    for (const pair of pairs) {
      const samples = { api: [] as number[], sdk: [] as number[], raw: [] as number[] };
      for (let i = 0; i < warmup + calls; i++) {
        const api = await timed(pair.api);
        const sdk = await timed(pair.sdk);
        const raw = await timed(pair.raw);
        if (i < warmup) continue;
        samples.api.push(api);
        samples.sdk.push(sdk);
        samples.raw.push(raw);
      }
      const p50 = (values: number[]) => percentile(values, 50);
      const line = (name: string, values: number[]) =>
        `  ${name.padEnd(24)} p50 ${p50(values).toFixed(2).padStart(6)}  p95 ${percentile(values, 95).toFixed(2).padStart(6)}`;
      console.log(pair.label);
      console.log(line("API call", samples.api));
      console.log(line("tool call (SDK client)", samples.sdk));
      console.log(line("tool call (bare POST)", samples.raw));
      const overhead = p50(samples.sdk) - p50(samples.api);
      worst = Math.max(worst, overhead);
      console.log(
        `  p50 overhead: ${overhead.toFixed(2)} ms (SDK client), ${(p50(samples.raw) - p50(samples.api)).toFixed(2)} ms (bare POST)`,
      );
    }
    console.log(
      `worst p50 overhead ${worst.toFixed(2)} ms: target <= ${TARGET_MS} ms ${worst <= TARGET_MS ? "met" : "MISSED"}`,
    );
    await client.close();
  } finally {
    await app.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
