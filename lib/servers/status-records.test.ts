import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Database, db } from "@/lib/db/client";
import { hypervisors, orderOutcomes, serverJobs, servers } from "@/lib/db/schema";
import { createFundedAccount, PUP_ORDER, scratchConfigEnv } from "@/lib/testing/memory-db";
import { endFailedBuild } from "./billing";
import { serverSettings } from "./config";
import { READING_REWRITE_MS, recordHostReading } from "./host-readings";
import { enqueueJob, runJobNow } from "./jobs";
import { orderServer } from "./order";

// The simulated provisioner building at once, on the process database in a scratch DATA_DIR; one host
// configured (nothing reads it here: its readings are recorded by hand).
const restoreEnv = scratchConfigEnv({
  PROVISION_DELAY_SECONDS: "0",
  HYPERVISORS: JSON.stringify([
    { name: "nl-status", location: "nl", uri: "qemu:///system", memory_mb: 8192, vcpus: 8, disk_gb: 200 },
  ]),
});

describe("what the servers record for the status page (real schema)", () => {
  let database: Database;
  beforeAll(async () => {
    database = await db();
  }, 120_000);
  afterAll(() => restoreEnv());

  async function order(os: string) {
    const accountId = await createFundedAccount(database, 10_000);
    const created = await orderServer({ accountId, apiKeyId: null }, { ...PUP_ORDER, os }, undefined);
    const id = (created.body as { id: number }).id;
    const [job] = await database.select().from(serverJobs).where(eq(serverJobs.serverId, id));
    if (!job) throw new Error("no provision job");
    const [server] = await database.select().from(servers).where(eq(servers.id, id));
    if (!server) throw new Error("no server");
    return { job, server };
  }

  const outcomesOf = (os: string) =>
    database
      .select({
        location: orderOutcomes.location,
        orderedAt: orderOutcomes.orderedAt,
        succeeded: orderOutcomes.succeeded,
        sshAnsweredAt: orderOutcomes.sshAnsweredAt,
      })
      .from(orderOutcomes)
      .where(eq(orderOutcomes.os, os));

  it("an order's build that ends active leaves one outcome: where, what and when it was ordered, no SSH on a simulated machine", async () => {
    const { job, server } = await order("debian-12");
    expect(await runJobNow(job.id, 10_000)).toBe(true);
    expect(await outcomesOf("debian-12")).toEqual([
      { location: "nl", orderedAt: server.createdAt, succeeded: true, sshAnsweredAt: null },
    ]);
    // The server's later builds (a reinstall) are not orders: nothing more is recorded.
    await database.update(servers).set({ status: "provisioning" }).where(eq(servers.id, server.id));
    const reinstall = await database.transaction((tx) => enqueueJob(tx, server.id, "reinstall"));
    expect(await runJobNow(reinstall, 10_000)).toBe(true);
    const [after] = await database.select().from(servers).where(eq(servers.id, server.id));
    expect(after?.status).toBe("active");
    expect(await outcomesOf("debian-12")).toHaveLength(1);
  });

  it("an order's build that fails for good leaves a failed outcome", async () => {
    const { job, server } = await order("almalinux-9");
    await database.transaction((tx) => endFailedBuild(tx, { ...job, attempts: 3 }, "the host refused"));
    expect(await outcomesOf("almalinux-9")).toEqual([
      { location: "nl", orderedAt: server.createdAt, succeeded: false, sshAnsweredAt: null },
    ]);
  });

  it("a host's readings: answered, then failing since the first failure, written again only when they change or age", async () => {
    const [host] = serverSettings().hypervisors;
    if (!host) throw new Error("no host configured");
    const reading = async () => {
      const [row] = await database
        .select({ readAt: hypervisors.readAt, failingSince: hypervisors.failingSince })
        .from(hypervisors)
        .where(eq(hypervisors.name, host.name));
      return row;
    };
    const t0 = new Date("2026-06-01T10:00:00Z");
    const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
    await recordHostReading(host, true, at(0));
    expect(await reading()).toEqual({ readAt: at(0), failingSince: null });
    // The same news within READING_REWRITE_MS is not written again.
    await recordHostReading(host, true, at(5));
    expect(await reading()).toEqual({ readAt: at(0), failingSince: null });
    await recordHostReading(host, false, at(10));
    vi.useFakeTimers({ now: Date.now() + READING_REWRITE_MS + 1, toFake: ["Date"] });
    try {
      // Failing on: the first failure stands.
      await recordHostReading(host, false, at(50));
      expect(await reading()).toEqual({ readAt: at(0), failingSince: at(10) });
    } finally {
      vi.useRealTimers();
    }
    await recordHostReading(host, true, at(60));
    expect(await reading()).toEqual({ readAt: at(60), failingSince: null });
  });
});
