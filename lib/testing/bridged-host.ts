import { eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import { terminateInTx } from "@/lib/servers/billing";
import { serverSettings } from "@/lib/servers/config";
import { reserveHostAddress } from "@/lib/servers/provisioner";
import { createFundedAccount, insertServer } from "./memory-db";

/** A bridged host in ro, as HYPERVISORS names it, handing out 203.0.113.10 up to `last`. */
export const bridgedHost = (uri: string, last: string) => ({
  name: "ro-bridged",
  location: "ro",
  uri,
  memory_mb: 8192,
  vcpus: 8,
  disk_gb: 200,
  bridge: "br-test",
  ipv4_pool: `203.0.113.10-${last}`,
  ipv4_prefix: 24,
  ipv4_gateway: "203.0.113.1",
});

/**
 * Servers on that host and what the build and termination do to their addresses, on `database` (the process
 * database, which the job worker uses too). PGlite has one connection: rows are read before a transaction,
 * never beside it.
 */
export function onBridgedHost(database: Database) {
  const row = async (id: number) => {
    const [found] = await database.select().from(servers).where(eq(servers.id, id));
    if (!found) throw new Error(`no server ${id}`);
    return found;
  };
  return {
    row,
    /** A new server of a funded account, placed on the bridged host. */
    async insert() {
      const accountId = await createFundedAccount(database, 10_000);
      return insertServer(database, accountId, { location: "ro", hypervisor: "ro-bridged" });
    },
    /** Reserves the server's address as its build does. */
    async reserve(id: number) {
      const network = serverSettings().hypervisors.find((host) => host.name === "ro-bridged")?.network;
      if (!network) throw new Error("ro-bridged has no network");
      const found = await row(id);
      return database.transaction((tx) => reserveHostAddress(tx, found, network));
    },
    async terminate(id: number) {
      const found = await row(id);
      return database.transaction((tx) => terminateInTx(tx, found));
    },
  };
}
