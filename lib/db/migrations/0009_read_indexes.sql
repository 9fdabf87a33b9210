-- A page of an account's servers, newest first, read straight from the index (no sort); also serves
-- every lookup by account, so the single-column index goes.
CREATE INDEX IF NOT EXISTS "servers_account_id_idx" ON "servers" USING btree ("account_id", "id");--> statement-breakpoint
DROP INDEX IF EXISTS "servers_account_idx";--> statement-breakpoint
-- The job worker takes the earliest open job; finished jobs (most of the table) stay out of these indexes.
CREATE INDEX IF NOT EXISTS "server_jobs_open_idx" ON "server_jobs" USING btree ("run_after", "id") WHERE "state" IN ('pending', 'running');--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "server_jobs_open_server_idx" ON "server_jobs" USING btree ("server_id", "id") WHERE "state" IN ('pending', 'running');--> statement-breakpoint
-- Watched deposit top-ups: the pending ones (by expiry, for the expiry pass) and the recently closed ones.
CREATE INDEX IF NOT EXISTS "topups_pending_expiry_idx" ON "topups" USING btree ("expires_at") WHERE "method" = 'deposit' AND "status" = 'pending';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "topups_closed_idx" ON "topups" USING btree ("closed_at") WHERE "method" = 'deposit' AND "closed_at" IS NOT NULL;
