import { API_KEY_SCOPES, type ApiKeyScope, SPEND_SCOPE } from "@/lib/db/types";

/**
 * What each key scope lets a key do, and which others it brings along. Every API operation names the one
 * scope it needs where it is declared (lib/api/openapi/, `x-scope`); this file says what the names mean, for
 * the reference, the error answers and the dashboard's key form. Constants only: the browser reads it too.
 */

/** The `x-scope` of operations any valid key may call, whatever its scopes (a key asking what it is). */
export const ANY_KEY = "none";

export type OperationScope = ApiKeyScope | typeof ANY_KEY;

export type ScopeGroup = "servers" | "money" | "access" | "notifications";

type ScopeFacts = {
  /** One line: what a key with this scope can do. */
  summary: string;
  group: ScopeGroup;
  /** Scopes without which this one is of no use: a key given it is given these too. */
  needs: readonly ApiKeyScope[];
  /** Reaches secrets, destroys, spends or hands out access: the key form marks it. */
  dangerous?: true;
};

export const SCOPES = {
  "servers:read": {
    summary: "List and read servers, their usage graphs, expiry warnings and snapshots",
    group: "servers",
    needs: [],
  },
  "servers:power": { summary: "Start, stop and reboot servers", group: "servers", needs: ["servers:read"] },
  "servers:rebuild": {
    summary: "Reinstall servers and set their root password (wipes the disk; answers with the new login)",
    group: "servers",
    needs: ["servers:read"],
    dangerous: true,
  },
  "servers:console": {
    summary: "Open a server's serial console",
    group: "servers",
    needs: ["servers:read"],
    dangerous: true,
  },
  "servers:snapshots": {
    summary: "Take, restore and delete snapshots, set their automatic schedule; enter and leave rescue mode",
    group: "servers",
    needs: ["servers:read"],
  },
  "servers:network": {
    summary: "Change servers' firewall rules and reverse DNS names",
    group: "servers",
    needs: ["servers:read"],
  },
  "servers:credentials": {
    summary: "Read servers' root passwords",
    group: "servers",
    needs: ["servers:read"],
    dangerous: true,
  },
  "servers:terminate": {
    summary: "Terminate servers (at once, nothing kept, no refund)",
    group: "servers",
    needs: ["servers:read"],
    dangerous: true,
  },
  "billing:spend": {
    summary: "Spend the balance: order, renew and resize servers, switch auto-renewal",
    group: "money",
    needs: ["servers:read", "account:read"],
    dangerous: true,
  },
  "topups:read": { summary: "List and read top-ups", group: "money", needs: [] },
  "topups:write": { summary: "Create and cancel top-ups", group: "money", needs: ["topups:read"] },
  "account:read": {
    summary: "Read the account (balance, two-factor state, recovery codes left) and its dashboard sessions",
    group: "access",
    needs: [],
  },
  "account:write": {
    summary: "Two-factor sign-in, recovery codes, the login token, revoking dashboard sessions",
    group: "access",
    needs: ["account:read"],
    dangerous: true,
  },
  "keys:read": { summary: "List API keys", group: "access", needs: [] },
  "keys:write": {
    summary: "Create keys within this key's own rights, and revoke this key and those it created",
    group: "access",
    needs: ["keys:read"],
    dangerous: true,
  },
  "webhooks:read": {
    summary: "List webhooks and push topics and their deliveries",
    group: "notifications",
    needs: [],
  },
  "webhooks:write": {
    summary: "Create, change, test and delete webhooks and push topics; rotate secrets; redeliver",
    group: "notifications",
    needs: ["webhooks:read"],
  },
} as const satisfies Record<ApiKeyScope, ScopeFacts>;

/** The groups of the key form and the reference, in order, with their headings. */
export const SCOPE_GROUPS: readonly { id: ScopeGroup; title: string }[] = [
  { id: "servers", title: "Servers" },
  { id: "money", title: "Money" },
  { id: "access", title: "Account and keys" },
  { id: "notifications", title: "Notifications" },
];

export const isScope = (value: string): value is ApiKeyScope =>
  (API_KEY_SCOPES as readonly string[]).includes(value);

/**
 * `scopes` with every scope they bring along, in the vocabulary's order, and those that were added. A key
 * holds the whole set, and says so.
 */
export function withNeededScopes(scopes: readonly ApiKeyScope[]): {
  scopes: ApiKeyScope[];
  added: ApiKeyScope[];
} {
  const held = new Set<ApiKeyScope>(scopes);
  for (const scope of scopes) for (const needed of SCOPES[scope].needs) held.add(needed);
  const ordered = API_KEY_SCOPES.filter((scope) => held.has(scope));
  return { scopes: ordered, added: ordered.filter((scope) => !scopes.includes(scope)) };
}

/** A starting point of the key form: scopes, and for an agent a spend cap. */
export type ScopePreset = {
  id: string;
  title: string;
  scopes: readonly ApiKeyScope[];
  spendCap?: { amountUsd: number; period: "day" | "week" | "month" | "total" };
};

export const SCOPE_PRESETS: readonly ScopePreset[] = [
  {
    id: "read-only",
    title: "Read-only",
    scopes: ["servers:read", "topups:read", "account:read", "keys:read", "webhooks:read"],
  },
  {
    id: "operate",
    title: "Operate servers",
    scopes: [
      "servers:read",
      "servers:power",
      "servers:rebuild",
      "servers:console",
      "servers:snapshots",
      "servers:network",
    ],
  },
  {
    id: "agent",
    title: "Agent with a budget",
    scopes: [
      "servers:read",
      "servers:power",
      "servers:rebuild",
      "servers:snapshots",
      "servers:network",
      "servers:credentials",
      "servers:terminate",
      SPEND_SCOPE,
      "account:read",
    ],
    spendCap: { amountUsd: 50, period: "month" },
  },
];
