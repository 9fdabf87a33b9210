import { describe, expect, inject, it } from "vitest";
import { SCOPES } from "@/lib/api/scopes";
import { API_KEY_SCOPES, type ApiKeyScope } from "@/lib/db/types";
import { balanceOf, fund } from "./funding";
import { type ApiResult, api, createAccount, errorCode, until } from "./helpers";

/**
 * Keys with scopes, conditions and spend caps, over HTTP against the running app. Which scope each operation
 * needs is read from the document the app serves: every keyed operation is called with a key that lacks its
 * scope and with one that holds only it.
 */
type Operation = { operationId: string; "x-scope"?: string; security?: unknown[] };
const document = (await (await fetch(`${inject("baseUrl")}/api/v1/openapi.json`)).json()) as {
  paths: Record<string, Record<string, Operation>>;
};

/** Path parameters that name nothing: a call that passes the key's checks ends in the handler's 404. */
const NOTHING: Record<string, string> = {
  id: "2147483000",
  snapshotId: "2147483000",
  deliveryId: "2147483000",
  ref: "tp_nothing0here0at0all0000",
};

type Call = { name: string; method: string; path: string; scope: ApiKeyScope };

/** Every operation that needs a scope, called at a path that names nothing. */
const CALLS: Call[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) => {
    const scope = operation["x-scope"];
    if (scope === undefined || scope === "none") return [];
    return [
      {
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path: path.replace(/\{(\w+)\}/g, (_, name: string) => NOTHING[name] ?? "1"),
        scope: scope as ApiKeyScope,
      },
    ];
  }),
);

const call = (key: string, target: Call, ip?: string) =>
  api(target.path, {
    method: target.method,
    key,
    ip,
    ...(target.method === "GET" || target.method === "DELETE" ? {} : { body: {} }),
  });

type Key = { id: number; key: string; scopes: ApiKeyScope[]; body: Record<string, unknown> };

