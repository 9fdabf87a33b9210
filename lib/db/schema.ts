import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const accounts = pgTable(
  "accounts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    balanceCents: bigint("balance_cents", { mode: "number" }).notNull().default(0),
    currency: text("currency").notNull().default("USD"),
    loginTokenHash: text("login_token_hash").notNull().unique(),
    totpEnabled: boolean("totp_enabled").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  // The database itself refuses an overdraft, whatever the code above it does.
  (table) => [check("accounts_balance_non_negative", sql`${table.balanceCents} >= 0`)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    name: text("name"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [index("api_keys_account_idx").on(table.accountId)],
);

export const servers = pgTable(
  "servers",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    plan: text("plan").notNull(),
    location: text("location").notNull(),
    os: text("os").notNull(),
    hostname: text("hostname").notNull(),
    cycle: text("cycle").notNull(),
    priceCents: bigint("price_cents", { mode: "number" }).notNull(),
    status: text("status").notNull().default("provisioning"),
    ip: text("ip"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [index("servers_account_idx").on(table.accountId)],
);
