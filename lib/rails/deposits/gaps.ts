import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";

/** How far apart the paid deposit addresses of one chain lie, as a wallet restored from its key meets them. */
export type DerivationGaps = {
  chain: string;
  /** Indexes handed out so far (0 .. handedOut - 1). */
  handedOut: number;
  /** Indexes with a payment seen (dropped ones left out). */
  paid: number;
  /** The longest run of unpaid indexes a wallet must step over to reach a paid one (or the last one). */
  longestUnpaidRun: number;
  /** The smallest gap limit (Monero: subaddress lookahead) that finds every paid address. */
  gapLimit: number;
  /** When the chain's first deposit address was handed out: a Monero wallet restores from that date. */
  firstHandedOut: Date | null;
};

/**
 * Every top-up takes a fresh derivation index, paid or not, so the operator's wallet restored from the
 * extended public key (or Monero view key) must look further past unused addresses than wallets usually do
 * (a gap limit of 20). This measures, per chain, the longest run of unpaid indexes: before a paid one, and
 * after the last paid one up to the newest handed out, where the next payment will land.
 */
export async function derivationGaps(database: Database): Promise<DerivationGaps[]> {
  const result = await database.execute(sql`
    WITH paid AS (
      SELECT DISTINCT t.network AS chain, t.derivation_index AS i
      FROM topups t
      WHERE t.method = 'deposit' AND t.derivation_index IS NOT NULL
        AND EXISTS (SELECT 1 FROM deposit_payments p WHERE p.topup_id = t.id AND p.dropped_at IS NULL)
    ),
    runs AS (
      SELECT chain, i - COALESCE(LAG(i) OVER (PARTITION BY chain ORDER BY i), -1) - 1 AS unpaid_before
      FROM paid
    )
    SELECT d.chain, d.next_index AS handed_out,
      (SELECT count(*) FROM paid WHERE paid.chain = d.chain) AS paid,
      GREATEST(
        COALESCE((SELECT max(unpaid_before) FROM runs WHERE runs.chain = d.chain), 0),
        d.next_index - 1 - COALESCE((SELECT max(i) FROM paid WHERE paid.chain = d.chain), -1)
      ) AS longest_unpaid_run,
      (SELECT min(created_at) FROM topups t WHERE t.method = 'deposit' AND t.network = d.chain
        AND t.derivation_index IS NOT NULL) AS first_handed_out
    FROM deposit_indexes d
    ORDER BY d.chain`);
  const rows = (result as unknown as { rows: Record<string, unknown>[] }).rows;
  return rows.map((row) => {
    const longestUnpaidRun = Number(row.longest_unpaid_run);
    return {
      chain: String(row.chain),
      handedOut: Number(row.handed_out),
      paid: Number(row.paid),
      longestUnpaidRun,
      gapLimit: longestUnpaidRun + 1,
      firstHandedOut: row.first_handed_out ? new Date(String(row.first_handed_out)) : null,
    };
  });
}
