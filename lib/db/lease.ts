import "server-only";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { processWide } from "@/lib/util/process-wide";
import { db } from "./client";

/** Identifies this process among app instances sharing one database. */
export const instanceId = () => processWide("instance.id", () => randomBytes(6).toString("hex"));

/**
 * Takes (or renews) the lease named `name` for `ttlMs`: true when this instance may do that job now.
 * A lease is a row, so two instances on one PostgreSQL never run the same job at once, and a crashed
 * holder's lease simply runs out.
 */
export async function acquireLease(name: string, ttlMs: number): Promise<boolean> {
  const owner = instanceId();
  const database = await db();
  const until = new Date(Date.now() + ttlMs);
  const result = await database.execute(sql`
    INSERT INTO chain_cursors (network, scanned_block, head_block, lease_owner, lease_until)
    VALUES (${name}, -1, -1, ${owner}, ${until})
    ON CONFLICT (network) DO UPDATE
      SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
      WHERE chain_cursors.lease_until IS NULL
         OR chain_cursors.lease_until < now()
         OR chain_cursors.lease_owner = excluded.lease_owner
    RETURNING network`);
  return (result as unknown as { rows: unknown[] }).rows.length > 0;
}

/** Gives a lease back early, so another instance need not wait for it to run out. */
export async function releaseLease(name: string): Promise<void> {
  const database = await db();
  await database.execute(
    sql`UPDATE chain_cursors SET lease_until = NULL WHERE network = ${name} AND lease_owner = ${instanceId()}`,
  );
}
