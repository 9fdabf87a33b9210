/**
 * Every query key of the dashboard's cache. Queries and invalidations take their keys from here only, so a
 * key cannot be retyped slightly wrong. A list's key is the prefix of its items' keys: invalidating
 * `queryKeys.servers.all()` alone (exact) refreshes the list, without it every server too.
 */
export const queryKeys = {
  account: () => ["account"] as const,
  apiKeys: () => ["keys"] as const,
  sessions: () => ["sessions"] as const,
  /** How many recovery codes are left (never the codes). */
  recoveryCodes: () => ["recovery-codes"] as const,
  servers: {
    all: () => ["servers"] as const,
    one: (id: number) => ["servers", id] as const,
    /** A server's snapshots (under its key: refreshing the server refreshes them too). */
    snapshots: (id: number) => ["servers", id, "snapshots"] as const,
    /** A server's usage graphs over one period. */
    metrics: (id: number, period: string) => ["servers", id, "metrics", period] as const,
    /** Its resizes, with their state and measured downtime. */
    resizes: (id: number) => ["servers", id, "resizes"] as const,
    /** When its owner is warned before it expires. */
    expiryWarnings: (id: number) => ["servers", id, "expiry-warnings"] as const,
  },
  webhooks: {
    all: () => ["webhooks"] as const,
    /** An endpoint's delivery log (under the list's key: refreshing the list refreshes it too). */
    deliveries: (id: number) => ["webhooks", id, "deliveries"] as const,
  },
  topups: {
    all: () => ["topups"] as const,
    one: (ref: string) => ["topups", ref] as const,
  },
  /** The x402 payment request for an amount, as the wallet payment fetched it. */
  x402Challenge: (amountCents: number) => ["x402-challenge", amountCents] as const,
};
