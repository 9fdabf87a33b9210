-- Payments a watcher keeps checking, read each pass from indexes instead of every payment ever seen:
-- those still confirming (not counted yet, or set back by a reorg), and those in recent blocks.
CREATE INDEX IF NOT EXISTS "deposit_payments_open_idx" ON "deposit_payments" USING btree ("network") WHERE "confirmed_at" IS NULL OR "reorged_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "deposit_payments_block_idx" ON "deposit_payments" USING btree ("network", "block_number");
