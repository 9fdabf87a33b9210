import "server-only";
import { and, desc, eq, inArray, lt } from "drizzle-orm";
import type { AuthContext } from "@/lib/accounts/auth";
import { conflict, notFound } from "@/lib/api/errors";
import { type Page, type PageRequest, toPage } from "@/lib/api/pagination";
import type { Server } from "@/lib/api/schemas/servers";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import { reuseUntilWrite } from "@/lib/db/until-write";
import { presentServers, presentServerWithTraffic } from "./metrics/traffic";
import type { ServerRow } from "./present";
import { cachedServerRead } from "./read-cache";
import { rescuePasswordOf } from "./rescue";
import { serverRow } from "./rows";
import { decryptRootPassword } from "./secrets";

/**
 * The servers' read path: a page of them, one, its credentials. Rows are kept per account and reused while
 * the account's server revision, read with the request's authentication, is unchanged (read-cache.ts).
 */

/**
 * Whose servers a read is for, their revision as authentication read it (see read-cache.ts), and the only
 * servers the key may see when it is limited to some (others are absent to it, in lists too).
 */
export type ServerReader = {
  accountId: number;
  serversRevision: number;
  serverIds: ReadonlySet<number> | null;
};

export const serverReader = (auth: AuthContext): ServerReader => ({
  accountId: auth.accountId,
  serversRevision: auth.account.serversRevision,
  serverIds: auth.rights.serverIds,
});

/** The reader's server, reused while the account's servers are unchanged; another account's is 404. */
export function ownedRow(reader: ServerReader, serverId: number): Promise<ServerRow> {
  const { accountId, serversRevision, serverIds } = reader;
  if (serverIds !== null && !serverIds.has(serverId)) throw notFound(`No server with id ${serverId}.`);
  return cachedServerRead(accountId, serversRevision, `row:${serverId}`, () =>
    serverRow(serverId, { ownedBy: accountId }),
  );
}

/**
 * What the reader's server keeps in tables of its own (snapshots, PTRs, firewall rules, resizes), with the
 * owned row (reused as ownedRow reuses it): `load` reads `tables` for this server only, and its value is
 * reused until one of them is written (lib/db/until-write.ts; the embedded database only, where each read is
 * a statement run on the request's thread). The part's name must say whatever of the row `load` reads
 * (its host, its expiry): the rest is presented with the row afterwards.
 */
export async function serverPart<T>(
  reader: ServerReader,
  serverId: number,
  part: string | ((row: ServerRow) => string),
  tables: readonly string[],
  load: (row: ServerRow) => Promise<T>,
): Promise<{ row: ServerRow; part: T }> {
  const row = await ownedRow(reader, serverId);
  const name = typeof part === "string" ? part : part(row);
  return {
    row,
    part: await reuseUntilWrite(`server:${serverId}:${name}`, () => load(row), undefined, tables),
  };
}

/** One page of the account's servers (those the key may see), newest first, terminated ones included. */
export async function listServers(reader: ServerReader, page: PageRequest): Promise<Page<Server>> {
  const { accountId, serversRevision, serverIds } = reader;
  const only = serverIds === null ? undefined : [...serverIds].sort((a, b) => a - b);
  // The rows are cached by revision; traffic moves without one, so it is read for every answer.
  const rows = await cachedServerRead(
    accountId,
    serversRevision,
    `page:${page.beforeId ?? ""}:${page.limit}${only ? `:only:${only.join(",")}` : ""}`,
    async () => {
      const database = await db();
      return database
        .select()
        .from(servers)
        .where(
          and(
            eq(servers.accountId, accountId),
            page.beforeId ? lt(servers.id, page.beforeId) : undefined,
            only ? inArray(servers.id, only.length > 0 ? only : [0]) : undefined,
          ),
        )
        .orderBy(desc(servers.id))
        .limit(page.limit + 1);
    },
  );
  const rowPage = toPage(rows, page.limit, (row) => row);
  return { ...rowPage, items: await presentServers(await db(), rowPage.items) };
}

export async function getServer(reader: ServerReader, serverId: number): Promise<Server> {
  return presentServerWithTraffic(await db(), await ownedRow(reader, serverId));
}

/**
 * The root login, decrypted on request, with the rescue system's temporary password while it runs.
 * Terminated servers have none (a lapsed one's is kept sealed for its return, but not shown).
 */
export async function getCredentials(reader: ServerReader, serverId: number) {
  const row = await ownedRow(reader, serverId);
  if (row.status === "terminated" || !row.rootPasswordEnc) {
    throw conflict("server_terminated", "This server is terminated; its credentials are gone.");
  }
  return {
    username: "root" as const,
    password: decryptRootPassword(config().encryptionKey, row.id, row.rootPasswordEnc),
    rescue_password: rescuePasswordOf(row),
  };
}
