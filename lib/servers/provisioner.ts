import "server-only";
import { and, eq, ne, sql } from "drizzle-orm";
import { now } from "@/lib/clock";
import { ipCounters, servers } from "@/lib/db/schema";
import type { Tx } from "@/lib/ledger/ledger";
import { processWide } from "@/lib/process-wide";
import { HOSTS_PER_LOCATION, poolAddress } from "./ip-pool";
import type { ServerRow } from "./present";

export type PowerAction = "start" | "stop" | "reboot";

/** What builds, powers and destroys machines. The lifecycle worker calls it from database-driven jobs. */
export interface Provisioner {
  readonly name: string;
  /** True for the simulated provisioner (the default): no machine exists behind it. */
  readonly simulated: boolean;
  /** Builds the server: its IPv4 once it is up, or undefined while it is still being built. */
  provision(server: ServerRow, tx: Tx): Promise<{ ip: string } | undefined>;
  /** Applies a power action and returns the resulting state. */
  power(server: ServerRow, action: PowerAction): Promise<"running" | "stopped">;
  /** Destroys the machine; its address returns to the pool. */
  destroy(server: ServerRow): Promise<void>;
}

/**
 * Pretends to build servers: a server is "up" once its `provision_ready_at` has passed, and then gets the
 * next free address of its location's pool (a counter row per location, so concurrent builds on several
 * app instances never hand out one address twice; the partial unique index on `servers.ip` backs that up).
 */
export class SimulatedProvisioner implements Provisioner {
  readonly name = "simulated";
  readonly simulated = true;

  async provision(server: ServerRow, tx: Tx): Promise<{ ip: string } | undefined> {
    if (server.provisionReadyAt && server.provisionReadyAt > now()) return undefined;
    for (let attempt = 0; attempt < HOSTS_PER_LOCATION; attempt++) {
      const [counter] = await tx
        .insert(ipCounters)
        .values({ location: server.location, nextHost: 2 })
        .onConflictDoUpdate({
          target: ipCounters.location,
          set: { nextHost: sql`(${ipCounters.nextHost} % ${HOSTS_PER_LOCATION}) + 1` },
        })
        .returning({ nextHost: ipCounters.nextHost });
      const host = counter ? ((counter.nextHost + HOSTS_PER_LOCATION - 2) % HOSTS_PER_LOCATION) + 1 : 1;
      const ip = poolAddress(server.location, host);
      const [taken] = await tx
        .select({ id: servers.id })
        .from(servers)
        .where(and(eq(servers.ip, ip), ne(servers.status, "terminated")))
        .limit(1);
      if (!taken) return { ip };
    }
    throw new Error(`the address pool of ${server.location} is exhausted`);
  }

  async power(_server: ServerRow, action: PowerAction): Promise<"running" | "stopped"> {
    return action === "stop" ? "stopped" : "running";
  }

  async destroy(): Promise<void> {}
}

export const provisioner = (): Provisioner =>
  processWide("servers.provisioner", () => new SimulatedProvisioner());
