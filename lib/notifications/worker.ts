import "server-only";
import { and, asc, eq, inArray, lte, notInArray, sql } from "drizzle-orm";
import { config } from "@/lib/config/env";
import { type Database, db } from "@/lib/db/client";
import {
  notificationAttempts,
  notificationDeliveries,
  notificationEndpoints,
  notificationEvents,
} from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import { holdExitUntil } from "@/lib/util/exit-hold";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { unseal } from "@/lib/util/seal";
import { notificationSettings } from "./config";
import { type EndpointRow, secretPurpose, signingSecrets, turnOff, urlPolicy } from "./endpoint-state";
import { CONCURRENCY, chooseFairly, closedNow, noSlotsUsed, type SlotUse } from "./fairness";
import { pushFor } from "./ntfy";
import { describeSpan, MAX_ATTEMPTS, nextAttemptAt, RETRY_SPAN_SECONDS, shouldDisable } from "./schedule";
import { signatureHeaders } from "./signing";
import { type Resolver, type SendOutcome, type SendRequest, send } from "./transport";

/** How often an idle worker looks for due deliveries (a new event waits at most this long for its first attempt). */
const POLL_MS = 200;
/** A delivery taken by a worker that died is taken again this long after (an attempt lasts at most 5 s). */
const LEASE_MS = 60_000;
/** On shutdown, attempts under way are given this long to finish and be recorded. */
const DRAIN_MS = 4_000;

const USER_AGENT = "vps-notifications/1";

/** A delivery a worker took: what to send, where, and which attempt this is. */
export type TakenDelivery = {
  id: number;
  attempt: number;
  manual: boolean;
  queuedAt: Date;
  endpoint: EndpointRow;
  event: { publicId: string; type: string; payload: string };
};

/** Due deliveries looked at per free slot: enough that one endpoint's backlog leaves room for others. */
const CANDIDATES_PER_SLOT = 4;

/**
 * Takes due deliveries for the free slots of `use` (lib/notifications/fairness.ts: a share per account and
 * per endpoint, the least busy account first) with SKIP LOCKED, and marks them `sending` under a lease
 * (their `next_attempt_at` moves to when it ends), then commits: the requests that follow run with no
 * transaction open. Deliveries of an instance that died while sending are due again once their lease has
 * passed. Endpoints and accounts at their share are left out of the query itself, so their backlog, however
 * long and however long due, does not hide anyone else's.
 */
export async function takeDueDeliveries(
  database: Database,
  use: SlotUse,
  at: Date,
): Promise<TakenDelivery[]> {
  const free = CONCURRENCY - use.inFlight;
  if (free <= 0) return [];
  const closed = closedNow(use);
  return database.transaction(async (tx) => {
    const candidates = await tx
      .select({
        id: notificationDeliveries.id,
        nextAttemptAt: notificationDeliveries.nextAttemptAt,
        attempts: notificationDeliveries.attempts,
        manual: notificationDeliveries.manual,
        accountId: notificationEndpoints.accountId,
        endpointId: notificationDeliveries.endpointId,
        failingSince: notificationEndpoints.failingSince,
      })
      .from(notificationDeliveries)
      .innerJoin(notificationEndpoints, eq(notificationEndpoints.id, notificationDeliveries.endpointId))
      .where(
        and(
          sql`${notificationDeliveries.state} IN ('pending', 'sending')`,
          lte(notificationDeliveries.nextAttemptAt, at),
          closed.endpoints.length > 0
            ? notInArray(notificationDeliveries.endpointId, closed.endpoints)
            : undefined,
          closed.accounts.length > 0
            ? notInArray(notificationEndpoints.accountId, closed.accounts)
            : undefined,
        ),
      )
      .orderBy(asc(notificationDeliveries.nextAttemptAt), asc(notificationDeliveries.id))
      .limit(free * CANDIDATES_PER_SLOT)
      .for("update", { of: notificationDeliveries, skipLocked: true });
    const due = chooseFairly(
      candidates.map((row) => ({ ...row, failing: row.failingSince !== null })),
      use,
    ).map((chosen) => candidates.find((row) => row.id === chosen.id) as (typeof candidates)[number]);
    if (due.length === 0) return [];
    const ids = due.map((row) => row.id);
    await tx
      .update(notificationDeliveries)
      .set({
        state: "sending",
        attempts: sql`${notificationDeliveries.attempts} + 1`,
        nextAttemptAt: new Date(at.getTime() + LEASE_MS),
      })
      .where(inArray(notificationDeliveries.id, ids));
    const rows = await tx
      .select({
        id: notificationDeliveries.id,
        endpoint: notificationEndpoints,
        publicId: notificationEvents.publicId,
        type: notificationEvents.type,
        payload: notificationEvents.payload,
      })
      .from(notificationDeliveries)
      .innerJoin(notificationEndpoints, eq(notificationEndpoints.id, notificationDeliveries.endpointId))
      .innerJoin(notificationEvents, eq(notificationEvents.id, notificationDeliveries.eventId))
      .where(inArray(notificationDeliveries.id, ids));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return due.flatMap((row) => {
      const found = byId.get(row.id);
      if (!found) return [];
      return [
        {
          id: row.id,
          attempt: row.attempts + 1,
          manual: row.manual,
          queuedAt: row.nextAttemptAt ?? at,
          endpoint: found.endpoint,
          event: { publicId: found.publicId, type: found.type, payload: found.payload },
        },
      ];
    });
  });
}

