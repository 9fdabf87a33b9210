import "server-only";
import { and, asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { AuthContext } from "@/lib/accounts/auth";
import { generateApiKey } from "@/lib/accounts/credentials";
import { requireSecondFactor, type SecondFactor } from "@/lib/accounts/two-factor";
import { ApiError, badRequest, conflict, notFound } from "@/lib/api/errors";
import {
  type ApiKey,
  type ApiKeyCreated,
  type CreateKeyRequest,
  type CurrentKey,
  type KEY_RIGHT_FIELDS,
  MAX_ACTIVE_KEYS,
  type RevokedKey,
} from "@/lib/api/schemas/keys";
import { withNeededScopes } from "@/lib/api/scopes";
import { type Database, db, type Tx } from "@/lib/db/client";
import { accounts, apiKeys, servers } from "@/lib/db/schema";
import { API_KEY_SCOPES } from "@/lib/db/types";
import { firstAhead, reuseUntilWrite } from "@/lib/db/until-write";
import { availableCents, type CapStatus, capStatus, keyBudget } from "@/lib/ledger/spend-caps";
import { centsToUsd, usdToCents } from "@/lib/util/cents";
import { now } from "@/lib/util/clock";
import { readNetwork } from "@/lib/util/networks";
import { signal } from "@/lib/util/signals";
import { type AskedRights, boundNewKey, type MakerRights } from "./key-bounds";

type KeyRow = typeof apiKeys.$inferSelect;

/** A key as its answers show it, with its own cap's standing (read beside it) when it has a cap. */
function presentKey(row: KeyRow, cap: CapStatus | undefined): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    last_used_from: row.lastUsedFrom,
    scopes: row.scopes ?? [...API_KEY_SCOPES],
    full_access: row.scopes === null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    allowed_networks: row.allowedNetworks,
    server_ids: row.serverIds,
    spend_cap: cap
      ? {
          amount_usd: centsToUsd(cap.capCents),
          period: cap.period,
          spent_usd: centsToUsd(cap.spentCents),
          resets_at: cap.resetsAt?.toISOString() ?? null,
        }
      : null,
    created_by_key_id: row.parentKeyId,
  };
}

/** The standing of the key's own cap now, or undefined when it has none. */
function ownCap(database: Database | Tx, row: KeyRow): Promise<CapStatus | undefined> {
  if (row.spendCapCents === null || row.spendCapPeriod === null) return Promise.resolve(undefined);
  return capStatus(database, row.id, { capCents: row.spendCapCents, period: row.spendCapPeriod }, now());
}

/**
 * The account's active keys, oldest first, by prefix only, with what each has spent of its cap. Reused until
 * a key or the ledger is written, or a cap's period ends.
 */
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
      return Promise.all(rows.map(async (row) => presentKey(row, await ownCap(database, row))));
    },
    (keys) => firstAhead(keys.map((key) => key.spend_cap?.resets_at ?? null)),
    ["api_keys", "ledger_entries"],
  );
}

/** The calling key: what it is, what it may do, what it may still spend, where it was last used from. */
export async function currentKey(auth: AuthContext): Promise<CurrentKey> {
  const database = await db();
  const [row] = await database.select().from(apiKeys).where(eq(apiKeys.id, auth.keyId));
  if (!row) throw notFound("This key no longer exists.");
  const budget = await keyBudget(database, auth.accountId, auth.keyId, now());
  const spendable = budget.canSpend ? availableCents(budget.caps) : 0;
  return {
    ...presentKey(
      row,
      budget.caps.find((cap) => cap.depth === 0),
    ),
    kind: row.kind,
    spendable_usd: spendable === null ? null : centsToUsd(spendable),
  };
}

const beyondKeyRights = (field: (typeof KEY_RIGHT_FIELDS)[number], message: string) =>
  new ApiError(403, "beyond_key_rights", message, { field });

/** What a request asks for, read into stored form: scopes with their needs, networks in one spelling. */
function askedRights(request: CreateKeyRequest): {
  asked: AskedRights;
  added: ReturnType<typeof withNeededScopes>["added"];
} {
  const scopes = request.scopes ? withNeededScopes(request.scopes) : undefined;
  const expiresAt = request.expires_at === undefined ? undefined : new Date(request.expires_at);
  if (expiresAt && expiresAt.getTime() <= now().getTime()) {
    throw badRequest("invalid_expires_at", `expires_at ${request.expires_at} is not in the future.`);
  }
  const networks = request.allowed_networks?.map((text) => {
    const reading = readNetwork(text);
    if ("problem" in reading) throw badRequest("invalid_networks", reading.problem);
    return reading.network;
  });
  const cents = request.spend_cap ? usdToCents(request.spend_cap.amount_usd) : undefined;
  return {
    asked: {
      scopes: scopes?.scopes,
      expiresAt,
      networks: networks ? [...new Set(networks)] : undefined,
      serverIds: request.server_ids ? [...new Set(request.server_ids)].sort((a, b) => a - b) : undefined,
      spendCap:
        request.spend_cap && cents !== undefined ? { cents, period: request.spend_cap.period } : undefined,
    },
    added: scopes?.added ?? [],
  };
}

