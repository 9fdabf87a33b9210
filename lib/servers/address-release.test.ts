import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config } from "@/lib/config/env";
import { type Database, db } from "@/lib/db/client";
import { serverJobs, servers } from "@/lib/db/schema";
import { createFundedAccount, insertServer, scratchConfigEnv } from "@/lib/testing/memory-db";
import { runJobNow } from "./jobs";
import { presentServer } from "./present";
import { reserveHostAddress } from "./provisioner";
import { terminateInTx } from "./service";

// The simulated provisioner (its destroy always succeeds) with one bridged host of two addresses.
const restoreEnv = scratchConfigEnv({
  HYPERVISORS: JSON.stringify([
    {
      name: "ro-bridged",
      location: "ro",
      uri: "qemu:///system",
      memory_mb: 8192,
      vcpus: 8,
      disk_gb: 200,
      bridge: "br-test",
      ipv4_pool: "203.0.113.10-203.0.113.11",
      ipv4_prefix: 24,
      ipv4_gateway: "203.0.113.1",
    },
  ]),
});

describe("a terminated server's address is released once its destroy has succeeded (real schema)", () => {
  let database: Database;
  beforeAll(async () => {
    database = await db();
  }, 120_000);
  afterAll(() => restoreEnv());

  const row = async (id: number) => {
    const [found] = await database.select().from(servers).where(eq(servers.id, id));
    if (!found) throw new Error(`no server ${id}`);
    return found;
  };

  it("holds the address through termination, shows none, and frees it when the machine is gone", async () => {
    const network = config().servers.hypervisors[0]?.network;
    if (!network) throw new Error("ro-bridged has no network");
    const accountId = await createFundedAccount(database, 10_000);
    const onBridge = () => insertServer(database, accountId, { location: "ro", hypervisor: "ro-bridged" });
    const reserve = async (id: number) => {
      const found = await row(id);
      return database.transaction((tx) => reserveHostAddress(tx, found, network));
    };

    const first = await onBridge();
    expect(await reserve(first.id)).toBe("203.0.113.10");
    const reserved = await row(first.id);
    const terminated = await database.transaction((tx) => terminateInTx(tx, reserved));
    // The owner no longer has an address, but the machine still holds it.
    expect(presentServer(terminated, 7)).toMatchObject({ status: "terminated", ip: null, ssh_port: null });
    expect(terminated.ip).toBe("203.0.113.10");
    const [job] = await database
      .select()
      .from(serverJobs)
      .where(and(eq(serverJobs.serverId, first.id), eq(serverJobs.kind, "destroy")));
    if (!job) throw new Error("no destroy job");
    expect(await runJobNow(job.id, 5_000)).toBe(true);
    expect(await row(first.id)).toMatchObject({ status: "terminated", ip: null, sshPort: null });
    // Free again: the next server gets it.
    const second = await onBridge();
    expect(await reserve(second.id)).toBe("203.0.113.10");
  });
});
