/**
 * The money invariants, checked on the database after a test run: every balance equals the sum of its
 * ledger rows, nothing is below zero, every top-up's credit is in the ledger exactly and is what its payments
 * recorded crediting, every settled x402 authorization credited exactly one top-up, no payment is credited
 * twice (one adjustment at most settles a flagged payment, and a payment an adjustment settled is never also
 * credited by its rail: an x402 authorization's top-up, a deposit payment counted after the adjustment), and
 * every resize moved exactly its pro-rated amount (an upgrade charged until it failed and was refunded, a
 * downgrade credited once done).
 */
type Query = (sql: string) => Promise<Record<string, unknown>[]>;

export type LedgerReport = { accounts: number; entries: number; problems: string[] };

export async function checkLedger(query: Query): Promise<LedgerReport> {
  const problems: string[] = [];
  const mismatched = await query(`
    SELECT a.id, a.balance_cents, COALESCE(SUM(l.amount_cents), 0) AS ledger_cents
    FROM accounts a LEFT JOIN ledger_entries l ON l.account_id = a.id
    GROUP BY a.id, a.balance_cents
    HAVING a.balance_cents <> COALESCE(SUM(l.amount_cents), 0)`);
  for (const row of mismatched) {
    problems.push(`account ${row.id}: balance ${row.balance_cents} != ledger sum ${row.ledger_cents}`);
  }
  for (const row of await query("SELECT id, balance_cents FROM accounts WHERE balance_cents < 0")) {
    problems.push(`account ${row.id}: negative balance ${row.balance_cents}`);
  }
  for (const row of await query("SELECT id FROM ledger_entries WHERE balance_after_cents < 0")) {
    problems.push(`ledger entry ${row.id}: negative balance after`);
  }
  const topupCredits = await query(`
    SELECT t.ref, t.credited_cents, COALESCE(SUM(l.amount_cents), 0) AS ledger_cents
    FROM topups t LEFT JOIN ledger_entries l
      ON l.kind = 'topup' AND (l.reference LIKE 'topup:' || t.ref || ':%'
        OR l.reference = (SELECT 'x402:' || x.network || ':' || x.asset || ':' || x.payer || ':' || x.nonce
                          FROM x402_authorizations x WHERE x.topup_id = t.id))
    GROUP BY t.ref, t.credited_cents
    HAVING t.credited_cents <> COALESCE(SUM(l.amount_cents), 0)`);
  for (const row of topupCredits) {
    problems.push(`top-up ${row.ref}: credited ${row.credited_cents} but ledger has ${row.ledger_cents}`);
  }
  // Each payment records what it credited: together they are the top-up's credit.
  const paymentCredits = await query(`
    SELECT t.ref, t.credited_cents, COALESCE(SUM(p.quote_cents + p.extra_cents), 0) AS payment_cents
    FROM topups t LEFT JOIN deposit_payments p ON p.topup_id = t.id AND p.quote_cents IS NOT NULL
    GROUP BY t.ref, t.credited_cents
    HAVING t.credited_cents <> COALESCE(SUM(p.quote_cents + p.extra_cents), 0)`);
  for (const row of paymentCredits) {
    problems.push(`top-up ${row.ref}: credited ${row.credited_cents} but its payments ${row.payment_cents}`);
  }
  for (const row of await query(
    "SELECT id FROM x402_authorizations WHERE state = 'settled' AND topup_id IS NULL",
  )) {
    problems.push(`x402 authorization ${row.id}: settled without a top-up`);
  }
  const resizes = await query(`
    SELECT r.id, r.state, r.amount_cents, COALESCE(SUM(l.amount_cents), 0) AS ledger_cents
    FROM server_resizes r LEFT JOIN ledger_entries l
      ON l.reference IN ('resize:' || r.id, 'refund:resize:' || r.id)
    GROUP BY r.id, r.state, r.amount_cents
    HAVING COALESCE(SUM(l.amount_cents), 0) <> CASE
      WHEN r.state = 'done' THEN -r.amount_cents
      WHEN r.state IN ('failed', 'reverting') THEN 0
      WHEN r.amount_cents > 0 THEN -r.amount_cents
      ELSE 0 END`);
  for (const row of resizes) {
    problems.push(
      `resize ${row.id} (${row.state}, ${row.amount_cents}): the ledger moved ${row.ledger_cents} for it`,
    );
  }
  const orphans = await query(`
    SELECT l.id FROM ledger_entries l WHERE l.kind = 'topup'
      AND NOT EXISTS (SELECT 1 FROM topups t WHERE l.reference LIKE 'topup:' || t.ref || ':%')
      AND NOT EXISTS (SELECT 1 FROM x402_authorizations x
        WHERE l.reference = 'x402:' || x.network || ':' || x.asset || ':' || x.payer || ':' || x.nonce)`);
  for (const row of orphans) problems.push(`ledger entry ${row.id}: credit without its top-up`);
  for (const row of await query(`
    SELECT payment, count(*) AS n FROM ledger_adjustments WHERE payment IS NOT NULL
    GROUP BY payment HAVING count(*) > 1`)) {
    problems.push(`payment ${row.payment}: settled by ${row.n} adjustments`);
  }
  const x402Twice = await query(`
    SELECT a.payment, a.reference, x.topup_id FROM ledger_adjustments a
      JOIN x402_authorizations x ON a.payment = 'x402:' || x.id
    WHERE x.topup_id IS NOT NULL OR x.state = 'settled'`);
  for (const row of x402Twice) {
    problems.push(
      `${row.payment}: credited by its top-up ${row.topup_id} and by the adjustment ${row.reference}`,
    );
  }
  // A deposit payment that had not counted when an adjustment settled it must never count (credit) later.
  const depositTwice = await query(`
    SELECT a.payment, a.reference FROM ledger_adjustments a
      JOIN deposit_payments p ON a.payment = 'deposit:' || p.id
    WHERE p.quote_cents IS NOT NULL AND p.confirmed_at > a.created_at`);
  for (const row of depositTwice) {
    problems.push(
      `${row.payment}: credited through its top-up after the adjustment ${row.reference} settled it`,
    );
  }
  const [counts] = await query(
    "SELECT (SELECT count(*) FROM accounts) AS accounts, (SELECT count(*) FROM ledger_entries) AS entries",
  );
  return { accounts: Number(counts?.accounts ?? 0), entries: Number(counts?.entries ?? 0), problems };
}