async function makeKey(maker: string, body: Record<string, unknown>, ip?: string): Promise<Key> {
  const created = await api("/keys", { method: "POST", key: maker, body, ip });
  if (created.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(created.body)}`);
  return {
    id: created.body.id as number,
    key: created.body.api_key as string,
    scopes: created.body.scopes as ApiKeyScope[],
    body: created.body,
  };
}

const revoke = (maker: string, id: number) => api(`/keys/${id}`, { method: "DELETE", key: maker });

/** The service's own clock (tests elsewhere in the suite move it). */
const serviceNow = async () => Date.parse((await api("/demo/clock")).body.now as string);

/** Whether an answer refuses the key itself (rather than the handler refusing the call). */
const refusedForKey = (result: ApiResult) =>
  result.status === 401 || ["missing_scope", "address_not_allowed"].includes(result.body.error ?? "");

describe("every operation's scope, from the served document", () => {
  it("is declared for every operation, and every scope is needed by some operation", () => {
    expect(CALLS.length).toBeGreaterThan(40);
    expect(new Set(CALLS.map((c) => c.scope))).toEqual(new Set(API_KEY_SCOPES));
  });

  // One key lacking the scope (and the scopes that need it), one holding only it, per scope.
  it.each(API_KEY_SCOPES)(
    "%s: refused without it, naming it and the key's scopes; let through with it",
    async (scope) => {
      const { apiKey } = await createAccount();
      const lackingScopes = API_KEY_SCOPES.filter(
        (other) => other !== scope && !(SCOPES[other].needs as readonly string[]).includes(scope),
      );
      const lacking = await makeKey(apiKey, { name: `without ${scope}`, scopes: lackingScopes });
      const holding = await makeKey(apiKey, { name: `only ${scope}`, scopes: [scope] });
      expect(holding.scopes).toEqual(
        API_KEY_SCOPES.filter((s) => s === scope || SCOPES[scope].needs.includes(s as never)),
      );
      for (const target of CALLS.filter((c) => c.scope === scope)) {
        const refused = await call(lacking.key, target);
        expect(refused.status, target.name).toBe(403);
        expect(refused.body, target.name).toMatchObject({
          error: "missing_scope",
          required_scopes: [scope],
          key_scopes: lacking.scopes,
        });
        const allowed = await call(holding.key, target);
        expect(
          refusedForKey(allowed),
          `${target.name}: ${allowed.status} ${JSON.stringify(allowed.body)}`,
        ).toBe(false);
      }
      await revoke(apiKey, lacking.id);
      await revoke(apiKey, holding.id);
    },
  );
});

describe("conditions on a key", () => {
  it("stops a key at its expiry with 401 key_expired, and keeps it listed until revoked", async () => {
    const { apiKey } = await createAccount();
    const expiresAt = new Date((await serviceNow()) + 2500).toISOString();
    const short = await makeKey(apiKey, { name: "short", scopes: ["servers:read"], expires_at: expiresAt });
    expect(short.body.expires_at).toBe(expiresAt);
    expect((await api("/servers", { key: short.key })).status).toBe(200);
    const expired = await until(
      () => api("/servers", { key: short.key }),
      (result) => result.status !== 200,
      10_000,
    );
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ error: "key_expired", expired_at: expiresAt });
    const listed = (await api("/keys", { key: apiKey })).body.keys as { id: number }[];
    expect(listed.map((key) => key.id)).toContain(short.id);
    const past = await api("/keys", {
      method: "POST",
      key: apiKey,
      body: { expires_at: new Date((await serviceNow()) - 1000).toISOString() },
    });
    expect(past.status).toBe(400);
    expect(errorCode(past)).toBe("invalid_expires_at");
  });

  it("takes a key only from its networks, IPv4 and IPv6, judged on the address the trusted proxy saw", async () => {
    const { apiKey } = await createAccount();
    const limited = await makeKey(apiKey, {
      scopes: ["servers:read"],
      allowed_networks: ["203.0.113.0/24", "2001:db8:5::/48"],
    });
    const from = (forwardedFor: string) =>
      api("/servers", { key: limited.key, headers: { "x-forwarded-for": forwardedFor } });
    for (const allowed of ["203.0.113.9", "::ffff:203.0.113.10", "2001:db8:5::42", "2001:db8:5:ffff::1"]) {
      expect((await from(allowed)).status, allowed).toBe(200);
    }
    for (const refused of ["198.51.100.1", "2001:db8:6::1", "203.0.114.1"]) {
      const result = await from(refused);
      expect(result.status, refused).toBe(403);
      expect(result.body).toMatchObject({ error: "address_not_allowed", address: refused });
    }
    // One proxy hop is trusted: the address it appended counts, never what the client wrote before it.
    expect((await from("203.0.113.9, 198.51.100.1")).status).toBe(403);
    expect((await from("198.51.100.1, 203.0.113.9")).status).toBe(200);
    const current = await api("/keys/current", {
      key: limited.key,
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    expect(current.body).toMatchObject({
      allowed_networks: ["203.0.113.0/24", "2001:db8:5::/48"],
      last_used_from: "203.0.113.9",
      kind: "api",
    });
    const hostBits = await api("/keys", {
      method: "POST",
      key: apiKey,
      body: { allowed_networks: ["10.1.2.3/8"] },
    });
    expect(hostBits.status).toBe(400);
    expect(errorCode(hostBits)).toBe("invalid_networks");
    expect(hostBits.body.message).toMatch(/10\.0\.0\.0\/8/);
  });

  it("shows a key bound to servers only those: others are 404 and absent from lists; one it orders joins", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 40);
    const order = (key: string) =>
      api("/servers", { method: "POST", key, body: { plan: "pup", location: "nl", os: "debian-13" } });
    const first = (await order(apiKey)).body.id as number;
    const second = (await order(apiKey)).body.id as number;
    const bound = await makeKey(apiKey, {
      scopes: ["servers:read", "servers:power", "billing:spend"],
      server_ids: [first],
    });
    const ids = async () =>
      ((await api("/servers", { key: bound.key })).body.servers as { id: number }[]).map((s) => s.id);
    expect(await ids()).toEqual([first]);
    expect((await api(`/servers/${first}`, { key: bound.key })).status).toBe(200);
    for (const path of [`/servers/${second}`, `/servers/${second}/metrics`, `/servers/${second}/snapshots`]) {
      const hidden = await api(path, { key: bound.key });
      expect(hidden.status, path).toBe(404);
      expect(errorCode(hidden)).toBe("not_found");
    }
    const power = await api(`/servers/${second}/actions`, {
      method: "POST",
      key: bound.key,
      body: { action: "stop" },
    });
    expect(power.status).toBe(404);
    // The scope is judged first: a bound key without it is told so even for its own server.
    expect(errorCode(await api(`/servers/${first}/credentials`, { key: bound.key }))).toBe("missing_scope");
    const third = (await order(bound.key)).body.id as number;
    expect(await ids()).toEqual([third, first]);
    expect((await api("/keys/current", { key: bound.key })).body.server_ids).toEqual([first, third]);
    const stranger = await createAccount();
    const foreign = await api("/keys", {
      method: "POST",
      key: stranger.apiKey,
      body: { server_ids: [first] },
    });
    expect(foreign.status).toBe(400);
    expect(errorCode(foreign)).toBe("invalid_server_ids");
  });
});

describe("spend caps", () => {
  it("lets exactly two of 30 concurrent orders through a cap of two orders' worth, in the ledger", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 60);
    const catalog = await api("/catalog");
    const prices = (
      catalog.body.pricing as { prices: { plan: string; location: string; monthly_usd: number }[] }
    ).prices;
    const price = prices.find((p) => p.plan === "pup" && p.location === "nl")?.monthly_usd ?? 0;
    expect(price * 4).toBeLessThan(60);
    const agent = await makeKey(apiKey, {
      name: "agent",
      scopes: ["billing:spend"],
      spend_cap: { amount_usd: 2 * price, period: "day" },
    });
    expect(agent.body.spend_cap).toMatchObject({ amount_usd: 2 * price, period: "day", spent_usd: 0 });
    const before = await balanceOf(apiKey);
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        api("/servers", {
          method: "POST",
          key: agent.key,
          body: { plan: "pup", location: "nl", os: "debian-13" },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    const refused = results.filter((r) => r.status === 402);
    expect(refused).toHaveLength(28);
    const tomorrow = new Date((await serviceNow()) + 86_400_000).toISOString().slice(0, 10);
    for (const result of refused) {
      expect(result.body).toMatchObject({
        error: "spend_cap_exceeded",
        cap: 2 * price,
        spent: 2 * price,
        price,
        period: "day",
        resets_at: `${tomorrow}T00:00:00.000Z`,
        cap_key_id: agent.id,
      });
    }
    expect(await balanceOf(apiKey)).toBeCloseTo(before - 2 * price, 2);
    const current = (await api("/keys/current", { key: agent.key })).body;
    expect(current).toMatchObject({ spendable_usd: 0, spend_cap: { spent_usd: 2 * price } });
    // A renewal is a debit like any other: the cap covers it too.
    const server = results.find((r) => r.status === 201)?.body.id as number;
    const renewal = await api(`/servers/${server}/renew`, { method: "POST", key: agent.key });
    expect(renewal.status).toBe(402);
    expect(errorCode(renewal)).toBe("spend_cap_exceeded");
    // The account's own key is not capped by its agent's cap.
    expect((await api(`/servers/${server}/renew`, { method: "POST", key: apiKey })).status).toBe(200);
  });
});

describe("keys that make keys", () => {
  it("cannot give more than they hold, and what they make spends from their cap", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 40);
    const ip = "203.0.113.50";
    const expiresAt = new Date((await serviceNow()) + 86_400_000).toISOString();
    const parent = await makeKey(apiKey, {
      name: "agent",
      scopes: ["servers:read", "billing:spend", "keys:write"],
      expires_at: expiresAt,
      allowed_networks: ["203.0.113.0/24"],
      spend_cap: { amount_usd: 10, period: "month" },
    });
    const mint = (body: Record<string, unknown>) =>
      api("/keys", { method: "POST", key: parent.key, body, ip });
    const escalations: [Record<string, unknown>, string][] = [
      [{ scopes: ["servers:terminate"] }, "scopes"],
      [{ expires_at: new Date(Date.parse(expiresAt) + 1000).toISOString() }, "expires_at"],
      [{ allowed_networks: ["0.0.0.0/0"] }, "allowed_networks"],
      [{ spend_cap: { amount_usd: 10.01, period: "month" } }, "spend_cap"],
    ];
    for (const [body, field] of escalations) {
      const refused = await mint(body);
      expect(refused.status, field).toBe(403);
      expect(refused.body).toMatchObject({ error: "beyond_key_rights", field });
    }
    const child = await makeKey(parent.key, { name: "child" }, ip);
    expect(child.body).toMatchObject({
      scopes: ["servers:read", "billing:spend", "account:read", "keys:read", "keys:write"],
      full_access: false,
      expires_at: expiresAt,
      allowed_networks: ["203.0.113.0/24"],
      spend_cap: { amount_usd: 10, period: "total", spent_usd: 0 },
      created_by_key_id: parent.id,
    });
    // The child's order is spent under the parent's cap too.
    const ordered = await api("/servers", {
      method: "POST",
      key: child.key,
      ip,
      body: { plan: "pup", location: "nl", os: "debian-13" },
    });
    expect(ordered.status).toBe(201);
    const price = (ordered.body.price_usd as number) ?? 0;
    const parentNow = (await api("/keys/current", { key: parent.key, ip })).body;
    expect(parentNow).toMatchObject({ spend_cap: { spent_usd: price } });
    expect(parentNow.spendable_usd).toBeCloseTo(10 - price, 2);
    // Neither may cut off a key it did not make, nor take the login token (which opens the dashboard).
    const owner = ((await api("/keys", { key: apiKey })).body.keys as { id: number; name: string }[]).find(
      (key) => key.name === "default",
    );
    expect(errorCode(await api(`/keys/${owner?.id}`, { method: "DELETE", key: child.key, ip }))).toBe(
      "beyond_key_rights",
    );
    expect(errorCode(await api(`/keys/${parent.id}`, { method: "DELETE", key: child.key, ip }))).toBe(
      "beyond_key_rights",
    );
    const everything = await makeKey(apiKey, { scopes: [...API_KEY_SCOPES] });
    const rotate = await api("/account/login-token", { method: "POST", key: everything.key, body: {} });
    expect(rotate.status).toBe(403);
    expect(errorCode(rotate)).toBe("beyond_key_rights");
    // Revoking a key revokes what it made.
    const revoked = await api(`/keys/${parent.id}`, { method: "DELETE", key: parent.key, ip });
    expect(revoked.body).toMatchObject({ id: parent.id, revoked: true, also_revoked: [child.id] });
    expect((await api("/servers", { key: child.key, ip })).status).toBe(401);
  });

  it("tells any key what it is, the account's first key having every right", async () => {
    const { apiKey } = await createAccount();
    const me = await api("/keys/current", { key: apiKey });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      name: "default",
      kind: "api",
      full_access: true,
      scopes: [...API_KEY_SCOPES],
      expires_at: null,
      allowed_networks: null,
      server_ids: null,
      spend_cap: null,
      spendable_usd: null,
      created_by_key_id: null,
    });
    const reader = await makeKey(apiKey, { scopes: ["topups:read"] });
    const itself = await api("/keys/current", { key: reader.key });
    expect(itself.body).toMatchObject({ id: reader.id, scopes: ["topups:read"], spendable_usd: 0 });
  });
});
