import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { TEST_LIMITS } from "./global-setup";
import {
  accountWithTotp,
  api,
  awayFromStepBoundary,
  codeAt,
  createAccount,
  errorCode,
  randomIp,
} from "./helpers";

const signIn = (body: unknown, ip = randomIp()) => api("/sessions", { method: "POST", body, ip });

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
    expect(confirmed.body).toEqual({ totp_enabled: true, recovery_codes: expect.any(Array) });
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

describe("recovery codes", () => {
  /** An account with TOTP on and the recovery codes its confirmation showed; the current step is unspent. */
  async function accountWithRecoveryCodes() {
    const account = await accountWithTotp();
    return { ...account, codes: account.recoveryCodes };
  }

  /**
   * Someone holding the login token (not the app, not the codes) sends wrong codes from as many addresses as
   * it takes to use up the account's whole budget of wrong TOTP codes.
   */
  async function lockOutWithWrongCodes(account: { loginToken: string; secret: string }) {
    const addresses = Math.ceil(TEST_LIMITS.totpAccountFailures / TEST_LIMITS.totpFailures) + 1;
    const answers = new Set<number>();
    for (let a = 0; a < addresses; a++) {
      const ip = randomIp();
      for (let i = 0; i < TEST_LIMITS.totpFailures; i++) {
        const wrong = { login_token: account.loginToken, totp_code: codeAt(account.secret, 5) };
        answers.add((await signIn(wrong, ip)).status);
      }
    }
    expect(answers).toEqual(new Set([401, 429]));
  }

  const recoveryCodeCount = async (key: string) => {
    const status = await api("/account/recovery-codes", { key });
    expect(status.status).toBe(200);
    return status.body.remaining as number;
  };

  it("turning TOTP on shows ten codes of 60 random bits once; the API tells only how many are left", async () => {
    const account = await accountWithRecoveryCodes();
    expect(account.codes).toHaveLength(10);
    for (const code of account.codes)
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(new Set(account.codes).size).toBe(10);
    const status = await api("/account/recovery-codes", { key: account.apiKey });
    expect(status.body).toEqual({ remaining: 10, created_at: expect.any(String) });
    expect(JSON.stringify(status.body)).not.toContain(account.codes[0]);
  });

  it("the owner locked out by wrong codes from several addresses signs in and replaces the token with recovery codes", async () => {
    const account = await accountWithRecoveryCodes();
    await lockOutWithWrongCodes(account);
    // The lockout: the owner's right code, from an address of their own, is refused.
    const owner = randomIp();
    const refused = await signIn(
      { login_token: account.loginToken, totp_code: codeAt(account.secret, 0) },
      owner,
    );
    expect(refused.status).toBe(429);
    const rotateWithCode = await api("/account/login-token", {
      method: "POST",
      key: account.apiKey,
      ip: owner,
      body: { totp_code: codeAt(account.secret, 0) },
    });
    expect(rotateWithCode.status).toBe(429);

    // A recovery code signs in all the same (any spelling), and is spent.
    const [first = "", second = "", third = ""] = account.codes;
    const recovered = await signIn(
      { login_token: account.loginToken, recovery_code: first.toLowerCase().replaceAll("-", " ") },
      owner,
    );
    expect(recovered.status).toBe(201);
    expect((await api("/account", { key: recovered.body.api_key as string })).status).toBe(200);
    expect(await recoveryCodeCount(account.apiKey)).toBe(9);

    // The API key and a recovery code replace the stolen token.
    const rotated = await api("/account/login-token", {
      method: "POST",
      key: account.apiKey,
      ip: owner,
      body: { recovery_code: second },
    });
    expect(rotated.status).toBe(200);
    const newToken = rotated.body.login_token as string;
    expect((await api("/account", { key: recovered.body.api_key as string })).status).toBe(401);
    const stolen = await signIn({ login_token: account.loginToken, recovery_code: third });
    expect(errorCode(stolen)).toBe("invalid_login");
    // The throttle the old token's holder caused ends with that token: the app's codes work again.
    const withApp = await signIn({ login_token: newToken, totp_code: codeAt(account.secret, 1) }, owner);
    expect(withApp.status).toBe(201);
    expect(await recoveryCodeCount(account.apiKey)).toBe(8);
  });

  it("turns TOTP off with a recovery code while the app's codes are throttled", async () => {
    const account = await accountWithRecoveryCodes();
    await lockOutWithWrongCodes(account);
    const withApp = await api("/account/totp/disable", {
      method: "POST",
      key: account.apiKey,
      body: { code: codeAt(account.secret, 0) },
    });
    expect(withApp.status).toBe(429);
    const both = await api("/account/totp/disable", {
      method: "POST",
      key: account.apiKey,
      body: { code: codeAt(account.secret, 0), recovery_code: account.codes[0] },
    });
    expect(both.status).toBe(400);
    expect(errorCode(both)).toBe("invalid_request");
    const wrong = await api("/account/totp/disable", {
      method: "POST",
      key: account.apiKey,
      body: { recovery_code: "AAAA-BBBB-CCCC" },
    });
    expect(wrong.status).toBe(400);
    expect(errorCode(wrong)).toBe("invalid_recovery_code");
    expect((await api("/account", { key: account.apiKey })).body.totp_enabled).toBe(true);
    const off = await api("/account/totp/disable", {
      method: "POST",
      key: account.apiKey,
      body: { recovery_code: account.codes[0] },
    });
    expect(off.body).toEqual({ totp_enabled: false });
    // The codes belonged to that second factor: they are gone with it.
    expect(await recoveryCodeCount(account.apiKey)).toBe(0);
    expect((await signIn({ login_token: account.loginToken })).status).toBe(201);
  });

  it("a recovery code works once, wherever it was used", async () => {
    const account = await accountWithRecoveryCodes();
    const [code = ""] = account.codes;
    expect((await signIn({ login_token: account.loginToken, recovery_code: code })).status).toBe(201);
    const again = await signIn({ login_token: account.loginToken, recovery_code: code });
    expect(again.status).toBe(401);
    expect(errorCode(again)).toBe("invalid_recovery_code");
    const rotate = await api("/account/login-token", {
      method: "POST",
      key: account.apiKey,
      body: { recovery_code: code },
    });
    expect(rotate.status).toBe(400);
    expect(errorCode(rotate)).toBe("invalid_recovery_code");
    // Parallel uses of one code: exactly one wins.
    const [next = ""] = account.codes.slice(1);
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => signIn({ login_token: account.loginToken, recovery_code: next })),
    );
    expect(racing.filter((r) => r.status === 201)).toHaveLength(1);
    expect(await recoveryCodeCount(account.apiKey)).toBe(8);
  });

  it("wrong recovery codes are limited per account and address only: the token's holder cannot use up the owner's", async () => {
    const account = await accountWithRecoveryCodes();
    const guess = (ip: string, code = "AAAA-BBBB-CCCC") =>
      signIn({ login_token: account.loginToken, recovery_code: code }, ip);
    for (let a = 0; a < 4; a++) {
      const attacker = randomIp();
      for (let i = 0; i < TEST_LIMITS.recoveryFailures; i++) {
        const wrong = await guess(attacker);
        expect(wrong.status).toBe(401);
        expect(errorCode(wrong)).toBe("invalid_recovery_code");
      }
      const limited = await guess(attacker, account.codes[a]);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBeTruthy();
    }
    // Without a code TOTP is untouched: the app's budget is its own.
    expect(
      (await signIn({ login_token: account.loginToken, totp_code: codeAt(account.secret, 0) })).status,
    ).toBe(201);
    // The owner, from an address of their own, with a code the guesses never reached.
    expect((await guess(randomIp(), account.codes[0])).status).toBe(201);
    expect(await recoveryCodeCount(account.apiKey)).toBe(9);
  });

  it("new codes take a second factor and replace the old set; not without TOTP", async () => {
    const account = await accountWithRecoveryCodes();
    const regenerate = (body: unknown, key = account.apiKey) =>
      api("/account/recovery-codes", { method: "POST", key, body });
    const missing = await regenerate({});
    expect(missing.status).toBe(400);
    expect(errorCode(missing)).toBe("totp_required");
    expect(errorCode(await regenerate({ totp_code: codeAt(account.secret, 5) }))).toBe("invalid_totp_code");
    const renewed = await regenerate({ totp_code: codeAt(account.secret, 0) });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get("cache-control")).toContain("no-store");
    const codes = renewed.body.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(codes.some((code) => account.codes.includes(code))).toBe(false);
    const old = await signIn({ login_token: account.loginToken, recovery_code: account.codes[1] });
    expect(errorCode(old)).toBe("invalid_recovery_code");
    // A recovery code of the new set may renew it too, and is then gone with that set.
    const again = await regenerate({ recovery_code: codes[0] });
    expect(again.status).toBe(200);
    expect(await recoveryCodeCount(account.apiKey)).toBe(10);
    expect(errorCode(await signIn({ login_token: account.loginToken, recovery_code: codes[1] }))).toBe(
      "invalid_recovery_code",
    );

    const plain = await createAccount();
    const off = await regenerate({ totp_code: "123456" }, plain.apiKey);
    expect(off.status).toBe(409);
    expect(errorCode(off)).toBe("totp_not_enabled");
    expect(await recoveryCodeCount(plain.apiKey)).toBe(0);
  });

  it.runIf(inject("dbTarget") === "postgres")("are stored only as salted hashes", async () => {
    const account = await accountWithRecoveryCodes();
    expect((await signIn({ login_token: account.loginToken, recovery_code: account.codes[0] })).status).toBe(
      201,
    );
    const client = new pg.Client({ connectionString: inject("testDatabaseUrl") });
    await client.connect();
    try {
      const rows = (
        await client.query(
          "SELECT row_to_json(r)::text AS row, code_hash, used_at FROM recovery_codes r WHERE account_id = $1",
          [account.userId],
        )
      ).rows as { row: string; code_hash: string; used_at: Date | null }[];
      expect(rows).toHaveLength(10);
      expect(rows.filter((row) => row.used_at !== null)).toHaveLength(1);
      const everything = (
        await client.query("SELECT string_agg(row_to_json(t)::text, ' ') AS text FROM recovery_codes t")
      ).rows[0].text as string;
      for (const code of account.codes) {
        expect(everything).not.toContain(code);
        expect(everything).not.toContain(code.replaceAll("-", ""));
      }
      const salts = new Set(rows.map((row) => row.code_hash.split("$")[4]));
      expect(rows.every((row) => /^scrypt\$\d+\$\d+\$\d+\$[\w-]{22}\$[\w-]{43}$/.test(row.code_hash))).toBe(
        true,
      );
      expect(salts.size).toBe(1);
    } finally {
      await client.end();
    }
  });
});
