import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, db } from "@/lib/db/client";
import { serverJobs } from "@/lib/db/schema";
import { bridgedHost, onBridgedHost } from "@/lib/testing/bridged-host";
import { scratchConfigEnv } from "@/lib/testing/memory-db";
import { runJobNow } from "./jobs";
import { presentServer } from "./present";

// The simulated provisioner (its destroy always succeeds) with one bridged host of two addresses.
const restoreEnv = scratchConfigEnv({
  HYPERVISORS: JSON.stringify([bridgedHost("qemu:///system", "203.0.113.11")]),
});

describe("a terminated server's address is released once its destroy has succeeded (real schema)", () => {
  let database: Database;
  beforeAll(async () => {
    database = await db();
  }, 120_000);
  afterAll(() => restoreEnv());

  it("holds the address through termination, shows none, and frees it when the machine is gone", async () => {
    const bridged = onBridgedHost(database);
    const first = await bridged.insert();
    expect(await bridged.reserve(first.id)).toBe("203.0.113.10");
    const terminated = await bridged.terminate(first.id);
    // The owner no longer has an address, but the machine still holds it.
    expect(presentServer(terminated, 7)).toMatchObject({ status: "terminated", ip: null, ssh_port: null });
    expect(terminated.ip).toBe("203.0.113.10");
    const [job] = await database
      .select()
      .from(serverJobs)
      .where(and(eq(serverJobs.serverId, first.id), eq(serverJobs.kind, "destroy")));
    if (!job) throw new Error("no destroy job");
    expect(await runJobNow(job.id, 5_000)).toBe(true);
    expect(await bridged.row(first.id)).toMatchObject({ status: "terminated", ip: null, sshPort: null });
    // Free again: the next server gets it.
    const second = await bridged.insert();
    expect(await bridged.reserve(second.id)).toBe("203.0.113.10");
  });
});
