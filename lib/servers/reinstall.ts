import "server-only";
import { eq } from "drizzle-orm";
import type { ReinstallServerRequest } from "@/lib/api/schemas/server-machine";
import type { ServerCreated } from "@/lib/api/schemas/servers";
import { config } from "@/lib/config/env";
import { servers } from "@/lib/db/schema";
import { fingerprint, type StoredResponse, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import { now } from "@/lib/util/clock";
import { serverSettings } from "./config";
import { refuseWhileBusy, withHostQuota } from "./host-operations";
import { enqueueJob, kickJobs } from "./jobs";
import { presentServerWithTraffic } from "./metrics/traffic";
import { provisioner } from "./provisioner";
import { checkReinstall } from "./reinstall-rules";
import { inRescue } from "./rescue";
import { lockServer } from "./rows";
import { encryptRootPassword, fingerprintedPassword, generateRootPassword } from "./secrets";
import { recordSnapshot } from "./snapshots/requests";
import { normalizeSshKeys } from "./ssh-keys";
import { checkUserData, userDataColumns } from "./user-data";

/**
 * Reinstalls a server: in one transaction the request is checked, the new OS, password and keys are
 * recorded, the server turns `provisioning` and a reinstall job is queued; the worker then (unless told not
 * to) shuts the machine down and keeps its disk as a snapshot, and wipes the disk (a new overlay on the OS's
 * base image, a new seed and host key) with no transaction open. Id, address, plan and paid period stay.
 * With an Idempotency-Key a retry queues nothing more.
 */
export function reinstallServer(
  accountId: number,
  serverId: number,
  request: ReinstallServerRequest,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const sshKeys = request.ssh_keys === undefined ? undefined : normalizeSshKeys(request.ssh_keys);
  if (request.user_data !== undefined) checkUserData(request.user_data);
  return withHostQuota(accountId, () =>
    reinstallWithinQuota(accountId, serverId, request, sshKeys, idempotencyKey),
  );
}

async function reinstallWithinQuota(
  accountId: number,
  serverId: number,
  request: ReinstallServerRequest,
  sshKeys: string[] | undefined,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const settings = config();
  const response = await withIdempotentTransaction(
    {
      accountId,
      operation: `POST /servers/${serverId}/reinstall`,
      key: idempotencyKey,
      fingerprint: fingerprint({
        ...request,
        root_password: fingerprintedPassword(settings.requestFingerprintKey, request.root_password),
        user_data: fingerprintedPassword(settings.requestFingerprintKey, request.user_data),
      }),
    },
    async (tx) => {
      const row = await lockServer(tx, serverId, { ownedBy: accountId });
      const os = checkReinstall(row, request, (id) => provisioner().imageAvailable(id));
      if (row.rescueState) throw inRescue();
      await refuseWhileBusy(tx, row.id);
      const snapshot = request.snapshot_first ? await recordSnapshot(tx, row, "reinstall") : undefined;
      const password = request.root_password ?? generateRootPassword();
      const [updated] = await tx
        .update(servers)
        .set({
          os,
          status: "provisioning",
          powerState: null,
          sshHostKeyFingerprint: null,
          statusReason: `Reinstalling ${os}: the disk is being wiped.`,
          rootPasswordEnc: encryptRootPassword(settings.encryptionKey, row.id, password),
          ...userDataColumns(settings.encryptionKey, row.id, request.user_data),
          ...(sshKeys === undefined ? {} : { sshKeys: sshKeys.length > 0 ? JSON.stringify(sshKeys) : null }),
        })
        .where(eq(servers.id, row.id))
        .returning();
      if (!updated) throw new Error("server update returned no row");
      const delayMs = provisioner().simulated ? serverSettings().provisionDelaySeconds * 1000 : 0;
      await enqueueJob(tx, row.id, "reinstall", {
        runAfter: new Date(now().getTime() + delayMs),
        snapshotId: snapshot?.id,
      });
      const body: ServerCreated = await presentServerWithTraffic(tx, updated);
      return {
        status: 202,
        body,
        unstored: request.root_password === undefined ? { root_password: password } : undefined,
      };
    },
  );
  kickJobs();
  return response;
}
