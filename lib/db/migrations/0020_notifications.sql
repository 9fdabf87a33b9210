-- Notifications without e-mail: an account's endpoints (signed webhooks and ntfy push topics), the outbox of
-- events written in the same transaction as the change each announces, one delivery per event and endpoint,
-- and every attempt at it (when it was due, when it was sent, what came back, bounded).
CREATE TABLE "notification_endpoints" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_endpoints_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"kind" text NOT NULL,
	"url" text NOT NULL,
	"description" text,
	"event_types" text[] NOT NULL,
	"secret_enc" text,
	"previous_secret_enc" text,
	"previous_secret_expires_at" timestamp with time zone,
	"enabled" boolean DEFAULT true NOT NULL,
	"disabled_at" timestamp with time zone,
	"disabled_reason" text,
	"failing_since" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_endpoints_kind_check" CHECK ("notification_endpoints"."kind" IN ('webhook', 'ntfy'))
);--> statement-breakpoint
CREATE TABLE "notification_events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"public_id" text NOT NULL,
	"account_id" integer NOT NULL,
	"type" text NOT NULL,
	"fact_key" text,
	"payload" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "notification_events_public_id_unique" UNIQUE("public_id"),
	CONSTRAINT "notification_events_fact_key_unique" UNIQUE("fact_key")
);--> statement-breakpoint
CREATE TABLE "notification_deliveries" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"event_id" integer NOT NULL,
	"endpoint_id" integer NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"manual" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"delivered_at" timestamp with time zone,
	"failure_reason" text,
	CONSTRAINT "notification_deliveries_event_endpoint_unique" UNIQUE("event_id","endpoint_id"),
	CONSTRAINT "notification_deliveries_state_check" CHECK ("notification_deliveries"."state" IN ('pending', 'sending', 'delivered', 'failed'))
);--> statement-breakpoint
CREATE TABLE "notification_attempts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"delivery_id" integer NOT NULL,
	"number" integer NOT NULL,
	"manual" boolean NOT NULL,
	"queued_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"response_status" integer,
	"error" text,
	"response_excerpt" text,
	"succeeded" boolean NOT NULL
);--> statement-breakpoint
ALTER TABLE "notification_endpoints" ADD CONSTRAINT "notification_endpoints_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_event_id_notification_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."notification_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_endpoint_id_notification_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."notification_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_attempts" ADD CONSTRAINT "notification_attempts_delivery_id_notification_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."notification_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_endpoints_account_idx" ON "notification_endpoints" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "notification_events_account_idx" ON "notification_events" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "notification_events_occurred_idx" ON "notification_events" USING btree ("occurred_at");--> statement-breakpoint
CREATE INDEX "notification_deliveries_due_idx" ON "notification_deliveries" USING btree ("next_attempt_at") WHERE "notification_deliveries"."state" IN ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "notification_deliveries_endpoint_idx" ON "notification_deliveries" USING btree ("endpoint_id","id");--> statement-breakpoint
CREATE INDEX "notification_attempts_delivery_idx" ON "notification_attempts" USING btree ("delivery_id","id");
