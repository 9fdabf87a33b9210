import "server-only";
import { and, eq } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import { db, type Tx } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import type { ServerRow } from "./present";

/**
 * A server's row, the two ways it is fetched: read as it is now, or locked FOR UPDATE in a transaction.
 * With `ownedBy`, the server must be that account's: another account's (or a missing one) is 404, as the
 * API answers it. Without, it is the worker's read of a server it knows exists.
 */
type Owner = { ownedBy?: number };

const where = (id: number, { ownedBy }: Owner) =>
  and(eq(servers.id, id), ownedBy === undefined ? undefined : eq(servers.accountId, ownedBy));

function found(row: ServerRow | undefined, id: number, { ownedBy }: Owner): ServerRow {
  if (row) return row;
  if (ownedBy !== undefined) throw notFound(`No server with id ${id}.`);
  throw new Error(`server ${id} not found`);
}

/** The server's row as it is now. */
export async function serverRow(id: number, owner: Owner = {}): Promise<ServerRow> {
  const database = await db();
  const [row] = await database.select().from(servers).where(where(id, owner));
  return found(row, id, owner);
}

/** The server's row, locked FOR UPDATE in `tx` until it ends. */
export async function lockServer(tx: Tx, id: number, owner: Owner = {}): Promise<ServerRow> {
  const [row] = await tx.select().from(servers).where(where(id, owner)).for("update");
  return found(row, id, owner);
}
