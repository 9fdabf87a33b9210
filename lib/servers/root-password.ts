import "server-only";
import { eq } from "drizzle-orm";
import { ApiError, conflict } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import { firstLine } from "@/lib/util/log";
import { refuseWhileBusy, withHostQuota } from "./host-operations";
import { finishRequestJob, startRequestJob } from "./jobs";
import type { ServerRow } from "./present";
import {
  GuestAgentUnavailableError,
  HostUnreachableError,
  PasswordUnconfirmedError,
  provisioner,
} from "./provisioner";
import { inRescue } from "./rescue";
import { lockServer } from "./rows";
import { encryptRootPassword, generateRootPassword } from "./secrets";

const notActive = (row: ServerRow) =>
  conflict("server_not_active", `This needs an active server; this one is ${row.status}.`);

/** Longer than openssl and virsh may take together (60 s each): a change still running is never taken over. */
const PASSWORD_LEASE_MS = 3 * 60_000;

/** What the customer is told when the machine did not take the password; the host's words go to the log. */
function passwordRefusal(error: unknown): ApiError | undefined {
  if (error instanceof GuestAgentUnavailableError) {
    return conflict(
      "guest_agent_unavailable",
      "The server's guest agent did not take the password (the machine is not running, or its agent does not " +
        "answer); the old one still works. Reinstall to choose a new one.",
    );
  }
  if (error instanceof HostUnreachableError) {
    return new ApiError(
      503,
      "host_unreachable",
      "The server's host cannot be reached right now; the password was not changed. Retry shortly.",
      {},
      { "Retry-After": "30" },
    );
  }
  if (error instanceof PasswordUnconfirmedError) {
    return new ApiError(
      502,
      "password_unconfirmed",
      "The host did not confirm the new password, so the server may have either the old or the new one; " +
        "/credentials keeps the old one. Set a password again to be sure which one works.",
    );
  }
  return undefined;
}

/**
 * Sets a new root password on the running machine through its guest agent, then stores it for /credentials.
 * While the host call runs (no transaction open across it) the change is recorded as the server's job in
 * flight, so other host operations on the server wait for it. A stopped machine or one without an agent is
 * 409 and keeps its password; a change the host did not confirm is 502 password_unconfirmed and stores
 * nothing, so the answer and /credentials agree; a confirmed change is always stored and returned.
 */
export function changeRootPassword(
  accountId: number,
  serverId: number,
  requested: string | undefined,
): Promise<{ username: "root"; password: string }> {
  return withHostQuota(accountId, async () => {
    const database = await db();
    const { row, jobId } = await database.transaction(async (tx) => {
      const locked = await lockServer(tx, serverId, { ownedBy: accountId });
      if (locked.status !== "active") throw notActive(locked);
      if (locked.rescueState) throw inRescue();
      if (locked.powerState !== "running") {
        throw conflict("guest_agent_unavailable", "The server is stopped: start it, then set its password.");
      }
      await refuseWhileBusy(tx, locked.id);
      return { row: locked, jobId: await startRequestJob(tx, locked.id, "password", PASSWORD_LEASE_MS) };
    });
    const password = requested ?? generateRootPassword();
    try {
      await provisioner().setRootPassword(row, password);
    } catch (error) {
      const detail = firstLine(error);
      console.error(`server ${row.id}: root password change failed: ${detail}`);
      await database.transaction((tx) => finishRequestJob(tx, jobId, "failed", detail));
      throw passwordRefusal(error) ?? error;
    }
    const terminated = await database.transaction(async (tx) => {
      const locked = await lockServer(tx, serverId, { ownedBy: accountId });
      await finishRequestJob(tx, jobId, "done");
      // Terminated meanwhile: its credentials went with it.
      if (locked.status === "terminated") return locked;
      await tx
        .update(servers)
        .set({ rootPasswordEnc: encryptRootPassword(config().encryptionKey, row.id, password) })
        .where(eq(servers.id, row.id));
      return undefined;
    });
    if (terminated) throw notActive(terminated);
    return { username: "root", password };
  });
}
