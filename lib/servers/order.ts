import "server-only";
import { eq } from "drizzle-orm";
import { bindOrderedServer } from "@/lib/accounts/key-rights";
import { badRequest, conflict } from "@/lib/api/errors";
import type { CreateServerRequest, ServerCreated } from "@/lib/api/schemas/servers";
import { VALIDATION_MESSAGES } from "@/lib/api/validation-messages";
import { findLocation, findOs, findPlan, priceFor } from "@/lib/catalog/catalog";
import { config } from "@/lib/config/env";
import type { Database } from "@/lib/db/client";
import { heldOrderPayments, servers } from "@/lib/db/schema";
import { fingerprint, type StoredResponse, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import { now } from "@/lib/util/clock";
import { debit, lockFunds, type Payer } from "./billing";
import { serverSettings } from "./config";
import { addCycle } from "./cycle";
import { refuseOrderWhileSuspended } from "./holds";
import { defaultHostname, isValidHostname } from "./hostname";
import { enqueueJob, kickJobs } from "./jobs";
import { presentServerWithTraffic } from "./metrics/traffic";
import { placeServer, sizeFor } from "./placement";
import { provisioner, reserveForwardedPort } from "./provisioner";
import { encryptRootPassword, fingerprintedPassword, generateRootPassword } from "./secrets";
import { normalizeSshKeys } from "./ssh-keys";
import { checkUserData, userDataColumns } from "./user-data";

/**
 * An order's x402 payment, checked and held instead of a debit: recorded with the server, settled once the
 * server answers (lib/purchases/order.ts), never submitted if it is not built.
 */
export type HeldOrderPayment = Omit<
  typeof heldOrderPayments.$inferInsert,
  "id" | "serverId" | "accountId" | "state"
>;

/**
 * Orders a server: validates against the catalog, then in ONE transaction locks the account, checks the
 * balance, inserts the server, stores its encrypted password and debits the price with its ledger row (where
 * the paying key's spend cap is counted). The account lock serialises concurrent orders, and the balance
 * CHECK would refuse an overdraft anyway. A key limited to some servers may touch the one it ordered.
 * With `heldPayment` the balance is neither checked nor charged: the payment is held with the order instead.
 * `database` and `clock` default to the process ones; the job worker is kicked only for the process database.
 */
export async function orderServer(
  payer: Payer,
  request: CreateServerRequest,
  idempotencyKey: string | undefined,
  database?: Database,
  clock: () => Date = now,
  heldPayment?: HeldOrderPayment,
): Promise<StoredResponse> {
  const plan = findPlan(request.plan);
  const location = findLocation(request.location);
  if (!plan) throw badRequest("invalid_plan", `Unknown plan ${request.plan}.`);
  if (!location) throw badRequest("invalid_location", `Unknown location ${request.location}.`);
  if (request.hostname !== undefined && !isValidHostname(request.hostname)) {
    throw badRequest("invalid_hostname", VALIDATION_MESSAGES.invalid_hostname);
  }
  if (!findOs(request.os) || !provisioner().imageAvailable(request.os)) {
    throw conflict("os_unavailable", `${request.os} cannot be installed here right now; choose another OS.`);
  }
  const sshKeys = normalizeSshKeys(request.ssh_keys ?? []);
  if (request.user_data !== undefined) checkUserData(request.user_data);
  const priceCents = priceFor(plan, location, request.cycle);
  const settings = config();
  const size = sizeFor(plan);
  const { accountId, apiKeyId } = payer;
  const response = await withIdempotentTransaction(
    {
      accountId,
      operation: "POST /servers",
      key: idempotencyKey,
      // A chosen password enters the stored fingerprint only as a keyed hash, never guessable offline.
      fingerprint: fingerprint({
        ...request,
        root_password: fingerprintedPassword(settings.requestFingerprintKey, request.root_password),
        user_data: fingerprintedPassword(settings.requestFingerprintKey, request.user_data),
      }),
    },
    async (tx) => {
      // A suspended account hears that first, whatever its balance (a race is caught by enforceHolds).
      await refuseOrderWhileSuspended(tx, accountId);
      if (!heldPayment) await lockFunds(tx, accountId, priceCents);
      // Placed before anything is charged: no room (nor a forwarded port) means 409 and an unchanged balance.
      const hypervisor = await placeServer(tx, location.id, size);
      const forwarded = await reserveForwardedPort(tx, location.id, hypervisor);
      const created = clock();
      const [row] = await tx
        .insert(servers)
        .values({
          accountId,
          plan: plan.id,
          location: location.id,
          os: request.os,
          hostname: request.hostname?.toLowerCase() ?? defaultHostname(plan.id, location.id),
          cycle: request.cycle,
          autoRenew: request.auto_renew,
          priceCents,
          createdAt: created,
          expiresAt: addCycle(created, request.cycle),
          hypervisor: hypervisor ?? null,
          memoryMb: size.memoryMb,
          vcpus: size.vcpus,
          diskGb: size.diskGb,
          sshKeys: sshKeys.length > 0 ? JSON.stringify(sshKeys) : null,
          ...forwarded,
        })
        .returning();
      if (!row) throw new Error("server insert returned no row");
      // The simulated build takes PROVISION_DELAY_SECONDS; a real one starts at once.
      const delayMs = provisioner().simulated ? serverSettings().provisionDelaySeconds * 1000 : 0;
      await enqueueJob(tx, row.id, "provision", { runAfter: new Date(created.getTime() + delayMs) });
      if (heldPayment) {
        if (heldPayment.amountCents !== priceCents)
          throw new Error("the held payment is not the order's price");
        await tx
          .insert(heldOrderPayments)
          .values({ ...heldPayment, serverId: row.id, accountId, state: "held" });
      } else {
        await debit(tx, {
          accountId,
          apiKeyId,
          priceCents,
          kind: "order",
          reference: `order:server:${row.id}`,
        });
      }
      if (apiKeyId !== null && payer.boundToServers) await bindOrderedServer(tx, apiKeyId, row.id);
      const password = request.root_password ?? generateRootPassword();
      const [stored] = await tx
        .update(servers)
        .set({
          rootPasswordEnc: encryptRootPassword(settings.encryptionKey, row.id, password),
          ...userDataColumns(settings.encryptionKey, row.id, request.user_data),
        })
        .where(eq(servers.id, row.id))
        .returning();
      if (!stored) throw new Error("server update returned no row");
      // The stored (replayable) answer never holds the password: a replay omits it; /credentials has it.
      const body: ServerCreated = await presentServerWithTraffic(tx, stored);
      return {
        status: 201,
        body,
        unstored: request.root_password === undefined ? { root_password: password } : undefined,
      };
    },
    database,
  );
  if (database === undefined) kickJobs();
  return response;
}
