-- Snapshots: a copy of a server's disk as a volume of its host's pool, taken on request, before a reinstall, or
-- kept from a server terminated because its period lapsed (its last disk, for the retention period).
CREATE TABLE "snapshots" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "snapshots_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"server_id" integer NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"state" text DEFAULT 'creating' NOT NULL,
	"os" text NOT NULL,
	"hypervisor" text,
	"volume" text,
	"size_bytes" bigint,
	"reserved_gb" integer DEFAULT 0 NOT NULL,
	"consistency" text,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "snapshots_kind_check" CHECK ("snapshots"."kind" IN ('manual', 'reinstall', 'expiry')),
	CONSTRAINT "snapshots_state_check" CHECK ("snapshots"."state" IN ('creating', 'available', 'failed', 'deleting')),
	CONSTRAINT "snapshots_consistency_check" CHECK ("snapshots"."consistency" IN ('powered_off', 'frozen', 'crash_consistent'))
);
--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "snapshots_server_idx" ON "snapshots" USING btree ("server_id","id");--> statement-breakpoint
CREATE INDEX "snapshots_hypervisor_idx" ON "snapshots" USING btree ("hypervisor") WHERE hypervisor IS NOT NULL;--> statement-breakpoint
-- A lapsed server's last disk is kept until retained_until; rescue mode's state and its temporary login; the
-- address a terminated server had, to give it back on renewal where it is still free.
ALTER TABLE "servers" ADD COLUMN "retained_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "rescue_state" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "rescue_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "rescue_password_enc" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "rescue_host_key_fingerprint" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "last_ip" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "last_ssh_port" integer;--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_rescue_state_check" CHECK ("servers"."rescue_state" IN ('entering', 'active', 'leaving'));--> statement-breakpoint
CREATE INDEX "servers_retained_idx" ON "servers" USING btree ("retained_until") WHERE retained_until IS NOT NULL;--> statement-breakpoint
-- A job on one snapshot (take, restore, delete) names it.
ALTER TABLE "server_jobs" ADD COLUMN "snapshot_id" integer;--> statement-breakpoint
ALTER TABLE "server_jobs" ADD CONSTRAINT "server_jobs_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "server_jobs" DROP CONSTRAINT "server_jobs_kind_check";--> statement-breakpoint
ALTER TABLE "server_jobs" ADD CONSTRAINT "server_jobs_kind_check" CHECK ("server_jobs"."kind" IN ('provision', 'power', 'destroy', 'reinstall', 'password', 'snapshot', 'restore', 'delete_snapshot', 'rescue', 'leave_rescue', 'revive'));
