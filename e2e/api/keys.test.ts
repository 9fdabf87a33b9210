import { describe, expect, it } from "vitest";
import { accountWithTotp, api, codeAt, createAccount, errorCode } from "./helpers";

describe("API keys", () => {
  it("lists the first key by prefix only", async () => {
    const account = await createAccount();
    const result = await api("/keys", { key: account.apiKey });
    expect(result.status).toBe(200);
    const keys = result.body.keys as Array<Record<string, unknown>>;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toEqual({
      id: expect.any(Number),
      name: "default",
      prefix: account.apiKey.slice(0, 13),
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      last_used_from: expect.any(String),
      // Made with the account, before anything limited it: every scope, no condition, no cap.
      scopes: expect.arrayContaining(["servers:read", "billing:spend", "keys:write"]),
      full_access: true,
      expires_at: null,
      allowed_networks: null,
      server_ids: null,
      spend_cap: null,
      created_by_key_id: null,
    });
    expect(JSON.stringify(result.body)).not.toContain(account.apiKey.slice(13));
  });

  it("creates a key that works at once, shown in full only in the creation response", async () => {
    const account = await createAccount();
    const created = await api("/keys", { method: "POST", key: account.apiKey, body: { name: "ci runner" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "ci runner", last_used_at: null });
    const newKey = created.body.api_key as string;
    expect(newKey).toMatch(/^vpsk_/);
    expect(created.body.prefix).toBe(newKey.slice(0, 13));
    expect(newKey).not.toBe(account.apiKey);

    const me = await api("/account", { key: newKey });
    expect(me.status).toBe(200);
    expect(me.body.user_id).toBe(account.userId);

    const listed = await api("/keys", { key: account.apiKey });
    const keys = listed.body.keys as Array<{ id: number; prefix: string }>;
    expect(keys.map((k) => k.id)).toEqual([...keys.map((k) => k.id)].sort((a, b) => a - b));
    expect(keys.map((k) => k.prefix)).toContain(newKey.slice(0, 13));
    expect(JSON.stringify(listed.body)).not.toContain(newKey);
  });

  it("creates a key without a body, with a null name", async () => {
    const account = await createAccount();
    const created = await api("/keys", { method: "POST", key: account.apiKey });
    expect(created.status).toBe(201);
    expect(created.body.name).toBeNull();
  });

  it.each([
    [{ name: "" }, "invalid_name"],
    [{ name: "x".repeat(65) }, "invalid_name"],
    [{ name: 42 }, "invalid_name"],
    [{ name: "<script>" }, "invalid_name"],
    [{ scopes: ["all"] }, "invalid_scopes"],
    [{ scopes: [] }, "invalid_scopes"],
    [{ expires_at: "tomorrow" }, "invalid_expires_at"],
    [{ allowed_networks: ["10.0.0.0/33"] }, "invalid_networks"],
    [{ server_ids: [0] }, "invalid_server_ids"],
    [{ spend_cap: { amount_usd: 1.005, period: "day" } }, "invalid_spend_cap"],
    [{ spend_cap: { amount_usd: 10, period: "year" } }, "invalid_spend_cap"],
    [{ permissions: ["all"] }, "unknown_field"],
  ])("refuses the body %j with 400 %s and creates nothing", async (body, code) => {
    const account = await createAccount();
    const result = await api("/keys", { method: "POST", key: account.apiKey, body });
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe(code);
    const listed = await api("/keys", { key: account.apiKey });
    expect(listed.body.keys).toHaveLength(1);
  });

  it("refuses a JSON array body with 400 invalid_body", async () => {
    const account = await createAccount();
    const result = await api("/keys", { method: "POST", key: account.apiKey, body: [1, 2] });
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe("invalid_body");
  });

  it("revokes a key at once: its next request is 401 and it leaves the list", async () => {
    const account = await createAccount();
    const created = await api("/keys", { method: "POST", key: account.apiKey, body: { name: "temp" } });
    const id = created.body.id as number;
    const secondKey = created.body.api_key as string;
    // Used twice, so the second answer may come from the embedded database's key cache.
    expect((await api("/account", { key: secondKey })).status).toBe(200);
    expect((await api("/account", { key: secondKey })).status).toBe(200);

    const revoked = await api(`/keys/${id}`, { method: "DELETE", key: account.apiKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id, revoked: true, revoked_at: expect.any(String), also_revoked: [] });

    expect((await api("/account", { key: secondKey })).status).toBe(401);
    const listed = await api("/keys", { key: account.apiKey });
    expect((listed.body.keys as Array<{ id: number }>).map((k) => k.id)).not.toContain(id);
    // Revoking again: there is no such active key any more.
    const again = await api(`/keys/${id}`, { method: "DELETE", key: account.apiKey });
    expect(again.status).toBe(404);
    expect(errorCode(again)).toBe("not_found");
  });

  it("lets a key revoke itself", async () => {
    const account = await createAccount();
    const listed = await api("/keys", { key: account.apiKey });
    const ownId = (listed.body.keys as Array<{ id: number }>)[0]?.id;
    expect((await api(`/keys/${ownId}`, { method: "DELETE", key: account.apiKey })).status).toBe(200);
    expect((await api("/account", { key: account.apiKey })).status).toBe(401);
  });

  it("answers 404 for another account's key id and leaves that key working", async () => {
    const owner = await createAccount();
    const stranger = await createAccount();
    const ownerKeys = await api("/keys", { key: owner.apiKey });
    const ownerKeyId = (ownerKeys.body.keys as Array<{ id: number }>)[0]?.id;

    const attempt = await api(`/keys/${ownerKeyId}`, { method: "DELETE", key: stranger.apiKey });
    expect(attempt.status).toBe(404);
    expect(errorCode(attempt)).toBe("not_found");
    expect((await api("/account", { key: owner.apiKey })).status).toBe(200);
    // The stranger's list does not show it either.
    const strangerKeys = await api("/keys", { key: stranger.apiKey });
    expect((strangerKeys.body.keys as Array<{ id: number }>).map((k) => k.id)).not.toContain(ownerKeyId);
  });

  it.each(["abc", "0", "-1", "1.5", "99999999999", "2147483648"])("answers 404 for the id %s", async (id) => {
    const account = await createAccount();
    const result = await api(`/keys/${id}`, { method: "DELETE", key: account.apiKey });
    expect(result.status).toBe(404);
    expect(errorCode(result)).toBe("not_found");
  });

  it("caps an account at 20 active keys with 409 key_limit_reached, even under parallel requests", async () => {
    const account = await createAccount();
    const results = await Promise.all(
      Array.from({ length: 25 }, () => api("/keys", { method: "POST", key: account.apiKey })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(19);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(6);
    expect(errorCode(refused[0] as (typeof results)[number])).toBe("key_limit_reached");
    const listed = await api("/keys", { key: account.apiKey });
    expect(listed.body.keys).toHaveLength(20);
  });

  it("requires a key on every keys endpoint", async () => {
    expect((await api("/keys")).status).toBe(401);
    expect((await api("/keys", { method: "POST" })).status).toBe(401);
    expect((await api("/keys/1", { method: "DELETE" })).status).toBe(401);
  });

  it("with TOTP on, a dashboard session mints a key only with a current code; an API key needs none", async () => {
    const account = await accountWithTotp();
    const code = (offset: number) => codeAt(account.secret, offset);
    const session = (
      await api("/sessions", {
        method: "POST",
        body: { login_token: account.loginToken, totp_code: code(0) },
      })
    ).body.api_key as string;
    const mint = (key: string, body: unknown) => api("/keys", { method: "POST", key, body });

    const missing = await mint(session, { name: "from a cookie" });
    expect(missing.status).toBe(400);
    expect(errorCode(missing)).toBe("totp_required");
    const wrong = await mint(session, { name: "from a cookie", totp_code: code(5) });
    expect(wrong.status).toBe(400);
    expect(errorCode(wrong)).toBe("invalid_totp_code");
    const names = async () =>
      ((await api("/keys", { key: account.apiKey })).body.keys as { name: string }[]).map((k) => k.name);
    expect(await names()).toEqual(["default"]);
    const minted = await mint(session, { name: "from a cookie", totp_code: code(1) });
    expect(minted.status).toBe(201);

    // A key already is lasting access with every power a new key would have: no code asked.
    expect((await mint(account.apiKey, { name: "ci" })).status).toBe(201);
    expect(await names()).toEqual(["default", "from a cookie", "ci"]);
  });
});
