import { mkdtempSync } from "node:fs";
import http from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, type RunningApp, startApp } from "../support/app-server";
import { api, createAccount, errorCode, randomIp } from "./helpers";

const appUrl = () => inject("baseUrl");

type Raw = { status: number; headers: http.IncomingHttpHeaders; text: string; json: Record<string, unknown> };

/**
 * One request exactly as given, Host header included (fetch would replace it), to the suite's app or
 * another instance.
 */
function raw(
  pathname: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; base?: string } = {},
): Promise<Raw> {
  const target = new URL(options.base ?? appUrl());
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? "GET",
        path: pathname,
        setHost: false,
        headers: { host: target.host, "x-forwarded-for": randomIp(), ...options.headers },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text);
          } catch {}
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

/** A server on loopback that records whatever reaches it, standing for the host an attacker names. */
async function trap() {
  const seen: { url: string; authorization?: string }[] = [];
  const server = http.createServer((request, response) => {
    seen.push({ url: request.url ?? "", authorization: request.headers.authorization });
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ api_key: "vpsk_from_the_trap", login_token: "TRAP", balance_usd: 999 }));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { host: `127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

const cookieOf = (headers: http.IncomingHttpHeaders) =>
  (headers["set-cookie"]?.[0] ?? "").split(";")[0] ?? "";

async function signUp() {
  const origin = new URL(appUrl());
  const created = await raw("/bff/sign-up", { method: "POST", headers: { origin: origin.origin } });
  expect(created.status).toBe(201);
  return { cookie: cookieOf(created.headers), apiKey: created.json.api_key as string };
}

describe("the API origin comes from configuration, never from the request (SSRF through Host)", () => {
  let attacker: Awaited<ReturnType<typeof trap>>;
  beforeAll(async () => {
    attacker = await trap();
  });
  afterAll(() => attacker.close());

  it("sign-up with a forged Host reaches the real API, not the host it names", async () => {
    for (const host of [attacker.host, `${attacker.host}/any/path#`]) {
      const result = await raw("/bff/sign-up", {
        method: "POST",
        headers: { host, origin: `http://${host}`, "x-forwarded-proto": "http" },
      });
      // Either refused as cross-origin (a Host with a path names no origin) or served by the real API.
      if (result.status === 201) expect(result.json.api_key).not.toBe("vpsk_from_the_trap");
      else expect(result.status).toBe(403);
    }
    expect(attacker.seen).toEqual([]);
  });

  it("a signed-in BFF call and a server-rendered page with a forged Host never send the key elsewhere", async () => {
    const { cookie, apiKey } = await signUp();
    for (const host of [attacker.host, `${attacker.host}/any/path#`]) {
      const headers = { host, cookie, "x-forwarded-proto": "http", "x-forwarded-host": attacker.host };
      const account = await raw("/bff/account", { headers });
      expect(account.status).toBe(200);
      expect(account.json.balance_usd).toBe(0);
      const page = await raw("/dashboard", { headers });
      expect(page.status).toBe(200);
      expect(page.text).not.toContain("999");
      const keys = await raw("/bff/keys", {
        method: "POST",
        headers: { ...headers, origin: `http://${host}` },
      });
      expect([201, 403]).toContain(keys.status);
    }
    expect(attacker.seen).toEqual([]);
    // Nothing of the session's key left this machine's own API.
    expect(JSON.stringify(attacker.seen)).not.toContain(apiKey.slice(0, 12));
  });

  it("a malformed Host is never a 500 and never reaches the x402 challenge", async () => {
    const { cookie } = await signUp();
    const account = await createAccount();
    for (const host of ["[", "a b", "127.0.0.1:1/x#", "evil@127.0.0.1:1", ""]) {
      const bff = await raw("/bff/account", { headers: { host, cookie } });
      expect(bff.status, `BFF with Host ${host}`).toBe(200);
      const page = await raw("/dashboard", { headers: { host, cookie } });
      expect(page.status, `page with Host ${host}`).toBe(200);
      const home = await raw("/", { headers: { host } });
      expect(home.status, `start page with Host ${host}`).toBe(200);
      const challenge = await raw("/api/v1/topups", {
        method: "POST",
        headers: {
          host,
          authorization: `Bearer ${account.apiKey}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ amount: 25, coin: "USDCBASE" }),
      });
      expect(challenge.status, `x402 challenge with Host ${host}`).toBe(402);
      const resource = (challenge.json.accepts as { resource: string }[])[0]?.resource ?? "";
      expect(resource).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/topups$/);
    }
    // A plain host:port is the origin the client called, and only goes back to that client.
    const plain = await raw("/api/v1/topups", {
      method: "POST",
      headers: {
        host: "vps.example:8443",
        authorization: `Bearer ${account.apiKey}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ amount: 25, coin: "USDCBASE" }),
    });
    expect((plain.json.accepts as { resource: string }[])[0]?.resource).toBe(
      "http://vps.example:8443/api/v1/topups",
    );
    expect((await api("/topups", { key: account.apiKey })).body.topups).toEqual([]);
  });
});

