ALTER TABLE "deposit_payments" ADD COLUMN "dropped_at" timestamp with time zone;
