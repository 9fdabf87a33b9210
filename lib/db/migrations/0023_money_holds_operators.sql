-- A flagged payment settled by an operator's adjustment is closed on its rail in the same transaction, so the
-- rail can never credit it again: an x402 authorization becomes `adjusted` (naming the adjustment), a deposit
-- payment not yet counted is counted as settled by it. One adjustment per payment, whoever posts it.
ALTER TABLE "x402_authorizations" ADD COLUMN "adjustment_reference" text;--> statement-breakpoint
ALTER TABLE "deposit_payments" ADD COLUMN "settled_by" text;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_adjustments_payment_idx" ON "ledger_adjustments" USING btree ("payment") WHERE "ledger_adjustments"."payment" IS NOT NULL;--> statement-breakpoint
-- An adjustment past its operator's daily cap waits for a second admin; the one who let it through is kept.
ALTER TABLE "ledger_adjustments" ADD COLUMN "approved_by" integer;--> statement-breakpoint
ALTER TABLE "ledger_adjustments" ADD CONSTRAINT "ledger_adjustments_approved_by_operators_id_fk" FOREIGN KEY ("approved_by") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_adjustments_operator_idx" ON "ledger_adjustments" USING btree ("operator_id", "created_at");--> statement-breakpoint
CREATE TABLE "adjustment_approvals" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "adjustment_approvals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"reference" text NOT NULL,
	"account_id" integer NOT NULL,
	"amount_cents" bigint NOT NULL,
	"reason" text NOT NULL,
	"payment" text,
	"requested_by" integer NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" integer,
	"decided_at" timestamp with time zone,
	"decision" text,
	"decision_note" text,
	CONSTRAINT "adjustment_approvals_reference_unique" UNIQUE("reference"),
	CONSTRAINT "adjustment_approvals_amount_check" CHECK ("adjustment_approvals"."amount_cents" <> 0),
	CONSTRAINT "adjustment_approvals_decision_check" CHECK ("adjustment_approvals"."decision" IS NULL OR "adjustment_approvals"."decision" IN ('approved', 'refused'))
);--> statement-breakpoint
ALTER TABLE "adjustment_approvals" ADD CONSTRAINT "adjustment_approvals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "adjustment_approvals" ADD CONSTRAINT "adjustment_approvals_requested_by_operators_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "adjustment_approvals" ADD CONSTRAINT "adjustment_approvals_decided_by_operators_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "adjustment_approvals_pending_idx" ON "adjustment_approvals" USING btree ("requested_at") WHERE "adjustment_approvals"."decided_at" IS NULL;--> statement-breakpoint
-- A departing operator is deactivated: no sign-in, no session, kept for the audit log's sake.
ALTER TABLE "operators" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
-- An action taken on the machine (`npm run operator:disable`) has no operator behind it.
ALTER TABLE "operator_audit" ALTER COLUMN "operator_id" DROP NOT NULL;--> statement-breakpoint
-- An entry is written at the time it is written: no insert can date it otherwise (with the table owned by another
-- role than the app's, deploy/postgresql/audit-owner.sql, the app can neither drop this nor change its function).
CREATE FUNCTION "operator_audit_stamp"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.at := now();
  RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "operator_audit_stamp" BEFORE INSERT ON "operator_audit" FOR EACH ROW EXECUTE FUNCTION "operator_audit_stamp"();--> statement-breakpoint
-- An operator's hold and its end are events of their own: endpoints that hear of suspensions hear of them too.
UPDATE "notification_endpoints" SET "event_types" = array_cat("event_types", ARRAY['server.held', 'server.released'])
	WHERE 'server.suspended' = ANY("event_types") AND NOT ('server.held' = ANY("event_types"));
