import { describe, expect, it } from "vitest";
import { generateApiKey } from "@/lib/accounts/credentials";
import { TEST_LIMITS } from "./global-setup";
import { api, createAccount, errorCode, randomIp } from "./helpers";

describe("POST /account", () => {
  it("creates an account with a vpsk_ key and a four-group login token, each shown once", async () => {
    const result = await api("/account", { method: "POST" });
    expect(result.status).toBe(201);
    expect(result.headers.get("content-type")).toMatch(/application\/json/);
    expect(result.body).toMatchObject({
      balance_usd: 0,
      currency: "USD",
      servers: 0,
      totp_enabled: false,
    });
    expect(result.body.user_id).toEqual(expect.any(Number));
    expect(result.body.api_key).toMatch(/^vpsk_[0-9A-Za-z]{49}$/);
    expect(result.body.login_token).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(new Date(result.body.created_at as string).toISOString()).toBe(result.body.created_at);
    expect(result.headers.get("ratelimit-policy")).toBe(
      `"account-create";q=${TEST_LIMITS.accountCreate};w=3600`,
    );
  });

  it("gives every account its own id and credentials", async () => {
    const [a, b] = await Promise.all([createAccount(), createAccount()]);
    expect(a.userId).not.toBe(b.userId);
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.loginToken).not.toBe(b.loginToken);
  });

  it("accepts an empty JSON object as the body", async () => {
    const result = await api("/account", { method: "POST", body: {} });
    expect(result.status).toBe(201);
  });

  it("refuses a body with fields (400 unknown_field) and creates nothing", async () => {
    const ip = randomIp();
    const result = await api("/account", { method: "POST", ip, body: { email: "a@b.c" } });
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe("unknown_field");
    expect(result.body.message).toContain("email");
    // The refused request did not spend this address's quota.
    const ok = await api("/account", { method: "POST", ip });
    expect(ok.headers.get("ratelimit")).toBe(`"account-create";r=${TEST_LIMITS.accountCreate - 1};t=3600`);
  });

  it("refuses malformed JSON with 400 invalid_json", async () => {
    const result = await api("/account", {
      method: "POST",
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe("invalid_json");
  });

  it("limits account creation per client address with 429 and Retry-After", async () => {
    const ip = randomIp();
    for (let i = 0; i < TEST_LIMITS.accountCreate; i++) {
      expect((await api("/account", { method: "POST", ip })).status).toBe(201);
    }
    const limited = await api("/account", { method: "POST", ip });
    expect(limited.status).toBe(429);
    expect(errorCode(limited)).toBe("rate_limited");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.headers.get("ratelimit")).toBe(`"account-create";r=0;t=${retryAfter}`);
    // Another address is not affected.
    expect((await api("/account", { method: "POST", ip: randomIp() })).status).toBe(201);
  });
});

describe("GET /account", () => {
  it("returns the caller's account", async () => {
    const account = await createAccount();
    const result = await api("/account", { key: account.apiKey });
    expect(result.status).toBe(200);
    expect(result.headers.get("cache-control")).toBe("no-store");
    expect(result.body).toEqual({
      user_id: account.userId,
      balance_usd: 0,
      currency: "USD",
      servers: 0,
      totp_enabled: false,
      created_at: expect.any(String),
      suspension: null,
    });
  });

  it.each([
    ["no Authorization header", undefined],
    ["a malformed key", "Bearer not-a-key"],
    ["a key with a bad checksum", `Bearer vpsk_${"A".repeat(49)}`],
    ["a well-formed key that was never issued", `Bearer ${generateApiKey().key}`],
    ["another scheme", "Basic dXNlcjpwYXNz"],
    ["an empty bearer", "Bearer "],
  ])("answers 401 unauthorized for %s", async (_label, authorization) => {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const result = await api("/account", { headers });
    expect(result.status).toBe(401);
    expect(errorCode(result)).toBe("unauthorized");
    expect(result.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("rejects a key with one character changed", async () => {
    const account = await createAccount();
    const last = account.apiKey.at(-1) === "A" ? "B" : "A";
    const tampered = `${account.apiKey.slice(0, -1)}${last}`;
    expect((await api("/account", { key: tampered })).status).toBe(401);
  });

  it("does not accept the key in the query string", async () => {
    const account = await createAccount();
    const result = await api(`/account?api_key=${account.apiKey}`);
    expect(result.status).toBe(401);
  });

  it("limits bad keys per client address with 429, counting parallel guesses, while good keys keep working", async () => {
    const ip = randomIp();
    const account = await createAccount();
    // Well-formed keys that were never issued reach the database; sent in parallel, each one still counts.
    const guesses = await Promise.all(
      Array.from({ length: TEST_LIMITS.authFailures + 4 }, () =>
        api("/account", { ip, key: generateApiKey().key }),
      ),
    );
    expect(guesses.filter((r) => r.status === 401)).toHaveLength(TEST_LIMITS.authFailures);
    const limited = guesses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(4);
    expect(errorCode(limited[0] as (typeof guesses)[number])).toBe("rate_limited");
    expect(Number(limited[0]?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await api("/account", { ip, headers: { authorization: "Bearer wrong" } })).status).toBe(429);
    // Someone else behind the same address, with a good key, is not locked out.
    expect((await api("/account", { ip, key: account.apiKey })).status).toBe(200);
  });

  it("does not count successful requests as failures", async () => {
    const ip = randomIp();
    const account = await createAccount();
    for (let i = 0; i < TEST_LIMITS.authFailures + 3; i++) {
      expect((await api("/account", { ip, key: account.apiKey })).status).toBe(200);
    }
  });
});
