import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { accounts, servers } from "@/lib/db/schema";
import { accountServersRevision } from "@/lib/db/server-revision";
import { createAccount, insertServer, openMemoryDatabase } from "@/lib/testing/memory-db";
import { cachedServerRead } from "./read-cache";

describe("the account's server revision, against the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  async function revisionOf(accountId: number): Promise<number> {
    const [row] = await db
      .select({ revision: accountServersRevision() })
      .from(accounts)
      .where(eq(accounts.id, accountId));
    if (!row) throw new Error("no such account");
    return row.revision;
  }

  const addServer = async (accountId: number) => (await insertServer(db, accountId)).id;

  it("rises with every insert and every update, even one that changes nothing, and only for its account", async () => {
    const owner = await createAccount(db);
    const other = await createAccount(db);
    const seen = [await revisionOf(owner)];
    expect(seen[0]).toBe(0);

    const first = await addServer(owner);
    seen.push(await revisionOf(owner));
    const second = await addServer(owner);
    seen.push(await revisionOf(owner));
    await db.update(servers).set({ status: "active" }).where(eq(servers.id, first));
    seen.push(await revisionOf(owner));
    await db.update(servers).set({ autoRenew: false }).where(eq(servers.id, second)); // already false
    seen.push(await revisionOf(owner));
    // A statement setting the column itself cannot lower it: the trigger decides.
    await db.update(servers).set({ revision: 1 }).where(eq(servers.id, first));
    seen.push(await revisionOf(owner));

    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] as number);
    expect(await revisionOf(other)).toBe(0);
    await addServer(other);
    expect(await revisionOf(owner)).toBe(seen.at(-1));
  });
});

describe("cachedServerRead", () => {
  it("loads once per revision, reloads when it changes, and keeps accounts and keys apart", async () => {
    let loads = 0;
    const load = (value: string) => async () => {
      loads++;
      return value;
    };
    expect(await cachedServerRead(1, 5, "page", load("a"))).toBe("a");
    expect(await cachedServerRead(1, 5, "page", load("b"))).toBe("a");
    expect(loads).toBe(1);
    expect(await cachedServerRead(1, 6, "page", load("c"))).toBe("c");
    expect(await cachedServerRead(2, 6, "page", load("d"))).toBe("d");
    expect(await cachedServerRead(1, 6, "row:1", load("e"))).toBe("e");
    expect(await cachedServerRead(1, 6, "page", load("f"))).toBe("c");
    expect(loads).toBe(4);
  });

  it("does not keep a failed load", async () => {
    await expect(
      cachedServerRead(3, 1, "row:9", async () => {
        throw new Error("database down");
      }),
    ).rejects.toThrow("database down");
    expect(await cachedServerRead(3, 1, "row:9", async () => "loaded")).toBe("loaded");
  });
});
