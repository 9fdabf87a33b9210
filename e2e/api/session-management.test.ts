import { describe, expect, it } from "vitest";
import { TEST_LIMITS } from "./global-setup";
import { accountWithTotp, api, codeAt, createAccount, errorCode, randomIp } from "./helpers";

const signIn = async (loginToken: string, totpCode?: string) => {
  const result = await api("/sessions", {
    method: "POST",
    body: { login_token: loginToken, ...(totpCode ? { totp_code: totpCode } : {}) },
  });
  return result;
};
const sessionKey = async (loginToken: string) => {
  const result = await signIn(loginToken);
  expect(result.status).toBe(201);
  return { key: result.body.api_key as string, id: result.body.key_id as number };
};
type Listed = { id: number; current: boolean; created_at: string; expires_at: string; last_used_at: unknown };
const listSessions = async (key: string) => {
  const result = await api("/sessions", { key });
  expect(result.status).toBe(200);
  return result.body.sessions as Listed[];
};
const works = async (key: string) => (await api("/account", { key })).status === 200;

describe("listing and revoking dashboard sessions", () => {
  it("lists live sessions newest first with the caller's marked, never their keys", async () => {
    const account = await createAccount();
    const first = await sessionKey(account.loginToken);
    const second = await sessionKey(account.loginToken);
    const listed = await listSessions(second.key);
    expect(listed.map((s) => s.id)).toEqual([second.id, first.id]);
    expect(listed.map((s) => s.current)).toEqual([true, false]);
    expect(Object.keys(listed[0] ?? {}).sort()).toEqual([
      "created_at",
      "current",
      "expires_at",
      "id",
      "last_used_at",
    ]);
    // An API key sees the same sessions, none of them its own.
    expect((await listSessions(account.apiKey)).map((s) => s.current)).toEqual([false, false]);
  });

  it("revokes a session at once; another account's, an API key's or a revoked id is 404", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const mine = await sessionKey(account.loginToken);
    const theirs = await sessionKey(other.loginToken);

    const foreign = await api(`/sessions/${theirs.id}`, { method: "DELETE", key: account.apiKey });
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe("not_found");
    expect(await works(theirs.key)).toBe(true);

    const apiKeyId = ((await api("/keys", { key: account.apiKey })).body.keys as { id: number }[])[0]?.id;
    expect((await api(`/sessions/${apiKeyId}`, { method: "DELETE", key: account.apiKey })).status).toBe(404);
    expect(await works(account.apiKey)).toBe(true);
    expect((await api("/sessions/abc", { method: "DELETE", key: account.apiKey })).status).toBe(404);

    const revoked = await api(`/sessions/${mine.id}`, { method: "DELETE", key: account.apiKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: mine.id, revoked: true });
    expect(await works(mine.key)).toBe(false);
    expect(await listSessions(account.apiKey)).toEqual([]);
    expect((await api(`/sessions/${mine.id}`, { method: "DELETE", key: account.apiKey })).status).toBe(404);
  });

  it(`keeps at most MAX_SESSIONS_PER_ACCOUNT (${TEST_LIMITS.sessionsPerAccount} here) live sessions, revoking the oldest`, async () => {
    const account = await createAccount();
    const sessions = [];
    for (let i = 0; i < TEST_LIMITS.sessionsPerAccount + 2; i++)
      sessions.push(await sessionKey(account.loginToken));
    const listed = await listSessions(account.apiKey);
    expect(listed.map((s) => s.id)).toEqual(
      sessions
        .slice(2)
        .map((s) => s.id)
        .reverse(),
    );
    expect(await works(sessions[0]?.key ?? "")).toBe(false);
    expect(await works(sessions[1]?.key ?? "")).toBe(false);
    expect(await works(sessions[2]?.key ?? "")).toBe(true);
    expect(await works(account.apiKey)).toBe(true);
  });
});

