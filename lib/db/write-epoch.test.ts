import { PGlite } from "@electric-sql/pglite";
import { beforeAll, describe, expect, it } from "vitest";
import { currentWriteEpoch, trackWrites } from "./write-epoch";

describe("write epoch", () => {
  let client: PGlite;
  // Starting an embedded database took 11 s on a loaded 2-core machine: give it the time it needs.
  beforeAll(async () => {
    client = await PGlite.create();
    await client.exec("CREATE TABLE t (id int primary key, v int)");
    trackWrites(client);
  }, 60_000);

  it("stays put for plain reads", async () => {
    const before = currentWriteEpoch();
    await client.query("SELECT * FROM t WHERE id = $1", [1]);
    await client.query("  select 1");
    expect(currentWriteEpoch()).toBe(before);
  });

  it("moves for every statement that may write, before and after it", async () => {
    let before = currentWriteEpoch();
    await client.query("INSERT INTO t VALUES ($1, $2)", [1, 1]);
    expect(currentWriteEpoch()).toBeGreaterThan(before);
    before = currentWriteEpoch();
    await client.query("SELECT * FROM t WHERE id = 1 FOR UPDATE");
    expect(currentWriteEpoch()).toBeGreaterThan(before);
    before = currentWriteEpoch();
    await client.exec("UPDATE t SET v = 2");
    expect(currentWriteEpoch()).toBeGreaterThan(before);
  });

  it("moves around transactions, and is already moved while one runs", async () => {
    const before = currentWriteEpoch();
    let during = before;
    await client.transaction(async (tx) => {
      during = currentWriteEpoch();
      await tx.query("UPDATE t SET v = v + 1");
    });
    expect(during).toBeGreaterThan(before);
    expect(currentWriteEpoch()).toBeGreaterThan(during);
  });

  it("moves even when the write fails", async () => {
    const before = currentWriteEpoch();
    await expect(client.query("INSERT INTO t VALUES (1, 1)")).rejects.toThrow();
    expect(currentWriteEpoch()).toBeGreaterThan(before);
  });
});
