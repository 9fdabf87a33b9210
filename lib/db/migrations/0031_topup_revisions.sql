-- Every change to a top-up or one of its payments raises that row's revision, so the list of (id, revision)
-- over a page of top-ups and their payments differs whenever any of them changed: the check under which an
-- instance may reuse a page it presented before (lib/topups/reads.ts), whoever wrote the change.
ALTER TABLE "topups" ADD COLUMN "revision" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "deposit_payments" ADD COLUMN "revision" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE FUNCTION "raise_row_revision"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.revision := OLD.revision + 1;
  RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "topups_raise_revision" BEFORE UPDATE ON "topups" FOR EACH ROW EXECUTE FUNCTION "raise_row_revision"();--> statement-breakpoint
CREATE TRIGGER "deposit_payments_raise_revision" BEFORE UPDATE ON "deposit_payments" FOR EACH ROW EXECUTE FUNCTION "raise_row_revision"();
