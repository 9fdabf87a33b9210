import { Secret, TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import { TEST_LIMITS } from "./global-setup";
import { api, createAccount, errorCode, randomIp } from "./helpers";

const signIn = (body: unknown, ip = randomIp()) => api("/sessions", { method: "POST", body, ip });

/** A code for the step `offset` steps away from now, as an authenticator app with a drifting clock shows. */
const codeAt = (secret: string, offset: number) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offset * 30_000 });

/** Codes are judged on 30-second steps: start far enough from a step boundary that "now" cannot move. */
async function awayFromStepBoundary() {
  const remaining = TOTP.remaining({ period: 30 });
  if (remaining < 12_000) await new Promise((resolve) => setTimeout(resolve, remaining + 500));
}

describe("sign-in with the login token", () => {
  it("exchanges the token, in any spelling, for an expiring session key that is not listed", async () => {
    const account = await createAccount();
    for (const spelling of [account.loginToken, account.loginToken.toLowerCase().replaceAll("-", " ")]) {
      const session = await signIn({ login_token: spelling });
      expect(session.status).toBe(201);
      expect(session.body.api_key).toMatch(/^vpsk_/);
      // Other suites move the service's test clock forward: measure against its time.
      const serviceNow = Date.parse((await api("/demo/clock")).body.now as string);
      const days = (Date.parse(session.body.expires_at as string) - serviceNow) / 86_400_000;
      expect(days).toBeGreaterThan(6);
      expect(days).toBeLessThanOrEqual(7.01);
      const me = await api("/account", { key: session.body.api_key as string });
      expect(me.body.user_id).toBe(account.userId);
    }
    const keys = (await api("/keys", { key: account.apiKey })).body.keys as { name: string }[];
    expect(keys.map((k) => k.name)).toEqual(["default"]);
  });

  it("refuses a wrong token with 401, and limits failures per address", async () => {
    const ip = randomIp();
    for (let i = 0; i < TEST_LIMITS.loginFailures; i++) {
      const wrong = await signIn({ login_token: "AAAA-BBBB-CCCC-DDDD" }, ip);
      expect(wrong.status).toBe(401);
      expect(errorCode(wrong)).toBe("invalid_login");
    }
    const limited = await signIn({ login_token: "AAAA-BBBB-CCCC-DDDD" }, ip);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
    // A valid token still works from that address.
    const account = await createAccount();
    expect((await signIn({ login_token: account.loginToken }, ip)).status).toBe(201);
  });

  it("sign-out revokes the session key; an API key cannot be signed out", async () => {
    const account = await createAccount();
    const key = (await signIn({ login_token: account.loginToken })).body.api_key as string;
    const out = await api("/sessions/current", { method: "DELETE", key });
    expect(out.status).toBe(200);
    expect((await api("/account", { key })).status).toBe(401);
    const notSession = await api("/sessions/current", { method: "DELETE", key: account.apiKey });
    expect(notSession.status).toBe(409);
    expect(errorCode(notSession)).toBe("not_a_session");
    expect((await api("/account", { key: account.apiKey })).status).toBe(200);
  });

  it("a session key stops working when it expires", async () => {
    const account = await createAccount();
    const key = (await signIn({ login_token: account.loginToken })).body.api_key as string;
    expect((await api("/account", { key })).status).toBe(200);
    const listed = await api("/sessions", { key: account.apiKey });
    expect((listed.body.sessions as unknown[]).length).toBe(1);
    expect(
      (await api("/demo/clock", { method: "POST", body: { advance_seconds: 7 * 86_400 + 60 } })).status,
    ).toBe(200);
    expect((await api("/account", { key })).status).toBe(401);
    expect((await api("/account", { key: account.apiKey })).status).toBe(200);
    // Expiry is no write: a list read before it must not be served again after it.
    expect((await api("/sessions", { key: account.apiKey })).body.sessions).toEqual([]);
  });
});