describe("odd requests answer 4xx in the shape of what they reach", () => {
  it("an undecodable path under /api/v1 and /bff is a JSON 404 and changes nothing", async () => {
    const account = await createAccount();
    const { cookie } = await signUp();
    for (const [method, pathname] of [
      ["GET", "/api/v1/servers/%ff"],
      ["DELETE", "/api/v1/servers/%ff"],
      ["GET", "/api/v1/servers/%ff/credentials"],
      ["GET", "/api/v1/topups/%ff"],
      ["POST", "/api/v1/topups/%ff/cancel"],
      ["GET", "/api/v1/%ff"],
      ["GET", "/bff/servers/%ff"],
      ["GET", "/bff/topups/%ff"],
      ["DELETE", "/bff/keys/%ff"],
    ] as const) {
      const result = await raw(pathname, {
        method,
        headers: { authorization: `Bearer ${account.apiKey}`, cookie, origin: new URL(appUrl()).origin },
      });
      expect(result.status, `${method} ${pathname}`).toBe(404);
      expect(result.headers["content-type"]).toMatch(/^application\/json/);
      expect(errorCode({ status: result.status, headers: new Headers(), body: result.json })).toBe(
        "not_found",
      );
    }
    expect((await api("/keys", { key: account.apiKey })).body.keys).toHaveLength(1);
  });

  it("an undecodable dashboard path is the not-found page", async () => {
    const { cookie } = await signUp();
    for (const pathname of ["/dashboard/servers/%ff", "/dashboard/topups/%ff", "/%ff", "/signin%ff"]) {
      const page = await raw(pathname, { headers: { cookie } });
      expect(page.status, pathname).toBe(404);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expect(page.text).toContain("Page not found");
    }
  });

  it("TRACE and other methods no route has are a 405, in JSON under /api/v1 and /bff", async () => {
    const account = await createAccount();
    for (const method of ["TRACE", "PROPFIND"]) {
      for (const pathname of ["/api/v1/account", "/api/v1/servers/1", "/bff/account"]) {
        const result = await raw(pathname, {
          method,
          headers: { authorization: `Bearer ${account.apiKey}` },
        });
        expect(result.status, `${method} ${pathname}`).toBe(405);
        expect(result.json.error).toBe("method_not_allowed");
        expect(result.headers.allow).toContain("GET");
      }
      const page = await raw("/", { method });
      expect(page.status, `${method} /`).toBe(405);
    }
    expect((await api("/account", { key: account.apiKey })).status).toBe(200);
  });
});

describe("security headers", () => {
  it("pages carry a nonce-based CSP that every script of the page satisfies", async () => {
    const { cookie } = await signUp();
    const nonces = new Set<string>();
    for (const pathname of ["/", "/signin", "/dashboard", "/dashboard/topups"]) {
      const page = await raw(pathname, { headers: { cookie } });
      expect(page.status, pathname).toBe(200);
      const csp = String(page.headers["content-security-policy"]);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
      expect(nonce, `${pathname}: ${csp}`).toBeDefined();
      expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'(;|$)/);
      nonces.add(nonce ?? "");
      const scripts = page.text.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag, pathname).toContain(`nonce="${nonce}"`);
      expect(page.headers["x-content-type-options"]).toBe("nosniff");
      expect(page.headers["referrer-policy"]).toBe("same-origin");
      // A demo on plain HTTP sends no HSTS (production does; see below).
      expect(page.headers["strict-transport-security"]).toBeUndefined();
    }
    expect(nonces.size).toBe(4);
  });

  it("API and BFF answers may load nothing and never be framed; built files are nosniff", async () => {
    for (const pathname of ["/api/v1/health", "/api/v1/catalog", "/bff/account", "/api/v1/nowhere"]) {
      const result = await raw(pathname);
      expect(result.headers["content-security-policy"], pathname).toContain("default-src 'none'");
      expect(result.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(result.headers["x-content-type-options"]).toBe("nosniff");
      expect(result.headers["referrer-policy"]).toBe("same-origin");
    }
    const home = await raw("/");
    const asset = /src="(\/_next\/static\/[^"]+\.js)"/.exec(home.text)?.[1];
    expect(asset).toBeDefined();
    const file = await raw(asset ?? "/");
    expect(file.status).toBe(200);
    expect(file.headers["x-content-type-options"]).toBe("nosniff");
  });
});

