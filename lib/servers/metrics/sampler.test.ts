import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { createAccount, insertServer, scratchConfigEnv } from "@/lib/testing/memory-db";
import { runMetricsPass } from "./sampler";
import type { UsageSource } from "./source";

// config() is read on first use: the process database is an embedded one in a scratch DATA_DIR.
const restoreEnv = scratchConfigEnv({ METRICS_INTERVAL_SECONDS: "60" });

/**
 * What makes one app instance: its id (the lease owner) and when it next samples each host. Both are
 * process-wide, so two instances in this one process take turns holding them.
 */
type Instance = { id: string; nextAt: Map<string, number> };
const newInstance = (id: string): Instance => ({ id, nextAt: new Map() });
const holder = globalThis as unknown as Record<symbol, unknown>;
function becoming(instance: Instance) {
  holder[Symbol.for("vps.instance.id")] = instance.id;
  holder[Symbol.for("vps.metrics.next")] = instance.nextAt;
}

/** A host `hv-1` whose every reading is counted. */
const reads: number[] = [];
const countingSource: UsageSource = {
  demo: false,
  hosts: () => ["hv-1"],
  onHost: (server, host) => server.hypervisor === host,
  read: async (_host, sampled) => {
    reads.push(Date.now());
    const cpuMs = reads.length * 1_000;
    const counters = { cpuMs, rxBytes: 1, txBytes: 1, readBytes: 1, writeBytes: 1, memoryUsedKib: undefined };
    return new Map(sampled.map((server) => [server.id, { running: true, counters }]));
  },
  setSlowdown: async () => true,
};

describe("usage sampling under a lease per host", () => {
  const saved = [
    Symbol.for("vps.instance.id"),
    Symbol.for("vps.metrics.next"),
    Symbol.for("vps.metrics.source"),
  ];
  const before = saved.map((key) => holder[key]);
  beforeAll(async () => {
    holder[Symbol.for("vps.metrics.source")] = countingSource;
    const database = await db();
    await insertServer(database, await createAccount(database), {
      status: "active",
      powerState: "running",
      hypervisor: "hv-1",
    });
  }, 120_000);
  afterAll(() => {
    saved.forEach((key, i) => {
      holder[key] = before[i];
    });
    restoreEnv();
  });

  it("two instances that both find the host due read it once; the other takes over when the holder is gone", async () => {
    const a = newInstance("instance-a");
    const b = newInstance("instance-b");
    /** Both instances start a pass at once, as two processes whose intervals came round together. */
    const together = async () => {
      becoming(a);
      const first = runMetricsPass();
      becoming(b);
      const second = runMetricsPass();
      await Promise.all([first, second]);
    };
    const leaseOwner = async () => {
      const result = (await (
        await db()
      ).execute(sql`SELECT lease_owner FROM chain_cursors WHERE network = 'metrics:hv-1'`)) as unknown as {
        rows: { lease_owner: string }[];
      };
      return result.rows[0]?.lease_owner;
    };

    await together();
    expect(reads).toHaveLength(1);
    const owner = await leaseOwner();
    expect([a.id, b.id]).toContain(owner);

    // The next interval: both are due again; the holder renews its lease and reads, the other does not.
    a.nextAt.clear();
    b.nextAt.clear();
    await together();
    expect(reads).toHaveLength(2);
    expect(await leaseOwner()).toBe(owner);

    // The holder dies: its lease runs out, and the other instance reads the host from its next interval on.
    await (await db()).execute(
      sql`UPDATE chain_cursors SET lease_until = now() - interval '1 second' WHERE network = 'metrics:hv-1'`,
    );
    const other = owner === a.id ? b : a;
    other.nextAt.clear();
    becoming(other);
    await runMetricsPass();
    expect(reads).toHaveLength(3);
    expect(await leaseOwner()).toBe(other.id);
    // The server's last reading is the third: each reading was recorded once.
    const state = (await (await db()).execute(sql`SELECT cpu_ms FROM server_metric_state`)) as unknown as {
      rows: { cpu_ms: number | string }[];
    };
    expect(state.rows.map((row) => Number(row.cpu_ms))).toEqual([3_000]);
  }, 60_000);
});
