CREATE TABLE "ip_counters" (
	"location" text PRIMARY KEY NOT NULL,
	"next_host" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "root_password_enc" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "auto_renew" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "power_state" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "provision_ready_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "terminated_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "servers_status_expiry_idx" ON "servers" USING btree ("status","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "servers_ip_idx" ON "servers" USING btree ("ip") WHERE status <> 'terminated';