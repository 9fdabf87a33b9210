-- Console tickets and the sessions they open: the operator's record of who reached which server's console,
-- when and from where (never what was typed); the ticket is stored only as its SHA-256.
CREATE TABLE "console_sessions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "console_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"server_id" integer NOT NULL,
	"ticket_hash" text NOT NULL,
	"ticket_expires_at" timestamp with time zone NOT NULL,
	"requested_at" timestamp with time zone NOT NULL,
	"requested_from" text NOT NULL,
	"opened_at" timestamp with time zone,
	"opened_from" text,
	"seen_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"close_reason" text,
	CONSTRAINT "console_sessions_ticket_hash_unique" UNIQUE("ticket_hash")
);--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_sessions_account_open_idx" ON "console_sessions" USING btree ("account_id") WHERE "console_sessions"."closed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "console_sessions_server_idx" ON "console_sessions" USING btree ("server_id");
