-- Resizes: a server moved to another plan, its price pro-rated over the paid time left (charged at the request
-- for an upgrade, credited once done for a downgrade), its machine changed by a job; the downtime measured.
CREATE TABLE "server_resizes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "server_resizes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"server_id" integer NOT NULL,
	"hypervisor" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"from_plan" text NOT NULL,
	"to_plan" text NOT NULL,
	"from_memory_mb" integer NOT NULL,
	"from_vcpus" integer NOT NULL,
	"from_disk_gb" integer NOT NULL,
	"to_memory_mb" integer NOT NULL,
	"to_vcpus" integer NOT NULL,
	"to_disk_gb" integer NOT NULL,
	"from_price_cents" bigint NOT NULL,
	"to_price_cents" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"grow_disk" boolean NOT NULL,
	"was_running" boolean NOT NULL,
	"snapshot_id" integer,
	"priced_at" timestamp with time zone NOT NULL,
	"seconds_left" integer NOT NULL,
	"period_seconds" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"downtime_ms" integer,
	"failure_reason" text,
	CONSTRAINT "server_resizes_state_check" CHECK ("server_resizes"."state" IN ('pending', 'running', 'reverting', 'done', 'failed'))
);--> statement-breakpoint
ALTER TABLE "server_resizes" ADD CONSTRAINT "server_resizes_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "server_resizes" ADD CONSTRAINT "server_resizes_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "server_resizes_server_idx" ON "server_resizes" USING btree ("server_id","id");--> statement-breakpoint
CREATE INDEX "server_resizes_done_idx" ON "server_resizes" USING btree ("hypervisor","grow_disk","finished_at") WHERE state = 'done';--> statement-breakpoint
-- Automatic snapshots: one schedule per server, daily or weekly at an hour (UTC) its owner picks.
CREATE TABLE "snapshot_schedules" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"frequency" text NOT NULL,
	"hour" integer NOT NULL,
	"weekday" integer,
	"occurrence_at" timestamp with time zone NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "snapshot_schedules_frequency_check" CHECK ("snapshot_schedules"."frequency" IN ('daily', 'weekly')),
	CONSTRAINT "snapshot_schedules_hour_check" CHECK ("snapshot_schedules"."hour" BETWEEN 0 AND 23),
	CONSTRAINT "snapshot_schedules_weekday_check" CHECK (("snapshot_schedules"."frequency" = 'daily' AND "snapshot_schedules"."weekday" IS NULL) OR ("snapshot_schedules"."frequency" = 'weekly' AND "snapshot_schedules"."weekday" BETWEEN 1 AND 7))
);--> statement-breakpoint
ALTER TABLE "snapshot_schedules" ADD CONSTRAINT "snapshot_schedules_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "snapshot_schedules_next_idx" ON "snapshot_schedules" USING btree ("next_at");--> statement-breakpoint
ALTER TABLE "snapshots" DROP CONSTRAINT "snapshots_kind_check";--> statement-breakpoint
ALTER TABLE "snapshots" ADD CONSTRAINT "snapshots_kind_check" CHECK ("snapshots"."kind" IN ('manual', 'reinstall', 'expiry', 'automatic', 'resize'));--> statement-breakpoint
ALTER TABLE "server_jobs" DROP CONSTRAINT "server_jobs_kind_check";--> statement-breakpoint
ALTER TABLE "server_jobs" ADD CONSTRAINT "server_jobs_kind_check" CHECK ("server_jobs"."kind" IN ('provision', 'power', 'destroy', 'reinstall', 'password', 'snapshot', 'restore', 'delete_snapshot', 'rescue', 'leave_rescue', 'revive', 'firewall', 'resize'));--> statement-breakpoint
-- A customer's cloud-init user data: sealed until the build that uses it is done, then only its hash and size.
ALTER TABLE "servers" ADD COLUMN "user_data_enc" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "user_data_sha256" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "user_data_bytes" integer;
