-- Networking: a routed IPv6 /64 per server, reverse DNS its owner sets (kept in PowerDNS), and a firewall per
-- server on its host. A /64 stays with its server for as long as the server or its kept disk lives
-- (lib/servers/network/ipv6-pool.ts), so it is a column of the server, freed by clearing it.
ALTER TABLE "servers" ADD COLUMN "ipv6_prefix" text;--> statement-breakpoint
CREATE UNIQUE INDEX "servers_ipv6_prefix_idx" ON "servers" USING btree ("ipv6_prefix") WHERE "ipv6_prefix" IS NOT NULL;--> statement-breakpoint
-- One row per server with rules or an operator's SMTP decision; none: no rules, SMTP blocked. `revision`
-- counts changes of the rules; the host has applied `applied_revision` (null: never).
CREATE TABLE "server_firewalls" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"rules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"applied_revision" integer,
	"applied_at" timestamp with time zone,
	"apply_error" text,
	"smtp_open" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
ALTER TABLE "server_firewalls" ADD CONSTRAINT "server_firewalls_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The PTR record of one address as it should be in DNS (`name` null: no record), and whether DNS has it yet:
-- `pending` rows are written to PowerDNS by a background pass with retries (`next_attempt_at`, `last_error`).
-- `server_id` null: the address went back to its pool with its generated name.
CREATE TABLE "ptr_records" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ptr_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"address" text NOT NULL,
	"server_id" integer,
	"name" text,
	"custom" boolean DEFAULT false NOT NULL,
	"zone_prefix_length" integer NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"applied_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ptr_records_address_unique" UNIQUE("address"),
	CONSTRAINT "ptr_records_state_check" CHECK ("ptr_records"."state" IN ('pending', 'applied'))
);--> statement-breakpoint
ALTER TABLE "ptr_records" ADD CONSTRAINT "ptr_records_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ptr_records_server_idx" ON "ptr_records" USING btree ("server_id") WHERE "server_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "ptr_records_due_idx" ON "ptr_records" USING btree ("next_attempt_at") WHERE "state" = 'pending';--> statement-breakpoint
ALTER TABLE "server_jobs" DROP CONSTRAINT "server_jobs_kind_check";--> statement-breakpoint
ALTER TABLE "server_jobs" ADD CONSTRAINT "server_jobs_kind_check" CHECK ("server_jobs"."kind" IN ('provision', 'power', 'destroy', 'reinstall', 'password', 'snapshot', 'restore', 'delete_snapshot', 'rescue', 'leave_rescue', 'revive', 'firewall'));
