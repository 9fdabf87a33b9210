ALTER TABLE "deposit_payments" ADD COLUMN "confirmed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deposit_payments" ADD COLUMN "reorged_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "scanned_hash" text;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "last_error" text;
