import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EVENT_SCHEMAS } from "@/lib/api/schemas/events";
import type { Database } from "@/lib/db/client";
import {
  depositPayments,
  notificationAttempts,
  notificationDeliveries,
  notificationEndpoints,
  notificationEvents,
  servers,
  topups,
} from "@/lib/db/schema";
import type { EventType } from "@/lib/db/types";
import { serverSettings } from "@/lib/servers/config";
import {
  createAccount,
  createFundedAccount,
  insertServer,
  openMemoryDatabase,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { seal } from "@/lib/util/seal";

const restoreEnv = scratchConfigEnv({ NOTIFY_TEST_ALLOW_LOOPBACK: "1", NOTIFY_TEST_RETRY_MS: "10" });
const { config } = await import("@/lib/config/env");
const facts = await import("./facts");
const { announceDueWarnings } = await import("./scans");
const { runServerLifecycle } = await import("@/lib/servers/lifecycle");
const { attemptDelivery, takeDueDeliveries } = await import("./worker");
const { secretPurpose } = await import("./endpoint-state");
const { noSlotsUsed } = await import("./fairness");
const { newWebhookSecret } = await import("./signing");

let db: Database;
let close: () => Promise<void>;
let receiver: Server;
let port = 0;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
/** Statuses the receiver answers with, in turn; 200 once they run out. */
const answers: number[] = [];

beforeAll(async () => {
  ({ db, close } = await openMemoryDatabase());
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.writeHead(answers.shift() ?? 200);
      response.end("thanks");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  port = (receiver.address() as AddressInfo).port;
}, 120_000);

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await close();
  restoreEnv();
});

/** A webhook of `accountId` to the loopback receiver, taking `events`; returns its id and secret. */
async function addWebhook(accountId: number, events: EventType[]) {
  const secret = newWebhookSecret();
  const [row] = await db
    .insert(notificationEndpoints)
    .values({ accountId, kind: "webhook", url: `http://127.0.0.1:${port}/hook`, eventTypes: events })
    .returning();
  if (!row) throw new Error("no endpoint");
  await db
    .update(notificationEndpoints)
    .set({ secretEnc: seal(config().encryptionKey, secretPurpose(row.id), secret) })
    .where(eq(notificationEndpoints.id, row.id));
  return { id: row.id, secret };
}

async function eventsOf(accountId: number) {
  return db.select().from(notificationEvents).where(eq(notificationEvents.accountId, accountId));
}

/** When a suspended server ends unless renewed: its expiry plus the grace period. */
const graceEnd = (server: { expiresAt: Date }) =>
  new Date(server.expiresAt.getTime() + serverSettings().graceDays * 86_400_000);

/** Takes and attempts every due delivery once, a slot's worth at a time, as worker passes do. */
async function deliverDue() {
  let attempted = 0;
  // Due by now: a retry scheduled meanwhile waits for the next call.
  const at = new Date();
  for (;;) {
    const taken = await takeDueDeliveries(db, noSlotsUsed(), at);
    for (const delivery of taken) await attemptDelivery(db, delivery);
    attempted += taken.length;
    if (taken.length === 0) return attempted;
  }
}

