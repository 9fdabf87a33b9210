import "server-only";
import { and, asc, count, eq, isNull, lte, sql } from "drizzle-orm";
import { ApiError, badRequest, conflict, notFound } from "@/lib/api/errors";
import { type Database, db, type Tx } from "@/lib/db/client";
import { ptrRecords } from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import type { ServerRow } from "../present";
import { type ServerReader, serverPart } from "../reads";
import { serverRow } from "../rows";
import {
  canonicalAddress,
  contains,
  defaultPtrName,
  familyOf,
  parseNetwork,
  reverseName,
  reverseZone,
  serverIpv6Address,
} from "./addresses";
import { rdnsSettings } from "./config";
import { forwardConfirm } from "./forward-lookup";
import { ipv6PoolOf } from "./ipv6-pool";
import { ensureZone, writePtr } from "./powerdns";

/**
 * Reverse DNS of a server's addresses, kept in PowerDNS. Each address's PTR is a row (`ptr_records`) saying
 * what DNS should hold, written by a background pass with retries: DNS being down never holds up an order or a
 * change, it shows as `pending` with the reason. A server's IPv4 and the `::1` of its /64 get a generated name
 * when it is built (`198-18-0-10.<RDNS_DEFAULT_DOMAIN>`); its owner may name those and any other address of
 * the /64, once the name resolves forward to that address. When the server's machine is removed its PTRs go
 * back to the generated names (or away, for the other addresses of the /64).
 */

type PtrRow = typeof ptrRecords.$inferSelect;

/** The most PTRs an owner may set on one server. */
export const MAX_CUSTOM_PTRS = 100;

export type PtrView = {
  address: string;
  /** The PTR target; null: the address has none. */
  name: string | null;
  default: boolean;
  state: "applied" | "pending" | "unmanaged";
  reason: string | null;
  updatedAt: Date | null;
};

const managed = () => rdnsSettings().powerdns !== undefined;

/** The server's public IPv4 (a forwarded port's loopback address has no reverse name to set). */
function publicIpv4(row: Pick<ServerRow, "ip">): string | undefined {
  if (!row.ip || familyOf(row.ip) !== 4 || row.ip.startsWith("127.")) return undefined;
  return row.ip;
}

/** The addresses that get a generated name: the IPv4 and the `::1` of the /64. */
function defaultAddresses(row: Pick<ServerRow, "ip" | "ipv6Prefix">): string[] {
  return [publicIpv4(row), row.ipv6Prefix ? serverIpv6Address(row.ipv6Prefix) : undefined].filter(
    (address): address is string => address !== undefined,
  );
}

const zoneLengthOf = (row: ServerRow, address: string) =>
  familyOf(address) === 4 ? 24 : (ipv6PoolOf(row)?.length ?? 48);

const defaultName = (address: string) => defaultPtrName(address, rdnsSettings().defaultDomain);

/** Whether an IPv6 address is the `::1` of its /64: the server's own, which gets a generated name. */
function isFirstOfSlash64(address: string): boolean {
  const network = parseNetwork(`${address}/64`);
  return network !== undefined && serverIpv6Address(`${network.address}/64`) === address;
}

/** The generated name of an address that gets one (an IPv4, the `::1` of a /64), else none. */
const defaultAddressName = (address: string) =>
  familyOf(address) === 4 || isFirstOfSlash64(address) ? defaultName(address) : null;

/** Whether the address is the server's: its IPv4, or inside its /64. */
function ownsAddress(row: ServerRow, address: string): boolean {
  if (familyOf(address) === 4) return publicIpv4(row) === address;
  const prefix = row.ipv6Prefix ? parseNetwork(row.ipv6Prefix) : undefined;
  return prefix !== undefined && contains(prefix, address);
}

/** A change of what DNS should hold: to be written (again) from now on, by the next pass. */
const pendingChange = {
  state: "pending" as const,
  version: sql`${ptrRecords.version} + 1`,
  attempts: 0,
  nextAttemptAt: sql`now()`,
  lastError: null,
  updatedAt: sql`now()`,
};

