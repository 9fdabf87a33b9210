import type { KEY_RIGHT_FIELDS } from "@/lib/api/schemas/keys";
import type { ApiKeyScope, SpendCapPeriod } from "@/lib/db/types";
import { networkWithin, parseNetworks } from "@/lib/util/networks";

/**
 * What a new key may hold when a key makes it: never more than the key making it. The rule alone, apart
 * from the database, so it can be read (and tested) in one place.
 */

export type SpendCap = { cents: number; period: SpendCapPeriod };

/** A key's rights as stored: null means unbounded (every scope, no expiry, anywhere, every server, no cap). */
export type StoredRights = {
  scopes: ApiKeyScope[] | null;
  expiresAt: Date | null;
  networks: string[] | null;
  serverIds: number[] | null;
  spendCap: SpendCap | null;
};

/** The key making the new one: its rights, and how much it may still spend under every cap above it. */
export type MakerRights = Omit<StoredRights, "spendCap"> & { availableCents: number | null };

/** What the request asks for; a field left out inherits the maker's. Scopes already hold what they need. */
export type AskedRights = {
  scopes?: ApiKeyScope[];
  expiresAt?: Date;
  networks?: string[];
  serverIds?: number[];
  spendCap?: SpendCap;
};

export type BoundsRefusal = { field: (typeof KEY_RIGHT_FIELDS)[number]; message: string };

/**
 * The new key's rights: what is asked, each part within the maker's (null maker: the account itself, from
 * the dashboard, bounds nothing), and what is not asked taken from the maker. A maker with a spend cap above
 * it gives a key that asks for none what it has left, for good (`total`): the new key's spending counts
 * against the maker's caps anyway (lib/ledger/spend-caps.ts), and its own cap says so.
 */
export function boundNewKey(maker: MakerRights | null, asked: AskedRights): StoredRights | BoundsRefusal {
  if (maker === null) {
    return {
      scopes: asked.scopes ?? null,
      expiresAt: asked.expiresAt ?? null,
      networks: asked.networks ?? null,
      serverIds: asked.serverIds ?? null,
      spendCap: asked.spendCap ?? null,
    };
  }
  const makerScopes = maker.scopes;
  const extraScopes = makerScopes ? (asked.scopes ?? []).filter((scope) => !makerScopes.includes(scope)) : [];
  if (extraScopes.length > 0) {
    return {
      field: "scopes",
      message: `The key making this one does not hold ${extraScopes.join(", ")}: a key can give only scopes it holds.`,
    };
  }
  if (maker.expiresAt && asked.expiresAt && asked.expiresAt > maker.expiresAt) {
    return {
      field: "expires_at",
      message: `The key making this one expires at ${maker.expiresAt.toISOString()}: a key it makes cannot outlive it.`,
    };
  }
  if (maker.networks && asked.networks) {
    const outer = parseNetworks(maker.networks);
    const inner = parseNetworks(asked.networks);
    const outside = asked.networks.filter((_, index) => {
      const network = inner[index];
      return !network || !outer.some((allowed) => networkWithin(network, allowed));
    });
    if (outside.length > 0) {
      return {
        field: "allowed_networks",
        message: `${outside.join(", ")} ${outside.length === 1 ? "is" : "are"} outside the networks of the key making this one (${maker.networks.join(", ")}).`,
      };
    }
  }
  const makerServers = maker.serverIds;
  const otherServers = makerServers ? (asked.serverIds ?? []).filter((id) => !makerServers.includes(id)) : [];
  if (otherServers.length > 0) {
    return {
      field: "server_ids",
      message: `The key making this one may not touch server ${otherServers.join(", ")}.`,
    };
  }
  if (maker.availableCents !== null && asked.spendCap && asked.spendCap.cents > maker.availableCents) {
    return {
      field: "spend_cap",
      message: `The key making this one may spend ${(maker.availableCents / 100).toFixed(2)} USD more: a key it makes cannot have a larger cap.`,
    };
  }
  return {
    scopes: asked.scopes ?? maker.scopes,
    expiresAt: asked.expiresAt ?? maker.expiresAt,
    networks: asked.networks ?? maker.networks,
    serverIds: asked.serverIds ?? maker.serverIds,
    spendCap:
      asked.spendCap ??
      (maker.availableCents === null ? null : { cents: maker.availableCents, period: "total" }),
  };
}
