CREATE TABLE "hypervisors" (
	"name" text PRIMARY KEY NOT NULL,
	"location" text NOT NULL,
	"uri" text NOT NULL,
	"memory_mb" integer NOT NULL,
	"vcpus" integer NOT NULL,
	"disk_gb" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "server_jobs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "server_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"server_id" integer NOT NULL,
	"kind" text NOT NULL,
	"action" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"phase" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"run_after" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"deadline" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "server_jobs_kind_check" CHECK ("server_jobs"."kind" IN ('provision', 'power', 'destroy')),
	CONSTRAINT "server_jobs_state_check" CHECK ("server_jobs"."state" IN ('pending', 'running', 'done', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "server_jobs" ADD CONSTRAINT "server_jobs_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "server_jobs_due_idx" ON "server_jobs" USING btree ("state","run_after");--> statement-breakpoint
CREATE INDEX "server_jobs_server_idx" ON "server_jobs" USING btree ("server_id");--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "hypervisor" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "memory_mb" integer;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "vcpus" integer;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "disk_gb" integer;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "ssh_port" integer;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "ssh_host_key_fingerprint" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "ssh_keys" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "status_reason" text;--> statement-breakpoint
CREATE INDEX "servers_hypervisor_idx" ON "servers" USING btree ("hypervisor") WHERE status <> 'terminated';
