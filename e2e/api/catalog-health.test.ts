import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type RunningApp, startApp } from "../support/app-server";
import { api, baseUrl, errorCode } from "./helpers";

type Plan = { id: string; base_price_monthly_usd: number; vcpu: number; ram_mb: number; disk_gb: number };
type Location = { id: string; price_modifier: number; city: string; country: string };
type Price = { plan: string; location: string; monthly_usd: number; annual_usd: number };

describe("documents the same for everyone: the catalog and the OpenAPI documents", () => {
  it.each(["/catalog", "/openapi.json"])(
    "%s carries an ETag and answers 304 to a client holding it",
    async (path) => {
      const first = await fetch(`${baseUrl()}${path}`);
      expect(first.status).toBe(200);
      const text = await first.text();
      const etag = first.headers.get("etag");
      expect(etag).toMatch(/^"[\w-]{22}"$/);
      expect(first.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
      const again = await fetch(`${baseUrl()}${path}`);
      expect([again.headers.get("etag"), await again.text()]).toEqual([etag, text]);
      const held = await fetch(`${baseUrl()}${path}`, { headers: { "if-none-match": `W/${etag}` } });
      expect(held.status).toBe(304);
      expect(await held.text()).toBe("");
      const other = await fetch(`${baseUrl()}${path}`, { headers: { "if-none-match": '"another"' } });
      expect([other.status, await other.text()]).toEqual([200, text]);
    },
  );
});

describe("GET /catalog", () => {
  it("is public and lists 10 plans from pup to fenrir, growing in every resource", async () => {
    const result = await api("/catalog");
    expect(result.status).toBe(200);
    const plans = result.body.plans as Plan[];
    expect(plans).toHaveLength(10);
    expect(plans[0]?.id).toBe("pup");
    expect(plans[9]?.id).toBe("fenrir");
    for (let i = 1; i < plans.length; i++) {
      const [previous, current] = [plans[i - 1] as Plan, plans[i] as Plan];
      expect(current.base_price_monthly_usd).toBeGreaterThan(previous.base_price_monthly_usd);
      expect(current.ram_mb).toBeGreaterThanOrEqual(previous.ram_mb);
      expect(current.disk_gb).toBeGreaterThan(previous.disk_gb);
      expect(current.vcpu).toBeGreaterThanOrEqual(previous.vcpu);
    }
  });

  it("lists the 8 locations with city, country and modifier", async () => {
    const locations = (await api("/catalog")).body.locations as Location[];
    expect(locations.map((l) => l.id).sort()).toEqual(["bg", "ch", "fr", "is", "my", "nl", "ro", "se"]);
    for (const location of locations) {
      expect(location.city.length).toBeGreaterThan(0);
      expect(location.country.length).toBeGreaterThan(0);
      expect(location.price_modifier).toBeGreaterThan(0);
    }
  });

  it("offers the required OS images", async () => {
    const os = ((await api("/catalog")).body.os as Array<{ id: string; name: string }>).map((o) => o.name);
    for (const name of [
      "Debian 12",
      "Debian 13",
      "Ubuntu 24.04 LTS",
      "Ubuntu 22.04 LTS",
      "AlmaLinux 9",
      "Rocky Linux 9",
    ]) {
      expect(os.some((n) => n.startsWith(name))).toBe(true);
    }
  });

  it("prices every plan x location by the rule: monthly = base x modifier, annual = 10 x monthly", async () => {
    const body = (await api("/catalog")).body as {
      plans: Plan[];
      locations: Location[];
      pricing: { prices: Price[] };
    };
    expect(body.pricing.prices).toHaveLength(80);
    for (const price of body.pricing.prices) {
      const plan = body.plans.find((p) => p.id === price.plan) as Plan;
      const location = body.locations.find((l) => l.id === price.location) as Location;
      // Integer arithmetic, half up: the rule as a customer would check it with a calculator.
      const baseCents = Math.round(plan.base_price_monthly_usd * 100);
      const modifierBp = Math.round(location.price_modifier * 10000);
      const expectedCents = Math.floor((baseCents * modifierBp + 5000) / 10000);
      expect(Math.round(price.monthly_usd * 100)).toBe(expectedCents);
      expect(Math.round(price.annual_usd * 100)).toBe(expectedCents * 10);
    }
  });

  it("gives the payment options: coins, top-up minimum 25 and maximum 2000 USD", async () => {
    const payment = (await api("/catalog")).body.payment as Record<string, unknown>;
    expect(payment).toMatchObject({
      currency: "USD",
      topup_min_usd: 25,
      topup_max_usd: 2000,
      default_coin: "BTC",
    });
    const codes = (payment.coins as Array<{ code: string }>).map((c) => c.code);
    expect(codes.sort()).toEqual(["BTC", "ETH", "LTC", "USDCBASE", "USDT", "USDTTRC", "XMR"]);
  });

  it("ignores credentials entirely (a bad key does not matter on a public route)", async () => {
    const result = await api("/catalog", { headers: { authorization: "Bearer nonsense" } });
    expect(result.status).toBe(200);
  });
});

describe("GET /health", () => {
  it("reports the service and its database as ok", async () => {
    const result = await api("/health");
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      status: "ok",
      version: "1.0.0",
      mode: "demo",
      database: { status: "ok" },
    });
    expect(["pglite", "postgres"]).toContain((result.body.database as { kind: string }).kind);
    // Each watcher's state, without the node's address or its raw error.
    const watchers = result.body.watchers as Record<string, unknown>[];
    expect(watchers.map((w) => w.name)).toEqual(expect.arrayContaining(["evm:ethereum", "demo"]));
    for (const watcher of watchers) {
      expect(watcher).not.toHaveProperty("node");
      expect(watcher).not.toHaveProperty("error");
      expect(watcher).toHaveProperty("problem");
    }
  });
});

