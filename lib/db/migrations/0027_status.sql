-- What the public status page reads, recorded where the service already does the work (lib/status):
-- one row per order whose build ended (its location and image as ordered, when it was ordered, when it
-- ended, whether it became active, and when its SSH server first answered the build's probe), with no
-- account or server behind it; when a console session got its first byte from the machine's console; when a
-- deposit was first seen with the confirmations its top-up needs; and the outcome of the background's
-- reading of each host.
CREATE TABLE "order_outcomes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "order_outcomes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"location" text NOT NULL,
	"os" text NOT NULL,
	"ordered_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL,
	"succeeded" boolean NOT NULL,
	"ssh_answered_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "order_outcomes_finished_idx" ON "order_outcomes" USING btree ("finished_at");--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "first_byte_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "console_sessions_requested_idx" ON "console_sessions" USING btree ("requested_at");--> statement-breakpoint
CREATE INDEX "deposit_payments_confirmed_at_idx" ON "deposit_payments" USING btree ("confirmed_at") WHERE "deposit_payments"."confirmed_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "hypervisors" ADD COLUMN "read_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "hypervisors" ADD COLUMN "failing_since" timestamp with time zone;
