import { mkdtempSync } from "node:fs";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SILENT_ZONE } from "@/lib/testing/dns-server";
import { type RunningApp, startApp } from "../support/app-server";
import { type Receiver, startReceiver, verified } from "../support/webhook-receiver";
import { fund } from "./funding";
import { TEST_LIMITS } from "./global-setup";
import { api, createAccount, errorCode, randomIp, until, waitForServer } from "./helpers";

type Delivery = {
  id: number;
  event: { id: string; type: string };
  state: string;
  attempts: {
    number: number;
    response_status: number | null;
    succeeded: boolean;
    manual: boolean;
    queued_at: string;
    sent_at: string;
  }[];
};

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** A webhook of `key` to `path` on the receiver; returns its id and the secret shown once. */
async function addWebhook(key: string, path: string, body: Record<string, unknown> = {}, base?: string) {
  const created = await api("/webhooks", {
    method: "POST",
    key,
    base,
    body: { url: `${receiver.url}${path}`, ...body },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id as number, secret: created.body.secret as string };
}

const arrivedAt = (path: string) => receiver.received.filter((request) => request.path === path);
const waitForArrivals = (path: string, count: number, timeoutMs = 20_000) =>
  until(
    async () => arrivedAt(path),
    (list) => list.length >= count,
    timeoutMs,
  );

const serviceNow = async () => Date.parse((await api("/demo/clock")).body.now as string);
const advanceClock = async (seconds: number) =>
  expect(
    (await api("/demo/clock", { method: "POST", body: { advance_seconds: Math.ceil(seconds) } })).status,
  ).toBe(200);

const deliveries = async (key: string, id: number, base?: string) =>
  (await api(`/webhooks/${id}/deliveries`, { key, base })).body.deliveries as Delivery[];

describe("a webhook follows a server's life", () => {
  it("sees top-up credited, server active, expiring, suspended and terminated, in order, each once, each signed", async () => {
    const { apiKey } = await createAccount();
    const { secret } = await addWebhook(apiKey, "/life", {
      events: ["topup.credited", "server.active", "server.expiring", "server.suspended", "server.terminated"],
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await fund(apiKey, 25);
    const ordered = await api("/servers", {
      method: "POST",
      key: apiKey,
      body: { plan: "pup", location: "nl", os: "debian-13" },
    });
    expect(ordered.status).toBe(201);
    const serverId = ordered.body.id as number;
    const server = await waitForServer<{ status: string; expires_at: string }>(
      apiKey,
      serverId,
      (s) => s.status === "active",
    );
    await waitForArrivals("/life", 2);

    // The server page's promise: warned 72 and 24 hours before expiry, nothing sent yet.
    const planned = (await api(`/servers/${serverId}/expiry-warnings`, { key: apiKey })).body;
    expect(planned).toMatchObject({ renews_itself: false, channels: 1, expires_at: server.expires_at });
    const expiresAt = Date.parse(server.expires_at);
    expect(planned.warnings).toEqual([
      { lead_hours: 72, at: new Date(expiresAt - 72 * 3_600_000).toISOString(), sent_at: null },
      { lead_hours: 24, at: new Date(expiresAt - 24 * 3_600_000).toISOString(), sent_at: null },
    ]);

    // Twelve hours before expiry (the test clock): one warning, the nearer one.
    await advanceClock((expiresAt - (await serviceNow())) / 1000 - 12 * 3600);
    await waitForArrivals("/life", 3);
    const warned = (await api(`/servers/${serverId}/expiry-warnings`, { key: apiKey })).body.warnings as {
      sent_at: string | null;
    }[];
    expect(warned.map((warning) => warning.sent_at === null)).toEqual([true, false]);
    // Past expiry: suspended; past the grace days: terminated.
    await advanceClock(13 * 3600);
    await waitForArrivals("/life", 4);
    await advanceClock(8 * 86_400);
    await waitForArrivals("/life", 5);
    // Nothing more arrives for these facts, however many passes run.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const events = arrivedAt("/life").map((request) => verified(request, secret));
    expect(events.map((event) => event.type)).toEqual([
      "topup.credited",
      "server.active",
      "server.expiring",
      "server.suspended",
      "server.terminated",
    ]);
    expect(new Set(arrivedAt("/life").map((request) => request.headers["webhook-id"])).size).toBe(5);
    expect(events[0]?.data).toMatchObject({ kind: "completed", credited_usd: 25 });
    expect(events[1]?.data).toMatchObject({ reason: "provisioned", server: { id: serverId } });
    expect(events[2]?.data).toMatchObject({
      lead_hours: 24,
      why: "auto_renew_off",
      expires_at: server.expires_at,
    });
    expect(events[3]?.data).toMatchObject({ server: { id: serverId, status: "suspended" } });
    expect(events[4]?.data).toMatchObject({
      reason: "lapsed",
      server: { id: serverId, status: "terminated" },
    });
  }, 60_000);
});

describe("delivery and retries", () => {
  it("answered 500 three times then 200: one event, three retries, one success, the same webhook-id", async () => {
    const { apiKey } = await createAccount();
    const { id, secret } = await addWebhook(apiKey, "/flaky");
    receiver.plan.push(500, 500, 500);
    const queued = await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ state: "pending", event: { type: "webhook.test" } });
    const requests = await waitForArrivals("/flaky", 4);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(arrivedAt("/flaky")).toHaveLength(4);
    expect(new Set(requests.map((request) => request.headers["webhook-id"]))).toEqual(
      new Set([(queued.body.event as { id: string }).id]),
    );
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    for (const request of requests) expect(verified(request, secret).type).toBe("webhook.test");
    const [delivery] = await until(
      () => deliveries(apiKey, id),
      (list) => list[0]?.state === "delivered",
    );
    expect(
      delivery?.attempts.map((attempt) => [attempt.number, attempt.response_status, attempt.succeeded]),
    ).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 500, false],
      [4, 200, true],
    ]);
    for (const attempt of delivery?.attempts ?? []) {
      expect(Date.parse(attempt.sent_at)).toBeGreaterThanOrEqual(Date.parse(attempt.queued_at));
    }
    const webhook = (await api(`/webhooks/${id}`, { key: apiKey })).body;
    expect(webhook).toMatchObject({ enabled: true, failing_since: null });
    expect(webhook.last_success_at).not.toBeNull();
  });

  it("redelivers a delivery with the same webhook-id, once, marked as asked for", async () => {
    const { apiKey } = await createAccount();
    const { id, secret } = await addWebhook(apiKey, "/again");
    await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey });
    const [first] = await waitForArrivals("/again", 1);
    const [delivery] = await until(
      () => deliveries(apiKey, id),
      (list) => list[0]?.state === "delivered",
    );
    const again = await api(`/webhooks/${id}/deliveries/${delivery?.id}/redeliver`, {
      method: "POST",
      key: apiKey,
    });
    expect(again.status).toBe(202);
    const [, second] = await waitForArrivals("/again", 2);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    expect(verified(second as never, secret).type).toBe("webhook.test");
    const [after] = await until(
      () => deliveries(apiKey, id),
      (list) => list[0]?.attempts.length === 2,
    );
    expect(after?.attempts.map((attempt) => attempt.manual)).toEqual([false, true]);
    expect(
      (await api(`/webhooks/${id}/deliveries/999999/redeliver`, { method: "POST", key: apiKey })).status,
    ).toBe(404);
  });

  it("does not follow a redirect, not even to another receiver", async () => {
    const { apiKey } = await createAccount();
    const { id } = await addWebhook(apiKey, "/moved");
    const target = await startReceiver();
    try {
      receiver.plan.push(302);
      receiver.headers = { location: `${target.url}/elsewhere` };
      await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey });
      await waitForArrivals("/moved", 2);
      receiver.headers = {};
      const [delivery] = await until(
        () => deliveries(apiKey, id),
        (list) => list[0]?.state === "delivered",
      );
      expect(delivery?.attempts[0]).toMatchObject({ response_status: 302, succeeded: false });
      expect(target.received).toEqual([]);
    } finally {
      receiver.headers = {};
      await target.close();
    }
  });

  it("disables an endpoint failing for days and says so; turned on again it delivers", async () => {
    const { apiKey } = await createAccount();
    const { id } = await addWebhook(apiKey, "/down");
    receiver.plan.push(...Array(20).fill(503));
    await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey });
    await waitForArrivals("/down", 1);
    // The failure is recorded once the answer is read, a moment after it arrived: the days count from then.
    await until(
      async () => (await api(`/webhooks/${id}`, { key: apiKey })).body,
      (webhook) => webhook.failing_since !== null,
    );
    await advanceClock(6 * 86_400);
    const disabled = await until(
      async () => (await api(`/webhooks/${id}`, { key: apiKey })).body,
      (webhook) => webhook.enabled === false,
    );
    expect(disabled.disabled_reason).toMatch(/^Disabled: every delivery failed for 5 days/);
    expect((await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey })).status).toBe(409);
    receiver.plan.length = 0;
    const enabled = await api(`/webhooks/${id}`, { method: "PATCH", key: apiKey, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    const before = arrivedAt("/down").length;
    expect((await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey })).status).toBe(202);
    await waitForArrivals("/down", before + 1);
  });
});