/**
 * A node that does not answer: its own app, whose Bitcoin node is a loopback port the test first leaves
 * closed, then serves with HTTP errors. The public health and the customer's refusal say so in plain words;
 * the node's address and the raw error go to the operator's log, once per change.
 */
describe("GET /health with a node down", () => {
  let app: RunningApp;
  let nodePort: number;
  let node: Server | undefined;
  const call = async (route: string, init: RequestInit = {}) => {
    const response = await fetch(`${app.url}/api/v1${route}`, init);
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
  };
  const bitcoinWatcher = async () => {
    const { body } = await call("/health");
    return (body.watchers as Record<string, unknown>[]).find((w) => w.name === "utxo:bitcoin");
  };
  const waitForProblem = async (pattern: RegExp) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const watcher = await bitcoinWatcher();
      if (pattern.test(String(watcher?.problem))) return watcher;
      if (Date.now() > deadline) throw new Error(`watcher: ${JSON.stringify(watcher)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const logLines = () =>
    app
      .logs()
      .split("\n")
      .filter((line) => line.includes("utxo:bitcoin"));

  beforeAll(async () => {
    nodePort = await freePort();
    app = await startApp({
      BTC_RPC_URL: `http://127.0.0.1:${nodePort}/`,
      WATCHER_INTERVAL_MS: "300",
      STATUS_REFRESH_SECONDS: "1",
    });
  }, 90_000);
  afterAll(async () => {
    await app?.stop();
    await new Promise((resolve) => (node ? node.close(resolve) : resolve(undefined)));
  });

  it("shows the state in plain words, and logs the detail once per change", async () => {
    const refused = await waitForProblem(/does not accept connections/i);
    expect(refused).toMatchObject({ status: "unreachable", demo: false });
    expect(refused).not.toHaveProperty("node");
    expect(refused).not.toHaveProperty("error");
    const health = await call("/health");
    expect(health.text).not.toContain("127.0.0.1");
    expect(health.text).not.toContain(String(nodePort));
    expect(health.text).not.toMatch(/ECONNREFUSED|fetch failed/);
    // The public status page says the BTC deposits are down, and nothing of the node.
    const status = await call("/status");
    expect(status.status).toBe(200);
    expect(status.body.watchers).toContainEqual({ coins: ["BTC"], simulated: false, state: "down" });
    expect(status.body.state).toBe("degraded");
    expect(status.text).not.toMatch(/127\.0\.0\.1|utxo:bitcoin|ECONNREFUSED|fetch failed/);
    expect(status.text).not.toContain(String(nodePort));

    // The customer hears that the coin is paused, and nothing about the node.
    const { api_key: key } = (await call("/account", { method: "POST" })).body as { api_key: string };
    const topup = await call("/topups", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: 30, coin: "BTC" }),
    });
    expect(topup.status).toBe(400);
    expect(topup.body.error).toBe("coin_unavailable");
    expect(topup.body.message).toMatch(/^BTC deposits are paused/);
    expect(topup.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|fetch failed|http:/);

    // Many passes later, one log line with the detail for the operator.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(logLines()).toHaveLength(1);
    expect(logLines()[0]).toMatch(/ECONNREFUSED|fetch failed/);

    // The node starts answering with HTTP errors: a new state, one new line.
    node = createServer((_request, response) => response.writeHead(502).end("bad gateway"));
    await new Promise<void>((resolve) => node?.listen(nodePort, "127.0.0.1", resolve));
    const failing = await waitForProblem(/HTTP error/i);
    expect(failing).toMatchObject({ status: "unreachable" });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(logLines()).toHaveLength(2);
    expect(logLines()[1]).toMatch(/HTTP 502/);
  }, 60_000);
});

