-- Keys that can be handed to a script or an agent: the scopes a key holds (NULL: every scope, as every key had
-- before), the conditions it is used under (client networks, servers it may touch; expires_at exists already),
-- a spend cap per period, the key that made it, and where it was last used from. Each ledger row names the key
-- whose request caused it, so a key's spending is read from the ledger itself.
ALTER TABLE "api_keys" ADD COLUMN "last_used_from" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "scopes" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_networks" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "server_ids" integer[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "spend_cap_cents" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "spend_cap_period" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "parent_key_id" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_parent_key_id_api_keys_id_fk" FOREIGN KEY ("parent_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_spend_cap_check" CHECK (("api_keys"."spend_cap_cents" IS NULL) = ("api_keys"."spend_cap_period" IS NULL) AND "api_keys"."spend_cap_cents" >= 0 AND "api_keys"."spend_cap_period" IN ('day', 'week', 'month', 'total'));--> statement-breakpoint
CREATE INDEX "api_keys_parent_idx" ON "api_keys" USING btree ("parent_key_id");--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN "api_key_id" integer;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_entries_api_key_idx" ON "ledger_entries" USING btree ("api_key_id","created_at") WHERE "ledger_entries"."api_key_id" IS NOT NULL;
