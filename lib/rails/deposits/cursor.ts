import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { db } from "@/lib/db/client";
import { instanceId } from "@/lib/db/lease";
import { chainCursors } from "@/lib/db/schema";
import type { NodeView } from "./node-view";
import type { PushState } from "./push";

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

/** The watcher's lease went to another instance during its poll: that instance's cursor stands. */
export class LeaseLostError extends Error {
  constructor(name: string) {
    super(`${name}: the lease passed to another instance during this poll; its position was not saved`);
    this.name = "LeaseLostError";
  }
}

/**
 * A successful poll: the new scan position and the node's tip, with what the node said of itself where it
 * says (health judges from it whether the node is cut off). Saved only while this instance still holds
 * the lease and the row still shows the position the poll started from (`readFrom`): a poll that outlived
 * its lease, while another instance scanned further, must not put the cursor back where it began. A node
 * that was down when the poll began is logged as back.
 */
export async function saveCursor(
  name: string,
  position: { scannedBlock: number; scannedHash: string | null; headBlock: number },
  readFrom: Pick<WatcherCursor, "scannedBlock" | "lastError"> | undefined,
  node?: Omit<NodeView, "tip">,
): Promise<void> {
  const database = await db();
  const at = new Date();
  const nodeView = node ? { nodePeers: node.peers, nodeHeaders: node.headers, nodeTipAt: node.tipAt } : {};
  const saved = await database
    .update(chainCursors)
    .set({ ...position, ...nodeView, checkedAt: at, lastError: null, updatedAt: at })
    .where(
      and(
        eq(chainCursors.network, name),
        eq(chainCursors.leaseOwner, instanceId()),
        eq(chainCursors.scannedBlock, readFrom?.scannedBlock ?? -1),
      ),
    )
    .returning({ network: chainCursors.network });
  if (saved.length === 0) throw new LeaseLostError(name);
  if (readFrom?.lastError) console.error(`deposit watcher ${name}: its node answers again`);
}

/**
 * A failed poll: the node is reported down with this reason until a poll succeeds again. The reason, with
 * whatever detail it has (addresses included), goes to the log when it changes, not on every pass; the
 * public health shows only plain words for it. Only the lease holder writes it.
 */
export async function recordWatcherError(name: string, message: string): Promise<void> {
  const reason = message.slice(0, 500);
  const database = await db();
  const held = and(eq(chainCursors.network, name), eq(chainCursors.leaseOwner, instanceId()));
  const [before] = await database
    .select({ lastError: chainCursors.lastError })
    .from(chainCursors)
    .where(held);
  if (!before) return;
  await database.update(chainCursors).set({ checkedAt: new Date(), lastError: reason }).where(held);
  if (before.lastError !== reason)
    console.error(`deposit watcher ${name}: its node is unavailable: ${reason}`);
}

/**
 * The watcher's push link as this instance sees it, kept on the watcher's row for health while this instance
 * holds the lease. Returns whether it was written.
 */
export async function savePushState(name: string, state: PushState): Promise<boolean> {
  const database = await db();
  const saved = await database
    .update(chainCursors)
    .set({
      pushStatus: state.status,
      pushMissed: state.missed,
      pushNoticeAt: state.lastNoticeAt === null ? null : new Date(state.lastNoticeAt),
    })
    .where(and(eq(chainCursors.network, name), eq(chainCursors.leaseOwner, instanceId())))
    .returning({ network: chainCursors.network });
  return saved.length > 0;
}