describe("GET /openapi.json", () => {
  it("serves an OpenAPI 3.1 document that covers every endpoint", async () => {
    const response = await fetch(`${baseUrl()}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths["/account"] ?? {})).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(document.paths["/keys"] ?? {})).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(document.paths["/keys/{id}"] ?? {})).toEqual(["delete"]);
    expect(Object.keys(document.paths["/catalog"] ?? {})).toEqual(["get"]);
    expect(Object.keys(document.paths["/health"] ?? {})).toEqual(["get"]);
    expect(Object.keys(document.paths["/topups"] ?? {})).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(document.paths["/topups/{ref}"] ?? {})).toEqual(["get"]);
    expect(Object.keys(document.paths["/topups/{ref}/cancel"] ?? {})).toEqual(["post"]);
    expect(Object.keys(document.paths["/demo/topups/{ref}/pay"] ?? {})).toEqual(["post"]);
    expect(Object.keys(document.paths["/servers"] ?? {})).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(document.paths["/servers/{id}"] ?? {})).toEqual(
      expect.arrayContaining(["get", "patch", "delete"]),
    );
    for (const path of [
      "/servers/{id}/credentials",
      "/servers/{id}/renew",
      "/servers/{id}/actions",
      "/sessions",
      "/sessions/current",
      "/account/totp",
      "/account/totp/confirm",
      "/account/totp/disable",
    ]) {
      expect(document.paths[path], path).toBeDefined();
    }
  });
});

describe("unknown paths and methods", () => {
  it.each(["", "/nope", "/keys/1/extra", "/account/x", "/servers-typo", "/servers/1/extra"])(
    "answers a JSON 404 for %s",
    async (path) => {
      for (const method of ["GET", "POST", "DELETE"]) {
        const result = await api(path, { method });
        expect(result.status).toBe(404);
        expect(errorCode(result)).toBe("not_found");
      }
    },
  );

  it.each([
    ["PUT", "/account", "GET, POST"],
    ["DELETE", "/catalog", "GET"],
    ["POST", "/health", "GET"],
    ["GET", "/keys/1", "DELETE"],
    ["PATCH", "/keys", "GET, POST"],
    ["DELETE", "/topups", "GET, POST"],
    ["POST", "/topups/tp_x", "GET"],
    ["GET", "/topups/tp_x/cancel", "POST"],
    ["PUT", "/servers", "GET, POST"],
    ["POST", "/servers/1", "GET, PATCH, DELETE"],
    ["DELETE", "/servers/1/credentials", "GET"],
  ])("answers 405 with Allow for %s %s", async (method, path, allow) => {
    const result = await api(path, { method });
    expect(result.status).toBe(405);
    expect(errorCode(result)).toBe("method_not_allowed");
    expect(result.headers.get("allow")).toBe(allow);
  });
});
