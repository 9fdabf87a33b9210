import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { balanceOf, fund } from "./funding";
import { api, createAccount, randomIp, until } from "./helpers";
import { fundedWallet, signPayment } from "./x402-signing";

/**
 * The MCP server at /mcp, driven by the SDK's own client over Streamable HTTP against the running app, with
 * keys made through the API: what a tool answers is what the operation's route answers.
 */
type ToolAnswer = {
  isError?: boolean;
  structuredContent: Record<string, unknown>;
  content: { text: string }[];
};

async function connect(key: string, ip = randomIp()): Promise<Client> {
  const client = new Client({ name: "api-suite", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${inject("baseUrl")}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}`, "x-forwarded-for": ip } },
  });
  await client.connect(transport);
  return client;
}

/** A tool's answer, its structured content ({} when it has none). */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const answer = (await client.callTool({ name, arguments: args })) as Partial<ToolAnswer>;
  return { content: [], ...answer, structuredContent: answer.structuredContent ?? {} };
}

async function makeKey(maker: string, scopes: string[]): Promise<string> {
  const created = await api("/keys", {
    method: "POST",
    key: maker,
    body: { name: scopes.join(" "), scopes },
  });
  expect(created.status).toBe(201);
  return created.body.api_key as string;
}

let owner: string;
let agent: Client;
let reader: Client;

beforeAll(async () => {
  owner = (await createAccount()).apiKey;
  await fund(owner, 30);
  agent = await connect(await makeKey(owner, ["servers:read", "account:read", "billing:spend"]));
  reader = await connect(await makeKey(owner, ["servers:read", "account:read"]));
});

afterAll(async () => {
  await Promise.all([agent?.close(), reader?.close()]);
});

describe("MCP at /mcp", () => {
  it("refuses a connection without a valid key as the API does, with a Bearer challenge", async () => {
    const response = await fetch(`${inject("baseUrl")}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await response.json()) as { error: string }).error).toBe("unauthorized");
  });

  it("lists the curated tools with the API's schemas, and the two over the whole document", async () => {
    const { tools } = await agent.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ["get_catalog", "get_account", "create_topup", "create_server", "get_server"]) {
      expect(byName.has(name), name).toBe(true);
    }
    expect(byName.get("create_server")?.inputSchema.required).toEqual(
      expect.arrayContaining(["plan", "location", "os"]),
    );
    expect(byName.has("search_operations") && byName.has("call_operation")).toBe(true);
  });

  it("orders a server with a scoped key and reads it back, charged as the API charges", async () => {
    const catalog = (await call(agent, "get_catalog")).structuredContent as {
      pricing: { prices: { plan: string; location: string; monthly_usd: number }[] };
    };
    const price = catalog.pricing.prices.find((row) => row.plan === "pup" && row.location === "nl");
    expect(price).toBeDefined();
    const before = await balanceOf(owner);
    const ordered = await call(agent, "create_server", {
      plan: "pup",
      location: "nl",
      os: "debian-13",
      hostname: "mcp-box",
      idempotency_key: "mcp-order-1",
    });
    expect(ordered.isError).toBeUndefined();
    expect(ordered.content[0]?.text).toContain("Next: ");
    const id = ordered.structuredContent.id as number;
    expect(ordered.structuredContent).toMatchObject({ hostname: "mcp-box", status: "provisioning" });
    // The same Idempotency-Key through the tool orders once.
    const again = await call(agent, "create_server", {
      plan: "pup",
      location: "nl",
      os: "debian-13",
      hostname: "mcp-box",
      idempotency_key: "mcp-order-1",
    });
    expect(again.structuredContent.id).toBe(id);
    expect(await balanceOf(owner)).toBeCloseTo(before - (price?.monthly_usd ?? 0), 2);

    const active = await until(
      () => call(agent, "get_server", { id: String(id) }),
      (answer) => answer.structuredContent.status === "active",
    );
    expect(active.structuredContent).toMatchObject({ id, hostname: "mcp-box" });
    const viaApi = await api(`/servers/${id}`, { key: owner });
    expect(viaApi.body.ip).toBe(active.structuredContent.ip);
    const listed = await call(agent, "list_servers");
    expect((listed.structuredContent.servers as { id: number }[]).map((server) => server.id)).toContain(id);
  });

  it("gives a key without billing:spend the API's error, through the tool and through call_operation", async () => {
    const before = await balanceOf(owner);
    const refused = await call(reader, "create_server", { plan: "pup", location: "nl", os: "debian-13" });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      status: 403,
      error: "missing_scope",
      required_scopes: ["billing:spend"],
    });
    const direct = await api("/servers", {
      method: "POST",
      key: await makeKey(owner, ["servers:read"]),
      body: { plan: "pup", location: "nl", os: "debian-13" },
    });
    expect(direct.body.error).toBe(refused.structuredContent.error);
    const longTail = await call(reader, "call_operation", {
      operation_id: "createServer",
      arguments: { plan: "pup", location: "nl", os: "debian-13" },
    });
    expect(longTail.structuredContent.error).toBe("missing_scope");
    expect(await balanceOf(owner)).toBe(before);
  });

  it("reaches the long tail: search, then call by id with the API's validation", async () => {
    const found = await call(agent, "search_operations", { query: "current key" });
    const operations = found.structuredContent.operations as { operation_id: string }[];
    expect(operations.map((operation) => operation.operation_id)).toContain("getCurrentKey");
    const current = await call(agent, "call_operation", { operation_id: "getCurrentKey" });
    expect([...(current.structuredContent.scopes as string[])].sort()).toEqual([
      "account:read",
      "billing:spend",
      "servers:read",
    ]);
    const bad = await call(agent, "create_server", {
      plan: "pup",
      location: "nl",
      os: "debian-13",
      cycle: "weekly",
    });
    expect(bad.structuredContent).toMatchObject({ status: 400 });
    const unknown = await call(agent, "call_operation", { operation_id: "launchRocket" });
    expect(unknown.structuredContent).toMatchObject({ status: 404, error: "not_found" });
  });
});

