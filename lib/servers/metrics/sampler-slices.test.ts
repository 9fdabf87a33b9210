import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, rowsOf } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import { createAccount, scratchConfigEnv } from "@/lib/testing/memory-db";
import { SAMPLE_SLICE, sampleHost } from "./sampler";
import type { UsageSource } from "./source";

const restoreEnv = scratchConfigEnv({ METRICS_INTERVAL_SECONDS: "60" });

/** More servers than one page of the listing (500) and several recording slices (200). */
const SERVERS = 1_234;

/** A host `hv-big` whose readings are counted, with every machine running. */
const hostReads: number[] = [];
const source: UsageSource = {
  demo: false,
  hosts: () => ["hv-big"],
  onHost: (server, host) => server.hypervisor === host,
  read: async (_host, sampled) => {
    hostReads.push(sampled.length);
    const counters = {
      cpuMs: 5_000,
      rxBytes: 10,
      txBytes: 20,
      readBytes: 30,
      writeBytes: 40,
      memoryUsedKib: 1,
    };
    return new Map(sampled.map((server) => [server.id, { running: true, counters }]));
  },
  setSlowdown: async () => true,
};

describe("sampling a host of thousands of servers", () => {
  beforeAll(async () => {
    const database = await db();
    const accountId = await createAccount(database);
    await database.insert(servers).values(
      Array.from({ length: SERVERS }, (_, index) => ({
        accountId,
        plan: "pup",
        location: "nl",
        os: "debian-13",
        hostname: `big-${index}`,
        cycle: "monthly" as const,
        priceCents: 400,
        expiresAt: new Date(Date.now() + 30 * 86_400_000),
        status: "active" as const,
        powerState: "running" as const,
        hypervisor: "hv-big",
      })),
    );
  }, 120_000);
  afterAll(() => restoreEnv());

  it("reads the host once, records every server, and gives way between pages and slices", async () => {
    let pauses = 0;
    const outcome = await sampleHost(
      await db(),
      source,
      "hv-big",
      { metricsIntervalSeconds: 60, trafficCapMb: 0 },
      () => new Date(),
      async () => {
        pauses += 1;
      },
    );
    expect(outcome).toEqual({ servers: SERVERS, readings: SERVERS });
    expect(hostReads).toEqual([SERVERS]);
    const [recorded] = rowsOf<{ n: number }>(
      await (await db()).execute(sql`SELECT count(*)::int AS n FROM server_metric_state`),
    );
    expect(recorded?.n).toBe(SERVERS);
    // Two pauses between the three pages of the listing, one after each recorded slice.
    expect(pauses).toBe(2 + Math.ceil(SERVERS / SAMPLE_SLICE));
  }, 120_000);
});
