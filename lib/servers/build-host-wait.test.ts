import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, db } from "@/lib/db/client";
import { serverJobs, servers } from "@/lib/db/schema";
import { withFakeVirsh } from "@/lib/testing/fake-virsh";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  PUP_ORDER,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { advanceClock, now } from "@/lib/util/clock";
import { runJobNow } from "./jobs";
import { orderServer } from "./order";

// The real libvirt provisioner with a host that cannot be reached: its virsh says so as libvirt does over SSH.
// A stand-in, so every attempt fails the same way and at once (virsh.test.ts has the real one's silent
// SIGPIPE, which under load it sometimes ends with instead). The build waits for the host 60 s from the order.
const UNREACHABLE = "qemu+ssh://nobody@127.0.0.1:1/system?no_tty=1";
const UNREACHABLE_VIRSH = [
  "#!/bin/sh",
  'echo "error: failed to connect to the hypervisor" >&2',
  'echo "error: Cannot recv data: ssh: connect to host 127.0.0.1 port 1: Connection refused: Connection reset by peer" >&2',
  "exit 1",
];
const WAIT_SECONDS = 60;
const BUSINESS_DAY_AHEAD = 86_400;
const images = mkdtempSync(path.join(tmpdir(), "vps-images-"));
writeFileSync(path.join(images, "debian-13.qcow2"), "");
const restoreEnv = scratchConfigEnv({
  PROVISIONER: "libvirt",
  ALLOW_DEMO_LIBVIRT: "1",
  GUEST_IMAGES_DIR: images,
  BUILD_HOST_WAIT_SECONDS: String(WAIT_SECONDS),
  HYPERVISORS: JSON.stringify([
    { name: "nl-local", location: "nl", uri: UNREACHABLE, memory_mb: 8192, vcpus: 8, disk_gb: 200 },
  ]),
});

describe("a build whose host cannot be reached (real schema, unreachable host)", () => {
  let database: Database;
  beforeAll(async () => {
    database = await db();
  }, 120_000);
  afterAll(() => {
    advanceClock(-BUSINESS_DAY_AHEAD);
    restoreEnv();
  });

  it("keeps trying past its three attempts until the host wait ends, says until when, then is refunded in full", () =>
    withFakeVirsh(UNREACHABLE_VIRSH, async () => {
      // Business time a day ahead (tests move it; so may an operator's clock fix): the host's wait is counted
      // on the wall clock from the order all the same.
      advanceClock(BUSINESS_DAY_AHEAD);
      const accountId = await createFundedAccount(database, 10_000);
      const funded = await balanceAndLedgerSum(database, accountId);
      const orderedAtMs = Date.now();
      const ordered = await orderServer({ accountId, apiKeyId: null }, PUP_ORDER, "host-wait", database);
      const serverId = (ordered.body as { id: number }).id;
      expect((await balanceAndLedgerSum(database, accountId)).balance).toBeLessThan(funded.balance);
      const [job] = await database
        .select()
        .from(serverJobs)
        .where(and(eq(serverJobs.serverId, serverId), eq(serverJobs.kind, "provision")));
      if (!job) throw new Error("no build job");

      // Each wait for the next attempt passes at once: the job's times are moved back by it (its next run,
      // and its creation, which the host's wait counts from).
      const waits: number[] = [];
      /** Wall-clock seconds from the order to each wait's reading: the host's wait runs on meanwhile. */
      const elapsed: number[] = [];
      const reasons: string[] = [];
      for (let attempt = 1; attempt <= 10; attempt++) {
        const [row] = await database.select().from(serverJobs).where(eq(serverJobs.id, job.id));
        if (row?.state !== "pending") break;
        const ahead = (row.runAfter.getTime() - now().getTime()) / 1000;
        if (ahead > 0) {
          waits.push(ahead);
          elapsed.push((Date.now() - orderedAtMs) / 1000);
          await database
            .update(serverJobs)
            .set({
              runAfter: sql`${serverJobs.runAfter} - ${ahead} * interval '1 second'`,
              createdAt: sql`${serverJobs.createdAt} - ${ahead} * interval '1 second'`,
            })
            .where(eq(serverJobs.id, job.id));
        }
        await runJobNow(job.id, 200);
        const [server] = await database.select().from(servers).where(eq(servers.id, serverId));
        reasons.push(server?.statusReason ?? "");
      }

      // Backing off 5, 10 and 20 s, then the last try when the 60 s are up (25 s later, not 40): five attempts.
      const evidence = JSON.stringify({ waits, elapsed, reasons });
      expect(waits, evidence).toHaveLength(4);
      for (const [index, wait] of [5, 10, 20].entries()) {
        expect(waits[index], evidence).toBeGreaterThan(wait - 2);
        expect(waits[index], evidence).toBeLessThanOrEqual(wait);
      }
      // The last wait is what is left of the 60 s: less the waits skipped, and less the time the attempts took
      // on the wall clock (seconds on a busy machine), which the test cannot skip.
      const left = WAIT_SECONDS - (waits[0] ?? 0) - (waits[1] ?? 0) - (waits[2] ?? 0);
      expect(waits[3], evidence).toBeLessThanOrEqual(Math.min(left, WAIT_SECONDS - 35));
      expect(waits[3], evidence).toBeGreaterThan(left - (elapsed[3] ?? 0) - 0.05);
      const waiting = (attempt: number) =>
        new RegExp(
          `^Attempt ${attempt} to build it failed \\(the host could not be reached\\); the next starts at \\S+Z\\. ` +
            "Should the host still be unreachable at \\S+Z, the charge is refunded\\.$",
        );
      for (const [index, reason] of reasons.slice(0, 4).entries()) expect(reason).toMatch(waiting(index + 1));
      expect(reasons.at(-1)).toBe(
        "The build failed after 5 attempts (the host could not be reached); the charge was refunded.",
      );
      const [ended] = await database.select().from(servers).where(eq(servers.id, serverId));
      expect(ended?.status).toBe("terminated");
      expect(await balanceAndLedgerSum(database, accountId)).toEqual(funded);
    }));
});
