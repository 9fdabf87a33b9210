import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, db } from "@/lib/db/client";
import { serverJobs } from "@/lib/db/schema";
import { bridgedHost, onBridgedHost } from "@/lib/testing/bridged-host";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  PUP_ORDER,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { runJobNow } from "./jobs";
import { orderServer } from "./order";

// The real libvirt provisioner with hosts nothing answers for (port 1 of this machine): every destroy fails.
// One host is bridged with a pool of three addresses; the other forwards SSH from a range of two ports.
const UNREACHABLE = "qemu+ssh://nobody@127.0.0.1:1/system?no_tty=1";
const images = mkdtempSync(path.join(tmpdir(), "vps-images-"));
writeFileSync(path.join(images, "debian-13.qcow2"), "");
const restoreEnv = scratchConfigEnv({
  PROVISIONER: "libvirt",
  ALLOW_DEMO_LIBVIRT: "1",
  GUEST_IMAGES_DIR: images,
  SSH_FORWARD_PORT_BASE: "30000",
  SSH_FORWARD_PORT_COUNT: "2",
  HYPERVISORS: JSON.stringify([
    bridgedHost(UNREACHABLE, "203.0.113.12"),
    { name: "nl-local", location: "nl", uri: UNREACHABLE, memory_mb: 8192, vcpus: 8, disk_gb: 200 },
  ]),
});

describe("addresses and forwarded ports stay held until the machine is destroyed (real schema, failing host)", () => {
  let database: Database;
  let bridged: ReturnType<typeof onBridgedHost>;
  beforeAll(async () => {
    database = await db();
    bridged = onBridgedHost(database);
  }, 120_000);
  afterAll(() => restoreEnv());

  /**
   * Runs a terminated server's jobs in order: a queued build gives up on seeing the termination, then the
   * destroy fails once (the host cannot be reached) and waits for its retry.
   */
  async function failingDestroy(serverId: number) {
    const jobs = await database
      .select()
      .from(serverJobs)
      .where(eq(serverJobs.serverId, serverId))
      .orderBy(asc(serverJobs.id));
    for (const build of jobs.filter((job) => job.kind === "provision")) {
      expect(await runJobNow(build.id, 1_000)).toBe(true);
    }
    const job = jobs.find((candidate) => candidate.kind === "destroy");
    if (!job) throw new Error("no destroy job");
    expect(await runJobNow(job.id, 1_000)).toBe(false);
    const [after] = await database.select().from(serverJobs).where(eq(serverJobs.id, job.id));
    expect(after).toMatchObject({ state: "pending", attempts: 1 });
    expect(after?.lastError).toBeTruthy();
  }

  it("does not hand out a terminated server's address while its destroy has not succeeded", async () => {
    const first = await bridged.insert();
    expect(await bridged.reserve(first.id)).toBe("203.0.113.10");
    await bridged.terminate(first.id);
    // Its machine may still run and answer on .10: the next server gets .11.
    const second = await bridged.insert();
    expect(await bridged.reserve(second.id)).toBe("203.0.113.11");
    expect((await bridged.row(first.id)).ip).toBe("203.0.113.10");

    // The destroy fails (the host is unreachable): .10 stays held.
    await failingDestroy(first.id);
    expect((await bridged.row(first.id)).ip).toBe("203.0.113.10");
    const third = await bridged.insert();
    expect(await bridged.reserve(third.id)).toBe("203.0.113.12");
    const fourth = await bridged.insert();
    await expect(bridged.reserve(fourth.id)).rejects.toThrow(/pool of host ro-bridged is exhausted/);
  });

  it("reserves a forwarded port with the order, refuses before charging when none is free, and keeps a terminated server's", async () => {
    const accountId = await createFundedAccount(database, 10_000);
    const order = (key: string) => orderServer({ accountId, apiKeyId: null }, PUP_ORDER, key, database);
    const first = await order("port-1");
    const second = await order("port-2");
    expect(first.body).toMatchObject({ status: "provisioning", ip: "127.0.0.1", ssh_port: 30000 });
    expect(second.body).toMatchObject({ ip: "127.0.0.1", ssh_port: 30001 });
    const charged = await balanceAndLedgerSum(database, accountId);

    const full = { status: 409, code: "out_of_capacity" };
    await expect(order("port-3")).rejects.toMatchObject(full);
    expect(await balanceAndLedgerSum(database, accountId)).toEqual(charged);

    // Terminated, but its machine (and the forward on 127.0.0.1:30000) may still exist: still no port.
    const firstId = (first.body as { id: number }).id;
    await bridged.terminate(firstId);
    await expect(order("port-4")).rejects.toMatchObject(full);
    await failingDestroy(firstId);
    expect(await bridged.row(firstId)).toMatchObject({ ip: "127.0.0.1", sshPort: 30000 });
    await expect(order("port-5")).rejects.toMatchObject(full);
    expect(await balanceAndLedgerSum(database, accountId)).toEqual(charged);
  });
});
