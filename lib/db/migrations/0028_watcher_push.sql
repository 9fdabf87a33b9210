-- Each watcher's push link to its node as the instance holding its lease last saw it (null: no push), and,
-- per payment, the time the chain gives the block that completed its confirmations: with confirmed_at (when
-- its credit was written) it gives the time from that block to the credit.
ALTER TABLE "chain_cursors" ADD COLUMN "push_status" text;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "push_missed" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "push_notice_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deposit_payments" ADD COLUMN "confirming_block_at" timestamp with time zone;