describe("the webhooks API", () => {
  it("lists, changes, rotates and deletes; another account's webhook is 404", async () => {
    const { apiKey } = await createAccount();
    const other = await createAccount();
    const { id, secret } = await addWebhook(apiKey, "/crud", {
      events: ["server.active"],
      description: "ops",
    });
    const listed = (await api("/webhooks", { key: apiKey })).body.webhooks as Record<string, unknown>[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id,
      kind: "webhook",
      events: ["server.active"],
      description: "ops",
      enabled: true,
    });
    expect(JSON.stringify(listed)).not.toContain(secret);
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const result = await api(`/webhooks/${id}`, {
        method,
        key: other.apiKey,
        body: method === "PATCH" ? {} : undefined,
      });
      expect(result.status, method).toBe(404);
    }
    expect((await api(`/webhooks/${id}/deliveries`, { key: other.apiKey })).status).toBe(404);

    const changed = await api(`/webhooks/${id}`, {
      method: "PATCH",
      key: apiKey,
      body: { events: ["server.active", "server.suspended"], description: null },
    });
    expect(changed.body).toMatchObject({ events: ["server.active", "server.suspended"], description: null });

    const rotated = await api(`/webhooks/${id}/rotate-secret`, { method: "POST", key: apiKey, body: {} });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(secret);
    expect(rotated.body.previous_secret_expires_at).not.toBeNull();
    await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey });
    const [request] = await waitForArrivals("/crud", 1);
    // Both secrets verify while the previous one is kept.
    expect(verified(request as never, secret).type).toBe("webhook.test");
    expect(verified(request as never, fresh).type).toBe("webhook.test");

    const off = await api(`/webhooks/${id}`, { method: "PATCH", key: apiKey, body: { enabled: false } });
    expect(off.body).toMatchObject({ enabled: false, disabled_reason: "Turned off by its owner." });
    expect((await api(`/webhooks/${id}`, { method: "DELETE", key: apiKey })).body).toEqual({
      id,
      deleted: true,
    });
    expect((await api(`/webhooks/${id}`, { key: apiKey })).status).toBe(404);
  });

  it("refuses bad bodies with a clear 400 and changes nothing", async () => {
    const { apiKey } = await createAccount();
    const cases: [Record<string, unknown>, string][] = [
      [{}, "invalid_webhook_url"],
      [{ url: "not a url" }, "invalid_webhook_url"],
      [{ url: "ftp://example.com/" }, "invalid_webhook_url"],
      [{ url: `${receiver.url}/x`, events: [] }, "invalid_events"],
      [{ url: `${receiver.url}/x`, events: ["server.exploded"] }, "invalid_events"],
      [{ url: `${receiver.url}/x`, kind: "email" }, "invalid_kind"],
      [{ url: `${receiver.url}/x`, ntfy_token: "tk_abc" }, "invalid_ntfy_token"],
      [{ url: `${receiver.url}/x`, colour: "red" }, "unknown_field"],
      [{ url: "http://10.0.0.1/hook" }, "webhook_url_refused"],
      [{ url: "http://169.254.169.254/latest/meta-data/" }, "webhook_url_refused"],
    ];
    for (const [body, code] of cases) {
      const result = await api("/webhooks", { method: "POST", key: apiKey, body });
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(result), JSON.stringify(body)).toBe(code);
    }
    expect((await api("/webhooks", { key: apiKey })).body.webhooks).toEqual([]);
    expect((await api("/webhooks/1/deliveries?limit=0", { key: apiKey })).status).toBe(400);
  });

  it("takes an ntfy topic, which gets a title and a message and has no secret", async () => {
    const { apiKey } = await createAccount();
    const created = await api("/webhooks", {
      method: "POST",
      key: apiKey,
      body: { kind: "ntfy", url: `${receiver.url}/ntfy-topic`, ntfy_token: "tk_push" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: "ntfy", secret: null, has_token: true });
    const id = created.body.id as number;
    expect((await api(`/webhooks/${id}/rotate-secret`, { method: "POST", key: apiKey })).status).toBe(409);
    await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey });
    const [push] = await waitForArrivals("/ntfy-topic", 1);
    expect(push?.headers).toMatchObject({ title: "Test notification", authorization: "Bearer tk_push" });
    expect(push?.body).toBe("A test event, sent because you asked for one.");
  });

  it("allows ten endpoints per account", async () => {
    const { apiKey } = await createAccount();
    for (let i = 0; i < 10; i++) await addWebhook(apiKey, `/many-${i}`);
    const refused = await api("/webhooks", {
      method: "POST",
      key: apiKey,
      body: { url: `${receiver.url}/eleven` },
    });
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("webhook_limit_reached");
  });
});

