-- Orders paid with x402 whose authorization is held until the server answers, then settled (or released when
-- the build fails): one row per such order, the signed payment kept as sent.
CREATE TABLE "held_order_payments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "held_order_payments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"server_id" integer NOT NULL,
	"account_id" integer NOT NULL,
	"amount_cents" integer NOT NULL,
	"version" integer NOT NULL,
	"payment" text NOT NULL,
	"resource" text NOT NULL,
	"max_timeout_seconds" integer NOT NULL,
	"payer" text NOT NULL,
	"nonce" text NOT NULL,
	"valid_before" timestamp with time zone NOT NULL,
	"state" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	CONSTRAINT "held_order_payments_server_id_unique" UNIQUE("server_id")
);
--> statement-breakpoint
ALTER TABLE "held_order_payments" ADD CONSTRAINT "held_order_payments_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "held_order_payments" ADD CONSTRAINT "held_order_payments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "held_order_payments_authorization_idx" ON "held_order_payments" USING btree ("payer","nonce");--> statement-breakpoint
CREATE INDEX "held_order_payments_due_idx" ON "held_order_payments" USING btree ("state");
