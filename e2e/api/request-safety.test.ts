import http from "node:http";
import { describe, expect, inject, it } from "vitest";
import { api, randomIp } from "./helpers";

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
const cookieOf = (headers: http.IncomingHttpHeaders) =>
  (headers["set-cookie"]?.[0] ?? "").split(";")[0] ?? "";

async function signUp() {
  const origin = new URL(appUrl());
  const created = await raw("/bff/sign-up", { method: "POST", headers: { origin: origin.origin } });
  expect(created.status).toBe(201);
  return { cookie: cookieOf(created.headers), apiKey: created.json.api_key as string };
}

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
