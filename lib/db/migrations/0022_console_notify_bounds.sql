-- Consoles know the key (or dashboard session) that opened them, so revoking it closes them; closed sessions
-- are deleted after their retention, found by when they closed.
ALTER TABLE "console_sessions" ADD COLUMN "key_id" integer;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_sessions_closed_idx" ON "console_sessions" USING btree ("closed_at") WHERE "console_sessions"."closed_at" IS NOT NULL;