/** The request of one attempt: a signed webhook, or an ntfy push with a title and a message. */
export function requestFor(taken: TakenDelivery, sentAt: Date): SendRequest {
  const { endpoint, event } = taken;
  const url = new URL(endpoint.url);
  if (endpoint.kind === "ntfy") {
    const push = pushFor(event.type, (JSON.parse(event.payload) as { data: Record<string, unknown> }).data);
    const token = endpoint.secretEnc
      ? unseal(config().encryptionKey, secretPurpose(endpoint.id), endpoint.secretEnc)
      : null;
    return {
      url,
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "user-agent": USER_AGENT,
        title: push.title,
        tags: push.tags.join(","),
        priority: String(push.priority),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: push.message,
    };
  }
  return {
    url,
    headers: {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...signatureHeaders(event.publicId, event.payload, signingSecrets(endpoint, sentAt), new Date()),
    },
    body: event.payload,
  };
}

/** Attempts one taken delivery and records what came of it. */
export async function attemptDelivery(
  database: Database,
  taken: TakenDelivery,
  resolver?: Resolver,
): Promise<SendOutcome> {
  const sentAt = now();
  let outcome: SendOutcome;
  try {
    outcome = taken.endpoint.enabled
      ? await send(requestFor(taken, sentAt), urlPolicy(), resolver)
      : { status: null, error: "the endpoint is turned off", excerpt: null, durationMs: 0 };
  } catch (error) {
    outcome = { status: null, error: firstLine(error).slice(0, 200), excerpt: null, durationMs: 0 };
  }
  await recordOutcome(database, taken, outcome, sentAt);
  return outcome;
}

const succeeded = (outcome: SendOutcome) =>
  outcome.status !== null && outcome.status >= 200 && outcome.status < 300;

/**
 * Writes an attempt and its consequences in one transaction: the delivery is delivered, due again on the
 * schedule, or failed for good; the endpoint's record of success and failure moves, and an endpoint failing
 * for NOTIFY_DISABLE_AFTER_DAYS is turned off. Only the holder of the delivery's lease writes (a delivery
 * deleted meanwhile, with its endpoint, is left alone).
 */
async function recordOutcome(database: Database, taken: TakenDelivery, outcome: SendOutcome, sentAt: Date) {
  const ok = succeeded(outcome);
  const settings = notificationSettings();
  await database.transaction(async (tx) => {
    const at = now();
    const retryAt = ok || taken.manual ? null : nextAttemptAt(taken.attempt, at, settings.testRetryMs);
    const failureReason = ok
      ? null
      : taken.manual
        ? "The redelivery failed."
        : retryAt
          ? null
          : `Every attempt failed (${MAX_ATTEMPTS} over ${describeSpan(RETRY_SPAN_SECONDS)}).`;
    const [held] = await tx
      .update(notificationDeliveries)
      .set({
        state: ok ? "delivered" : retryAt ? "pending" : "failed",
        nextAttemptAt: retryAt,
        manual: false,
        ...(ok ? { deliveredAt: at } : {}),
        failureReason,
      })
      .where(
        and(
          eq(notificationDeliveries.id, taken.id),
          eq(notificationDeliveries.state, "sending"),
          eq(notificationDeliveries.attempts, taken.attempt),
        ),
      )
      .returning({ id: notificationDeliveries.id });
    if (!held) return;
    await tx.insert(notificationAttempts).values({
      deliveryId: taken.id,
      number: taken.attempt,
      manual: taken.manual,
      queuedAt: taken.queuedAt,
      sentAt,
      durationMs: outcome.durationMs,
      responseStatus: outcome.status,
      error: outcome.error,
      responseExcerpt: outcome.excerpt,
      succeeded: ok,
    });
    if (!taken.endpoint.enabled) return;
    if (ok) {
      await tx
        .update(notificationEndpoints)
        .set({ lastSuccessAt: at, failingSince: null })
        .where(eq(notificationEndpoints.id, taken.endpoint.id));
      return;
    }
    const [endpoint] = await tx
      .update(notificationEndpoints)
      .set({ failingSince: sql`COALESCE(${notificationEndpoints.failingSince}, ${at})` })
      .where(and(eq(notificationEndpoints.id, taken.endpoint.id), eq(notificationEndpoints.enabled, true)))
      .returning({ failingSince: notificationEndpoints.failingSince });
    if (endpoint && shouldDisable(endpoint.failingSince, at, settings.disableAfterDays)) {
      await turnOff(
        tx,
        taken.endpoint.id,
        at,
        `Disabled: every delivery failed for ${settings.disableAfterDays} days (since ${endpoint.failingSince?.toISOString()}). ` +
          "Turn it on again once it answers.",
      );
    }
  });
}

