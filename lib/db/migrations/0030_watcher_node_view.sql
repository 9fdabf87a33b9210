-- What a watcher's node said of itself at the last poll (null: this kind of node does not say): how many
-- peers it has, the height of the best chain it has heard of, and the time of its newest block. Health reads
-- them to tell a node cut off from its network (it answers, and sees no new blocks) from a healthy one.
ALTER TABLE "chain_cursors" ADD COLUMN "node_peers" integer;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "node_headers" bigint;--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "node_tip_at" timestamp with time zone;