/**
 * Gives a built server's addresses their generated names where they are not its own already (a reinstall
 * keeps what its owner set). In the build's transaction (kickPtrSync after it commits); nothing when reverse
 * DNS is not managed here.
 */
export async function ensureDefaultPtrs(tx: Tx, row: ServerRow): Promise<void> {
  if (!managed()) return;
  for (const address of defaultAddresses(row)) {
    const values = {
      address,
      serverId: row.id,
      name: defaultName(address),
      custom: false,
      zonePrefixLength: zoneLengthOf(row, address),
    };
    await tx
      .insert(ptrRecords)
      .values(values)
      .onConflictDoUpdate({
        target: ptrRecords.address,
        set: { ...values, ...pendingChange },
        setWhere: sql`${ptrRecords.serverId} IS DISTINCT FROM ${row.id}`,
      });
  }
}

/**
 * The machine is gone: the server's addresses go back to their generated names (the `::1` of its /64 and its
 * IPv4) or lose their PTR (other addresses of the /64), and are no longer the server's.
 */
export async function resetServerPtrs(tx: Tx, serverId: number): Promise<void> {
  const rows = await tx.select().from(ptrRecords).where(eq(ptrRecords.serverId, serverId));
  for (const row of rows) {
    const name = defaultAddressName(row.address);
    await tx
      .update(ptrRecords)
      .set({ serverId: null, name, custom: false, ...(row.name === name ? {} : pendingChange) })
      .where(eq(ptrRecords.id, row.id));
  }
}

function view(address: string, row: PtrRow | undefined): PtrView {
  if (!row) {
    return {
      address,
      name: defaultAddressName(address),
      default: true,
      state: managed() ? "pending" : "unmanaged",
      reason: managed() ? "not written yet" : null,
      updatedAt: null,
    };
  }
  return {
    address,
    name: row.name,
    default: !row.custom,
    state: row.state,
    reason: row.state === "pending" ? (row.lastError ?? "waiting to be written") : null,
    updatedAt: row.updatedAt,
  };
}

async function rowsOf(handle: Database | Tx, serverId: number): Promise<PtrRow[]> {
  return handle
    .select()
    .from(ptrRecords)
    .where(eq(ptrRecords.serverId, serverId))
    .orderBy(asc(ptrRecords.address));
}

export type PtrList = { managed: boolean; records: PtrView[] };

/** The server's row and its PTR rows, these reused until the PTR table is written (see serverPart). */
const ptrsPart = (reader: ServerReader, serverId: number) =>
  serverPart(reader, serverId, "ptrs", ["ptr_records"], async () => rowsOf(await db(), serverId));

/** The server's PTRs: its IPv4's, its `::1`'s, and every other address of its /64 its owner named. */
export async function listPtrs(reader: ServerReader, serverId: number): Promise<PtrList> {
  const { row: server, part } = await ptrsPart(reader, serverId);
  const rows = server.status === "terminated" ? [] : part;
  const byAddress = new Map(rows.map((row) => [row.address, row]));
  const defaults = server.status === "terminated" ? [] : defaultAddresses(server);
  const records = [
    ...defaults.map((address) => view(address, byAddress.get(address))),
    ...rows
      .filter((row) => !defaults.includes(row.address) && row.name !== null)
      .map((row) => view(row.address, row)),
  ];
  return { managed: managed(), records };
}

/** The path's address in canonical form, if it is one of the server's; else 404 (or 400 for no address). */
async function ownAddress(accountId: number, serverId: number, text: string) {
  const server = await serverRow(serverId, { ownedBy: accountId });
  return { server, address: addressOfServer(server, text) };
}

function addressOfServer(server: ServerRow, text: string): string {
  const address = canonicalAddress(text);
  if (!address) throw badRequest("invalid_address", `${text} is not an IPv4 or IPv6 address.`);
  if (server.status === "terminated" || !ownsAddress(server, address)) {
    throw notFound(`Server ${server.id} has no address ${address} (its IPv4, or an address of its /64).`);
  }
  return address;
}

