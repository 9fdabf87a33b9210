ALTER TABLE "server_jobs" DROP CONSTRAINT "server_jobs_kind_check";--> statement-breakpoint
ALTER TABLE "server_jobs" ADD CONSTRAINT "server_jobs_kind_check" CHECK ("server_jobs"."kind" IN ('provision', 'power', 'destroy', 'reinstall'));
