import "server-only";
import { eq, inArray } from "drizzle-orm";
import { db } from "@/lib/db/client";
import { chainCursors } from "@/lib/db/schema";

export type WatcherCursor = typeof chainCursors.$inferSelect;

/**
 * A watcher's row in chain_cursors: its lease (lib/db/lease), how far it has scanned, and how its last
 * poll went. Only the lease holder writes it, so the row is the watcher's state across restarts and
 * across app instances.
 */
export async function readCursor(name: string): Promise<WatcherCursor | undefined> {
  const database = await db();
  const [row] = await database.select().from(chainCursors).where(eq(chainCursors.network, name));
  return row;
}

export async function readCursors(names: string[]): Promise<Map<string, WatcherCursor>> {
  if (names.length === 0) return new Map();
  const database = await db();
  const rows = await database.select().from(chainCursors).where(inArray(chainCursors.network, names));
  return new Map(rows.map((row) => [row.network, row]));
}

/** A successful poll: the new scan position and the node's tip. */
export async function saveCursor(
  name: string,
  position: { scannedBlock: number; scannedHash: string | null; headBlock: number },
): Promise<void> {
  const database = await db();
  const at = new Date();
  await database
    .update(chainCursors)
    .set({ ...position, checkedAt: at, lastError: null, updatedAt: at })
    .where(eq(chainCursors.network, name));
}

/** A failed poll: the node is reported down with this reason until a poll succeeds again. */
export async function recordWatcherError(name: string, message: string): Promise<void> {
  const database = await db();
  await database
    .update(chainCursors)
    .set({ checkedAt: new Date(), lastError: message.slice(0, 500) })
    .where(eq(chainCursors.network, name));
}
