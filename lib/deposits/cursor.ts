import "server-only";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
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

/** A successful poll: the new scan position and the node's tip. A node that was down is logged as back. */
export async function saveCursor(
  name: string,
  position: { scannedBlock: number; scannedHash: string | null; headBlock: number },
): Promise<void> {
  const database = await db();
  const at = new Date();
  const recovered = await database
    .update(chainCursors)
    .set({ lastError: null })
    .where(and(eq(chainCursors.network, name), isNotNull(chainCursors.lastError)))
    .returning({ network: chainCursors.network });
  await database
    .update(chainCursors)
    .set({ ...position, checkedAt: at, lastError: null, updatedAt: at })
    .where(eq(chainCursors.network, name));
  if (recovered.length > 0) console.error(`deposit watcher ${name}: its node answers again`);
}

/**
 * A failed poll: the node is reported down with this reason until a poll succeeds again. The reason, with
 * whatever detail it has (addresses included), goes to the log when it changes, not on every pass; the
 * public health shows only plain words for it.
 */
export async function recordWatcherError(name: string, message: string): Promise<void> {
  const reason = message.slice(0, 500);
  const database = await db();
  const [before] = await database
    .select({ lastError: chainCursors.lastError })
    .from(chainCursors)
    .where(eq(chainCursors.network, name));
  await database
    .update(chainCursors)
    .set({ checkedAt: new Date(), lastError: reason })
    .where(eq(chainCursors.network, name));
  if (before?.lastError !== reason)
    console.error(`deposit watcher ${name}: its node is unavailable: ${reason}`);
}
