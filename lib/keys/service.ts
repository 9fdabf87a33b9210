import "server-only";
import { and, asc, count, eq, isNull } from "drizzle-orm";
import { generateApiKey } from "@/lib/accounts/credentials";
import { conflict, notFound } from "@/lib/api/errors";
import { db } from "@/lib/db/client";
import { accounts, apiKeys } from "@/lib/db/schema";
import { reuseUntilWrite } from "@/lib/db/until-write";
import { type ApiKey, type ApiKeyCreated, MAX_ACTIVE_KEYS, type RevokedKey } from "@/lib/schemas/keys";

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
  return reuseUntilWrite(`keys:${accountId}`, async () => {
    const database = await db();
    const rows = await database
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, "api"), isNull(apiKeys.revokedAt)))
      .orderBy(asc(apiKeys.id));
    return rows.map(presentKey);
  });
}

/** Mints a key; the account row is locked so two parallel requests cannot both pass the key cap. */
export async function createKey(accountId: number, name: string | undefined): Promise<ApiKeyCreated> {
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
  return { id: row.id, revoked: true, revoked_at: row.revokedAt.toISOString() };
}
