import "server-only";
import type { Traffic } from "@/lib/api/schemas/metrics";
import type { Server } from "@/lib/api/schemas/servers";
import type { servers } from "@/lib/db/schema";
import { centsToUsd } from "@/lib/util/cents";
import { serverIpv6Address } from "./network/addresses";

export type ServerRow = typeof servers.$inferSelect;

export function presentServer(
  row: ServerRow,
  graceDays: number,
  provisioner: Server["provisioner"] = "simulated",
  traffic: Traffic | null = null,
): Server {
  // Held by the operator with its period paused, it runs out at no date until the hold ends (holds.ts).
  const paused = row.heldSince !== null && row.heldPausesPeriod === true;
  const terminatesAt =
    row.status === "suspended" && !paused
      ? new Date(row.expiresAt.getTime() + graceDays * 86_400_000).toISOString()
      : null;
  return {
    id: row.id,
    plan: row.plan,
    location: row.location,
    os: row.os,
    hostname: row.hostname,
    cycle: row.cycle,
    price_usd: centsToUsd(row.priceCents),
    status: row.status,
    // A terminated server's address stays held until its machine is destroyed, but is no longer its own.
    ip: row.status === "terminated" ? null : row.ip,
    ipv6: row.status === "terminated" || !row.ipv6Prefix ? null : serverIpv6Address(row.ipv6Prefix),
    ipv6_prefix: row.status === "terminated" ? null : row.ipv6Prefix,
    ssh_port: row.ip && row.status !== "terminated" ? (row.sshPort ?? 22) : null,
    ssh_host_key_fingerprint: row.sshHostKeyFingerprint,
    username: "root",
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    auto_renew: row.autoRenew,
    power_state: row.powerState,
    suspended_at: row.suspendedAt?.toISOString() ?? null,
    terminates_at: terminatesAt,
    terminated_at: row.status === "terminated" ? (row.terminatedAt?.toISOString() ?? null) : null,
    retained_until: row.status === "terminated" ? (row.retainedUntil?.toISOString() ?? null) : null,
    rescue: row.rescueState
      ? {
          state: row.rescueState,
          since: row.rescueSince?.toISOString() ?? row.createdAt.toISOString(),
          ssh_host_key_fingerprint: row.rescueHostKeyFingerprint,
        }
      : null,
    status_reason: row.statusReason,
    hold: row.heldSince
      ? { reason: row.heldReason ?? "", since: row.heldSince.toISOString(), period_paused: paused }
      : null,
    memory_mb: row.memoryMb,
    vcpus: row.vcpus,
    disk_gb: row.diskGb,
    ssh_keys: row.sshKeys ? (JSON.parse(row.sshKeys) as string[]).length : 0,
    provisioner,
    traffic,
    user_data:
      row.userDataSha256 && row.userDataBytes !== null
        ? { sha256: row.userDataSha256, size_bytes: row.userDataBytes }
        : null,
  };
}
