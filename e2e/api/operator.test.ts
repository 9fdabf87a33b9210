import { beforeAll, describe, expect, inject, it } from "vitest";
import { openConsole, requestTicket } from "../support/console-client";
import {
  addOperator,
  disableOperatorOnMachine,
  freshCode,
  type NewOperator,
  type OperatorSession,
  operatorApi,
  signInOperator,
} from "../support/operator";
import { balanceOf, fund } from "./funding";
import { TEST_LIMITS } from "./global-setup";
import { api, createAccount, randomIp, type TestAccount, waitForServer } from "./helpers";

/**
 * The operator's API over HTTP against the suite's app: operators made by `operator:add`, sign-in with TOTP,
 * isolation from customers both ways, roles, the write rule, suspensions as the customer sees them, and
 * adjustments through the ledger (the suite's ledger check runs on the database afterwards).
 */
const base = () => inject("baseUrl");
const env = () => ({ ...inject("appEnv"), DATA_DIR: inject("appDataDir") });
const call = (session: OperatorSession | undefined, route: string, options = {}) =>
  operatorApi(base(), session, route, options);

type Server = { id: number; status: string; status_reason: string | null; power_state: string | null };

describe("the operator API", () => {
  let admin: NewOperator;
  let reader: NewOperator;
  let adminSession: OperatorSession;
  let readerSession: OperatorSession;
  let customer: TestAccount;
  let serverId: number;
  let serverIp: string;

  beforeAll(async () => {
    [admin, reader] = await Promise.all([
      addOperator(env(), "api-admin", "admin"),
      addOperator(env(), "api-reader", "read-only"),
    ]);
    adminSession = await signInOperator(base(), admin);
    readerSession = await signInOperator(base(), reader);
    customer = await createAccount();
    await fund(customer.apiKey, 40);
    const ordered = await api("/servers", {
      method: "POST",
      key: customer.apiKey,
      body: { plan: "pup", location: "nl", os: "debian-13" },
    });
    expect(ordered.status).toBe(201);
    serverId = ordered.body.id as number;
    const active = await waitForServer<Server & { ip: string }>(
      customer.apiKey,
      serverId,
      (s) => s.status === "active",
    );
    serverIp = active.ip;
  }, 240_000);

  /** Every operator route and method, with bodies good enough to act if they were let through. */
  const operatorRoutes = (): [string, string, unknown?][] => [
    ["GET", "/session"],
    ["DELETE", "/session"],
    ["GET", "/overview"],
    ["GET", "/hosts"],
    ["POST", "/hosts/any/drain", { reason: "probe" }],
    ["GET", "/payments"],
    ["POST", "/payments/deposit/1/review", { note: "probe" }],
    ["GET", `/search?q=${serverIp}`],
    ["GET", `/accounts/${customer.userId}`],
    ["POST", `/accounts/${customer.userId}/suspension`, { reason: "probe" }],
    ["DELETE", `/accounts/${customer.userId}/suspension`, { reason: "probe" }],
    ["POST", `/accounts/${customer.userId}/adjustments`, { amount_usd: 100, reason: "probe" }],
    ["POST", `/servers/${serverId}/suspension`, { reason: "probe" }],
    ["DELETE", `/servers/${serverId}/suspension`, { reason: "probe" }],
    ["DELETE", "/consoles/1", { reason: "probe" }],
    ["GET", "/audit"],
    ["GET", "/operators"],
    ["POST", "/operators/api-admin/deactivation", { reason: "probe" }],
    ["GET", "/adjustment-approvals"],
    ["POST", "/adjustment-approvals/1", { decision: "approve", note: "probe" }],
    ["PUT", "/overview"],
    ["GET", "/no-such-thing"],
  ];

  it("answers customer keys, customer cookies and forged sessions 404 on every route, and changes nothing", async () => {
    const signedIn = await fetch(`${base()}/bff/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base() },
      body: JSON.stringify({ login_token: customer.loginToken }),
    });
    expect(signedIn.status).toBe(200);
    const dashboardCookie = signedIn.headers.get("set-cookie")?.split(";")[0] ?? "";
    expect(dashboardCookie).toMatch(/^vps_session=/);
    const balance = await balanceOf(customer.apiKey);
    const strangers: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${customer.apiKey}` },
      { cookie: dashboardCookie },
      { cookie: `vps_operator=vpsop_${"A".repeat(43)}`, "x-csrf-token": "x" },
      // A customer cookie under the operator cookie's name is no session either.
      { cookie: dashboardCookie.replace("vps_session", "vps_operator") },
    ];
    for (const headers of strangers) {
      for (const [method, route, body] of operatorRoutes()) {
        const answer = await call(undefined, route, {
          method,
          body,
          headers: { ...headers, origin: base() },
        });
        expect(`${method} ${route}: ${answer.status} ${answer.body.error}`).toBe(
          `${method} ${route}: 404 not_found`,
        );
      }
    }
    const page = await fetch(`${base()}/operator/accounts/${customer.userId}`, {
      headers: { cookie: dashboardCookie },
    });
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain(customer.apiKey.slice(0, 12));
    const server = (await api(`/servers/${serverId}`, { key: customer.apiKey })).body as unknown as Server;
    expect(server).toMatchObject({ status: "active", status_reason: null });
    expect(await balanceOf(customer.apiKey)).toBe(balance);
  }, 60_000);

  it("gives an operator session no customer's rights: the API and the dashboard see nobody", async () => {
    const token = adminSession.cookie.split("=")[1] ?? "";
    expect((await api("/account", { headers: { cookie: adminSession.cookie } })).status).toBe(401);
    expect((await api("/account", { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await api("/servers", { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    const bff = await fetch(`${base()}/bff/account`, { headers: { cookie: adminSession.cookie } });
    expect(bff.status).toBe(401);
    const dashboard = await fetch(`${base()}/dashboard`, {
      headers: { cookie: adminSession.cookie },
      redirect: "manual",
    });
    expect(dashboard.status).toBe(307);
    expect(dashboard.headers.get("location")).toMatch(/\/signin$/);
  });

  it("finds the account by the server's address and shows its money and servers", async () => {
    const found = await call(adminSession, `/search?q=${serverIp}`);
    expect(found.body.hits).toContainEqual({
      account_id: customer.userId,
      matched: `address of server ${serverId}`,
    });
    const account = await call(readerSession, `/accounts/${customer.userId}`);
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({
      id: customer.userId,
      balance_usd: await balanceOf(customer.apiKey),
    });
    expect((account.body.servers as { id: number }[]).map((s) => s.id)).toContain(serverId);
    expect((account.body.ledger as { kind: string }[]).map((e) => e.kind)).toEqual(["order", "topup"]);
  });

  it("lets a read-only operator read but not act, refuses writes without the session's CSRF token, and every refusal changes nothing", async () => {
    const snapshot = async () => ({
      server: (await api(`/servers/${serverId}`, { key: customer.apiKey })).body.status,
      balance: await balanceOf(customer.apiKey),
      account: (await api("/account", { key: customer.apiKey })).body.suspension,
      audit: ((await call(adminSession, "/audit")).body.entries as unknown[]).length,
      hosts: JSON.stringify((await call(adminSession, "/hosts")).body.hosts),
    });
    const before = await snapshot();
    expect((await call(readerSession, "/overview")).status).toBe(200);
    expect((await call(readerSession, "/hosts")).status).toBe(200);
    expect((await call(readerSession, "/payments")).status).toBe(200);
    for (const [method, route, body] of operatorRoutes().filter(
      ([m, r]) => m !== "GET" && r !== "/session" && m !== "PUT",
    )) {
      const refused = await call(readerSession, route, { method, body });
      expect(`${method} ${route}: ${refused.status} ${refused.body.error}`).toBe(
        `${method} ${route}: 403 operator_forbidden`,
      );
    }
    expect((await call(readerSession, "/audit")).body.error).toBe("operator_forbidden");
    const writes: [string, Record<string, string>, boolean?][] = [
      ["no token", {}, true],
      ["a wrong token", { "x-csrf-token": "not-the-token" }, true],
      ["another site's origin", { origin: "https://evil.example" }],
      ["a cross-site fetch", { "sec-fetch-site": "cross-site" }],
    ];
    for (const [what, headers, noCsrf] of writes) {
      const refused = await call(adminSession, `/servers/${serverId}/suspension`, {
        method: "POST",
        body: { reason: `with ${what}` },
        headers,
        noCsrf,
      });
      expect(`${what}: ${refused.status} ${refused.body.error}`).toBe(`${what}: 403 csrf_failed`);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("suspends a server for abuse: its owner reads the reason and its power actions are refused; lifting gives it back", async () => {
    const reason = "Outgoing SSH brute force reported by abuse@example.net";
    const suspended = await call(adminSession, `/servers/${serverId}/suspension`, {
      method: "POST",
      body: { reason },
    });
    expect(suspended.status).toBe(200);
    const seen = (await api(`/servers/${serverId}`, { key: customer.apiKey })).body as unknown as Server & {
      terminates_at: string | null;
    };
    expect(seen).toMatchObject({
      status: "suspended",
      power_state: "stopped",
      status_reason: `Suspended by the operator: ${reason}`,
      terminates_at: null,
    });
    const start = await api(`/servers/${serverId}/actions`, {
      method: "POST",
      key: customer.apiKey,
      body: { action: "start" },
    });
    expect(start.status).toBe(409);
    expect(start.body).toMatchObject({ error: "server_not_active" });
    expect(start.body.message).toContain(reason);
    expect((await api(`/servers/${serverId}/console`, { method: "POST", key: customer.apiKey })).status).toBe(
      409,
    );
    expect(
      (await call(adminSession, `/servers/${serverId}/suspension`, { method: "POST", body: { reason } })).body
        .error,
    ).toBe("already_suspended");

    const lifted = await call(adminSession, `/servers/${serverId}/suspension`, {
      method: "DELETE",
      body: { reason: "Customer closed the open relay" },
    });
    expect(lifted.status).toBe(200);
    const back = await waitForServer<Server>(customer.apiKey, serverId, (s) => s.power_state === "running");
    expect(back).toMatchObject({ status: "active", status_reason: null });
    const actions = (await call(adminSession, `/audit?target=server:${serverId}`)).body.entries as {
      action: string;
      operator: string;
      reason: string;
    }[];
    expect(actions.slice(0, 2)).toMatchObject([
      { action: "lift_server", operator: "api-admin", reason: "Customer closed the open relay" },
      { action: "suspend_server", operator: "api-admin", reason },
    ]);
  });

  it("closes any customer's console, with the reason in the audit log", async () => {
    const ticket = (await requestTicket(base(), customer.apiKey, serverId)).body;
    const session = await openConsole(ticket.websocket_url, ticket.ticket);
    await session.waitFor("# ");
    const listed = (await call(readerSession, `/accounts/${customer.userId}`)).body.consoles as {
      id: number;
      opened_at: string | null;
      closed_at: string | null;
    }[];
    expect(listed.find((console) => console.id === ticket.session_id)).toMatchObject({ closed_at: null });
    const reason = "Console used to attack other hosts";
    const closed = await call(adminSession, `/consoles/${ticket.session_id}`, {
      method: "DELETE",
      body: { reason },
    });
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({
      id: ticket.session_id,
      account_id: customer.userId,
      server_id: serverId,
      closed: true,
    });
    expect(await session.closed).toEqual({ code: 4012, reason: "closed_by_operator" });
    const again = await call(adminSession, `/consoles/${ticket.session_id}`, {
      method: "DELETE",
      body: { reason },
    });
    expect([again.status, again.body.error]).toEqual([409, "console_closed"]);
    expect(
      (await call(adminSession, "/consoles/999999", { method: "DELETE", body: { reason } })).status,
    ).toBe(404);
    const audit = (await call(adminSession, `/audit?target=console:${ticket.session_id}`)).body.entries as {
      action: string;
      operator: string;
      reason: string;
      detail: Record<string, unknown>;
    }[];
    expect(audit).toMatchObject([
      {
        action: "close_console",
        operator: "api-admin",
        reason,
        detail: { account_id: customer.userId, server_id: serverId, was_open: true },
      },
    ]);
  });

  it("suspends a whole account: GET /account says why and orders are refused, charging nothing", async () => {
    const reason = "Phishing site on every server";
    expect(
      (
        await call(adminSession, `/accounts/${customer.userId}/suspension`, {
          method: "POST",
          body: { reason },
        })
      ).status,
    ).toBe(204);
    const account = (await api("/account", { key: customer.apiKey })).body;
    expect(account.suspension).toMatchObject({ reason });
    const balance = await balanceOf(customer.apiKey);
    const order = await api("/servers", {
      method: "POST",
      key: customer.apiKey,
      body: { plan: "pup", location: "nl", os: "debian-13" },
    });
    expect(order.status).toBe(403);
    expect(order.body.error).toBe("account_suspended");
    expect(await balanceOf(customer.apiKey)).toBe(balance);
    expect((await api(`/servers/${serverId}`, { key: customer.apiKey })).body.status_reason).toBe(
      `Suspended by the operator: ${reason}`,
    );
    expect(
      (
        await call(adminSession, `/accounts/${customer.userId}/suspension`, {
          method: "DELETE",
          body: { reason: "Sites taken down" },
        })
      ).status,
    ).toBe(204);
    expect((await api("/account", { key: customer.apiKey })).body.suspension).toBeNull();
    await waitForServer<Server>(customer.apiKey, serverId, (s) => s.status === "active");
  });

  it("posts adjustments through the ledger once per key, and refuses a debit beyond the balance", async () => {
    const before = await balanceOf(customer.apiKey);
    const adjust = (amount: number, key: string) =>
      call(adminSession, `/accounts/${customer.userId}/adjustments`, {
        method: "POST",
        body: { amount_usd: amount, reason: "Credit for the outage of 3 May" },
        headers: { "idempotency-key": key },
      });
    const posted = await adjust(7.25, "adj-1");
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({
      amount_usd: 7.25,
      operator: "api-admin",
      balance_after_usd: before + 7.25,
    });
    expect((await adjust(7.25, "adj-1")).status).toBe(200);
    expect(await balanceOf(customer.apiKey)).toBe(before + 7.25);
    const tooMuch = await adjust(-(before + 8), "adj-2");
    expect(tooMuch.body.error).toBe("adjustment_exceeds_balance");
    expect((await adjust(1.005, "adj-3")).body.error).toBe("invalid_amount");
    expect(await balanceOf(customer.apiKey)).toBe(before + 7.25);
    const ledger = (await call(adminSession, `/accounts/${customer.userId}`)).body.ledger as {
      kind: string;
      reason: string | null;
    }[];
    expect(ledger[0]).toMatchObject({
      kind: "adjustment",
      reason: "Credit for the outage of 3 May (api-admin)",
    });
  });

  it("holds an adjustment past the operator's daily cap until another admin approves it; the asker cannot", async () => {
    const cap = TEST_LIMITS.adjustmentDailyCapUsd;
    const second = await signInOperator(base(), await addOperator(env(), "api-admin-2", "admin"));
    const listed = (await call(adminSession, "/operators")).body as {
      operators: { name: string; adjusted_24h_usd: number }[];
      daily_cap_usd: number;
    };
    expect(listed.daily_cap_usd).toBe(cap);
    const used = listed.operators.find((o) => o.name === "api-admin")?.adjusted_24h_usd ?? 0;
    const before = await balanceOf(customer.apiKey);
    const amount = cap - used + 1;
    const ask = () =>
      call(adminSession, `/accounts/${customer.userId}/adjustments`, {
        method: "POST",
        body: { amount_usd: amount, reason: "Refund of a double order" },
        headers: { "idempotency-key": "over-cap-1" },
      });
    const waiting = await ask();
    expect(waiting.status).toBe(202);
    expect(waiting.body).toMatchObject({ state: "pending", requested_by: "api-admin", amount_usd: amount });
    expect(await balanceOf(customer.apiKey)).toBe(before);
    expect((await ask()).status).toBe(202);
    const id = waiting.body.id as number;
    expect(
      ((await call(second, "/adjustment-approvals")).body.approvals as { id: number }[]).map((a) => a.id),
    ).toContain(id);

    const own = await call(adminSession, `/adjustment-approvals/${id}`, {
      method: "POST",
      body: { decision: "approve", note: "my own" },
    });
    expect(own.status).toBe(403);
    expect(own.body.error).toBe("approval_needs_another_admin");
    expect(await balanceOf(customer.apiKey)).toBe(before);

    const approved = await call(second, `/adjustment-approvals/${id}`, {
      method: "POST",
      body: { decision: "approve", note: "Checked the double order" },
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: "approved", decided_by: "api-admin-2" });
    expect(await balanceOf(customer.apiKey)).toBe(before + amount);
    // The asker's retry now answers the posted adjustment; nothing is posted twice.
    const replay = await ask();
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ operator: "api-admin", approved_by: "api-admin-2" });
    expect(await balanceOf(customer.apiKey)).toBe(before + amount);
    expect(
      (
        await call(second, `/adjustment-approvals/${id}`, {
          method: "POST",
          body: { decision: "refuse", note: "late" },
        })
      ).body.error,
    ).toBe("approval_decided");
    const actions = (
      (await call(second, `/audit?target=account:${customer.userId}`)).body.entries as {
        action: string;
        operator: string;
      }[]
    ).slice(0, 2);
    expect(actions).toEqual([
      expect.objectContaining({ action: "approve_adjustment", operator: "api-admin-2" }),
      expect.objectContaining({ action: "request_adjustment", operator: "api-admin" }),
    ]);
  });

  it("counts the console's pages against the operator's request limit, as its API, and refuses pages past it", async () => {
    const remaining = (response: Response) =>
      Number(/;r=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1] ?? Number.NaN);
    const sweeper = await signInOperator(base(), await addOperator(env(), "api-sweeper", "read-only"));
    const asSweeper = (path: string) => fetch(`${base()}${path}`, { headers: { cookie: sweeper.cookie } });
    const first = await asSweeper("/api/operator/v1/session");
    const page = await asSweeper(`/operator/accounts/${customer.userId}`);
    expect(page.status).toBe(200);
    const after = await asSweeper("/api/operator/v1/session");
    expect(remaining(page)).toBe(remaining(first) - 1);
    expect(remaining(after)).toBe(remaining(first) - 2);

    // Spent: the API and the pages alike answer 429, and a page shows none of the account.
    let left = remaining(after);
    while (left > 0) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(left, 25) }, () => asSweeper("/api/operator/v1/session")),
      );
      left = Math.min(...batch.map(remaining));
    }
    const refused = await asSweeper(`/operator/accounts/${customer.userId}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused.text()).not.toContain("Balance");
    expect((await asSweeper("/api/operator/v1/session")).status).toBe(429);
    // Another operator is not affected.
    expect(
      (
        await fetch(`${base()}/operator/accounts/${customer.userId}`, {
          headers: { cookie: readerSession.cookie },
        })
      ).status,
    ).toBe(200);
  }, 60_000);

  it("lets an admin deactivate an operator: their sessions end at once, they cannot sign in again, and it is audited", async () => {
    const leaver = await addOperator(env(), "api-leaver", "support");
    const session = await signInOperator(base(), leaver);
    expect((await call(session, "/session")).status).toBe(200);
    const self = await call(adminSession, "/operators/api-admin/deactivation", {
      method: "POST",
      body: { reason: "Trying myself" },
    });
    expect(self.body.error).toBe("cannot_disable_self");

    const done = await call(adminSession, "/operators/api-leaver/deactivation", {
      method: "POST",
      body: { reason: "Left the support team" },
    });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ sessions_ended: 1 });
    expect((await call(session, "/session")).status).toBe(404);
    expect((await fetch(`${base()}/operator/payments`, { headers: { cookie: session.cookie } })).status).toBe(
      404,
    );
    await expect(signInOperator(base(), leaver)).rejects.toThrow(/401/);
    expect(
      (
        await call(adminSession, "/operators/api-leaver/deactivation", {
          method: "POST",
          body: { reason: "again" },
        })
      ).body.error,
    ).toBe("operator_disabled_already");
    const listed = (await call(adminSession, "/operators")).body.operators as {
      name: string;
      disabled_at: string | null;
      live_sessions: number;
    }[];
    expect(listed.find((o) => o.name === "api-leaver")).toMatchObject({
      disabled_at: expect.any(String),
      live_sessions: 0,
    });
    const [entry] = (await call(adminSession, "/audit?target=operator:api-leaver")).body.entries as {
      action: string;
      operator: string;
      reason: string;
    }[];
    expect(entry).toMatchObject({
      action: "disable_operator",
      operator: "api-admin",
      reason: "Left the support team",
    });
  }, 90_000);

  it("deactivates an operator from the machine with npm run operator:disable", async () => {
    const leaver = await addOperator(env(), "api-leaver-2", "read-only");
    const session = await signInOperator(base(), leaver);
    expect((await call(session, "/session")).status).toBe(200);
    const printed = await disableOperatorOnMachine(env(), "api-leaver-2", "Laptop stolen");
    expect(printed).toMatch(/api-leaver-2/);
    // On PostgreSQL at once; on the embedded database at the app's next operator request, before it counts.
    expect((await call(session, "/session")).status).toBe(404);
    const [entry] = (await call(adminSession, "/audit?target=operator:api-leaver-2")).body.entries as {
      action: string;
      operator: string;
      client: string;
    }[];
    expect(entry).toMatchObject({
      action: "disable_operator",
      operator: expect.stringMatching(/^machine \(/),
      client: "machine",
    });
  }, 90_000);

  it("signs in only with the secret and an unused current code, limits failures per address, and signs out everywhere", async () => {
    const ip = randomIp();
    const attempt = async (secret: string, code: string, from = ip) =>
      fetch(`${base()}/api/operator/v1/session`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": from },
        body: JSON.stringify({ secret, code }),
      });
    const wrongSecret = await attempt(`op-${"0000-".repeat(6)}0000`, "123456");
    expect(wrongSecret.status).toBe(401);
    expect(((await wrongSecret.json()) as { error: string }).error).toBe("invalid_operator_sign_in");
    const code = await freshCode(reader.totpSecret);
    expect(
      (await attempt(reader.secret, String((Number(code) + 1) % 1_000_000).padStart(6, "0"))).status,
    ).toBe(401);
    const signedIn = await attempt(reader.secret, code, randomIp());
    expect(signedIn.status).toBe(200);
    // The same code again: used.
    expect((await attempt(reader.secret, code, randomIp())).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await attempt("op-nonsense", "000000")).status).toBe(401);
    const throttled = await attempt(reader.secret, await freshCode(reader.totpSecret));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toMatch(/^\d+$/);

    const cookie = signedIn.headers.get("set-cookie")?.split(";")[0] ?? "";
    const session = {
      cookie,
      csrf: ((await signedIn.json()) as { csrf_token: string }).csrf_token,
      baseUrl: base(),
    };
    expect((await call(session, "/session")).body).toMatchObject({
      operator: { name: "api-reader", role: "read-only" },
    });
    expect((await call(session, "/session", { method: "DELETE" })).status).toBe(204);
    expect((await call(session, "/session")).status).toBe(404);
    const audit = (await call(adminSession, "/audit")).body.entries as { action: string; operator: string }[];
    expect(audit).toContainEqual(
      expect.objectContaining({ action: "sign_in_refused", operator: "api-reader" }),
    );
    expect(audit).toContainEqual(expect.objectContaining({ action: "sign_out", operator: "api-reader" }));
  }, 90_000);

  it("publishes its own OpenAPI document, apart from the public one", async () => {
    const doc = (await fetch(`${base()}/api/operator/v1/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, unknown>;
      servers: { url: string }[];
    };
    expect(doc.servers[0]?.url).toBe("/api/operator/v1");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/session", "/hosts", "/payments", "/accounts/{id}/adjustments", "/audit"]),
    );
    const publicDoc = (await fetch(`${base()}/api/v1/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(publicDoc.paths).some((p) => p.includes("operator"))).toBe(false);
  });
});
