ALTER TABLE "accounts" ADD COLUMN "totp_secret_enc" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_pending_secret_enc" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "kind" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;