export async function getPtr(reader: ServerReader, serverId: number, text: string): Promise<PtrView> {
  const { row: server, part } = await ptrsPart(reader, serverId);
  const address = addressOfServer(server, text);
  return view(
    address,
    part.find((row) => row.address === address),
  );
}

/** The PTR of the server's `address` as just written (read afresh: the answer to a change). */
async function writtenPtr(serverId: number, address: string): Promise<PtrView> {
  const [row] = await (await db()).select().from(ptrRecords).where(eq(ptrRecords.address, address));
  return view(address, row?.serverId === serverId ? row : undefined);
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** A PTR target as stored: lower case, without the final dot; or undefined when it is not a host name. */
export function normalisePtrName(text: string): string | undefined {
  const name = text.trim().toLowerCase().replace(/\.$/, "");
  return HOST_NAME.test(name) ? name : undefined;
}

const refuseUnmanaged = () => {
  if (!managed()) {
    throw conflict(
      "rdns_unavailable",
      "Reverse DNS is not managed on this deployment (no PowerDNS configured).",
    );
  }
};

/**
 * Sets the PTR of one of the server's addresses, once its name resolves forward to that address (else 422
 * saying what it resolves to). The answer comes after one attempt to write it; `pending` with the reason when
 * DNS did not take it yet (the background pass retries).
 */
export async function setPtr(accountId: number, serverId: number, text: string, nameText: string) {
  refuseUnmanaged();
  const { server, address } = await ownAddress(accountId, serverId, text);
  const name = normalisePtrName(nameText);
  if (!name)
    throw badRequest("invalid_ptr_name", "name must be a fully qualified host name (host.example.com).");
  const settings = rdnsSettings();
  const lookup = await forwardConfirm(name, address, {
    resolvers: settings.resolvers,
    timeoutMs: settings.lookupTimeoutMs,
  });
  if ("unavailable" in lookup) {
    throw new ApiError(
      503,
      "forward_lookup_unavailable",
      `The name could not be checked: ${lookup.reason}. Retry shortly.`,
    );
  }
  if (!lookup.confirmed) {
    throw new ApiError(
      422,
      "ptr_not_forward_confirmed",
      `${lookup.reason}: point it at ${address} first (an ${familyOf(address) === 4 ? "A" : "AAAA"} record), then set the PTR.`,
      { resolved: lookup.addresses },
    );
  }
  const database = await db();
  const id = await database.transaction(async (tx) => {
    const [{ custom } = { custom: 0 }] = await tx
      .select({ custom: count() })
      .from(ptrRecords)
      .where(and(eq(ptrRecords.serverId, serverId), eq(ptrRecords.custom, true)));
    const [existing] = await tx
      .select()
      .from(ptrRecords)
      .where(eq(ptrRecords.address, address))
      .for("update");
    const replacing = existing?.serverId === serverId && existing.custom;
    if (!replacing && custom >= MAX_CUSTOM_PTRS) {
      throw conflict("ptr_limit_reached", `A server may name at most ${MAX_CUSTOM_PTRS} addresses.`);
    }
    const values = { address, serverId, name, custom: true, zonePrefixLength: zoneLengthOf(server, address) };
    const [saved] = await tx
      .insert(ptrRecords)
      .values(values)
      .onConflictDoUpdate({ target: ptrRecords.address, set: { ...values, ...pendingChange } })
      .returning({ id: ptrRecords.id });
    return saved?.id;
  });
  if (id !== undefined) await syncPtrs({ onlyId: id });
  return writtenPtr(serverId, address);
}

/** Gives the address its generated name back (the IPv4 and `::1`), or removes its PTR (other addresses). */
export async function deletePtr(accountId: number, serverId: number, text: string): Promise<PtrView> {
  refuseUnmanaged();
  const { server, address } = await ownAddress(accountId, serverId, text);
  const name = defaultAddressName(address);
  const database = await db();
  const [row] = await database.select().from(ptrRecords).where(eq(ptrRecords.address, address));
  if (row?.serverId === serverId && (row.custom || row.name !== name)) {
    await database
      .update(ptrRecords)
      .set({ name, custom: false, zonePrefixLength: zoneLengthOf(server, address), ...pendingChange })
      .where(eq(ptrRecords.id, row.id));
    await syncPtrs({ onlyId: row.id });
  }
  return writtenPtr(serverId, address);
}

/** A failed write is tried again after this long, doubling to a cap: DNS down for an hour costs little. */
const backoffMs = (attempts: number) => Math.min(5_000 * 2 ** Math.max(0, attempts - 1), 600_000);
/** A write taken but not finished by then (its process died) is taken again. */
const LEASE_MS = 60_000;

/** Takes one due row (or the given one) with SKIP LOCKED, leased for LEASE_MS; the DNS call runs after. */
async function takeDue(onlyId?: number): Promise<PtrRow | undefined> {
  const database = await db();
  return database.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(ptrRecords)
      .where(
        and(
          eq(ptrRecords.state, "pending"),
          onlyId === undefined ? lte(ptrRecords.nextAttemptAt, now()) : eq(ptrRecords.id, onlyId),
        ),
      )
      .orderBy(asc(ptrRecords.nextAttemptAt))
      .limit(1)
      .for("update", { skipLocked: true });
    if (!row) return undefined;
    const [taken] = await tx
      .update(ptrRecords)
      .set({ attempts: row.attempts + 1, nextAttemptAt: new Date(now().getTime() + LEASE_MS) })
      .where(eq(ptrRecords.id, row.id))
      .returning();
    return taken;
  });
}

