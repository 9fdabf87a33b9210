import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config } from "@/lib/config/env";
import { type Database, db } from "@/lib/db/client";
import { serverJobs, servers } from "@/lib/db/schema";
import type { CreateServerRequest } from "@/lib/schemas/servers";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  insertServer,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { runJobNow } from "./jobs";
import { reserveHostAddress } from "./provisioner";
import { orderServer, terminateInTx } from "./service";

// The real libvirt provisioner with hosts nothing answers for (port 1 of this machine): every destroy fails.
// One host is bridged with a pool of three addresses; the other forwards SSH from a range of two ports.
const UNREACHABLE = "qemu+ssh://nobody@127.0.0.1:1/system?no_tty=1";
const images = mkdtempSync(path.join(tmpdir(), "vps-images-"));
writeFileSync(path.join(images, "debian-13.qcow2"), "");
const restoreEnv = scratchConfigEnv({
  PROVISIONER: "libvirt",
  GUEST_IMAGES_DIR: images,
  SSH_FORWARD_PORT_BASE: "30000",
  SSH_FORWARD_PORT_COUNT: "2",
  HYPERVISORS: JSON.stringify([
    {
      name: "ro-bridged",
      location: "ro",
      uri: UNREACHABLE,
      memory_mb: 8192,
      vcpus: 8,
      disk_gb: 200,
      bridge: "br-test",
      ipv4_pool: "203.0.113.10-203.0.113.12",
      ipv4_prefix: 24,
      ipv4_gateway: "203.0.113.1",
    },
    { name: "nl-local", location: "nl", uri: UNREACHABLE, memory_mb: 8192, vcpus: 8, disk_gb: 200 },
  ]),
});

describe("addresses and forwarded ports stay held until the machine is destroyed (real schema, failing host)", () => {
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
  // PGlite has one connection: rows are read before a transaction, never beside it.
  const terminate = async (id: number) => {
    const found = await row(id);
    return database.transaction((tx) => terminateInTx(tx, found));
  };
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
    await terminate(first.id);
    // Its machine may still run and answer on .10: the next server gets .11.
    const second = await onBridge();
    expect(await reserve(second.id)).toBe("203.0.113.11");
    expect((await row(first.id)).ip).toBe("203.0.113.10");

    // The destroy fails (the host is unreachable): .10 stays held.
    await failingDestroy(first.id);
    expect((await row(first.id)).ip).toBe("203.0.113.10");
    const third = await onBridge();
    expect(await reserve(third.id)).toBe("203.0.113.12");
    const fourth = await onBridge();
    await expect(reserve(fourth.id)).rejects.toThrow(/pool of host ro-bridged is exhausted/);
  });

  it("reserves a forwarded port with the order, refuses before charging when none is free, and keeps a terminated server's", async () => {
    const accountId = await createFundedAccount(database, 10_000);
    const request: CreateServerRequest = {
      plan: "pup",
      location: "nl",
      os: "debian-13",
      cycle: "monthly",
      auto_renew: false,
    };
    const order = (key: string) => orderServer(accountId, request, key, database);
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
    await terminate(firstId);
    await expect(order("port-4")).rejects.toMatchObject(full);
    await failingDestroy(firstId);
    expect(await row(firstId)).toMatchObject({ ip: "127.0.0.1", sshPort: 30000 });
    await expect(order("port-5")).rejects.toMatchObject(full);
    expect(await balanceAndLedgerSum(database, accountId)).toEqual(charged);
  });
});
