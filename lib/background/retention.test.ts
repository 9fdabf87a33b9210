import { asc } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { consoleSessions, idempotencyKeys, orderOutcomes, serverJobs } from "@/lib/db/schema";
import { CONSOLE_SESSION_RETENTION_DAYS } from "@/lib/servers/console/tickets";
import { ORDER_OUTCOME_RETENTION_DAYS } from "@/lib/servers/order-outcomes";
import { createAccount, insertServer, openMemoryDatabase } from "@/lib/testing/memory-db";
import { FINISHED_JOB_RETENTION_DAYS, pruneExpiredRows } from "./retention";

const DAY = 86_400_000;

describe("pruning rows past their retention (the real schema)", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  it("deletes finished jobs, order outcomes and idempotency keys past their retention, and nothing else", async () => {
    const clock = () => new Date("2026-06-01T00:00:00Z");
    const accountId = await createAccount(db);
    const server = await insertServer(db, accountId);
    const ago = (days: number) => new Date(clock().getTime() - days * DAY);
    const old = FINISHED_JOB_RETENTION_DAYS + 1;
    const job = (
      note: string,
      state: "pending" | "running" | "done" | "failed",
      finishedAt: Date | null,
    ) => ({
      serverId: server.id,
      kind: "power" as const,
      action: "reboot" as const,
      state,
      maxAttempts: 3,
      finishedAt,
      lastError: note,
    });
    await db.insert(serverJobs).values([
      job("old done", "done", ago(old)),
      job("old failed", "failed", ago(old)),
      job("recent failed", "failed", ago(FINISHED_JOB_RETENTION_DAYS - 1)),
      // Unfinished work is never pruned, however old.
      job("old pending", "pending", null),
      job("old running", "running", null),
    ]);
    const key = (name: string, createdAt: Date) => ({
      accountId,
      scope: "POST /servers",
      key: name,
      fingerprint: "f",
      state: "completed" as const,
      createdAt,
    });
    // Keys live 24 hours of real time.
    await db
      .insert(idempotencyKeys)
      .values([
        key("two days old", new Date(Date.now() - 2 * DAY)),
        key("an hour old", new Date(Date.now() - 3_600_000)),
      ]);

    const outcome = (location: string, finishedAt: Date) => ({
      location,
      os: "debian-13",
      orderedAt: new Date(finishedAt.getTime() - 60_000),
      finishedAt,
      succeeded: true,
    });
    await db
      .insert(orderOutcomes)
      .values([
        outcome("old", ago(ORDER_OUTCOME_RETENTION_DAYS + 1)),
        outcome("recent", ago(ORDER_OUTCOME_RETENTION_DAYS - 1)),
      ]);

    const pruned = await pruneExpiredRows(db, clock, async () => undefined);
    expect(pruned).toEqual({
      jobs: 2,
      idempotencyKeys: 1,
      notificationEvents: 0,
      consoleSessions: 0,
      orderOutcomes: 1,
    });
    const outcomes = await db.select({ location: orderOutcomes.location }).from(orderOutcomes);
    expect(outcomes.map((row) => row.location)).toEqual(["recent"]);
    const jobs = await db.select({ note: serverJobs.lastError }).from(serverJobs).orderBy(asc(serverJobs.id));
    expect(jobs.map((row) => row.note)).toEqual(["recent failed", "old pending", "old running"]);
    const keys = await db.select({ key: idempotencyKeys.key }).from(idempotencyKeys);
    expect(keys.map((row) => row.key)).toEqual(["an hour old"]);

    expect(await pruneExpiredRows(db, clock, async () => undefined)).toEqual({
      jobs: 0,
      idempotencyKeys: 0,
      notificationEvents: 0,
      consoleSessions: 0,
      orderOutcomes: 0,
    });
  });

  it("deletes console sessions closed before their retention, never an open one however old", async () => {
    const clock = () => new Date("2026-09-01T00:00:00Z");
    const accountId = await createAccount(db);
    const server = await insertServer(db, accountId);
    const ago = (days: number) => new Date(clock().getTime() - days * DAY);
    const session = (note: string, requestedDaysAgo: number, closedDaysAgo: number | null) => ({
      accountId,
      serverId: server.id,
      ticketHash: `hash-${note}`,
      ticketExpiresAt: ago(requestedDaysAgo),
      requestedAt: ago(requestedDaysAgo),
      requestedFrom: "192.0.2.1",
      openedAt: ago(requestedDaysAgo),
      closedAt: closedDaysAgo === null ? null : ago(closedDaysAgo),
      closeReason: closedDaysAgo === null ? null : "ended",
    });
    const old = CONSOLE_SESSION_RETENTION_DAYS + 1;
    await db
      .insert(consoleSessions)
      .values([
        session("closed long ago", old, old),
        session("closed lately", old, CONSOLE_SESSION_RETENTION_DAYS - 1),
        session("still open", old, null),
      ]);
    const pruned = await pruneExpiredRows(db, clock, async () => undefined);
    expect(pruned.consoleSessions).toBe(1);
    const left = await db.select({ hash: consoleSessions.ticketHash }).from(consoleSessions);
    expect(left.map((row) => row.hash).sort()).toEqual(["hash-closed lately", "hash-still open"]);
  });
});