describe("two-factor sign-in (TOTP)", () => {
  it("enable with a code, then required at sign-in; a code works once; disable with a code", async () => {
    await awayFromStepBoundary();
    const account = await createAccount();
    const setup = await api("/account/totp", { method: "POST", key: account.apiKey });
    expect(setup.status).toBe(200);
    const secret = setup.body.secret as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(setup.body.qr_data_uri).toMatch(/^data:image\/png;base64,/);
    const wrong = await api("/account/totp/confirm", {
      method: "POST",
      key: account.apiKey,
      body: { code: "000000" },
    });
    expect(errorCode(wrong)).toBe("invalid_totp_code");
    // One step of drift is accepted: the previous step's code confirms.
    const confirmed = await api("/account/totp/confirm", {
      method: "POST",
      key: account.apiKey,
      body: { code: codeAt(secret, -1) },
    });
    expect(confirmed.body).toEqual({ totp_enabled: true });
    expect((await api("/account", { key: account.apiKey })).body.totp_enabled).toBe(true);

    const missing = await signIn({ login_token: account.loginToken });
    expect(missing.status).toBe(401);
    expect(errorCode(missing)).toBe("totp_required");
    expect(errorCode(await signIn({ login_token: account.loginToken, totp_code: codeAt(secret, 3) }))).toBe(
      "invalid_totp_code",
    );
    const code = codeAt(secret, 0);
    expect((await signIn({ login_token: account.loginToken, totp_code: code })).status).toBe(201);
    const replayed = await signIn({ login_token: account.loginToken, totp_code: code });
    expect(replayed.status).toBe(401);
    expect(errorCode(replayed)).toBe("invalid_totp_code");

    const disabled = await api("/account/totp/disable", {
      method: "POST",
      key: account.apiKey,
      body: { code: codeAt(secret, 1) },
    });
    expect(disabled.body).toEqual({ totp_enabled: false });
    expect((await signIn({ login_token: account.loginToken })).status).toBe(201);
  });

  it("confirm needs a started setup, and setup refuses while enabled", async () => {
    const account = await createAccount();
    const early = await api("/account/totp/confirm", {
      method: "POST",
      key: account.apiKey,
      body: { code: "123456" },
    });
    expect(errorCode(early)).toBe("totp_not_started");
    const off = await api("/account/totp/disable", {
      method: "POST",
      key: account.apiKey,
      body: { code: "123456" },
    });
    expect(errorCode(off)).toBe("totp_not_enabled");
  });
});

describe("TOTP attempt limits", () => {
  /** An account with TOTP on; the code of the current step is still unspent. */
  async function accountWithTotp() {
    await awayFromStepBoundary();
    const account = await createAccount();
    const secret = (await api("/account/totp", { method: "POST", key: account.apiKey })).body
      .secret as string;
    const confirmed = await api("/account/totp/confirm", {
      method: "POST",
      key: account.apiKey,
      body: { code: codeAt(secret, -1) },
    });
    expect(confirmed.body).toEqual({ totp_enabled: true });
    return { ...account, secret };
  }
  const wrongCode = (secret: string) => codeAt(secret, 5);

  it("someone with the login token cannot lock the owner out from their own address", async () => {
    const account = await accountWithTotp();
    const attacker = randomIp();
    const answers: number[] = [];
    for (let i = 0; i < 12; i++) {
      answers.push(
        (await signIn({ login_token: account.loginToken, totp_code: wrongCode(account.secret) }, attacker))
          .status,
      );
    }
    expect(answers.slice(0, TEST_LIMITS.totpFailures)).toEqual(Array(TEST_LIMITS.totpFailures).fill(401));
    expect(new Set(answers.slice(TEST_LIMITS.totpFailures))).toEqual(new Set([429]));
    const owner = await signIn({ login_token: account.loginToken, totp_code: codeAt(account.secret, 0) });
    expect(owner.status).toBe(201);
  });

  it("a right code does not count against the limit", async () => {
    const account = await accountWithTotp();
    const ip = randomIp();
    const attempt = (code: string) => signIn({ login_token: account.loginToken, totp_code: code }, ip);
    for (let i = 0; i < TEST_LIMITS.totpFailures - 1; i++) {
      expect((await attempt(wrongCode(account.secret))).status).toBe(401);
    }
    expect((await attempt(codeAt(account.secret, 0))).status).toBe(201);
    const last = await attempt(wrongCode(account.secret));
    expect(last.status).toBe(401);
    expect(errorCode(last)).toBe("invalid_totp_code");
    expect((await attempt(wrongCode(account.secret))).status).toBe(429);
  });

  it("wrong codes from many addresses meet a per-account ceiling, and code checks on the API count too", async () => {
    const account = await accountWithTotp();
    let failures = 0;
    while (failures < TEST_LIMITS.totpAccountFailures) {
      const ip = randomIp();
      for (let i = 0; i < TEST_LIMITS.totpFailures && failures < TEST_LIMITS.totpAccountFailures; i++) {
        const wrong = await signIn(
          { login_token: account.loginToken, totp_code: wrongCode(account.secret) },
          ip,
        );
        expect(wrong.status).toBe(401);
        failures++;
      }
    }
    const ceiling = await api("/account/totp/disable", {
      method: "POST",
      key: account.apiKey,
      body: { code: wrongCode(account.secret) },
    });
    expect(ceiling.status).toBe(429);
    expect(ceiling.headers.get("retry-after")).toBeTruthy();
    expect((await api("/account", { key: account.apiKey })).body.totp_enabled).toBe(true);
  });
});
