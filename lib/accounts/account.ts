import "server-only";
import type { Account, AccountCreated } from "@/lib/api/schemas/account";
import { db } from "@/lib/db/client";
import { accounts, apiKeys } from "@/lib/db/schema";
import { centsToUsd } from "@/lib/util/cents";
import type { AuthContext } from "./auth";
import { generateApiKey, generateLoginToken } from "./credentials";

function presentAccount(accountId: number, account: AuthContext["account"]): Account {
  return {
    user_id: accountId,
    balance_usd: centsToUsd(account.balanceCents),
    currency: "USD",
    servers: account.serverCount,
    totp_enabled: account.totpEnabled,
    created_at: account.createdAt.toISOString(),
    suspension: account.suspension
      ? { reason: account.suspension.reason, since: account.suspension.since.toISOString() }
      : null,
  };
}

/** Creates an account with its first API key and its login token, in one transaction. */
export async function createAccount(): Promise<AccountCreated> {
  const key = generateApiKey();
  const token = generateLoginToken();
  const database = await db();
  const row = await database.transaction(async (tx) => {
    const [inserted] = await tx.insert(accounts).values({ loginTokenHash: token.hash }).returning();
    if (!inserted) throw new Error("account insert returned no row");
    await tx
      .insert(apiKeys)
      .values({ accountId: inserted.id, keyHash: key.hash, prefix: key.prefix, name: "default" });
    return inserted;
  });
  return {
    ...presentAccount(row.id, { ...row, serverCount: 0, serversRevision: 0, suspension: null }),
    api_key: key.key,
    login_token: token.token,
  };
}

/** The caller's account, as authentication read it (same statement, same snapshot). */
export function getAccount(auth: AuthContext): Account {
  return presentAccount(auth.accountId, auth.account);
}
