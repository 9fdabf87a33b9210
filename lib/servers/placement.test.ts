import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { snapshots } from "@/lib/db/schema";
import { createAccount, insertServer, openMemoryDatabase, scratchConfigEnv } from "@/lib/testing/memory-db";
import { placeServer, reserveOnHost } from "./placement";

// One host in nl with 30 GB of disk (and plenty of memory and CPUs), under the simulated provisioner.
const restoreEnv = scratchConfigEnv({
  HYPERVISORS: JSON.stringify([
    { name: "nl-1", location: "nl", uri: "qemu:///system", memory_mb: 65536, vcpus: 32, disk_gb: 30 },
  ]),
});

const GIB = 1_073_741_824;
const disk = (diskGb: number) => ({ memoryMb: 0, vcpus: 0, diskGb });

describe("a host's disk holds its servers and their snapshots", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => {
    await close();
    restoreEnv();
  });

  it("counts taken snapshots by their measured size, ones being taken by their reservation, failed ones not at all", async () => {
    const accountId = await createAccount(db);
    const server = await insertServer(db, accountId, { status: "active", hypervisor: "nl-1", diskGb: 10 });
    const snapshot = { serverId: server.id, os: "debian-13", hypervisor: "nl-1" };
    await db.insert(snapshots).values([
      // 6 GiB and a byte, and 10 GB reserved while being copied: 17 GB together (rounded up once).
      { ...snapshot, name: "a", kind: "manual", state: "available", sizeBytes: 6 * GIB + 1 },
      { ...snapshot, name: "b", kind: "reinstall", state: "creating", reservedGb: 10 },
      { ...snapshot, name: "c", kind: "manual", state: "failed", reservedGb: 0 },
      // Another host's snapshot takes nothing here.
      { ...snapshot, name: "d", kind: "manual", state: "available", sizeBytes: 20 * GIB, hypervisor: "nl-2" },
    ]);

    // 10 (server) + 17 (snapshots) of 30: room for 3 GB more, not 4.
    await db.transaction(async (tx) => {
      expect(await placeServer(tx, "nl", disk(3))).toBe("nl-1");
      await expect(placeServer(tx, "nl", disk(4))).rejects.toMatchObject({ code: "out_of_capacity" });
      await reserveOnHost(tx, "nl-1", disk(3), "no room");
      await expect(reserveOnHost(tx, "nl-1", disk(4), "no room for a copy")).rejects.toMatchObject({
        status: 409,
        code: "out_of_capacity",
        message: "no room for a copy",
      });
      // What the same step frees (a kept disk becoming the server's own again) is room.
      await reserveOnHost(tx, "nl-1", disk(9), "no room", 6 * GIB + 1);
      // A server without a configured host (simulated) needs no room.
      await reserveOnHost(tx, null, disk(1000), "no room");
    });
  });
});
