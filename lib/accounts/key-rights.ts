import "server-only";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { ApiError } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { apiKeys } from "@/lib/db/schema";
import type { ApiKeyKind, ApiKeyScope } from "@/lib/db/types";
import { now } from "@/lib/util/clock";
import { type AddressMatcher, networksMatcher } from "@/lib/util/networks";

/**
 * What a key may do and under which conditions, as authentication read it: its scopes, its expiry, the client
 * networks it may be used from and the servers it may touch. Held by the service: whatever client holds the
 * key, these are checked on every request (lib/api/authorize.ts), and the spend cap where the debit is written
 * (lib/ledger/spend-caps.ts).
 */
export type KeyRights = {
  /** The scopes it holds; null: every scope (keys made before scopes existed, dashboard sessions). */
  scopes: ReadonlySet<ApiKeyScope> | null;
  /** When it stops working (ms since the epoch, on the service's clock); null: never. */
  expiresAt: number | null;
  /** Whether it may be used from a client address; null: from anywhere. */
  networks: AddressMatcher | null;
  /** The only servers it may see or touch; null: every server of the account. */
  serverIds: ReadonlySet<number> | null;
  /**
   * The account's own: a dashboard session, or a key with every scope and no condition or cap. Only such a
   * caller may do what hands out every right (a new login token signs into the dashboard without conditions).
   */
  unrestricted: boolean;
};

/** A key's rights from its row's columns. */
export function keyRightsOf(row: {
  kind: ApiKeyKind;
  scopes: ApiKeyScope[] | null;
  expiresAt: Date | null;
  allowedNetworks: string[] | null;
  serverIds: number[] | null;
  spendCapCents: number | null;
}): KeyRights {
  const unconditioned =
    row.scopes === null &&
    row.expiresAt === null &&
    row.allowedNetworks === null &&
    row.serverIds === null &&
    row.spendCapCents === null;
  return {
    scopes: row.scopes === null ? null : new Set(row.scopes),
    expiresAt: row.expiresAt?.getTime() ?? null,
    networks: row.allowedNetworks === null ? null : networksMatcher(row.allowedNetworks),
    serverIds: row.serverIds === null ? null : new Set(row.serverIds),
    unrestricted: row.kind === "session" || unconditioned,
  };
}

/** The scopes a key holds, as its answers name them (every scope for a key that holds all). */
export const heldScopes = (rights: KeyRights, all: readonly ApiKeyScope[]): ApiKeyScope[] =>
  rights.scopes === null ? [...all] : all.filter((scope) => rights.scopes?.has(scope));

/**
 * Refuses a key that has expired (401 `key_expired`) or is used from an address outside its networks (403
 * `address_not_allowed`). `address` is the client as the service derives it (behind TRUST_PROXY_HOPS).
 */
export function checkKeyConditions(rights: KeyRights, address: string, at: Date = now()): void {
  if (rights.expiresAt !== null && rights.expiresAt <= at.getTime()) {
    const expiredAt = new Date(rights.expiresAt).toISOString();
    throw new ApiError(
      401,
      "key_expired",
      `This API key expired at ${expiredAt}; create a new key (an expired one cannot be renewed).`,
      { expired_at: expiredAt },
      { "WWW-Authenticate": 'Bearer realm="api", error="invalid_token"' },
    );
  }
  if (rights.networks !== null && !rights.networks(address)) {
    throw new ApiError(
      403,
      "address_not_allowed",
      `This API key may not be used from ${address}: it is limited to the networks it was created with.`,
      { address },
    );
  }
}

/** 403 `missing_scope`: what the operation needs and what the key holds, so the fix is obvious. */
export function missingScope(required: readonly ApiKeyScope[], held: readonly ApiKeyScope[]): ApiError {
  return new ApiError(
    403,
    "missing_scope",
    `This needs the scope${required.length === 1 ? "" : "s"} ${required.join(", ")}, which this API key does not ` +
      `hold (it holds ${held.length > 0 ? held.join(", ") : "none"}). Use a key that holds ` +
      `${required.length === 1 ? "it" : "them"}, or create one that does.`,
    { required_scopes: [...required], key_scopes: [...held] },
  );
}

/** Whether the key may see or touch server `serverId` (others are absent to it). */
export const mayTouchServer = (rights: KeyRights, serverId: number) =>
  rights.serverIds === null || rights.serverIds.has(serverId);

/**
 * A server the key just ordered joins the servers it may touch, if it is bound to some: it can manage what
 * it bought. In the order's transaction.
 */
export async function bindOrderedServer(tx: Tx, apiKeyId: number, serverId: number): Promise<void> {
  await tx
    .update(apiKeys)
    .set({ serverIds: sql`array_append(${apiKeys.serverIds}, ${serverId}::integer)` })
    .where(and(eq(apiKeys.id, apiKeyId), isNotNull(apiKeys.serverIds)));
}
