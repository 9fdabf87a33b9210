/**
 * Deposit top-ups written straight into an app's embedded database before the app opens it, so a test can
 * run the watchers against many watched addresses without creating each top-up over HTTP. Each one is
 * cancelled just now: its address stays watched for the late-payment window, as after create-then-cancel.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";

export type SeededTopups = { coin: string; network: string; addresses: string[] };

export async function seedWatchedTopups(dataDir: string, seeded: SeededTopups): Promise<void> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create({ dataDir: path.join(dataDir, "pglite") });
  try {
    await migrate(drizzle({ client }), {
      migrationsFolder: path.resolve(import.meta.dirname, "../../lib/db/migrations"),
    });
    const [account] = (
      await client.query<{ id: number }>("INSERT INTO accounts (login_token_hash) VALUES ($1) RETURNING id", [
        `seeded-watched-${Date.now()}-${Math.random()}`,
      ])
    ).rows;
    await client.query(
      `INSERT INTO topups (ref, account_id, status, method, coin, network, amount_cents, deposit_address,
         deposit_units, rate_usd, rate_source, confirmations_required, expires_at, closed_at)
       SELECT 'seeded-' || ord, $1, 'cancelled', 'deposit', $2, $3, 2500, address,
         25000000, 1, 'demo-fixed', 3, now(), now()
       FROM unnest($4::text[]) WITH ORDINALITY AS a(address, ord)`,
      [account?.id, seeded.coin, seeded.network, seeded.addresses],
    );
  } finally {
    await client.close();
  }
}
