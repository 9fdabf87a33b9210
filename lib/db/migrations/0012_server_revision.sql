-- Every change to a server row raises its revision, so the sum over an account's servers changes with every
-- committed insert or update: the key under which an instance may reuse what it read before.
ALTER TABLE "servers" ADD COLUMN "revision" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE FUNCTION "servers_raise_revision"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.revision := OLD.revision + 1;
  RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "servers_raise_revision" BEFORE UPDATE ON "servers" FOR EACH ROW EXECUTE FUNCTION "servers_raise_revision"();