describe("paying with x402 through MCP", () => {
  it("create_topup answers the x402 requirements, and the same tool with the signed payment credits once", async () => {
    const { apiKey } = await createAccount();
    const client = await connect(apiKey);
    try {
      const challenge = await call(client, "create_topup", { amount: 25, coin: "USDCBASE" });
      expect(challenge.isError).toBe(true);
      expect(challenge.structuredContent).toMatchObject({
        status: 402,
        x402Version: 1,
        error: "payment_required",
      });
      const [requirement] = challenge.structuredContent.accepts as {
        maxAmountRequired: string;
        resource: string;
      }[];
      expect(requirement?.maxAmountRequired).toBe("25000000");
      expect(requirement?.resource).toBe(`${inject("baseUrl")}/api/v1/topups`);
      // v2 clients read the same offer from the PAYMENT-REQUIRED header, kept in the answer.
      expect(
        (challenge.structuredContent.headers as Record<string, string>)["payment-required"],
      ).toBeTruthy();

      const payer = await fundedWallet(25_000_000n);
      const { header } = await signPayment(payer, 25_000_000n);
      const paid = await call(client, "create_topup", { amount: 25, coin: "USDCBASE", x_payment: header });
      expect(paid.isError).toBeUndefined();
      expect((paid.structuredContent.headers as Record<string, string>)["x-payment-response"]).toBeTruthy();
      const again = await call(client, "create_topup", { amount: 25, coin: "USDCBASE", x_payment: header });
      const topupOf = (answer: ToolAnswer) => answer.structuredContent as { ref: string; status: string };
      expect(topupOf(paid).status).toBe("completed");
      expect(topupOf(again).ref).toBe(topupOf(paid).ref);
      expect(await balanceOf(apiKey)).toBe(25);
    } finally {
      await client.close();
    }
  });
});

describe("docs an agent can read", () => {
  const get = (path: string) => fetch(`${inject("baseUrl")}${path}`);

  it("serves /llms.txt, linking the Markdown twin of every reference page, each served", async () => {
    const llms = await get("/llms.txt");
    expect(llms.status).toBe(200);
    expect(llms.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await llms.text();
    const links = [...text.matchAll(/\]\((\/docs\/api[^)]*\.md)\)/g)].map((match) => match[1] as string);
    expect(links).toEqual(expect.arrayContaining(["/docs/api.md", "/docs/api/servers.md"]));
    for (const link of links) {
      const page = await get(link);
      expect(page.status, link).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/markdown/);
    }
    const servers = await (await get("/docs/api/servers.md")).text();
    expect(servers).toContain("## POST /api/v1/servers");
    expect((await get("/docs/api/nothing-here.md")).status).toBe(404);
    // The HTML page beside it is still the page.
    expect((await get("/docs/api/servers")).headers.get("content-type")).toMatch(/^text\/html/);
  });
});