describe("the dashboard's routes refuse a body that is not JSON (400) and change nothing", () => {
  it("POST /bff/keys, sign-in, orders and top-ups answer invalid_json", async () => {
    const { cookie, apiKey } = await signUp();
    const origin = new URL(appUrl()).origin;
    for (const pathname of [
      "/bff/keys",
      "/bff/sign-in",
      "/bff/servers",
      "/bff/topups",
      "/bff/totp/confirm",
    ]) {
      const result = await raw(pathname, {
        method: "POST",
        headers: { cookie, origin, "content-type": "application/json" },
        body: "{not json",
      });
      expect(result.status, pathname).toBe(400);
      expect(result.json.error).toBe("invalid_json");
    }
    const keys = await api("/keys", { key: apiKey });
    expect(keys.body.keys).toHaveLength(1);
    expect((await api("/servers", { key: apiKey })).body.servers).toEqual([]);
    expect((await api("/topups", { key: apiKey })).body.topups).toEqual([]);
    // An empty body is still "no fields", as before.
    const empty = await raw("/bff/keys", { method: "POST", headers: { cookie, origin } });
    expect(empty.status).toBe(201);
  });
});

// Its own production-mode instance: HSTS is a production header, and the log is read from this process. Its
// operator has switched the public status page off.
describe("a production instance", () => {
  let app: RunningApp;
  beforeAll(async () => {
    // Its own embedded database; the test clock and the notifications' test switches are refused in production.
    const {
      DATABASE_URL: _shared,
      ENABLE_TEST_CLOCK: _clock,
      NOTIFY_TEST_ALLOW_LOOPBACK: _loopback,
      NOTIFY_TEST_RETRY_MS: _retry,
      ...env
    } = inject("appEnv");
    app = await startApp({
      ...env,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-prod-")),
      APP_MODE: "production",
      SESSION_SECRET: "a-production-session-secret-of-enough-length",
      ENCRYPTION_KEY: "ab".repeat(32),
      STATUS_PAGE: "0",
    });
  }, 90_000);
  afterAll(() => app?.stop());

  it("with the status page switched off, answers 404 for the page and its JSON, and no link names it", async () => {
    const json = await raw("/api/v1/status", { base: app.url });
    expect(json.status).toBe(404);
    expect(json.json).toMatchObject({ error: "not_found" });
    expect((await raw("/status", { base: app.url })).status).toBe(404);
    expect((await raw("/", { base: app.url })).text).not.toContain('href="/status"');
  });

  it("sends HSTS and upgrades insecure requests", async () => {
    const page = await raw("/", { base: app.url });
    expect(page.headers["strict-transport-security"]).toBe("max-age=31536000");
    expect(page.headers["content-security-policy"]).toContain("upgrade-insecure-requests");
    const health = await raw("/api/v1/health", { base: app.url });
    expect(health.headers["strict-transport-security"]).toBe("max-age=31536000");
  });

  it("an upload the client aborts is neither logged nor taken for a database outage", async () => {
    const created = await raw("/api/v1/account", { method: "POST", base: app.url });
    expect(created.status).toBe(201);
    const port = Number(new URL(app.url).port);
    for (const pathname of ["/api/v1/keys", "/api/v1/servers"]) {
      await new Promise<void>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => {
          socket.write(
            `POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
              `Authorization: Bearer ${created.json.api_key}\r\nContent-Type: application/json\r\n` +
              'Content-Length: 1000\r\n\r\n{"name":"half',
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 300);
        });
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const health = await raw("/api/v1/health", { base: app.url });
    expect(health.status).toBe(200);
    expect(app.logs()).not.toMatch(/database unavailable|unhandled error|ECONNRESET/);
    const keys = await raw("/api/v1/keys", {
      base: app.url,
      headers: { authorization: `Bearer ${created.json.api_key}` },
    });
    expect((keys.json.keys as unknown[]).length).toBe(1);
  });
});
