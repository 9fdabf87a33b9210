import "server-only";
import { and, asc, count, eq, isNull } from "drizzle-orm";
import type { AuthContext } from "@/lib/accounts/auth";
import { generateApiKey } from "@/lib/accounts/credentials";
import { requireSecondFactor, type SecondFactor } from "@/lib/accounts/two-factor";
import { conflict, notFound } from "@/lib/api/errors";
import { type ApiKey, type ApiKeyCreated, MAX_ACTIVE_KEYS, type RevokedKey } from "@/lib/api/schemas/keys";
import { db } from "@/lib/db/client";
import { accounts, apiKeys } from "@/lib/db/schema";
import { reuseUntilWrite } from "@/lib/db/until-write";
import { signal } from "@/lib/util/signals";

type KeyRow = typeof apiKeys.$inferSelect;

function presentKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** The account's active keys, oldest first, by prefix only. */
export function listKeys(accountId: number): Promise<ApiKey[]> {
  return reuseUntilWrite(
    `keys:${accountId}`,
    async () => {
      const database = await db();
      const rows = await database
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, "api"), isNull(apiKeys.revokedAt)))
        .orderBy(asc(apiKeys.id));
      return rows.map(presentKey);
    },
    undefined,
    ["api_keys"],
  );
}

/**
 * Mints a key; the account row is locked so two parallel requests cannot both pass the key cap.
 *
 * From a dashboard session on an account with TOTP on, it takes a current code (or a recovery code): a
 * session lasts 7 days and dies with the login token, a key lasts until revoked, so a copied cookie must not
 * turn itself into a key.
 * A caller with an API key is asked nothing: it already holds lasting access with every power a new key would
 * have (keys have no scopes), and scripts that mint keys keep working.
 */
export async function createKey(
  auth: AuthContext,
  input: { name: string | undefined; factor: SecondFactor },
  client: string,
): Promise<ApiKeyCreated> {
  if (auth.keyKind === "session") await requireSecondFactor(auth.accountId, input.factor, client);
  const { accountId } = auth;
  const { name } = input;
  const key = generateApiKey();
  const database = await db();
  const row = await database.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    const [active] = await tx
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, "api"), isNull(apiKeys.revokedAt)));
    if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS) {
      throw conflict(
        "key_limit_reached",
        `An account can hold ${MAX_ACTIVE_KEYS} active keys; revoke one first.`,
      );
    }
    const [inserted] = await tx
      .insert(apiKeys)
      .values({ accountId, keyHash: key.hash, prefix: key.prefix, name: name ?? null })
      .returning();
    return inserted;
  });
  if (!row) throw new Error("key insert returned no row");
  return { ...presentKey(row), api_key: key.key };
}

/** Revokes one of the account's active keys at once; another account's key, or a revoked one, is 404. */
export async function revokeKey(accountId: number, keyId: number): Promise<RevokedKey> {
  const database = await db();
  const [row] = await database
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(apiKeys.id, keyId),
        eq(apiKeys.accountId, accountId),
        eq(apiKeys.kind, "api"),
        isNull(apiKeys.revokedAt),
      ),
    )
    .returning({ id: apiKeys.id, revokedAt: apiKeys.revokedAt });
  if (!row?.revokedAt) throw notFound(`No active API key with id ${keyId}.`);
  // What it opened (a console) closes now here, and within a seen-interval on other instances.
  signal("credentials-revoked");
  return { id: row.id, revoked: true, revoked_at: row.revokedAt.toISOString() };
}
