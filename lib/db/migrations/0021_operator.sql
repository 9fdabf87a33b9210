-- The operator's side: operators (made on the machine, never by a request), their sessions, an append-only
-- audit log of what they did, suspensions for abuse (a hold on servers, not a new status), reviews of flagged
-- payments, ledger adjustments with their reasons, and drained hosts.
CREATE TABLE "operators" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operators_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"role" text NOT NULL,
	"secret_hash" text NOT NULL,
	"totp_secret_enc" text NOT NULL,
	"totp_last_step" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "operators_name_unique" UNIQUE("name"),
	CONSTRAINT "operators_secret_hash_unique" UNIQUE("secret_hash"),
	CONSTRAINT "operators_role_check" CHECK ("operators"."role" IN ('read-only', 'support', 'admin')),
	CONSTRAINT "operators_name_check" CHECK ("operators"."name" ~ '^[a-z0-9][a-z0-9._-]{0,31}$')
);--> statement-breakpoint
CREATE TABLE "operator_sessions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operator_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"operator_id" integer NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_from" text NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "operator_sessions_token_hash_unique" UNIQUE("token_hash")
);--> statement-breakpoint
ALTER TABLE "operator_sessions" ADD CONSTRAINT "operator_sessions_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "operator_sessions_operator_idx" ON "operator_sessions" USING btree ("operator_id");--> statement-breakpoint
CREATE TABLE "operator_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operator_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"operator_id" integer NOT NULL,
	"operator_name" text NOT NULL,
	"action" text NOT NULL,
	"target" text,
	"reason" text,
	"detail" text,
	"client" text NOT NULL
);--> statement-breakpoint
ALTER TABLE "operator_audit" ADD CONSTRAINT "operator_audit_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "operator_audit_target_idx" ON "operator_audit" USING btree ("target", "id");--> statement-breakpoint
-- Append-only: rows are written once and never changed or removed, whoever asks.
CREATE FUNCTION "operator_audit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'operator_audit is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "operator_audit_no_update" BEFORE UPDATE OR DELETE ON "operator_audit" FOR EACH ROW EXECUTE FUNCTION "operator_audit_append_only"();--> statement-breakpoint
CREATE TRIGGER "operator_audit_no_truncate" BEFORE TRUNCATE ON "operator_audit" FOR EACH STATEMENT EXECUTE FUNCTION "operator_audit_append_only"();--> statement-breakpoint
CREATE TABLE "operator_suspensions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operator_suspensions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"server_id" integer,
	"reason" text NOT NULL,
	"pauses_period" boolean NOT NULL,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lifted_at" timestamp with time zone,
	"lifted_by" integer
);--> statement-breakpoint
ALTER TABLE "operator_suspensions" ADD CONSTRAINT "operator_suspensions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operator_suspensions" ADD CONSTRAINT "operator_suspensions_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operator_suspensions" ADD CONSTRAINT "operator_suspensions_created_by_operators_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operator_suspensions" ADD CONSTRAINT "operator_suspensions_lifted_by_operators_id_fk" FOREIGN KEY ("lifted_by") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "operator_suspensions_open_server_idx" ON "operator_suspensions" USING btree ("server_id") WHERE "operator_suspensions"."lifted_at" IS NULL AND "operator_suspensions"."server_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "operator_suspensions_open_account_idx" ON "operator_suspensions" USING btree ("account_id") WHERE "operator_suspensions"."lifted_at" IS NULL AND "operator_suspensions"."server_id" IS NULL;--> statement-breakpoint
CREATE INDEX "operator_suspensions_account_idx" ON "operator_suspensions" USING btree ("account_id", "id");--> statement-breakpoint
CREATE TABLE "payment_reviews" (
	"payment" text PRIMARY KEY NOT NULL,
	"operator_id" integer NOT NULL,
	"note" text NOT NULL,
	"reviewed_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
ALTER TABLE "payment_reviews" ADD CONSTRAINT "payment_reviews_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "ledger_adjustments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ledger_adjustments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"reference" text NOT NULL,
	"account_id" integer NOT NULL,
	"amount_cents" bigint NOT NULL,
	"reason" text NOT NULL,
	"operator_id" integer NOT NULL,
	"payment" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_adjustments_reference_unique" UNIQUE("reference"),
	CONSTRAINT "ledger_adjustments_amount_check" CHECK ("ledger_adjustments"."amount_cents" <> 0)
);--> statement-breakpoint
ALTER TABLE "ledger_adjustments" ADD CONSTRAINT "ledger_adjustments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_adjustments" ADD CONSTRAINT "ledger_adjustments_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_adjustments_account_idx" ON "ledger_adjustments" USING btree ("account_id");--> statement-breakpoint
-- A server held by the operator: what it was before (to give it back) and since when (to pause its period).
ALTER TABLE "servers" ADD COLUMN "held_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "held_reason" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "held_pauses_period" boolean;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "held_prior_status" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "held_prior_power" text;--> statement-breakpoint
CREATE INDEX "servers_held_idx" ON "servers" USING btree ("held_since") WHERE "servers"."held_since" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "hypervisors" ADD COLUMN "drained_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "hypervisors" ADD COLUMN "drain_reason" text;