describe("the outbox", () => {
  it("records nothing for an account no endpoint listens to", async () => {
    const accountId = await createAccount(db);
    const server = await insertServer(db, accountId, { status: "suspended" });
    await db.transaction((tx) => facts.recordServerSuspended(tx, server.id, graceEnd(server)));
    expect(await eventsOf(accountId)).toEqual([]);
  });

  it("announces a fact once, however often it is recorded, with a payload its documented schema accepts", async () => {
    const accountId = await createAccount(db);
    await addWebhook(accountId, ["server.suspended", "server.terminated"]);
    // The lifecycle suspends the lapsed server and says when it ends; recording the fact again adds nothing.
    const server = await insertServer(db, accountId, {
      status: "active",
      autoRenew: false,
      expiresAt: new Date(Date.now() - 60_000),
    });
    await runServerLifecycle(db);
    for (let i = 0; i < 2; i++)
      await db.transaction((tx) => facts.recordServerSuspended(tx, server.id, graceEnd(server)));
    const [terminated] = await db
      .update(servers)
      .set({
        status: "terminated",
        terminatedAt: new Date(),
        retainedUntil: new Date(Date.now() + 86_400_000),
      })
      .where(eq(servers.id, server.id))
      .returning();
    if (!terminated) throw new Error("no server");
    await db.transaction((tx) => facts.recordServerTerminated(tx, terminated, true));
    const events = await eventsOf(accountId);
    expect(events.map((event) => event.type)).toEqual(["server.suspended", "server.terminated"]);
    for (const event of events) {
      const payload = EVENT_SCHEMAS[event.type as EventType].parse(JSON.parse(event.payload));
      expect(payload.data).toMatchObject({ server: { id: server.id, hostname: server.hostname } });
    }
    const suspended = JSON.parse(events[0]?.payload ?? "{}");
    const grace = serverSettings().graceDays * 86_400_000;
    expect(suspended.data.terminates_at).toBe(new Date(server.expiresAt.getTime() + grace).toISOString());
    expect(JSON.parse(events[1]?.payload ?? "{}").data).toMatchObject({ reason: "lapsed" });
  });

  it("rolls back with the change it announces", async () => {
    const accountId = await createAccount(db);
    await addWebhook(accountId, ["server.suspended"]);
    const server = await insertServer(db, accountId, { status: "suspended" });
    await expect(
      db.transaction(async (tx) => {
        await facts.recordServerSuspended(tx, server.id, graceEnd(server));
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await eventsOf(accountId)).toEqual([]);
  });

  it("tells partial, completed and late credits apart", async () => {
    const accountId = await createFundedAccount(db, 10_000);
    await addWebhook(accountId, ["topup.credited"]);
    const [topup] = await db
      .insert(topups)
      .values({
        ref: `tp_${accountId}`,
        accountId,
        method: "deposit",
        coin: "BTC",
        network: "bitcoin",
        amountCents: 5_000,
        depositAddress: `bc1q${accountId}`,
        depositUnits: "100000",
        rateUsd: "50000",
        rateSource: "demo-fixed",
        confirmationsRequired: 1,
        creditedCents: 2_000,
      })
      .returning();
    if (!topup) throw new Error("no top-up");
    await db.transaction((tx) => facts.recordTopupCredited(tx, topup.id, 2_000, "pending"));
    await db.update(topups).set({ status: "completed", creditedCents: 5_000 }).where(eq(topups.id, topup.id));
    await db.transaction((tx) => facts.recordTopupCredited(tx, topup.id, 3_000, "pending"));
    await db.update(topups).set({ creditedCents: 6_000 }).where(eq(topups.id, topup.id));
    await db.transaction((tx) => facts.recordTopupCredited(tx, topup.id, 1_000, "completed"));
    const payloads = (await eventsOf(accountId)).map((event) =>
      EVENT_SCHEMAS["topup.credited"].parse(JSON.parse(event.payload)),
    );
    expect(payloads.map((payload) => [payload.data.kind, payload.data.credited_usd])).toEqual([
      ["partial", 20],
      ["completed", 30],
      ["late", 10],
    ]);
    expect(payloads[0]?.data.balance_usd).toBe(100);
  });

  it("announces a payment seen once, and a traffic threshold only for the reading that crossed it", async () => {
    const accountId = await createAccount(db);
    await addWebhook(accountId, ["topup.payment_seen", "traffic.threshold_reached"]);
    const [topup] = await db
      .insert(topups)
      .values({
        ref: `tp_seen_${accountId}`,
        accountId,
        method: "deposit",
        coin: "BTC",
        network: "bitcoin",
        amountCents: 5_000,
        depositAddress: `bc1qseen${accountId}`,
        depositUnits: "100000",
        rateUsd: "50000",
        rateSource: "demo-fixed",
        confirmationsRequired: 2,
      })
      .returning();
    if (!topup) throw new Error("no top-up");
    const [payment] = await db
      .insert(depositPayments)
      .values({
        topupId: topup.id,
        network: "bitcoin",
        txHash: `tx${accountId}`,
        logIndex: 0,
        amountUnits: "52000",
      })
      .returning();
    if (!payment) throw new Error("no payment");
    for (let i = 0; i < 2; i++) {
      await db.transaction((tx) => facts.recordPaymentsSeen(tx, [{ id: payment.id, topupId: topup.id }]));
    }
    const server = await insertServer(db, accountId, { status: "active" });
    const at = new Date("2027-05-01T12:00:00.000Z");
    const period = {
      serverId: server.id,
      periodStart: new Date("2027-05-01T00:00:00.000Z"),
      periodEnd: new Date("2027-06-01T00:00:00.000Z"),
      allowanceBytes: 1_000,
      rxBytes: 0,
      txBytes: 1_200,
      reached80At: new Date(at.getTime() - 60_000),
      reached100At: at,
    };
    await db.transaction((tx) => facts.recordTrafficThresholds(tx, [period], at));
    const later = new Date(at.getTime() + 60_000);
    await db.transaction((tx) => facts.recordTrafficThresholds(tx, [{ ...period, txBytes: 1_300 }], later));
    const events = await eventsOf(accountId);
    expect(events.map((event) => event.type)).toEqual(["topup.payment_seen", "traffic.threshold_reached"]);
    const seen = EVENT_SCHEMAS["topup.payment_seen"].parse(JSON.parse(events[0]?.payload ?? "{}")).data;
    expect(seen).toMatchObject({
      topup: { ref: topup.ref },
      payment: { amount: "0.00052000", confirmations_required: 2 },
    });
    const traffic = EVENT_SCHEMAS["traffic.threshold_reached"].parse(
      JSON.parse(events[1]?.payload ?? "{}"),
    ).data;
    expect(traffic).toMatchObject({ percent: 100, slowed_to_mbps: 10, outbound_bytes: 1_200 });
  });

  it("warns of an expiry once per lead time, only when the server will not renew by itself", async () => {
    const accountId = await createFundedAccount(db, 300);
    await addWebhook(accountId, ["server.expiring", "account.balance_low"]);
    const start = new Date("2027-03-01T00:00:00.000Z");
    const expiresAt = new Date(start.getTime() + 80 * 3_600_000);
    const manual = await insertServer(db, accountId, {
      status: "active",
      expiresAt,
      priceCents: 400,
      autoRenew: false,
    });
    const covered = await insertServer(db, accountId, {
      status: "active",
      expiresAt,
      priceCents: 200,
      autoRenew: true,
    });
    const at = (hoursBefore: number) => () => new Date(expiresAt.getTime() - hoursBefore * 3_600_000);
    await announceDueWarnings(db, at(79));
    expect(await eventsOf(accountId)).toHaveLength(0);
    for (const hours of [70, 60, 23, 2]) await announceDueWarnings(db, at(hours));
    const expiring = (await eventsOf(accountId))
      .filter((event) => event.type === "server.expiring")
      .map((event) => EVENT_SCHEMAS["server.expiring"].parse(JSON.parse(event.payload)).data);
    expect(expiring.map((data) => [data.server.id, data.lead_hours, data.why])).toEqual([
      [manual.id, 72, "auto_renew_off"],
      [manual.id, 24, "auto_renew_off"],
    ]);
    expect(expiring.some((data) => data.server.id === covered.id)).toBe(false);
  });

  it("warns once of a balance short of the week's automatic renewals", async () => {
    const accountId = await createFundedAccount(db, 500);
    await addWebhook(accountId, ["account.balance_low"]);
    const now = new Date("2027-04-01T00:00:00.000Z");
    const soon = await insertServer(db, accountId, {
      status: "active",
      expiresAt: new Date(now.getTime() + 2 * 86_400_000),
      priceCents: 400,
      autoRenew: true,
    });
    const later = await insertServer(db, accountId, {
      status: "active",
      expiresAt: new Date(now.getTime() + 5 * 86_400_000),
      priceCents: 400,
      autoRenew: true,
    });
    await insertServer(db, accountId, {
      status: "active",
      expiresAt: new Date(now.getTime() + 9 * 86_400_000),
      autoRenew: true,
    });
    for (let i = 0; i < 3; i++) await announceDueWarnings(db, () => now);
    const events = (await eventsOf(accountId)).filter((event) => event.type === "account.balance_low");
    expect(events).toHaveLength(1);
    const data = EVENT_SCHEMAS["account.balance_low"].parse(JSON.parse(events[0]?.payload ?? "{}")).data;
    expect(data).toMatchObject({ balance_usd: 5, needed_usd: 8, shortfall_usd: 3, window_days: 7 });
    expect(data.renewals.map((renewal) => renewal.server.id)).toEqual([soon.id, later.id]);
  });
});

describe("delivering", () => {
  // What earlier tests queued is sent first, so each test below sees only its own deliveries.
  beforeEach(async () => {
    while ((await deliverDue()) > 0);
    received.length = 0;
    answers.length = 0;
  });

  it("retries a failed delivery with the same webhook-id and body, each attempt verifiable with the secret", async () => {
    const accountId = await createAccount(db);
    const { id, secret } = await addWebhook(accountId, ["server.suspended"]);
    const server = await insertServer(db, accountId, { status: "suspended" });
    await db.transaction((tx) => facts.recordServerSuspended(tx, server.id, graceEnd(server)));
    received.length = 0;
    answers.push(500, 503, 500);
    for (let round = 0; round < 10 && received.length < 4; round++) {
      await deliverDue();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(received).toHaveLength(4);
    const verifier = new Webhook(secret);
    const ids = received.map((request) => {
      const payload = verifier.verify(request.body, request.headers as Record<string, string>) as {
        type: string;
      };
      expect(payload.type).toBe("server.suspended");
      return request.headers["webhook-id"];
    });
    expect(new Set(ids).size).toBe(1);
    expect(new Set(received.map((request) => request.body)).size).toBe(1);
    const [delivery] = await db
      .select()
      .from(notificationDeliveries)
      .where(eq(notificationDeliveries.endpointId, id));
    expect(delivery).toMatchObject({ state: "delivered", attempts: 4 });
    const attempts = await db
      .select()
      .from(notificationAttempts)
      .where(eq(notificationAttempts.deliveryId, delivery?.id ?? 0));
    expect(attempts.map((attempt) => [attempt.number, attempt.responseStatus, attempt.succeeded])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 500, false],
      [4, 200, true],
    ]);
    expect(attempts[3]?.responseExcerpt).toBe("thanks");
    const [endpoint] = await db.select().from(notificationEndpoints).where(eq(notificationEndpoints.id, id));
    expect(endpoint?.failingSince).toBeNull();
    expect(endpoint?.lastSuccessAt).not.toBeNull();
  });

  it("signs with both secrets during a rotation", async () => {
    const accountId = await createAccount(db);
    const { id, secret: old } = await addWebhook(accountId, ["server.suspended"]);
    const fresh = newWebhookSecret();
    const key = config().encryptionKey;
    await db
      .update(notificationEndpoints)
      .set({
        secretEnc: seal(key, secretPurpose(id), fresh),
        previousSecretEnc: seal(key, secretPurpose(id), old),
        previousSecretExpiresAt: new Date(Date.now() + 3_600_000),
      })
      .where(eq(notificationEndpoints.id, id));
    const server = await insertServer(db, accountId, { status: "suspended" });
    await db.transaction((tx) => facts.recordServerSuspended(tx, server.id, graceEnd(server)));
    received.length = 0;
    await deliverDue();
    const [request] = received;
    if (!request) throw new Error("nothing delivered");
    expect(String(request.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(() =>
        new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
      ).not.toThrow();
    }
    expect(() =>
      new Webhook(newWebhookSecret()).verify(request.body, request.headers as Record<string, string>),
    ).toThrow();
  });

  it("disables an endpoint whose attempts have all failed for days, and fails what waited for it", async () => {
    const accountId = await createAccount(db);
    const { id } = await addWebhook(accountId, ["server.suspended", "server.terminated"]);
    await db
      .update(notificationEndpoints)
      .set({ failingSince: new Date(Date.now() - 6 * 86_400_000) })
      .where(eq(notificationEndpoints.id, id));
    const first = await insertServer(db, accountId, { status: "suspended" });
    const second = await insertServer(db, accountId, { status: "suspended" });
    await db.transaction((tx) => facts.recordServerSuspended(tx, first.id, graceEnd(first)));
    answers.push(500);
    await deliverDue();
    await db.transaction((tx) => facts.recordServerSuspended(tx, second.id, graceEnd(second)));
    const [endpoint] = await db.select().from(notificationEndpoints).where(eq(notificationEndpoints.id, id));
    expect(endpoint?.enabled).toBe(false);
    expect(endpoint?.disabledReason).toMatch(/^Disabled: every delivery failed for 5 days/);
    const deliveries = await db
      .select()
      .from(notificationDeliveries)
      .where(eq(notificationDeliveries.endpointId, id));
    expect(deliveries.map((delivery) => delivery.state)).toEqual(["failed"]);
  });
});
