-- What each deposit payment credited, part by part: the units that paid the asked amount (at the quote) and
-- the rest, valued at its own rate (the lower of the locked rate and the market's when it was credited).
ALTER TABLE "deposit_payments" ADD COLUMN "quote_units" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "deposit_payments" ADD COLUMN "quote_cents" bigint;--> statement-breakpoint
ALTER TABLE "deposit_payments" ADD COLUMN "extra_rate_usd" numeric(30, 8);--> statement-breakpoint
ALTER TABLE "deposit_payments" ADD COLUMN "extra_cents" bigint;--> statement-breakpoint
ALTER TABLE "deposit_payments" ADD CONSTRAINT "deposit_payments_credit_non_negative"
  CHECK ("quote_cents" >= 0 AND "extra_cents" >= 0);--> statement-breakpoint
-- Payments counted before: all of them at the locked rate, the asked amount paid in the order they counted
-- (exact integer arithmetic, as the service computes it: cents = units * rate * 100 / 10^decimals, rounded down).
WITH "ordered" AS (
  SELECT p."id", p."amount_units" AS "units", t."deposit_units" AS "required", t."amount_cents" AS "amount",
    t."rate_usd" * 100000000 AS "rate_e8",
    power(10::numeric, CASE t."coin" WHEN 'BTC' THEN 8 WHEN 'LTC' THEN 8 WHEN 'XMR' THEN 12 WHEN 'ETH' THEN 18
      ELSE 6 END + 8) AS "scale",
    LEAST(t."deposit_units", COALESCE(SUM(p."amount_units") OVER (PARTITION BY p."topup_id"
      ORDER BY p."confirmed_at", p."id" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS "paid_before"
  FROM "deposit_payments" p JOIN "topups" t ON t."id" = p."topup_id"
  WHERE p."confirmed_at" IS NOT NULL
), "split" AS (
  SELECT *, LEAST("units", "required" - "paid_before") AS "quote_units" FROM "ordered"
)
UPDATE "deposit_payments" p SET
  "quote_units" = s."quote_units",
  "quote_cents" =
    (CASE WHEN s."paid_before" + s."quote_units" >= s."required" THEN s."amount"
      ELSE LEAST(s."amount", div((s."paid_before" + s."quote_units") * s."rate_e8" * 100, s."scale")) END)
    - (CASE WHEN s."paid_before" >= s."required" THEN s."amount"
      ELSE LEAST(s."amount", div(s."paid_before" * s."rate_e8" * 100, s."scale")) END),
  "extra_rate_usd" = CASE WHEN s."units" > s."quote_units" THEN s."rate_e8" / 100000000 END,
  "extra_cents" = div((s."units" - s."quote_units") * s."rate_e8" * 100, s."scale")
FROM "split" s WHERE p."id" = s."id";--> statement-breakpoint
-- Deposit top-ups an account created lately are counted at each creation (the per-account limit).
CREATE INDEX "topups_account_created_idx" ON "topups" ("account_id", "created_at") WHERE "method" = 'deposit';