/** Writes one row to PowerDNS and records the outcome, unless the row changed meanwhile (it is taken again). */
async function writeRow(row: PtrRow): Promise<void> {
  const settings = rdnsSettings();
  const dns = settings.powerdns;
  let error: string | undefined;
  try {
    if (!dns) throw new Error("no PowerDNS is configured");
    const zone = reverseZone(row.address, row.zonePrefixLength);
    await ensureZone(dns, zone, settings.nameservers);
    await writePtr(dns, zone, reverseName(row.address), row.name, settings.ttlSeconds);
  } catch (failure) {
    error = firstLine(failure).slice(0, 300);
  }
  const database = await db();
  const current = and(eq(ptrRecords.id, row.id), eq(ptrRecords.version, row.version));
  if (error === undefined) {
    // An address back in its pool without a name needs no row once DNS forgot it.
    if (row.serverId === null && row.name === null) {
      await database.delete(ptrRecords).where(and(current, isNull(ptrRecords.serverId)));
      return;
    }
    await database
      .update(ptrRecords)
      .set({ state: "applied", appliedAt: now(), lastError: null, attempts: 0 })
      .where(current);
    return;
  }
  console.error(`reverse DNS of ${row.address}: attempt ${row.attempts} failed: ${error}`);
  await database
    .update(ptrRecords)
    .set({ lastError: error, nextAttemptAt: new Date(now().getTime() + backoffMs(row.attempts)) })
    .where(current);
}

/** Writes due PTRs to DNS, up to `max` of them (or only the one given, now, whether due or not). */
export async function syncPtrs(options: { onlyId?: number; max?: number } = {}): Promise<number> {
  if (!managed()) return 0;
  let written = 0;
  while (written < (options.max ?? 50)) {
    const row = await takeDue(options.onlyId);
    if (!row) break;
    await writeRow(row);
    written++;
    if (options.onlyId !== undefined) break;
  }
  return written;
}

/** Starts a pass over due PTRs now (after a build or a termination) rather than at the next tick. */
export function kickPtrSync(): void {
  const state = processWide("servers.rdns.kick", () => ({ running: false, again: false }));
  if (state.running) {
    state.again = true;
    return;
  }
  state.running = true;
  void (async () => {
    try {
      do {
        state.again = false;
        await syncPtrs();
      } while (state.again);
    } catch (error) {
      console.error(`reverse DNS: ${firstLine(error)}`);
    } finally {
      state.running = false;
    }
  })();
}