describe("fair delivery", () => {
  it("five accounts whose endpoints hang cannot delay a sixth account's server.expiring", async () => {
    // Endpoints that take the connection and never answer: each attempt holds its slot until the send timeout.
    const held = new Set<Socket>();
    const tarpit = createNetServer((socket) => {
      held.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => held.delete(socket));
    });
    await new Promise<void>((resolve) => tarpit.listen(0, "127.0.0.1", resolve));
    const tarpitUrl = `http://127.0.0.1:${(tarpit.address() as AddressInfo).port}`;
    const victim = await createAccount();
    await addWebhook(victim.apiKey, "/expiring", { events: ["server.expiring"] });
    await fund(victim.apiKey, 25);
    const ordered = await api("/servers", {
      method: "POST",
      key: victim.apiKey,
      body: { plan: "pup", location: "nl", os: "debian-12" },
    });
    const server = await waitForServer<{ status: string; expires_at: string }>(
      victim.apiKey,
      ordered.body.id as number,
      (s) => s.status === "active",
    );
    const attackers = await Promise.all(Array.from({ length: 5 }, () => createAccount()));
    const hooks: { key: string; id: number }[] = [];
    try {
      for (const [a, attacker] of attackers.entries()) {
        for (let i = 0; i < 5; i++) {
          const made = await api("/webhooks", {
            method: "POST",
            key: attacker.apiKey,
            body: { url: `${tarpitUrl}/hang-${a}-${i}` },
          });
          expect(made.status).toBe(201);
          hooks.push({ key: attacker.apiKey, id: made.body.id as number });
        }
      }
      // Two test sends per endpoint: fifty attempts of five seconds each, retried 300 ms after each.
      await Promise.all(
        hooks.flatMap((hook) =>
          [0, 1].map(() => api(`/webhooks/${hook.id}/test`, { method: "POST", key: hook.key })),
        ),
      );
      await until(
        async () => held.size,
        (size) => size >= 8,
        10_000,
      );
      // Seventy hours before the victim's expiry: its 72-hour warning is due at the next background pass.
      await advanceClock((Date.parse(server.expires_at) - (await serviceNow())) / 1000 - 70 * 3600);
      const started = Date.now();
      await waitForArrivals("/expiring", 1, 8_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(JSON.parse(arrivedAt("/expiring")[0]?.body ?? "{}")).toMatchObject({ type: "server.expiring" });
    } finally {
      await Promise.all(
        hooks.map((hook) => api(`/webhooks/${hook.id}`, { method: "DELETE", key: hook.key })),
      );
      const closed = new Promise((resolve) => tarpit.close(resolve));
      for (const socket of held) socket.destroy();
      await closed;
    }
  }, 120_000);
});

