import { Secret, TOTP } from "otpauth";
import { describe, expect, inject, it } from "vitest";
import { balanceOf, fund } from "./funding";
import { randomIp } from "./helpers";

const appUrl = () => inject("baseUrl");

/** Calls a dashboard (BFF) route as a browser on our own origin would, carrying `cookie` if given. */
async function bff(
  path: string,
  options: { method?: string; cookie?: string; body?: unknown; origin?: string | null } = {},
) {
  const headers: Record<string, string> = { "x-forwarded-for": randomIp() };
  const origin = options.origin === undefined ? appUrl() : options.origin;
  if (origin) headers.origin = origin;
  if (options.cookie) headers.cookie = options.cookie;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${appUrl()}/bff${path}`, {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { status: response.status, text, body: text ? JSON.parse(text) : {}, setCookie };
}

const cookieOf = (setCookie: string) => setCookie.split(";")[0] ?? "";

describe("the dashboard's backend-for-frontend", () => {
  it("sign-up shows the credentials once and keeps the session key in an HttpOnly cookie only", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    expect(signUp.status).toBe(201);
    expect(signUp.body.api_key).toMatch(/^vpsk_/);
    expect(signUp.body.login_token).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    expect(signUp.setCookie).toMatch(/^vps_session=/);
    expect(signUp.setCookie).toMatch(/HttpOnly/i);
    expect(signUp.setCookie).toMatch(/SameSite=Lax/i);
    expect(signUp.setCookie).toMatch(/Path=\//i);
    expect(signUp.setCookie).toMatch(/Max-Age=\d+/i);
    // The cookie is sealed: no key inside it is readable.
    expect(signUp.setCookie).not.toContain("vpsk_");
    const account = await bff("/account", { cookie: cookieOf(signUp.setCookie) });
    expect(account.status).toBe(200);
    expect(account.body.balance_usd).toBe(0);
    expect(account.text).not.toContain("vpsk_");
  });

  it("refuses state-changing requests from another origin, or without one", async () => {
    const foreign = await bff("/sign-up", { method: "POST", origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe("cross_origin");
    expect(foreign.setCookie).toBe("");
    const anonymous = await bff("/sign-up", { method: "POST", origin: null });
    expect(anonymous.status).toBe(403);
  });

  it("sign-out revokes the session at the API: a copied cookie stops working", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    const cookie = cookieOf(signUp.setCookie);
    const out = await bff("/sign-out", { method: "POST", cookie });
    expect(out.status).toBe(200);
    const replayed = await bff("/account", { cookie });
    expect(replayed.status).toBe(401);
    expect(replayed.body.error).toBe("signed_out");
  });

  it("sign-in with the login token; a wrong token is refused; no cookie means signed out", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    const signIn = await bff("/sign-in", { method: "POST", body: { login_token: signUp.body.login_token } });
    expect(signIn.status).toBe(200);
    expect(signIn.text).not.toContain("vpsk_");
    expect((await bff("/account", { cookie: cookieOf(signIn.setCookie) })).status).toBe(200);
    const wrong = await bff("/sign-in", { method: "POST", body: { login_token: "AAAA-BBBB-CCCC-DDDD" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_login");
    expect(wrong.setCookie).toBe("");
    expect((await bff("/account")).status).toBe(401);
  });
});

describe("the dashboard's forwarding route", () => {
  it("passes on only the calls its list names; anything else never reaches the API", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    const cookie = cookieOf(signUp.setCookie);
    // An API path the list does not name: /sessions/current would end this session if it were passed on.
    const current = await bff("/sessions/current", { method: "DELETE", cookie });
    expect(current.status).toBe(404);
    expect(current.body.error).toBe("not_found");
    // The API's own TOTP path (the dashboard's is /totp) and its demo clock are not reachable through /bff.
    const apiTotp = await bff("/account/totp", { method: "POST", cookie });
    expect(apiTotp.status).toBe(404);
    expect((await bff("/demo/clock", { cookie })).status).toBe(404);
    // A listed path with a method the list does not give it.
    const createAccount = await bff("/account", { method: "POST", cookie });
    expect(createAccount.status).toBe(405);
    expect(createAccount.body.error).toBe("method_not_allowed");
    const keys = await bff("/keys", { cookie });
    expect(keys.body.keys).toHaveLength(1);
    expect((await bff(`/keys/${keys.body.keys[0].id}`, { method: "PATCH", cookie, body: {} })).status).toBe(
      405,
    );
    // None of it changed anything: the session lives, TOTP was never started, the key is still there.
    const account = await bff("/account", { cookie });
    expect(account.status).toBe(200);
    expect(account.body.totp_enabled).toBe(false);
    expect((await bff("/keys", { cookie })).body.keys).toHaveLength(1);
    const sessions = await bff("/sessions", { cookie });
    expect(sessions.body.sessions).toHaveLength(1);
  });

  it("passes the Idempotency-Key on and relays Idempotent-Replayed", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    await fund(signUp.body.api_key, 25);
    const cookie = cookieOf(signUp.setCookie);
    const ordered = await bff("/servers", {
      method: "POST",
      cookie,
      body: { plan: "pup", location: "nl", os: "debian-13" },
    });
    expect(ordered.status).toBe(201);
    const renew = () =>
      fetch(`${appUrl()}/bff/servers/${ordered.body.id}/renew`, {
        method: "POST",
        headers: { origin: appUrl(), cookie, "idempotency-key": "renew-button-1" },
      });
    const first = await renew();
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await renew();
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    // $4 for the order and $4 for one renewal: the repeated renewal moved no money.
    expect(await balanceOf(signUp.body.api_key)).toBe(17);
  });
});

describe("the dashboard's keys and the login token", () => {
  const works = async (key: string) =>
    (await fetch(`${appUrl()}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } })).status ===
    200;

  it("a cookie alone mints no key once TOTP is on, and keys it minted die with the login token if asked", async () => {
    const remaining = TOTP.remaining({ period: 30 });
    if (remaining < 12_000) await new Promise((resolve) => setTimeout(resolve, remaining + 500));
    const signUp = await bff("/sign-up", { method: "POST" });
    const cookie = cookieOf(signUp.setCookie);
    const secret = Secret.fromBase32((await bff("/totp", { method: "POST", cookie })).body.secret);
    const code = (offset: number) => TOTP.generate({ secret, timestamp: Date.now() + offset * 30_000 });
    const confirmed = await bff("/totp/confirm", { method: "POST", cookie, body: { code: code(-1) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recovery_codes).toHaveLength(10);

    const bare = await bff("/keys", { method: "POST", cookie, body: { name: "cookie" } });
    expect(bare.status).toBe(400);
    expect(bare.body.error).toBe("totp_required");
    expect((await bff("/keys", { cookie })).body.keys).toHaveLength(1);
    const minted = await bff("/keys", {
      method: "POST",
      cookie,
      body: { name: "cookie", totp_code: code(0) },
    });
    expect(minted.status).toBe(201);
    const mintedKey = minted.body.api_key as string;

    // Replacing the token with a recovery code, and every API key with it.
    const rotated = await bff("/account/login-token", {
      method: "POST",
      cookie,
      body: { recovery_code: confirmed.body.recovery_codes[0], revoke_api_keys: true },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.api_keys_revoked).toBe(2);
    expect(rotated.text).not.toContain("vpsk_");
    expect(await works(mintedKey)).toBe(false);
    expect(await works(signUp.body.api_key)).toBe(false);
    // The dashboard goes on with its new session; the old cookie is dead.
    expect((await bff("/account", { cookie: cookieOf(rotated.setCookie) })).status).toBe(200);
    expect((await bff("/account", { cookie })).status).toBe(401);
  });

  it("without TOTP, rotation keeps the API keys unless asked", async () => {
    const signUp = await bff("/sign-up", { method: "POST" });
    const cookie = cookieOf(signUp.setCookie);
    const minted = (await bff("/keys", { method: "POST", cookie, body: {} })).body.api_key as string;
    const kept = await bff("/account/login-token", { method: "POST", cookie, body: {} });
    expect(kept.body.api_keys_revoked).toBe(0);
    expect(await works(minted)).toBe(true);
    const next = cookieOf(kept.setCookie);
    const badOption = await bff("/account/login-token", {
      method: "POST",
      cookie: next,
      body: { revoke_api_keys: "yes" },
    });
    expect(badOption.status).toBe(400);
    expect(await works(minted)).toBe(true);
    const revoked = await bff("/account/login-token", {
      method: "POST",
      cookie: next,
      body: { revoke_api_keys: true },
    });
    expect(revoked.body.api_keys_revoked).toBe(2);
    expect(await works(minted)).toBe(false);
  });
});

describe("the dashboard's server routes", () => {
  /** A signed-in dashboard with $25 on the balance (the API key is used only to check what the API holds). */
  async function fundedDashboard() {
    const signUp = await bff("/sign-up", { method: "POST" });
    await fund(signUp.body.api_key, 25);
    return { cookie: cookieOf(signUp.setCookie), apiKey: signUp.body.api_key as string };
  }
  const order = { plan: "pup", location: "nl", os: "debian-13" };

  it("orders once per Idempotency-Key, however often the browser sends it", async () => {
    const { cookie, apiKey } = await fundedDashboard();
    const send = () =>
      fetch(`${appUrl()}/bff/servers`, {
        method: "POST",
        headers: {
          origin: appUrl(),
          cookie,
          "content-type": "application/json",
          "idempotency-key": "order-button-1",
        },
        body: JSON.stringify(order),
      });
    const [first, second] = await Promise.all([send(), send()]);
    const statuses = [first.status, second.status].sort();
    expect(statuses[0]).toBe(201);
    expect([201, 409]).toContain(statuses[1]);
    const again = await send();
    expect(again.status).toBe(201);
    // The generated root password is not handed to the page with the order; the server page reveals it.
    expect(await again.clone().json()).not.toHaveProperty("root_password");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await balanceOf(apiKey)).toBe(21);
  });

  it("answers bad input with a 4xx and changes nothing", async () => {
    const { cookie, apiKey } = await fundedDashboard();
    const created = await bff("/servers", { method: "POST", cookie, body: order });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await bff("/servers", { method: "POST", cookie, body: { ...order, plan: "nope" } })).status).toBe(
      400,
    );
    expect(
      (await bff(`/servers/${id}`, { method: "PATCH", cookie, body: { auto_renew: "yes" } })).status,
    ).toBe(400);
    expect(
      (await bff(`/servers/${id}/actions`, { method: "POST", cookie, body: { action: "melt" } })).status,
    ).toBe(400);
    expect((await bff("/servers/abc", { cookie })).status).toBe(404);
    expect((await bff("/servers/abc/credentials", { cookie })).status).toBe(404);
    const foreign = await bff(`/servers/${id}`, { method: "DELETE", cookie, origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    const server = await bff(`/servers/${id}`, { cookie });
    expect(server.body.auto_renew).toBe(false);
    expect(server.body.status).not.toBe("terminated");
    expect(await balanceOf(apiKey)).toBe(21);
  });

  it("reveals the API's credentials without caching, and only to the owner", async () => {
    const { cookie, apiKey } = await fundedDashboard();
    const created = await bff("/servers", {
      method: "POST",
      cookie,
      body: { ...order, root_password: "correct-horse-42" },
    });
    expect(created.status, created.text).toBe(201);
    const response = await fetch(`${appUrl()}/bff/servers/${created.body.id}/credentials`, {
      headers: { cookie },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ username: "root", password: "correct-horse-42" });
    const api = await fetch(`${appUrl()}/api/v1/servers/${created.body.id}/credentials`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect((await api.json()).password).toBe("correct-horse-42");
    const stranger = await bff("/sign-up", { method: "POST" });
    const theirs = await bff(`/servers/${created.body.id}/credentials`, {
      cookie: cookieOf(stranger.setCookie),
    });
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain("correct-horse");
  });
});

describe("the dashboard's top-up and wallet routes", () => {
  const signedIn = async () => cookieOf((await bff("/sign-up", { method: "POST" })).setCookie);

  it("refuses what is not a top-up request with a 4xx and creates nothing", async () => {
    const cookie = await signedIn();
    expect((await bff("/topups", { method: "POST", cookie, body: { amount: "lots" } })).status).toBe(400);
    expect((await bff("/topups", { method: "POST", cookie, body: { amount: 10, coin: "BTC" } })).status).toBe(
      400,
    );
    const badPayment = await fetch(`${appUrl()}/bff/topups`, {
      method: "POST",
      headers: { origin: appUrl(), cookie, "content-type": "application/json", "x-payment": "not base64!" },
      body: JSON.stringify({ amount: 25, coin: "USDCBASE" }),
    });
    expect(badPayment.status).toBe(400);
    expect((await bff("/topups/..%2F..%2Faccount", { cookie })).status).toBe(404);
    expect((await bff("/topups", { cookie })).body.topups).toEqual([]);
  });

  it("passes the x402 challenge of a USDC top-up on unchanged", async () => {
    const challenge = await bff("/topups", {
      method: "POST",
      cookie: await signedIn(),
      body: { amount: 25, coin: "USDCBASE" },
    });
    expect(challenge.status).toBe(402);
    expect(challenge.body.x402Version).toBe(1);
    expect(challenge.body.accepts[0]).toMatchObject({ scheme: "exact", maxAmountRequired: "25000000" });
  });

  it("forwards the wallet page's reads to the payment chain and nothing else", async () => {
    const cookie = await signedIn();
    const rpc = (body: unknown, origin?: string) =>
      bff("/wallet/rpc", { method: "POST", cookie, body, origin });
    expect((await rpc({ jsonrpc: "2.0", id: 1, method: "eth_chainId" })).body.result).toBe("0x2105");
    // A write hidden in a batch is refused as a whole.
    const smuggled = await rpc([
      { jsonrpc: "2.0", id: 1, method: "eth_chainId" },
      { jsonrpc: "2.0", id: 2, method: "eth_sendRawTransaction", params: ["0x00"] },
    ]);
    expect(smuggled.status).toBe(400);
    expect(smuggled.body.error).toBe("method_not_allowed");
    const otherContract = await rpc({
      jsonrpc: "2.0",
      id: 3,
      method: "eth_call",
      params: [{ to: "0x000000000000000000000000000000000000dEaD", data: "0x" }, "latest"],
    });
    expect(otherContract.status).toBe(400);
    const tooMany = await rpc(
      Array.from({ length: 4 }, (_, id) => ({ jsonrpc: "2.0", id, method: "eth_chainId" })),
    );
    expect(tooMany.status).toBe(400);
    const huge = await rpc({ jsonrpc: "2.0", id: 4, method: "eth_call", params: ["x".repeat(20_000)] });
    expect(huge.status).toBe(413);
    expect((await rpc({ jsonrpc: "2.0", id: 5, method: "eth_chainId" }, "http://evil.example")).status).toBe(
      403,
    );
    expect(
      (await bff("/wallet/rpc", { method: "POST", body: { jsonrpc: "2.0", id: 6, method: "eth_chainId" } }))
        .status,
    ).toBe(401);
  });

  it("has no demo wallet when payments settle on a configured chain", async () => {
    const signed = await bff("/wallet/demo-sign", {
      method: "POST",
      cookie: await signedIn(),
      body: {
        to: "0x000000000000000000000000000000000000dEaD",
        value: "25000000",
        validAfter: "0",
        validBefore: "1",
        nonce: `0x${"11".repeat(32)}`,
      },
    });
    expect(signed.status).toBe(404);
    expect(signed.text).not.toContain("signature");
  });
});