/** The key making a new one, as its bounds: null for a dashboard session (the account itself). */
async function makerRights(tx: Tx, auth: AuthContext): Promise<MakerRights | null> {
  if (auth.keyKind === "session") return null;
  const [row] = await tx.select().from(apiKeys).where(eq(apiKeys.id, auth.keyId));
  if (!row) throw new Error(`key ${auth.keyId} not found`);
  const budget = await keyBudget(tx, auth.accountId, auth.keyId, now());
  return {
    scopes: row.scopes,
    expiresAt: row.expiresAt,
    networks: row.allowedNetworks,
    serverIds: row.serverIds,
    availableCents: budget.canSpend ? availableCents(budget.caps) : 0,
  };
}

/** Refuses server ids that are not the account's (400: they name nothing the key could touch). */
async function requireOwnServers(tx: Tx, accountId: number, serverIds: number[] | undefined) {
  if (!serverIds) return;
  const found = await tx
    .select({ id: servers.id })
    .from(servers)
    .where(and(eq(servers.accountId, accountId), inArray(servers.id, serverIds)));
  const known = new Set(found.map((row) => row.id));
  const unknown = serverIds.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw badRequest("invalid_server_ids", `This account has no server with id ${unknown.join(", ")}.`);
  }
}

/**
 * Mints a key; the account row is locked so two parallel requests cannot both pass the key cap.
 *
 * A key made with a key holds at most what that key holds: its scopes, an expiry no later, networks inside
 * its own, servers among its own and a spend cap no larger than it has left (key-bounds.ts); it records its
 * maker, whose caps count its spending. From a dashboard session the account itself makes it, bounded by
 * nothing; on an account with TOTP on that takes a current code (or a recovery code): a session lasts 7 days
 * and dies with the login token, a key lasts until revoked, so a copied cookie must not turn itself into a key.
 */
export async function createKey(
  auth: AuthContext,
  input: { request: CreateKeyRequest; factor: SecondFactor },
  client: string,
): Promise<ApiKeyCreated> {
  if (auth.keyKind === "session") await requireSecondFactor(auth.accountId, input.factor, client);
  const { accountId } = auth;
  const { asked, added } = askedRights(input.request);
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
    await requireOwnServers(tx, accountId, asked.serverIds);
    const maker = await makerRights(tx, auth);
    const rights = boundNewKey(maker, asked);
    if ("field" in rights) throw beyondKeyRights(rights.field, rights.message);
    const [inserted] = await tx
      .insert(apiKeys)
      .values({
        accountId,
        keyHash: key.hash,
        prefix: key.prefix,
        name: input.request.name ?? null,
        scopes: rights.scopes,
        expiresAt: rights.expiresAt,
        allowedNetworks: rights.networks,
        serverIds: rights.serverIds,
        spendCapCents: rights.spendCap?.cents ?? null,
        spendCapPeriod: rights.spendCap?.period ?? null,
        parentKeyId: maker ? auth.keyId : null,
      })
      .returning();
    return inserted;
  });
  if (!row) throw new Error("key insert returned no row");
  const cap = await ownCap(database, row);
  return { ...presentKey(row, cap), api_key: key.key, scopes_added: row.scopes === null ? [] : added };
}

/** The active keys `keyId` made, at any depth. */
async function keysMadeBy(tx: Tx, keyId: number): Promise<number[]> {
  const result = await tx.execute(sql`
    WITH RECURSIVE made AS (
      SELECT id FROM api_keys WHERE parent_key_id = ${keyId}
      UNION ALL
      SELECT k.id FROM api_keys k JOIN made m ON k.parent_key_id = m.id
    )
    SELECT made.id FROM made JOIN api_keys k ON k.id = made.id WHERE k.revoked_at IS NULL`);
  return (result as unknown as { rows: { id: number }[] }).rows.map((row) => Number(row.id));
}

/**
 * Revokes one of the account's active keys at once, and the keys it made with it; another account's key, or
 * a revoked one, is 404. A key that does not hold every scope may revoke only itself and the keys it made:
 * an agent's key must not be able to cut off its owner's.
 */
export async function revokeKey(auth: AuthContext, keyId: number): Promise<RevokedKey> {
  const database = await db();
  const revoked = await database.transaction(async (tx) => {
    const [target] = await tx
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.id, keyId),
          eq(apiKeys.accountId, auth.accountId),
          eq(apiKeys.kind, "api"),
          isNull(apiKeys.revokedAt),
        ),
      )
      .for("update");
    if (!target) throw notFound(`No active API key with id ${keyId}.`);
    if (auth.rights.scopes !== null && keyId !== auth.keyId) {
      const own = await keysMadeBy(tx, auth.keyId);
      if (!own.includes(keyId)) {
        throw new ApiError(
          403,
          "beyond_key_rights",
          "This key does not hold every scope: it may revoke only itself and the keys it made.",
        );
      }
    }
    const made = await keysMadeBy(tx, keyId);
    const revokedAt = new Date();
    await tx
      .update(apiKeys)
      .set({ revokedAt })
      .where(and(inArray(apiKeys.id, [keyId, ...made]), isNull(apiKeys.revokedAt)));
    return { id: keyId, revoked: true as const, revoked_at: revokedAt.toISOString(), also_revoked: made };
  });
  // What they opened (a console) closes now here, and within a seen-interval on other instances.
  signal("credentials-revoked");
  return revoked;
}