describe("names the account chose, resolved by a name server that never answers", () => {
  /** The receiver by a name the suite's name server resolves to loopback. */
  const byName = (path: string) => `http://calm.hooks.test:${new URL(receiver.url).port}${path}`;

  it("cost other accounts' deliveries and a node RPC by name nothing while 100 checks wait, and say nothing of them", async () => {
    // Another account's webhook, by name: resolved by the same resolver as the checks below.
    const calm = await createAccount();
    const created = await api("/webhooks", {
      method: "POST",
      key: calm.apiKey,
      body: { url: byName("/calm") },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const calmId = created.body.id as number;
    // A dashboard session for the wallet's RPC, which the app sends to the settlement node by host name.
    const signUp = await fetch(`${inject("baseUrl")}/bff/sign-up`, {
      method: "POST",
      headers: { origin: inject("baseUrl"), "x-forwarded-for": randomIp() },
    });
    const cookie = (signUp.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const rpc = async () => {
      const started = performance.now();
      const response = await fetch(`${inject("baseUrl")}/bff/wallet/rpc`, {
        method: "POST",
        headers: {
          origin: inject("baseUrl"),
          cookie,
          "content-type": "application/json",
          "x-forwarded-for": randomIp(),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      expect(response.status).toBe(200);
      return performance.now() - started;
    };
    /**
     * One test send of the calm account: from its event's commit (the 202) to its arrival at the receiver,
     * the worker's part, which a pool of threads held by the checks would delay.
     */
    const delivery = async () => {
      const before = arrivedAt("/calm").length;
      expect((await api(`/webhooks/${calmId}/test`, { method: "POST", key: calm.apiKey })).status).toBe(202);
      const committed = performance.now();
      await waitForArrivals("/calm", before + 1, 10_000);
      return performance.now() - committed;
    };
    const quiet = { delivery: await delivery(), rpc: await rpc() };

    // Ten accounts, ten names each under a zone whose server never answers, all at once.
    const attackers = await Promise.all(Array.from({ length: 10 }, () => createAccount()));
    const checks = attackers.flatMap((attacker, a) =>
      Array.from({ length: 10 }, async (_, i) => {
        const result = await api("/webhooks", {
          method: "POST",
          key: attacker.apiKey,
          body: { url: `https://r${a}x${i}x${Date.now()}.${SILENT_ZONE}/` },
        });
        return result;
      }),
    );
    const during: { delivery: number[]; rpc: number[] } = { delivery: [], rpc: [] };
    let settled = false;
    const all = Promise.all(checks).finally(() => {
      settled = true;
    });
    while (!settled) {
      during.delivery.push(await delivery());
      during.rpc.push(await rpc());
    }
    const results = await all;
    for (const result of results) {
      expect(result.status).toBe(400);
      expect(errorCode(result)).toBe("webhook_url_refused");
      // Given up at the resolver's own bound: c-ares' timeout, not libc's (which says EAI_AGAIN, much later).
      expect(result.body.message).toMatch(/could not be resolved in time/);
    }
    const worst = (list: number[]) => Math.max(...list);
    expect(during.delivery.length).toBeGreaterThan(0);
    // Queued behind the hanging lookups, a getaddrinfo would wait for them by the tens of seconds; a busy CI
    // machine alone can double a quiet figure, so the bound leaves room for that and no more.
    const bound = (quietMs: number) => quietMs * 2 + 3_000;
    expect(worst(during.delivery), JSON.stringify({ quiet, during })).toBeLessThan(bound(quiet.delivery));
    expect(worst(during.rpc), JSON.stringify({ quiet, during })).toBeLessThan(bound(quiet.rpc));
  }, 60_000);

  it("checks ownership and the endpoint limit before resolving, and counts URL changes per account", async () => {
    const { apiKey } = await createAccount();
    const other = await createAccount();
    const { id: theirs } = await addWebhook(other.apiKey, "/theirs");
    const silent = (label: string) => `https://${label}-${Date.now()}.${SILENT_ZONE}/`;
    // Another account's webhook, or none: 404 at once, nothing resolved.
    for (const id of [theirs, 999_999]) {
      const started = performance.now();
      const result = await api(`/webhooks/${id}`, {
        method: "PATCH",
        key: apiKey,
        body: { url: silent("p") },
      });
      expect(result.status).toBe(404);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    // A name resolving to a private address is refused without saying which.
    const internal = await api("/webhooks", {
      method: "POST",
      key: apiKey,
      body: { url: "http://db.internal.test/" },
    });
    expect(errorCode(internal)).toBe("webhook_url_refused");
    expect(internal.body.message).toBe(
      "Not sent to: db.internal.test resolves to a non-public address. Use a public address.",
    );
    expect(JSON.stringify(internal.body)).not.toContain("10.0.3.7");
    // A port other than 443 and 80 is refused (a loopback receiver, in tests, may use any).
    const port = await api("/webhooks", {
      method: "POST",
      key: apiKey,
      body: { url: "https://93.184.216.34:22/hook" },
    });
    expect([port.status, errorCode(port)]).toEqual([400, "webhook_url_refused"]);
    expect(port.body.message).toMatch(/Port 22 is not accepted/);
    const compatible = await api("/webhooks", {
      method: "POST",
      key: apiKey,
      body: { url: "https://[::10.0.0.1]/hook" },
    });
    // An IPv4-compatible IPv6 address is the IPv4 address it carries: here a private one.
    expect([compatible.status, errorCode(compatible)]).toEqual([400, "webhook_url_refused"]);
    expect(compatible.body.message).toMatch(/10\.0\.0\.1 is a private address/);
    // URL checks so far: 3 (the refusals above that got as far as resolving). Up to the limit, then 429.
    let made = 0;
    for (let i = 3; i < TEST_LIMITS.webhookUrls; i++) {
      await addWebhook(apiKey, `/counted-${i}`);
      made += 1;
    }
    const over = await api("/webhooks", { method: "POST", key: apiKey, body: { url: byName("/over") } });
    expect(over.status).toBe(429);
    expect(errorCode(over)).toBe("rate_limited");
    const listed = (await api("/webhooks", { key: apiKey })).body.webhooks as { id: number }[];
    expect(listed).toHaveLength(made);
    // A change that keeps the URL is not counted.
    const [first] = listed;
    expect(
      (await api(`/webhooks/${first?.id}`, { method: "PATCH", key: apiKey, body: { description: "x" } }))
        .status,
    ).toBe(200);
    const moved = await api(`/webhooks/${first?.id}`, {
      method: "PATCH",
      key: apiKey,
      body: { url: byName("/moved") },
    });
    expect(moved.status).toBe(429);
  });

  it("refuses an eleventh endpoint before resolving its name", async () => {
    const { apiKey } = await createAccount();
    for (let i = 0; i < 10; i++) await addWebhook(apiKey, `/full-${i}`);
    const started = performance.now();
    const refused = await api("/webhooks", {
      method: "POST",
      key: apiKey,
      body: { url: `https://eleven-${Date.now()}.${SILENT_ZONE}/` },
    });
    expect([refused.status, errorCode(refused)]).toEqual([409, "webhook_limit_reached"]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

// The embedded database belongs to one process: this runs its own app on PGlite in its own DATA_DIR,
// whichever database the suite is on.
describe("a restart in the middle of retries", () => {
  it("loses nothing and sends nothing twice", async () => {
    const { DATABASE_URL: _shared, ...env } = inject("appEnv");
    const ownEnv = {
      ...env,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-notify-restart-")),
      NOTIFY_TEST_RETRY_MS: "15000",
    };
    let app: RunningApp = await startApp(ownEnv);
    let apiKey = "";
    let id = 0;
    try {
      ({ apiKey } = await createAccount(undefined, app.url));
      ({ id } = await addWebhook(apiKey, "/restart", {}, app.url));
      // One delivered before the restart, one failed once and waiting for its retry.
      await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey, base: app.url });
      await waitForArrivals("/restart", 1);
      receiver.plan.push(500);
      await api(`/webhooks/${id}/test`, { method: "POST", key: apiKey, base: app.url });
      await waitForArrivals("/restart", 2);
    } finally {
      await app.stop();
    }
    app = await startApp(ownEnv);
    try {
      const arrived = await waitForArrivals("/restart", 3, 40_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(arrivedAt("/restart")).toHaveLength(3);
      const ids = arrived.map((request) => request.headers["webhook-id"]);
      expect(ids[2]).toBe(ids[1]);
      expect(ids[0]).not.toBe(ids[1]);
      const log = await deliveries(apiKey, id, app.url);
      expect(log.map((delivery) => [delivery.state, delivery.attempts.length])).toEqual([
        ["delivered", 2],
        ["delivered", 1],
      ]);
    } finally {
      await app.stop();
    }
  }, 120_000);
});

describe.runIf(inject("dbTarget") === "postgres")("two app instances on one PostgreSQL", () => {
  it("deliver each of a hundred events once between them", async () => {
    let second: RunningApp | undefined;
    try {
      // The suite app's DATA_DIR: the same demo secrets, so either instance can unseal a webhook's secret.
      second = await startApp({ ...inject("appEnv"), DATA_DIR: inject("appDataDir") });
      // The same business time on both (the suite's clock has moved), so both see the same deliveries due.
      const lag =
        (await serviceNow()) -
        Date.parse((await api("/demo/clock", { base: second.url })).body.now as string);
      if (lag > 1000) {
        await api("/demo/clock", {
          method: "POST",
          base: second.url,
          body: { advance_seconds: Math.round(lag / 1000) },
        });
      }
      const { apiKey } = await createAccount();
      const { id, secret } = await addWebhook(apiKey, "/pair");
      receiver.delayMs = 50;
      const origins = [undefined, second.url];
      const queued = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          api(`/webhooks/${id}/test`, { method: "POST", key: apiKey, base: origins[i % 2] }),
        ),
      );
      expect(queued.every((result) => result.status === 202)).toBe(true);
      await waitForArrivals("/pair", 100, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const arrived = arrivedAt("/pair");
      expect(arrived).toHaveLength(100);
      const ids = arrived.map((request) => verified(request, secret) && request.headers["webhook-id"]);
      expect(new Set(ids).size).toBe(100);
      const client = new pg.Client({ connectionString: inject("testDatabaseUrl") });
      await client.connect();
      try {
        const { rows } = await client.query(
          "SELECT count(*)::int AS n FROM notification_attempts a JOIN notification_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1",
          [id],
        );
        expect(rows[0].n).toBe(100);
      } finally {
        await client.end();
      }
    } finally {
      receiver.delayMs = 0;
      await second?.stop();
    }
  }, 120_000);
});

// Production mode refuses what tests allow: its own instance.
describe("in production mode", () => {
  let app: RunningApp;
  beforeAll(async () => {
    const {
      DATABASE_URL: _shared,
      ENABLE_TEST_CLOCK: _clock,
      NOTIFY_TEST_ALLOW_LOOPBACK: _loopback,
      NOTIFY_TEST_RETRY_MS: _retry,
      ...env
    } = inject("appEnv");
    app = await startApp({
      ...env,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-notify-prod-")),
      APP_MODE: "production",
      SESSION_SECRET: "a-production-session-secret-of-enough-length",
      ENCRYPTION_KEY: "cd".repeat(32),
    });
  }, 90_000);
  afterAll(() => app?.stop());

  it("refuses loopback, private, link-local, metadata, non-global IPv6, other ports and plain-http URLs", async () => {
    const { apiKey } = await createAccount(undefined, app.url);
    const cases: [string, string, RegExp][] = [
      ["https://127.0.0.1/hook", "webhook_url_refused", /127\.0\.0\.1 is a loopback address/],
      ["https://10.20.30.40/hook", "webhook_url_refused", /10\.20\.30\.40 is a private address/],
      ["https://169.254.169.254/latest/meta-data/", "webhook_url_refused", /cloud metadata address/],
      ["https://[::1]/hook", "webhook_url_refused", /::1 is a loopback address/],
      ["https://[::127.0.0.1]/hook", "webhook_url_refused", /127\.0\.0\.1 is a loopback address/],
      ["https://[::ffff:7f00:1]/hook", "webhook_url_refused", /127\.0\.0\.1 is a loopback address/],
      ["https://[4000::1]/hook", "webhook_url_refused", /not a global unicast address/],
      ["https://localhost/hook", "webhook_url_refused", /localhost is a loopback name/],
      [
        "https://loop.hooks.test/hook",
        "webhook_url_refused",
        /^Not sent to: loop\.hooks\.test resolves to a non-public address\./,
      ],
      ["https://93.184.216.34:22/hook", "webhook_url_refused", /^Port 22 is not accepted/],
      ["https://public.hooks-far.test:8443/hook", "webhook_url_refused", /^Port 8443 is not accepted/],
      ["https://public.hooks-far.test:80/hook", "webhook_url_refused", /^Port 80 is not accepted/],
      ["http://hooks.example.com/hook", "invalid_webhook_url", /Only https URLs/],
    ];
    for (const [url, code, message] of cases) {
      const result = await api("/webhooks", { method: "POST", key: apiKey, base: app.url, body: { url } });
      expect(result.status, url).toBe(400);
      expect(errorCode(result), url).toBe(code);
      expect(result.body.message, url).toMatch(message);
    }
    const changed = await api("/webhooks", { key: apiKey, base: app.url });
    expect(changed.body.webhooks).toEqual([]);
  });
});