type WorkerState = {
  inFlight: number;
  byAccount: Map<number, number>;
  byEndpoint: Map<number, { count: number; failing: boolean }>;
  running: boolean;
  again: boolean;
  stopping: boolean;
  idle: () => void;
};

const state = () =>
  processWide<WorkerState>("notifications.worker", () => ({
    ...noSlotsUsed(),
    byAccount: new Map(),
    byEndpoint: new Map(),
    running: false,
    again: false,
    stopping: false,
    idle: () => undefined,
  }));

/** Counts an attempt as under way for its account and endpoint; the function returned counts it done. */
function occupy(worker: WorkerState, taken: TakenDelivery): () => void {
  const { accountId, id: endpointId, failingSince } = taken.endpoint;
  worker.inFlight += 1;
  worker.byAccount.set(accountId, (worker.byAccount.get(accountId) ?? 0) + 1);
  const endpoint = worker.byEndpoint.get(endpointId);
  worker.byEndpoint.set(endpointId, { count: (endpoint?.count ?? 0) + 1, failing: failingSince !== null });
  return () => {
    worker.inFlight -= 1;
    const account = (worker.byAccount.get(accountId) ?? 1) - 1;
    if (account > 0) worker.byAccount.set(accountId, account);
    else worker.byAccount.delete(accountId);
    const left = worker.byEndpoint.get(endpointId);
    if (left && left.count > 1) worker.byEndpoint.set(endpointId, { ...left, count: left.count - 1 });
    else worker.byEndpoint.delete(endpointId);
  };
}

/** Takes due deliveries while there are free slots and starts their attempts (each records its own outcome). */
async function fill(): Promise<void> {
  const worker = state();
  if (worker.running) {
    worker.again = true;
    return;
  }
  worker.running = true;
  try {
    do {
      worker.again = false;
      while (!worker.stopping && worker.inFlight < CONCURRENCY) {
        const database = await db();
        const batch = await takeDueDeliveries(database, worker, now());
        for (const taken of batch) {
          const release = occupy(worker, taken);
          void attemptDelivery(database, taken)
            .catch((error) => console.error(`notification delivery ${taken.id}: ${firstLine(error)}`))
            .finally(() => {
              release();
              if (worker.inFlight === 0) worker.idle();
              void fill();
            });
        }
        if (batch.length === 0) break;
      }
    } while (worker.again && !worker.stopping);
  } catch (error) {
    logThrottled(`notifications: ${firstLine(error)}`);
  } finally {
    worker.running = false;
  }
}

function logThrottled(message: string) {
  const last = processWide("notifications.log", () => ({ at: 0, message: "" }));
  if (last.message === message && Date.now() - last.at < 60_000) return;
  last.at = Date.now();
  last.message = message;
  console.error(message);
}

/**
 * Starts this instance's delivery worker (every instance runs one; SKIP LOCKED keeps them apart). On SIGTERM
 * or SIGINT it takes nothing more, and the process's exit waits up to DRAIN_MS for the attempts under way to
 * be recorded, so a restart neither loses one nor sends one again.
 */
export function startDeliveryWorker(): void {
  processWide("notifications.worker.timer", () => {
    const timer = setInterval(() => void fill(), POLL_MS);
    timer.unref();
    const stop = () => {
      const worker = state();
      if (worker.stopping) return;
      worker.stopping = true;
      clearInterval(timer);
      const drained = new Promise<void>((resolve) => {
        if (worker.inFlight === 0) resolve();
        worker.idle = resolve;
        setTimeout(resolve, DRAIN_MS).unref();
      });
      holdExitUntil(drained);
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    return timer;
  });
}
