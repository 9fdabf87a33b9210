-- A root password change is recorded as host work in flight, so a server does one host operation at a time.
ALTER TABLE "server_jobs" DROP CONSTRAINT "server_jobs_kind_check";--> statement-breakpoint
ALTER TABLE "server_jobs" ADD CONSTRAINT "server_jobs_kind_check" CHECK ("server_jobs"."kind" IN ('provision', 'power', 'destroy', 'reinstall', 'password'));--> statement-breakpoint
-- Finished jobs and idempotency keys past their retention are deleted in batches, oldest first.
CREATE INDEX "server_jobs_finished_idx" ON "server_jobs" USING btree ("finished_at") WHERE state IN ('done', 'failed');--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");
