import { mkdtempSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type RunningApp, startApp } from "../support/app-server";

/**
 * A direct deployment (TRUST_PROXY_HOPS=0): limits count the socket's address. Clients here connect from
 * different loopback addresses (127.0.0.x), as different machines would, and forge X-Forwarded-For.
 */
let app: RunningApp;

beforeAll(async () => {
  app = await startApp({
    ...inject("appEnv"),
    DATABASE_URL: "",
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-direct-")),
    TRUST_PROXY_HOPS: "0",
    RATE_LIMIT_AUTH_FAILURES: "3/10m",
    RATE_LIMIT_ACCOUNT_CREATE: "2/1h",
  });
}, 90_000);

afterAll(async () => {
  await app?.stop();
});

let spoofed = 0;
/** A fresh, different X-Forwarded-For on every call: the attack this deployment must ignore. */
const spoof = () => `198.51.100.${(spoofed++ % 250) + 1}`;

function call(
  from: string,
  route: string,
  init: { method?: string; key?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(route, app.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: init.method ?? "GET",
        localAddress: from,
        headers: {
          "x-forwarded-for": spoof(),
          ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
          ...init.headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const BAD_KEY = `vpsk_${"A".repeat(49)}`;

describe("TRUST_PROXY_HOPS=0: a client cannot choose the address its limits count under", () => {
  it("bad keys are limited per socket address, whatever X-Forwarded-For says", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await call("127.0.0.2", "/api/v1/account", { key: BAD_KEY })).status).toBe(401);
    }
    const limited = await call("127.0.0.2", "/api/v1/account", { key: BAD_KEY });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("rate_limited");
    // Another machine is not affected.
    expect((await call("127.0.0.3", "/api/v1/account", { key: BAD_KEY })).status).toBe(401);
  });

  it("a forged vouching or peer header counts for nothing", async () => {
    const forged = (n: number) => ({
      "x-vps-client": `c2lnbmF0dXJl ${spoof()}`,
      "x-vps-peer": `tag 203.0.113.${n}`,
    });
    for (let i = 0; i < 3; i++) {
      const refused = await call("127.0.0.4", "/api/v1/account", { key: BAD_KEY, headers: forged(i) });
      expect(refused.status).toBe(401);
    }
    const limited = await call("127.0.0.4", "/api/v1/account", { key: BAD_KEY, headers: forged(9) });
    expect(limited.status).toBe(429);
  });

  it("sign-ups through the dashboard count the browser's address, shared with direct API calls", async () => {
    const signUp = (from: string) =>
      call(from, "/bff/sign-up", { method: "POST", headers: { origin: app.url } });
    expect((await signUp("127.0.0.5")).status).toBe(201);
    expect((await signUp("127.0.0.5")).status).toBe(201);
    const limited = await signUp("127.0.0.5");
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("rate_limited");
    expect((await call("127.0.0.5", "/api/v1/account", { method: "POST" })).status).toBe(429);
    // The dashboard's server is one machine for the API, yet another browser still signs up.
    expect((await signUp("127.0.0.6")).status).toBe(201);
    expect((await call("127.0.0.6", "/api/v1/account", { method: "POST" })).status).toBe(201);
  });
});