describe("rotating the login token", () => {
  it("returns a new token once; the old one and every session of it die at once; API keys live on", async () => {
    const account = await createAccount();
    const a = await sessionKey(account.loginToken);
    const b = await sessionKey(account.loginToken);
    const rotated = await api("/account/login-token", { method: "POST", key: account.apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toContain("no-store");
    expect(rotated.body.login_token).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    expect(rotated.body.login_token).not.toBe(account.loginToken);
    expect(rotated.body.sessions_revoked).toBe(2);
    expect(rotated.body.session).toBeUndefined();

    expect(await works(a.key)).toBe(false);
    expect(await works(b.key)).toBe(false);
    const old = await signIn(account.loginToken);
    expect(old.status).toBe(401);
    expect(errorCode(old)).toBe("invalid_login");
    expect((await signIn(rotated.body.login_token as string)).status).toBe(201);
    expect(await works(account.apiKey)).toBe(true);
  });

  it("revokes the account's API keys only when asked, never the key that asks", async () => {
    const account = await createAccount();
    const mint = async (name: string) =>
      (await api("/keys", { method: "POST", key: account.apiKey, body: { name } })).body.api_key as string;
    const ci = await mint("ci");
    const kept = await api("/account/login-token", { method: "POST", key: account.apiKey, body: {} });
    expect(kept.body.api_keys_revoked).toBe(0);
    expect(await works(ci)).toBe(true);

    const other = await mint("other");
    const rotated = await api("/account/login-token", {
      method: "POST",
      key: account.apiKey,
      body: { revoke_api_keys: true },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.api_keys_revoked).toBe(2);
    expect(await works(ci)).toBe(false);
    expect(await works(other)).toBe(false);
    // The key that asked goes on working: it proved itself by making the request.
    expect(await works(account.apiKey)).toBe(true);
    const listed = (await api("/keys", { key: account.apiKey })).body.keys as { name: string }[];
    expect(listed.map((key) => key.name)).toEqual(["default"]);
    const bad = await api("/account/login-token", {
      method: "POST",
      key: account.apiKey,
      body: { revoke_api_keys: "yes" },
    });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("invalid_request");
  });

  it("called with a session and revoke_api_keys, revokes every API key, those the session minted too", async () => {
    const account = await createAccount();
    const current = await sessionKey(account.loginToken);
    const minted = await api("/keys", { method: "POST", key: current.key, body: { name: "from a session" } });
    expect(minted.status).toBe(201);
    const rotated = await api("/account/login-token", {
      method: "POST",
      key: current.key,
      body: { revoke_api_keys: true },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.api_keys_revoked).toBe(2);
    expect(await works(minted.body.api_key as string)).toBe(false);
    expect(await works(account.apiKey)).toBe(false);
    const next = rotated.body.session as { api_key: string };
    expect(await works(next.api_key)).toBe(true);
    expect((await api("/keys", { key: next.api_key })).body.keys).toEqual([]);
  });

  it("no sign-in racing the rotation outlives it with the old token", async () => {
    const account = await createAccount();
    const signIns = Array.from({ length: 12 }, () => signIn(account.loginToken));
    const rotation = api("/account/login-token", { method: "POST", key: account.apiKey });
    const results = await Promise.all(signIns);
    expect((await rotation).status).toBe(200);
    for (const result of results) {
      if (result.status === 201) expect(await works(result.body.api_key as string)).toBe(false);
      else expect(errorCode(result)).toBe("invalid_login");
    }
    expect(await listSessions(account.apiKey)).toEqual([]);
  });

  it("called with a session, revokes that one too and hands back a new session", async () => {
    const account = await createAccount();
    const current = await sessionKey(account.loginToken);
    const rotated = await api("/account/login-token", { method: "POST", key: current.key, body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body.sessions_revoked).toBe(1);
    const next = rotated.body.session as { api_key: string; key_id: number };
    expect(await works(current.key)).toBe(false);
    expect(await works(next.api_key)).toBe(true);
    expect((await listSessions(next.api_key)).map((s) => [s.id, s.current])).toEqual([[next.key_id, true]]);
  });

  it("with TOTP on needs a current code; a missing or wrong one, or a bad body, changes nothing", async () => {
    const account = await accountWithTotp();
    const code = (offset: number) => codeAt(account.secret, offset);
    expect(errorCode(await signIn(account.loginToken))).toBe("totp_required");
    const signedIn = await signIn(account.loginToken, code(0));
    expect(signedIn.status).toBe(201);
    const key = signedIn.body.api_key as string;

    const rotate = (body: unknown, raw?: string) =>
      api("/account/login-token", {
        method: "POST",
        key: account.apiKey,
        ip: randomIp(),
        ...(raw === undefined ? { body } : { rawBody: raw, headers: { "content-type": "application/json" } }),
      });
    const missing = await rotate({});
    expect(missing.status).toBe(400);
    expect(errorCode(missing)).toBe("totp_required");
    const wrong = await rotate({ totp_code: code(5) });
    expect(wrong.status).toBe(400);
    expect(errorCode(wrong)).toBe("invalid_totp_code");
    expect(errorCode(await rotate({ totp_code: code(1), extra: true }))).toBe("unknown_field");
    expect(errorCode(await rotate(undefined, "{not json"))).toBe("invalid_json");
    expect(await works(key)).toBe(true);
    const done = await rotate({ totp_code: code(1) });
    expect(done.status).toBe(200);
    expect(await works(key)).toBe(false);
    expect(errorCode(await signIn(account.loginToken, code(0)))).toBe("invalid_login");
  });
});
